/**
 * The hash router: `#/<path>?<query>` picks one route of the table (app/routes/index.ts) and draws it in the
 * app's `<main>`, in place of the server-rendered page's. No hash route: the server-rendered page shows. A
 * hash that is not a route (an in-page anchor like `#prices`) is left to the browser.
 */
import { type Child, h, replace } from './dom';
import { type HashLocation, parseHash } from './hash';
import { explain } from './messages';
import type { Session } from './session';

export interface RouteContext {
  session: Session;
  query: URLSearchParams;
  /** Draws the current route again (after a change it made). */
  redraw(): void;
}

export interface AppRoute {
  /** The hash path, `/account` for `#/account`. */
  path: `/${string}`;
  /** The page's heading and the document's title. */
  title: string;
  /** Whether the route needs a signed-in caller (signed out, it shows the sign-in prompt). */
  signedIn: boolean;
  render(ctx: RouteContext): Child | Promise<Child>;
}

/** Where a sign-in should come back to: this page and route. */
export const here = (): string => `${location.pathname}${location.search}${location.hash}`;

/** The prompt every signed-in route shows to a signed-out visitor (DESIGN "Local contract of the site"). */
export function signInPrompt(session: Session | null, what: string): HTMLElement {
  const line = h('p', { class: 'status', role: 'status' });
  const button = h(
    'button',
    {
      type: 'button',
      class: 'primary',
      onclick: () => {
        if (!session) return;
        session.auth.signIn(here()).catch((err) => {
          line.textContent = explain(err);
        });
      },
    },
    'Sign in',
  );
  return h('div', { class: 'card prompt' }, h('p', {}, `Sign in to ${what}.`), button, line);
}

export class Router {
  private readonly pageMains: HTMLElement[];
  private readonly title = document.title;
  private drawing = 0;

  constructor(
    private readonly routes: readonly AppRoute[],
    private readonly root: HTMLElement,
    private readonly session: Session | null,
    private readonly sessionError: unknown = null,
  ) {
    this.pageMains = [...document.querySelectorAll<HTMLElement>('body > main')].filter((m) => m !== root);
  }

  start(): void {
    addEventListener('hashchange', () => void this.draw());
    void this.draw();
  }

  /** The route of the current hash, or null (no hash route, or an in-page anchor). */
  current(): { route: AppRoute | null; at: HashLocation } | null {
    const at = parseHash(location.hash);
    if (!at) return null;
    return { route: this.routes.find((r) => r.path === at.path) ?? null, at };
  }

  async draw(): Promise<void> {
    const found = this.current();
    const showApp = found !== null;
    this.root.hidden = !showApp;
    for (const m of this.pageMains) m.hidden = showApp;
    document.body.dataset.route = found?.route?.path ?? '';
    if (!found) {
      document.title = this.title;
      return;
    }
    const { route, at } = found;
    const ticket = ++this.drawing;
    const heading = h('h1', { tabindex: -1 }, route ? route.title : 'Not found');
    document.title = `${route ? route.title : 'Not found'} · ${this.title}`;
    replace(this.root, heading, h('p', { class: 'muted' }, 'Loading…'));
    let body: Child;
    if (!route) body = h('p', {}, 'There is no such page in the app. ', h('a', { href: '/' }, 'Go to the home page'), '.');
    else if (!this.session) body = h('p', { class: 'status', 'data-tone': 'error' }, explain(this.sessionError));
    else if (route.signedIn && !this.session.signedIn) body = signInPrompt(this.session, route.title.toLowerCase());
    else {
      try {
        body = await route.render({ session: this.session, query: at.query, redraw: () => void this.draw() });
      } catch (err) {
        body = h('p', { class: 'status', 'data-tone': 'error', role: 'alert' }, explain(err));
      }
    }
    if (ticket !== this.drawing) return;
    replace(this.root, heading, body);
    heading.focus({ preventScroll: true });
  }
}
