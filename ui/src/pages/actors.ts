// Actors (`/actors?session=&state=&job_id=&class_name=&cursor=`): a session's actors by id, filtered
// by state, job and class (each in the URL, removable as chips), paged with the API's cursor.
import { isAbort } from '../core/api';
import { h, replace } from '../core/dom';
import { count, duration, timeEl } from '../core/format';
import type { Page, PageContext, RouteInfo } from '../core/page';
import type { ActorRow, ActorsAnswer } from '../core/types';
import { emptyView, setBusy, showError, showLoading } from '../core/views';
import { pager } from '../core/widgets';
import { dashHref, headId, jobLink, scrollWrap, sessionName, span } from './detail/common';
import { ACTOR_STATES, actorStateLabel, filterChips } from './detail/entities';

const PAGE_ROWS = 100;
const FILTERS = [
  { key: 'state', name: 'state' },
  { key: 'job_id', name: 'job' },
  { key: 'class_name', name: 'class' },
];

function actorRow(ctx: PageContext, session: string, a: ActorRow): HTMLElement {
  const life = span(a.start_time_ms, a.end_time_ms);
  return h('tr', { 'data-actor-id': a.actor_id },
    h('td', null, h('a', { href: ctx.href('/actor', { session, actor_id: a.actor_id }) },
      a.name ? a.name : headId(a.actor_id)),
    a.name ? h('div', { class: 'muted' }, headId(a.actor_id)) : null),
    h('td', { class: 'wrap-cell' }, a.class_name ? h('span', { class: 'mono' }, a.class_name) : '—'),
    h('td', null, actorStateLabel(a.state)),
    h('td', null, jobLink(ctx, session, a.job_id) ?? '—'),
    h('td', { class: 'num' }, typeof a.restarts === 'number' ? count(a.restarts) : '—'),
    h('td', null, timeEl(a.start_time_ms ?? null, { short: true })),
    h('td', null, timeEl(a.end_time_ms ?? null, { short: true })),
    h('td', { class: 'num' }, life === null ? (a.start_time_ms && !a.end_time_ms ? 'still alive' : '—') : duration(life)),
    h('td', null, h('a', { href: dashHref(ctx, session, { actor_id: a.actor_id }), 'aria-label': `Tasks of actor ${a.name || a.actor_id}` }, 'Tasks')));
}

export const actorsPage: Page = (root, ctx) => {
  ctx.shell.setTitle('Actors');
  const stateSel = h('select', { id: 'f-astate', name: 'state' },
    h('option', { value: '' }, 'Any state'), ACTOR_STATES.map((s) => h('option', { value: s }, s.replace(/_/g, ' '))));
  const jobIn = h('input', { type: 'text', id: 'f-ajob', name: 'job_id', placeholder: 'any job', autocomplete: 'off', spellcheck: 'false', size: 12 });
  const classIn = h('input', { type: 'text', id: 'f-aclass', name: 'class_name', placeholder: 'any class', autocomplete: 'off', spellcheck: 'false' });
  const form = h('form', { class: 'toolbar filters-form', role: 'search', 'aria-label': 'Filter actors' },
    h('span', { class: 'field' }, h('label', { for: 'f-astate' }, 'State'), stateSel),
    h('span', { class: 'field' }, h('label', { for: 'f-ajob' }, 'Job'), jobIn),
    h('span', { class: 'field' }, h('label', { for: 'f-aclass' }, 'Class'), classIn),
    h('button', { type: 'submit', class: 'primary' }, 'Apply'));
  const chipBar = h('div', { class: 'toolbar chipbar' });
  const sub = h('span', { class: 'sub' });
  const region = h('div', { class: 'list-region' });
  replace(root, h('div', { class: 'page-head' }, h('h1', null, 'Actors'), sub), form, chipBar, region);

  function syncForm(p: URLSearchParams): void {
    stateSel.value = ACTOR_STATES.includes(p.get('state') ?? '') ? (p.get('state') ?? '') : '';
    jobIn.value = p.get('job_id') ?? '';
    classIn.value = p.get('class_name') ?? '';
    const session = p.get('session');
    sub.textContent = session ? `Session ${sessionName(session)}: every actor, by id.` : 'The newest session\'s actors, by id.';
    replace(chipBar, filterChips(ctx, FILTERS));
  }
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    ctx.navigate({ state: stateSel.value || null, job_id: jobIn.value.trim() || null, class_name: classIn.value.trim() || null, cursor: null },
      { push: true, state: null });
  });
  // A state is one choice: it applies at once.
  stateSel.addEventListener('change', () => ctx.navigate({ state: stateSel.value || null, cursor: null }, { push: true, state: null }));

  let req = ctx.api.child();
  async function load(route: RouteInfo): Promise<void> {
    req.abort();
    req = ctx.api.child();
    const p = route.params;
    showLoading(region, 'Loading actors…');
    try {
      const ans = await req.get<ActorsAnswer & { session?: string }>('actors', {
        session: p.get('session'), state: p.get('state'), job_id: p.get('job_id'), class_name: p.get('class_name'),
        cursor: p.get('cursor'), limit: PAGE_ROWS,
      });
      setBusy(region, false);
      const session = ans.session ?? p.get('session') ?? '';
      const filtered = FILTERS.some((f) => p.get(f.key));
      if (ans.actors.length === 0) {
        replace(region, filtered
          ? emptyView('No actors match these filters.', h('p', null, 'Remove a filter above to see more.'))
          : emptyView(p.has('cursor') ? 'No more actors.' : 'No actors in this session.',
            h('p', null, 'Ray reports actors through its actor definition and lifecycle events. This session sent none: it may have run only tasks, or its exporter left actor events out (RAY_DASHBOARD_AGGREGATOR_AGENT_EXPOSABLE_EVENT_TYPES should include them).'),
            session ? h('p', null, h('a', { href: dashHref(ctx, session) }, 'See the session\'s tasks')) : null),
        p.has('cursor') ? pager(ctx, null, 'Actors pages') : null);
        return;
      }
      const table = h('table', { 'aria-label': 'Actors', class: 'entity-table' },
        h('thead', null, h('tr', null,
          ['Actor', 'Class', 'State', 'Job'].map((c) => h('th', { scope: 'col' }, c)),
          h('th', { scope: 'col', class: 'num' }, 'Restarts'),
          h('th', { scope: 'col' }, 'Started'), h('th', { scope: 'col' }, 'Ended'),
          h('th', { scope: 'col', class: 'num' }, 'Lifetime'), h('th', { scope: 'col' }, 'Tasks'))),
        h('tbody', null, ans.actors.map((a) => actorRow(ctx, session, a))));
      const showPager = Boolean(ans.next_cursor) || p.has('cursor');
      replace(region, scrollWrap('Actors', table), showPager ? pager(ctx, ans.next_cursor, 'Actors pages') : null);
    } catch (e) {
      if (isAbort(e)) return;
      showError(region, e, 'Could not load the actors');
    }
  }

  syncForm(ctx.route.params);
  void load(ctx.route);
  return {
    update(route) {
      syncForm(route.params);
      void load(route);
      return true;
    },
    dispose() {
      req.abort();
    },
  };
};
