// Sessions (`/`): every cluster's sessions, newest first, with their tasks by state, first and
// last event, and what the manifests prove about completeness — worded as strongly as the
// numbers allow and no more.
import { isAbort } from '../core/api';
import { h, replace } from '../core/dom';
import { fill } from '../core/morph';
import { count, plural, timeEl, isoUtc } from '../core/format';
import type { Page, PageContext, RouteInfo } from '../core/page';
import type { SessionRow, SessionsAnswer } from '../core/types';
import { emptyView, setBusy, showError, showLoading } from '../core/views';
import { pager, stateBar, statesText } from '../core/widgets';

const STATUS_TEXT: Record<string, string> = {
  live: 'New events arrived within the idle window (indexing.session_idle); counts still change.',
  idle: 'No new object for the idle window: indexed to its end.',
  gone: 'Its objects disappeared from the store; what was indexed is kept until retention removes it.',
  removed: 'Removed from the index; its tasks are no longer held.',
};

/** The manifests' verdict, worded honestly (docs/HISTORY.md, "Missing objects"). */
export function verdict(s: SessionRow): { text: string; bad: boolean; notes: string[] } {
  const notes: string[] = [];
  if (s.status === 'removed' && s.removed) {
    return {
      text: `Removed by ${s.removed.reason} at ${isoUtc(s.removed.time_ms)}: ${s.removed.detail}`,
      bad: false, notes,
    };
  }
  const m = s.manifests;
  let text: string;
  let bad = false;
  if (!m || (m.writers === 0 && m.objects_without_manifest === 0)) {
    text = 'Nothing to check yet';
  } else if (m.writers === 0) {
    text = `Not checkable: ${plural(m.objects_without_manifest, 'object carries', 'objects carry')} no writer manifest (KubeRay's collector writes none)`;
  } else if (m.missing_events > 0) {
    bad = true;
    text = `${plural(m.missing_events, 'event', 'events')} missing (${plural(m.gaps, 'gap', 'gaps')} in the sequences of ${plural(m.writers, 'writer', 'writers')})`;
  } else if (m.gap_events > 0) {
    text = `No objects missing across ${plural(m.writers, 'writer', 'writers')}; ${plural(m.gap_events, 'event was', 'events were')} dropped by the writers and counted`;
  } else {
    text = `No gaps found across ${plural(m.writers, 'writer', 'writers')}`;
  }
  if (m && m.writers > 0 && m.objects_without_manifest > 0) {
    notes.push(`${plural(m.objects_without_manifest, 'object', 'objects')} without a manifest not checked`);
  }
  if (s.status === 'live' && m && m.writers > 0) notes.push('final once idle');
  if ((s.lost_before_export ?? 0) > 0) notes.push(`Ray reported ${plural(s.lost_before_export ?? 0, 'task attempt', 'task attempts')} lost before export`);
  if ((s.bad_objects ?? 0) > 0) notes.push(`${plural(s.bad_objects ?? 0, 'object', 'objects')} could not be read`);
  if ((s.bad_lines ?? 0) > 0) notes.push(`${plural(s.bad_lines ?? 0, 'malformed line', 'malformed lines')} skipped`);
  return { text, bad, notes };
}

