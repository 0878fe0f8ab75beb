// The interface between the app and its pages. A page is a function that renders into `root` and
// returns a handle; the router disposes it (aborting its requests) when the view changes. A page
// that can follow a change of its own query without being rebuilt (a filter, a sort, a cursor)
// implements update() and returns true, so scroll position and focus stay where the user left them.
import type { Api, Params } from './api';
import type { UiConfig } from './types';

export interface RouteInfo {
  /** The path, e.g. "/session". */
  path: string;
  /** The query: all of a view's state. */
  params: URLSearchParams;
  /** history.state of this entry (the page's own, e.g. a stack of previous cursors). */
  state: unknown;
}

export type ParamUpdate = Record<string, string | number | ReadonlyArray<string> | null | undefined>;

export interface NavigateOptions {
  /** pushState (Back undoes it) instead of replaceState. */
  push?: boolean;
  /** Another path (default: the current one). */
  path?: string;
  /** Start from an empty query instead of the current one. */
  fresh?: boolean;
  /** history.state to store with the entry. */
  state?: unknown;
}

export interface Shell {
  /** Sets document.title (the product name is appended). */
  setTitle(title: string): void;
  /** The live indicator (role=status): text, or null to clear it. */
  setLive(text: string | null, kind?: 'live' | 'behind' | 'idle' | 'error'): void;
}

export interface PageContext {
  /** The current route; replaced (not mutated) before each update(). */
  route: RouteInfo;
  /** This view's API client: its requests are aborted when the view goes. */
  api: Api;
  /** GET /api/history/v1/ui, or the defaults when the binary has no such route. */
  config: UiConfig;
  /** Changes the query (null/undefined/'' remove a key; arrays repeat it) and re-renders. */
  navigate(update: ParamUpdate, opts?: NavigateOptions): void;
  /** A same-origin href for a route and its query. */
  href(path: string, params?: Params): string;
  shell: Shell;
}

export interface PageHandle {
  dispose(): void;
  /** Follows a new query on the same path; false asks the router to rebuild the page. */
  update?(route: RouteInfo): boolean;
}

export type Page = (root: HTMLElement, ctx: PageContext) => PageHandle;
