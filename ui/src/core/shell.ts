// The app shell: header (product name, the main nav, the live indicator) and <main>. The nav's
// session links appear inside a session (any route with ?session=).
import { h, replace } from './dom';
import type { Shell } from './page';

export const PRODUCT = 'ray-task-history';

export interface ShellParts extends Shell {
  main: HTMLElement;
  /** Re-draws the nav for a path and its session (null outside one). */
  setNav(path: string, session: string | null): void;
}

export function buildShell(body: HTMLElement): ShellParts {
  const nav = h('nav', { 'aria-label': 'Main', class: 'main-nav' });
  const live = h('p', { role: 'status', class: 'live', 'aria-live': 'polite' });
  const main = h('main', { id: 'main', tabindex: '-1' });
  const header = h('header', { class: 'app-header' },
    h('a', { href: '#main', class: 'skip' }, 'Skip to content'),
    h('a', { href: '/', class: 'brand' }, PRODUCT),
    nav, live);
  replace(body, header, main);

  let lastNav = '';
  function link(label: string, href: string, current: boolean): HTMLElement {
    return h('li', null, h('a', { href, 'aria-current': current ? 'page' : null }, label));
  }

  return {
    main,
    setNav(path, session) {
      const key = `${path}\n${session ?? ''}`;
      if (key === lastNav) return;
      lastNav = key;
      const items = [link('Sessions', '/', path === '/')];
      if (session) {
        const q = `?session=${encodeURIComponent(session)}`;
        items.push(
          link('Dashboard', `/session${q}`, path === '/session' || path === '/task'),
          link('Actors', `/actors${q}`, path === '/actors' || path === '/actor'),
          link('Jobs', `/jobs${q}`, path === '/jobs' || path === '/job'));
      }
      replace(nav, h('ul', null, items));
    },
    setTitle(title) {
      document.title = title ? `${title} · ${PRODUCT}` : PRODUCT;
    },
    setLive(text, kind = 'live') {
      live.textContent = text ?? '';
      live.className = text ? `live live-${kind}` : 'live';
    },
  };
}