function msFromLocalInput(v: string): string | null {
  if (!v) return null;
  const t = new Date(v).getTime();
  return Number.isFinite(t) ? String(t) : null;
}
function localInputFromMs(v: string | null): string {
  if (!v || !/^\d+$/.test(v)) return '';
  const d = new Date(Number(v));
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

function sessionRow(ctx: PageContext, s: SessionRow): HTMLElement {
  const v = verdict(s);
  const link = s.status === 'removed'
    ? h('span', { class: 'mono' }, s.session_name)
    : h('a', { href: ctx.href('/session', { session: s.session }) }, s.session_name);
  const tasks = s.tasks;
  return h('tr', { 'data-session': s.session, 'data-key': s.session },
    h('td', null, link, h('div', { class: 'muted' }, s.cluster)),
    h('td', null, h('span', { class: `status status-${s.status}`, title: STATUS_TEXT[s.status] ?? null }, s.status)),
    h('td', { class: 'num', 'data-label': 'Tasks' }, tasks ? count(tasks.total) : '—'),
    h('td', { class: 'num', 'data-label': 'Attempts' }, tasks ? count(tasks.attempts) : '—'),
    h('td', { class: 'states' }, tasks && tasks.total > 0
      ? [stateBar(tasks.by_state), h('div', { class: 'states-text' }, statesText(tasks.by_state))]
      : h('span', { class: 'muted' }, s.status === 'removed' ? 'tasks removed' : 'no tasks')),
    h('td', { class: 'nowrap', 'data-label': 'First event' }, timeEl(s.first_event_time_ms)),
    h('td', { class: 'nowrap', 'data-label': 'Last event' }, timeEl(s.last_event_time_ms)),
    h('td', { class: 'verdict' },
      h('span', { class: v.bad ? 'verdict-bad' : 'verdict-ok' }, v.text),
      v.notes.length ? h('div', { class: 'states-text' }, v.notes.join('; ')) : null));
}

function emptyState(filtered: boolean): HTMLElement {
  if (filtered) {
    return emptyView('No sessions match these filters.', h('p', null, 'Clear the filters to see every session.'));
  }
  return emptyView('No sessions yet',
    h('p', null, 'This history has not indexed any session from its store. Sessions appear here a poll after their first events reach the store.'),
    h('p', null, 'To send a Ray cluster\'s events: run ray-event-aggregator next to Ray on every node (HTTP ingest on, an object-store sink writing to this history\'s store), and set in the environment of ', h('code', null, 'ray start'), ':'),
    h('pre', null, [
      'RAY_enable_core_worker_ray_event_to_aggregator=1',
      'RAY_enable_ray_event=1',
      'RAY_DASHBOARD_AGGREGATOR_AGENT_EVENTS_EXPORT_ADDR=http://127.0.0.1:8084/v1/events',
      'RAY_DASHBOARD_AGGREGATOR_AGENT_EXPOSABLE_EVENT_TYPES=ALL',
    ].join('\n')),
    h('p', null, 'Or try it with the simulated demo cluster: run ', h('code', null, 'scripts/run'), ' in the repository (the README, "Use with Ray", has the details).'));
}

export const sessionsPage: Page = (root, ctx) => {
  ctx.shell.setTitle('Sessions');
  const clusters = h('datalist', { id: 'f-clusters' });
  const cluster = h('input', { type: 'text', id: 'f-cluster', name: 'cluster', placeholder: 'any cluster', autocomplete: 'off', list: 'f-clusters' });
  const seenClusters = new Set<string>();
  const after = h('input', { type: 'datetime-local', id: 'f-after', name: 'active_after' });
  const before = h('input', { type: 'datetime-local', id: 'f-before', name: 'active_before' });
  const clear = h('button', { type: 'button' }, 'Clear filters');
  const form = h('form', { class: 'toolbar', role: 'search', 'aria-label': 'Filter sessions' },
    h('span', { class: 'field' }, h('label', { for: 'f-cluster' }, 'Cluster'), cluster, clusters),
    h('span', { class: 'field' }, h('label', { for: 'f-after' }, 'Active after'), after),
    h('span', { class: 'field' }, h('label', { for: 'f-before' }, 'Active before'), before),
    h('button', { type: 'submit', class: 'primary' }, 'Apply'), clear);
  const region = h('div', { id: 'sessions-region' });
  replace(root,
    h('div', { class: 'page-head' }, h('h1', null, 'Sessions'),
      h('span', { class: 'sub' }, 'Every Ray session this history has indexed, newest first.')),
    form, region);

  function syncForm(p: URLSearchParams): void {
    cluster.value = p.get('cluster') ?? '';
    after.value = localInputFromMs(p.get('active_after_ms'));
    before.value = localInputFromMs(p.get('active_before_ms'));
  }
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    ctx.navigate({
      cluster: cluster.value.trim() || null,
      active_after_ms: msFromLocalInput(after.value),
      active_before_ms: msFromLocalInput(before.value),
      cursor: null,
    }, { push: true });
  });
  clear.addEventListener('click', () => ctx.navigate({}, { push: true, fresh: true }));

  let req = ctx.api.child();
  let timer = 0;
  async function load(route: RouteInfo, quiet: boolean): Promise<void> {
    req.abort();
    req = ctx.api.child();
    window.clearTimeout(timer);
    const p = route.params;
    if (!quiet) showLoading(region, 'Loading sessions…');
    try {
      const ans = await req.get<SessionsAnswer>('sessions', {
        cluster: p.get('cluster'), active_after_ms: p.get('active_after_ms'),
        active_before_ms: p.get('active_before_ms'), cursor: p.get('cursor'), limit: 50,
      });
      setBusy(region, false);
      for (const s of ans.sessions) {
        if (!seenClusters.has(s.cluster)) clusters.appendChild(h('option', { value: s.cluster }));
        seenClusters.add(s.cluster);
      }
      const filtered = ['cluster', 'active_after_ms', 'active_before_ms', 'cursor'].some((k) => p.has(k));
      if (ans.sessions.length === 0) {
        fill(region, emptyState(filtered), p.has('cursor') ? pager(ctx, null, 'Sessions pages') : null);
        return;
      }
      const table = h('table', { 'aria-label': 'Sessions', class: 'sessions' },
        h('thead', null, h('tr', null,
          h('th', { scope: 'col' }, 'Session'),
          h('th', { scope: 'col' }, 'Status'),
          h('th', { scope: 'col', class: 'num' }, 'Tasks'),
          h('th', { scope: 'col', class: 'num' }, 'Attempts'),
          h('th', { scope: 'col' }, 'By state'),
          h('th', { scope: 'col' }, 'First event'),
          h('th', { scope: 'col' }, 'Last event'),
          h('th', { scope: 'col' }, 'Completeness'))),
        h('tbody', null, ans.sessions.map((s) => sessionRow(ctx, s))));
      const showPager = Boolean(ans.next_cursor) || p.has('cursor');
      fill(region, h('div', { class: 'table-wrap' }, table), showPager ? pager(ctx, ans.next_cursor, 'Sessions pages') : null);
      // Live sessions change: refresh quietly while the tab is visible.
      if (ans.sessions.some((s) => s.status === 'live')) schedule();
    } catch (e) {
      if (isAbort(e)) return;
      showError(region, e, 'Could not load the sessions');
    }
  }
  function schedule(): void {
    timer = window.setTimeout(() => { if (!document.hidden) void load(ctx.route, true); else schedule(); }, 10_000);
  }

  syncForm(ctx.route.params);
  void load(ctx.route, false);
  return {
    update(route) {
      syncForm(route.params);
      void load(route, false);
      return true;
    },
    dispose() {
      req.abort();
      window.clearTimeout(timer);
    },
  };
};
