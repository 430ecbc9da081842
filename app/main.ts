/**
 * The app's entry, loaded (as a module, so deferred) by every server-rendered page: it adds the signed-in
 * parts to the header and draws the hash routes (app/routes/) in a `<main>` of its own. It carries no
 * stylesheet: the pages' one stylesheet (shared/pages/style.ts) already styles it.
 */
import { h } from './dom';
import { drawNav } from './nav';
import { Router } from './router';
import { ROUTES } from './routes';
import { type Session, startSession } from './session';

async function start(): Promise<void> {
  const root = h('main', { id: 'app', hidden: true, class: 'app' });
  const header = document.querySelector('header.site');
  (header ?? document.body.firstChild)?.after(root);
  if (!root.isConnected) document.body.prepend(root);
  let session: Session | null = null;
  let failure: unknown = null;
  try {
    session = await startSession(location.origin);
  } catch (err) {
    failure = err;
  }
  const router = new Router(ROUTES, root, session, failure);
  const nav = document.querySelector('header.site nav');
  const redrawNav = () => nav && drawNav(nav, session, router.current() !== null);
  addEventListener('hashchange', redrawNav);
  session?.auth.onChange(async () => {
    await session?.refresh();
    redrawNav();
    await router.draw();
  });
  redrawNav();
  router.start();
}

void start();
