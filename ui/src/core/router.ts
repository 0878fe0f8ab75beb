// Path routes (ui-contract §2) with all state in the query. Links are real <a href>: a plain
// left click on a same-origin route link is intercepted (pushState + render); middle click,
// modifier clicks and "open in new tab" go to the browser. popstate re-renders.
import { Api, toSearch, type Params } from './api';
import { h, replace } from './dom';
import type { NavigateOptions, Page, PageContext, PageHandle, ParamUpdate, RouteInfo } from './page';
import type { ShellParts } from './shell';
import { DEFAULT_UI_CONFIG, type UiConfig } from './types';
import { emptyView, showLoading } from './views';

export function href(path: string, params?: Params): string {
  const qs = toSearch(params).toString();
  return qs ? `${path}?${qs}` : path;
}

export function applyUpdate(base: URLSearchParams, update: ParamUpdate): URLSearchParams {
  const next = new URLSearchParams(base);
  for (const [k, v] of Object.entries(update)) {
    next.delete(k);
    if (v === null || v === undefined || v === '') continue;
    if (Array.isArray(v)) for (const item of v as ReadonlyArray<string>) next.append(k, item);
    else next.append(k, String(v));
  }
  return next;
}

export class Router {
  private handle: PageHandle | null = null;
  private path = '';
  private api: Api | null = null;
  private ctx: PageContext | null = null;
  private config: UiConfig = DEFAULT_UI_CONFIG;
  private configReady = false;

  /**
   * eager: paths whose pages do not read ctx.config and so mount at once; the others wait for the
   * UI configuration (one small request) so that they see the real one from their first render.
   */
  constructor(
    private readonly routes: Record<string, Page>,
    private readonly shell: ShellParts,
    private readonly root: Api,
    private readonly configLoaded: Promise<UiConfig>,
    private readonly eager: ReadonlySet<string> = new Set(),
  ) {
    void configLoaded.then((c) => {
      this.config = c;
      this.configReady = true;
    });
  }

  start(): void {
    window.addEventListener('popstate', () => this.render(false));
    document.addEventListener('click', (e) => this.onClick(e));
    this.render(false);
  }

  private current(): RouteInfo {
    return { path: location.pathname, params: new URLSearchParams(location.search), state: history.state as unknown };
  }

  navigate(update: ParamUpdate, opts: NavigateOptions = {}): void {
    const path = opts.path ?? location.pathname;
    const base = opts.fresh ? new URLSearchParams() : new URLSearchParams(location.search);
    const url = href(path, applyUpdate(base, update));
    // The same address again (a search submitted twice) is no new history entry.
    const same = url === location.pathname + location.search;
    if (opts.push && !same) history.pushState(opts.state ?? null, '', url);
    else history.replaceState(opts.state === undefined ? (history.state as unknown) : opts.state, '', url);
    this.render(path !== this.path);
  }

  private onClick(e: MouseEvent): void {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    const a = (e.target as Element | null)?.closest?.('a');
    if (!a || !a.hasAttribute('href') || a.hasAttribute('download') || (a.target && a.target !== '_self')) return;
    const url = new URL(a.href, location.href);
    if (url.origin !== location.origin || !(url.pathname in this.routes)) return;
    if (url.hash && url.pathname === location.pathname && url.search === location.search) return; // in-page anchor
    e.preventDefault();
    history.pushState(null, '', url.pathname + url.search);
    this.render(true);
  }

  /** Renders the current location; fresh: a new page was opened (scroll to top, focus the h1). */
  render(fresh: boolean): void {
    const route = this.current();
    this.shell.setNav(route.path, route.params.get('session'));
    if (this.handle && route.path === this.path && this.handle.update && this.ctx) {
      this.ctx.route = route;
      if (this.handle.update(route)) return;
    }
    this.handle?.dispose();
    this.api?.abort();
    this.handle = null;
    this.path = route.path;
    this.shell.setLive(null);
    const page = this.routes[route.path];
    const main = this.shell.main;
    replace(main);
    main.removeAttribute('aria-busy');
    if (!page) {
      this.shell.setTitle('Not found');
      replace(main, h('h1', null, 'Page not found'),
        emptyView(`There is no page at ${route.path}.`, h('p', null, h('a', { href: '/' }, 'Go to the sessions'))));
      return;
    }
    if (!this.configReady && !this.eager.has(route.path)) {
      const url = location.href;
      showLoading(main, 'Loading…');
      void this.configLoaded.then(() => { if (location.href === url && !this.handle) this.render(fresh); });
      return;
    }
    this.api = this.root.child();
    const ctx: PageContext = {
      route,
      api: this.api,
      config: this.config,
      navigate: (update, opts) => this.navigate(update, opts),
      href,
      shell: this.shell,
    };
    this.ctx = ctx;
    this.handle = page(main, ctx);
    if (fresh) {
      window.scrollTo(0, 0);
      const h1 = main.querySelector('h1');
      if (h1) {
        h1.setAttribute('tabindex', '-1');
        h1.focus({ preventScroll: true });
      }
    }
  }
}
