/**
 * The few event-emitter methods the live client offers (`on`, `once`, `off`, `emit`), without `node:events`,
 * so the client runs unchanged in browsers. Unlike Node's emitter, an `error` event with no listener is not
 * thrown: the live client keeps its errors in a list instead.
 */

// biome-ignore lint/suspicious/noExplicitAny: listeners take whatever their event carries, as with Node's emitter.
type Listener = (...args: any[]) => void;

export class Emitter {
  private readonly listeners = new Map<string, Listener[]>();

  on(event: string, listener: Listener): this {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
    return this;
  }

  once(event: string, listener: Listener): this {
    const wrapped: Listener = (...args) => {
      this.off(event, wrapped);
      listener(...args);
    };
    return this.on(event, wrapped);
  }

  off(event: string, listener: Listener): this {
    const list = this.listeners.get(event);
    if (list)
      this.listeners.set(
        event,
        list.filter((l) => l !== listener),
      );
    return this;
  }

  /** Calls the event's listeners in order (a copy: listeners may remove themselves); true when there were any. */
  emit(event: string, ...args: unknown[]): boolean {
    const list = this.listeners.get(event) ?? [];
    for (const listener of [...list]) listener(...args);
    return list.length > 0;
  }

  listenerCount(event: string): number {
    return this.listeners.get(event)?.length ?? 0;
  }
}
