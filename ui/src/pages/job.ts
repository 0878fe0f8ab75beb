// Job detail (`/job?session=&job_id=`): status, start and end, its definition (entrypoint, driver,
// runtime env, metadata — values the server redacted arrive as •••), its transitions, and its
// tasks by state, each count a door to the dashboard.
import { ApiError, isAbort } from '../core/api';
import { h, replace, type Child } from '../core/dom';
import { count, duration, plural, timeEl } from '../core/format';
import type { Page, PageContext, RouteInfo } from '../core/page';
import { errorView, setBusy, showLoading } from '../core/views';
import { stateBar } from '../core/widgets';
import {
  blank, copyButton, dashHref, dl, jsonPre, nodeLink, notFoundView, redactionNote, runtimeEnvBody, sessionName, span, swapPage, valueTable,
} from './detail/common';
import { jobStatusLabel } from './detail/entities';
import { jobStateCounts } from './detail/jobtasks';
import type { JobDetail, JobTransition } from './detail/types';

function transitionItem(t: JobTransition): HTMLElement {
  const failed = (t.exit_code !== null && t.exit_code !== undefined && t.exit_code !== 0) || Boolean(t.error_type);
  return h('li', { class: failed ? 'st-failed' : t.state === 'FINISHED' ? 'st-finished' : 'st-running', 'data-state': t.state },
    h('strong', null, t.state), h('span', { class: 'when' }, timeEl(t.time_ms)),
    dl([
      ['Exit code', t.exit_code === null || t.exit_code === undefined ? null : String(t.exit_code)],
      ['Error type', t.error_type || null],
      ['Message', t.message ? h('span', { class: 'wrap' }, t.message) : null],
    ], 'kv inline'));
}

function metadataBody(meta: unknown): Child[] {
  if (blank(meta)) return [h('p', { class: 'muted' }, 'No metadata.')];
  if (typeof meta === 'object' && meta !== null && !Array.isArray(meta)) {
    return [valueTable('Job metadata', Object.entries(meta as Record<string, unknown>), 'Key'), redactionNote(meta)];
  }
  return [jsonPre(meta), redactionNote(meta)];
}

function render(ctx: PageContext, j: JobDetail): Child[] {
  ctx.shell.setTitle(`Job ${j.job_id}`);
  const d = j.definition;
  const dur = span(j.start_time_ms, j.end_time_ms);
  const last = j.transitions.length ? j.transitions[j.transitions.length - 1] : null;
  const exit = last && last.exit_code !== null && last.exit_code !== undefined ? last.exit_code : null;
  const tasks = j.tasks;
  return [
    h('p', { class: 'crumbs' }, h('a', { href: ctx.href('/jobs', { session: j.session }), class: 'back' }, h('span', { 'aria-hidden': 'true' }, '← '), 'All jobs')),
    h('div', { class: 'page-head detail-head' },
      h('h1', null, 'Job ', h('span', { class: 'mono' }, j.job_id)),
      h('p', { class: 'sub' }, `Session ${sessionName(j.session)}`)),
    h('p', { class: 'headline' }, jobStatusLabel(j.status),
      j.status === 'UNKNOWN' && !d && j.transitions.length === 0 ? h('span', { class: 'muted' }, 'no job event was indexed: known from its tasks only') : null,
      exit !== null ? h('span', null, `exit code ${exit}`, last?.error_type ? ` (${last.error_type})` : '') : null,
      dur !== null ? h('span', { class: 'muted' }, `ran ${duration(dur)}`) : null),
    dl([
      ['Started', timeEl(j.start_time_ms ?? null)],
      ['Ended', timeEl(j.end_time_ms ?? null)],
      ['Driver node', d ? nodeLink(ctx, j.session, d.driver_node_id) : null],
      ['Driver PID', d?.driver_pid ? String(d.driver_pid) : null],
    ], 'kv facts'),
    h('section', { 'aria-label': 'Tasks', class: 'card' }, h('h2', null, 'Tasks'),
      tasks && tasks.total > 0
        ? [h('p', null, h('a', { href: dashHref(ctx, j.session, { job_id: j.job_id }) }, `All ${plural(tasks.total, 'task', 'tasks')}`),
          typeof tasks.attempts === 'number' ? h('span', { class: 'muted' }, ` · ${count(tasks.attempts)} attempts`) : null),
          stateBar(tasks.by_state, true), jobStateCounts(ctx, j.session, j.job_id, tasks.by_state)]
        : h('p', { class: 'muted' }, 'No task of this job was indexed.')),
    h('section', { 'aria-label': 'Definition', class: 'card' }, h('h2', null, 'Definition'),
      d ? [
        h('h3', null, 'Entrypoint'),
        d.entrypoint ? h('div', { class: 'toolbar' }, h('pre', { class: 'entrypoint' }, d.entrypoint), copyButton(() => d.entrypoint ?? '', 'Copy')) : h('p', { class: 'muted' }, 'None recorded.'),
        h('h3', null, 'Metadata'), metadataBody(d.metadata),
      ] : h('p', { class: 'muted' }, 'No definition event was indexed for this job (the tasks still name it).')),
    h('section', { 'aria-label': 'Runtime environment', class: 'card' }, h('h2', null, 'Runtime environment'),
      d ? runtimeEnvBody(d.runtime_env, 'job') : h('p', { class: 'muted' }, 'Unknown: no definition event was indexed.')),
    h('section', { 'aria-label': 'Transitions', class: 'card' }, h('h2', null, 'Transitions'),
      j.transitions.length
        ? h('ol', { class: 'history', 'aria-label': 'Transitions' }, j.transitions.map(transitionItem))
        : h('p', { class: 'muted' }, 'No lifecycle event was indexed for this job.')),
  ];
}

export const jobPage: Page = (root, ctx) => {
  let req = ctx.api.child();
  async function load(route: RouteInfo): Promise<void> {
    req.abort();
    req = ctx.api.child();
    const p = route.params;
    const session = p.get('session') ?? '';
    const jobId = (p.get('job_id') ?? '').trim();
    ctx.shell.setTitle('Job');
    const back = h('a', { href: ctx.href('/jobs', { session: session || null }) }, 'See every job of this session');
    if (!jobId) {
      replace(root, ...notFoundView('No job named', 'This address names no job (job_id is missing).', back));
      return;
    }
    const region = h('div', { class: 'detail-body' });
    replace(root, h('h1', null, 'Job ', h('span', { class: 'mono' }, jobId)), region);
    showLoading(region, 'Loading the job…');
    try {
      const job = await req.get<JobDetail>('job', { session: session || null, job_id: jobId });
      setBusy(region, false);
      swapPage(root, render(ctx, job));
    } catch (e) {
      if (isAbort(e)) return;
      setBusy(region, false);
      if (e instanceof ApiError && e.status === 404) {
        ctx.shell.setTitle('No such job');
        replace(root, ...notFoundView('No such job in this session',
          `The session ${session ? sessionName(session) : '(the newest)'} has no job ${jobId}: no job event and no task names it.`, back));
        return;
      }
      replace(region, errorView(e, 'Could not load this job'));
    }
  }
  void load(ctx.route);
  return {
    update(route) { void load(route); return true; },
    dispose() { req.abort(); },
  };
};
