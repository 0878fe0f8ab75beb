// Jobs (`/jobs?session=&cursor=`): a session's jobs by id — status, start and end, duration,
// entrypoint (the cluster's text, shown as text), tasks by state (each count a dashboard filter).
import { isAbort } from '../core/api';
import { h, replace } from '../core/dom';
import { count, duration, timeEl } from '../core/format';
import type { Page, PageContext, RouteInfo } from '../core/page';
import type { JobRow, JobsAnswer } from '../core/types';
import { emptyView, setBusy, showError, showLoading } from '../core/views';
import { pager, stateBar } from '../core/widgets';
import { dashHref, scrollWrap, sessionName, span } from './detail/common';
import { jobStatusLabel } from './detail/entities';
import { jobStateCounts } from './detail/jobtasks';

const PAGE_ROWS = 100;

function jobRow(ctx: PageContext, session: string, j: JobRow): HTMLElement {
  const dur = span(j.start_time_ms, j.end_time_ms);
  const tasks = j.tasks;
  return h('tr', { 'data-job-id': j.job_id },
    h('td', null, h('a', { href: ctx.href('/job', { session, job_id: j.job_id }), class: 'mono' }, j.job_id)),
    h('td', null, jobStatusLabel(j.status)),
    h('td', null, timeEl(j.start_time_ms ?? null, { short: true })),
    h('td', null, timeEl(j.end_time_ms ?? null, { short: true })),
    h('td', { class: 'num' }, dur === null ? (j.status === 'RUNNING' ? 'running' : '—') : duration(dur)),
    h('td', { class: 'wrap-cell' }, j.entrypoint ? h('code', null, j.entrypoint) : h('span', { class: 'muted' }, 'unknown')),
    h('td', { class: 'num' }, tasks && tasks.total > 0
      ? h('a', { href: dashHref(ctx, session, { job_id: j.job_id }), 'aria-label': `All ${count(tasks.total)} tasks of job ${j.job_id}` }, count(tasks.total))
      : '0'),
    h('td', { class: 'wrap-cell' }, tasks && tasks.total > 0 ? [stateBar(tasks.by_state), jobStateCounts(ctx, session, j.job_id, tasks.by_state)] : null));
}

export const jobsPage: Page = (root, ctx) => {
  ctx.shell.setTitle('Jobs');
  const sub = h('span', { class: 'sub' });
  const region = h('div', { class: 'list-region' });
  replace(root, h('div', { class: 'page-head' }, h('h1', null, 'Jobs'), sub), region);

  let req = ctx.api.child();
  async function load(route: RouteInfo): Promise<void> {
    req.abort();
    req = ctx.api.child();
    const p = route.params;
    const s = p.get('session');
    sub.textContent = s ? `Session ${sessionName(s)}: every job, by id.` : 'The newest session\'s jobs, by id.';
    showLoading(region, 'Loading jobs…');
    try {
      const ans = await req.get<JobsAnswer & { session?: string }>('jobs', { session: s, cursor: p.get('cursor'), limit: PAGE_ROWS });
      setBusy(region, false);
      const session = ans.session ?? s ?? '';
      if (ans.jobs.length === 0) {
        replace(region, emptyView(p.has('cursor') ? 'No more jobs.' : 'No jobs in this session.',
          h('p', null, 'Ray reports jobs through its driver job definition and lifecycle events. This session sent none (its exporter may leave them out: RAY_DASHBOARD_AGGREGATOR_AGENT_EXPOSABLE_EVENT_TYPES should include them). Tasks still carry their job id: the dashboard\'s job filter and its "By job" panel work without these events.'),
          session ? h('p', null, h('a', { href: dashHref(ctx, session) }, 'See the session\'s tasks')) : null),
        p.has('cursor') ? pager(ctx, null, 'Jobs pages') : null);
        return;
      }
      const table = h('table', { 'aria-label': 'Jobs', class: 'entity-table' },
        h('thead', null, h('tr', null,
          ['Job', 'Status', 'Started', 'Ended'].map((c) => h('th', { scope: 'col' }, c)),
          h('th', { scope: 'col', class: 'num' }, 'Duration'),
          h('th', { scope: 'col' }, 'Entrypoint'),
          h('th', { scope: 'col', class: 'num' }, 'Tasks'),
          h('th', { scope: 'col' }, 'By state'))),
        h('tbody', null, ans.jobs.map((j) => jobRow(ctx, session, j))));
      const showPager = Boolean(ans.next_cursor) || p.has('cursor');
      replace(region, scrollWrap('Jobs', table), showPager ? pager(ctx, ans.next_cursor, 'Jobs pages') : null);
    } catch (e) {
      if (isAbort(e)) return;
      showError(region, e, 'Could not load the jobs');
    }
  }

  void load(ctx.route);
  return {
    update(route) { void load(route); return true; },
    dispose() { req.abort(); },
  };
};
