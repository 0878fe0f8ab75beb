// Small pieces several pages draw: the thin stacked state bar with its text, the state label,
// and keyset paging with a stack of previous cursors kept in history.state.
import { h, type Child } from './dom';
import { count } from './format';
import type { PageContext } from './page';
import { orderedStates, stateClass, stateInfo } from './states';
import type { ByState } from './types';

/** A state name with its colour swatch; the exact state is the text. */
export function stateLabel(state: string, extra?: Child): HTMLElement {
  const info = stateInfo(state);
  return h('span', { class: stateClass(state), title: info.evidence ? `Inferred: ${info.evidence}` : null }, info.label, extra ?? null);
}

/** A thin stacked bar of states (decorative: the same numbers are in text beside it). */
export function stateBar(byState: ByState | undefined, big = false): HTMLElement {
  const entries = orderedStates(byState);
  const total = entries.reduce((s, [, n]) => s + n, 0);
  const bar = h('div', { class: big ? 'bar big' : 'bar', 'aria-hidden': 'true' });
  for (const [info, n] of entries) {
    const seg = h('span', { class: stateClass(info.state), title: `${info.label} ${count(n)}` });
    // Width through the CSSOM: CSP allows it, where a style attribute would be refused.
    seg.style.width = `${(100 * n) / Math.max(1, total)}%`;
    bar.appendChild(seg);
  }
  return bar;
}

/** "FINISHED 28,549 · FAILED 1,451" */
export function statesText(byState: ByState | undefined): string {
  return orderedStates(byState).map(([info, n]) => `${info.label} ${count(n)}`).join(' · ');
}

interface CursorState { cursors?: unknown }

/** The previous pages' cursors ('' for the first page) kept with this history entry. */
export function cursorStack(state: unknown): string[] {
  const c = (state as CursorState | null)?.cursors;
  return Array.isArray(c) ? c.filter((x): x is string => typeof x === 'string') : [];
}

/**
 * Next / Previous / First page buttons over a keyset cursor in the URL (`cursor=`). The handlers
 * read the route and the next cursor (data-cursor) when clicked, so a refresh that updates the
 * buttons in place never leaves them pointing at an old page.
 */
export function pager(ctx: PageContext, nextCursor: string | null | undefined, label: string): HTMLElement {
  const onFirst = !ctx.route.params.get('cursor');
  const first = h('button', { type: 'button', disabled: onFirst }, 'First page');
  const prev = h('button', { type: 'button', disabled: onFirst }, 'Previous page');
  const next = h('button', { type: 'button', disabled: !nextCursor, 'data-cursor': nextCursor ?? null }, 'Next page');
  first.addEventListener('click', () => ctx.navigate({ cursor: null }, { push: true, state: null }));
  prev.addEventListener('click', () => {
    const stack = cursorStack(ctx.route.state);
    // Without a stack (a pasted link), Previous can only go to the first page.
    const before = stack.length ? stack[stack.length - 1] : '';
    ctx.navigate({ cursor: before || null }, { push: true, state: { cursors: stack.slice(0, -1) } });
  });
  next.addEventListener('click', () => {
    const cursor = next.getAttribute('data-cursor');
    const current = ctx.route.params.get('cursor') ?? '';
    if (cursor) ctx.navigate({ cursor }, { push: true, state: { cursors: [...cursorStack(ctx.route.state), current] } });
  });
  return h('nav', { class: 'pager', 'aria-label': label }, first, prev, next);
}
