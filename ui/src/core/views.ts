// Designed states: loading (aria-busy on the region), error (role=alert: what happened and what to
// do), empty (what to do next).
import { ApiError } from './api';
import { h, replace, type Child } from './dom';

export function setBusy(region: Element, busy: boolean): void {
  if (busy) region.setAttribute('aria-busy', 'true');
  else region.removeAttribute('aria-busy');
}

/** Puts a quiet loading line into region and marks it busy. */
export function showLoading(region: Element, what = 'Loading…'): void {
  setBusy(region, true);
  replace(region, h('p', { class: 'loading' }, h('span', { class: 'spinner', 'aria-hidden': 'true' }), what));
}

export function errorText(e: unknown): { what: string; todo: string } {
  if (e instanceof ApiError) return { what: e.message, todo: e.advice };
  return { what: e instanceof Error ? e.message : String(e), todo: 'Reload the page to try again.' };
}

/** An error box (role=alert) saying what happened and what to do. */
export function errorView(e: unknown, title = 'Could not load this view'): HTMLElement {
  const { what, todo } = errorText(e);
  return h('div', { class: 'notice error', role: 'alert' },
    h('p', { class: 'notice-title' }, title),
    h('p', null, what),
    todo ? h('p', null, todo) : null);
}

export function showError(region: Element, e: unknown, title?: string): void {
  setBusy(region, false);
  replace(region, errorView(e, title));
}

export function emptyView(title: string, ...body: Child[]): HTMLElement {
  return h('div', { class: 'notice empty', role: 'status' }, h('p', { class: 'notice-title' }, title), ...body);
}
