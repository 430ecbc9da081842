/**
 * A port with something around each of its calls: the adapters' translation of SDK failures
 * (shared/store/dependency-failure.ts `atPort`) and the local runtime's outage switches (lib/local/control/faults.ts)
 * are both this, so a port keeps one shape whichever adapter or fake stands behind it.
 */

/** What runs a port's call (`method` names it): may refuse it, or look at its failure; must answer what the call answers. */
export type Around = (call: () => unknown, method: string) => unknown;

/** Values a port hands out that are data, not a part of the port: never wrapped. */
const isData = (v: object): boolean =>
  Array.isArray(v) || ArrayBuffer.isView(v) || v instanceof Map || v instanceof Set || v instanceof Date || v instanceof Promise;

/**
 * `port` with every method (those of its parts too, e.g. `market.pages.meta`) run through `around`. Methods run
 * on the port itself (`this` is the unwrapped object), so its inner calls do not pass `around` again.
 */
export function aroundPort<T extends object>(port: T, around: Around): T {
  const parts = new WeakMap<object, object>();
  const wrap = <O extends object>(target: O): O =>
    new Proxy(target, {
      get(t, key) {
        const value: unknown = Reflect.get(t, key, t);
        if (typeof value === 'function' && key !== 'constructor') return (...args: unknown[]) => around(() => value.apply(t, args), String(key));
        if (value !== null && typeof value === 'object' && !isData(value)) {
          const known = parts.get(value);
          if (known) return known;
          const part = wrap(value);
          parts.set(value, part);
          return part;
        }
        return value;
      },
    });
  return wrap(port);
}
