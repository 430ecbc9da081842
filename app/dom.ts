/**
 * The app's few DOM helpers: elements are built from text and properties, never from HTML strings, so no
 * value the API answers (an item or device name, an e-mail) can become markup.
 */

export type Child = Node | string | number | null | undefined | false;
type Handler = (event: Event) => void;
export type Props = Record<string, string | number | boolean | Handler | null | undefined>;

/** An element: `on…` props are listeners, `true`/`false` toggle boolean attributes, anything else is an attribute. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.slice(2).toLowerCase(), value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

/** Appends children, skipping empty ones (so `cond && node` reads naturally). */
export function append(parent: Node, children: readonly Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    parent.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
}

/** Replaces an element's children. */
export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** A labelled field: the label names the control, so a reader (and a test) finds it by its name. */
export function field(label: string, input: HTMLInputElement | HTMLSelectElement, hint?: string): HTMLElement {
  const id = input.id || `f-${label.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  input.id = id;
  const hintEl = hint ? h('p', { class: 'hint', id: `${id}-hint` }, hint) : null;
  if (hintEl) input.setAttribute('aria-describedby', hintEl.id);
  return h('div', { class: 'field' }, h('label', { for: id }, label), input, hintEl);
}

/** A status line that screen readers announce when its text changes. */
export function status(): HTMLParagraphElement {
  return h('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
}

/** Shows a message in a status line: `error` styles it as a problem (still a sentence, never raw JSON). */
export function say(line: HTMLElement, text: string, tone: 'info' | 'error' | 'ok' = 'info'): void {
  line.textContent = text;
  line.dataset.tone = tone;
}

/** Formats a Unix ms time for people, in their own locale and zone. */
export const when = (ms: number): string => new Date(ms).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** A card section with a heading. */
export const section = (title: string, ...children: Child[]): HTMLElement => h('section', { class: 'card' }, h('h2', {}, title), ...children);
