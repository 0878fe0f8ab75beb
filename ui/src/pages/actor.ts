// Actor detail (`/actor?session=&actor_id=`): its state, class, name, job and restarts, how it
// died in words, its state history (node, worker, pid, repr, restart reason, death cause per
// transition), its definition and runtime env, and a door to its tasks on the dashboard.
import { ApiError, isAbort } from '../core/api';
import { h, replace, type Child } from '../core/dom';
import { count, duration, plural, shortId, timeEl } from '../core/format';
import type { Page, PageContext, RouteInfo } from '../core/page';
import type { TaskCountAnswer } from '../core/types';
import { errorView, setBusy, showLoading } from '../core/views';
import {
  blank, copyButton, dashHref, dl, headId, jobLink, keyValues, nodeLink, notFoundView, runtimeEnvBody, sessionName, span, swapPage, taskLink,
} from './detail/common';
import { actorStateLabel, deathCauseWords, restartReasonText } from './detail/entities';
import type { ActorDetail, ActorTransition } from './detail/types';

function transitionItem(ctx: PageContext, session: string, t: ActorTransition): HTMLElement {
  const cause = t.death_cause !== undefined ? deathCauseWords(t.death_cause) : null;
  const state = t.state ?? 'UNKNOWN';
  return h('li', { class: `st-${state === 'DEAD' ? 'failed' : state === 'ALIVE' ? 'finished' : 'sched'}`, 'data-state': state },
    actorStateLabel(state), h('span', { class: 'when' }, timeEl(t.time_ms)),
    dl([
      ['Node', nodeLink(ctx, session, t.node_id)],
      ['Worker', t.worker_id ? shortId(t.worker_id, 8, 6) : null],
      ['PID', t.pid ? String(t.pid) : null],
      ['Port', t.port ? String(t.port) : null],
      ['Repr', t.repr_name ? h('span', { class: 'mono wrap' }, t.repr_name) : null],
      ['Restart reason', state === 'RESTARTING' ? restartReasonText(t.restart_reason) : null],
    ], 'kv inline'),
    cause ? h('div', { class: 'death' }, h('p', null, h('strong', null, 'Death cause: '), cause.summary)) : null);
}

function render(ctx: PageContext, a: ActorDetail, taskCount: number | null): Child[] {
  const d = a.definition;
  const cls = d?.class_name || 'Actor';
  ctx.shell.setTitle(`${cls} · actor`);
  const life = span(a.start_time_ms, a.end_time_ms);
  const cause = deathCauseWords(a.death_cause);
  const tasksHref = dashHref(ctx, a.session, { actor_id: a.actor_id });
  const restarts = a.restarts ?? 0;
  return [
    h('p', { class: 'crumbs' }, h('a', { href: ctx.href('/actors', { session: a.session }), class: 'back' }, h('span', { 'aria-hidden': 'true' }, '← '), 'All actors')),
    h('div', { class: 'page-head detail-head' },
      h('h1', null, cls, d?.name ? h('span', { class: 'muted' }, ` “${d.name}”`) : null),
      h('p', { class: 'sub' }, 'Actor ', h('span', { class: 'mono wrap' }, a.actor_id), ' ', copyButton(() => a.actor_id, 'Copy id'))),
    h('p', { class: 'headline' }, actorStateLabel(a.state),
      h('span', null, restarts > 0 ? `restarted ${plural(restarts, 'time', 'times')}` : 'never restarted'),
      life !== null ? h('span', { class: 'muted' }, `lived ${duration(life)}`) : null),
    cause ? h('section', { 'aria-label': 'Death cause', class: 'card error-card' }, h('h2', null, 'How it died'),
      h('p', null, cause.summary), cause.details) : null,
    dl([
      ['Job', jobLink(ctx, a.session, d?.job_id)],
      ['Namespace', d?.ray_namespace || null],
      ['Detached', d ? (d.is_detached ? 'yes' : 'no') : null],
      ['Started', timeEl(a.start_time_ms ?? null)],
      ['Ended', timeEl(a.end_time_ms ?? null)],
      ['Restarts', count(restarts)],
    ], 'kv facts'),
    h('section', { 'aria-label': 'Tasks', class: 'card' }, h('h2', null, 'Tasks'),
      taskCount === 0
        ? h('p', { class: 'muted' }, 'No task of this actor was indexed.')
        : h('p', null, h('a', { href: tasksHref },
          taskCount === null ? 'This actor\'s tasks on the dashboard' : `${plural(taskCount, 'task', 'tasks')} of this actor on the dashboard`))),
    h('section', { 'aria-label': 'State history', class: 'card' }, h('h2', null, 'State history'),
      a.transitions.length
        ? h('ol', { class: 'history', 'aria-label': 'State history' }, a.transitions.map((t) => transitionItem(ctx, a.session, t)))
        : h('p', { class: 'muted' }, 'No lifecycle event was indexed for this actor.')),
    h('div', { class: 'detail-grid' },
      h('section', { 'aria-label': 'Definition', class: 'card' }, h('h2', null, 'Definition'),
        d ? dl([
          ['Class', h('span', { class: 'mono wrap' }, d.class_name || '—')],
          ['Name', d.name || null],
          ['Namespace', d.ray_namespace || null],
          ['Job', jobLink(ctx, a.session, d.job_id)],
          ['Resources', keyValues(d.required_resources)],
          ['Label selector', blank(d.label_selector) ? null : keyValues(d.label_selector, ' = ')],
          ['Placement group', d.placement_group_id ? h('span', { class: 'mono wrap' }, d.placement_group_id) : null],
          ['Created by task', /^[0-9a-f]{48}$/i.test(d.parent_id ?? '') ? taskLink(ctx, a.session, d.parent_id) : (d.parent_id ? h('span', { class: 'mono' }, d.parent_id) : null)],
          ['Call site', d.call_site ? h('pre', { class: 'call-site' }, d.call_site) : null],
        ]) : h('p', { class: 'muted' }, 'No definition event was indexed for this actor.')),
      h('section', { 'aria-label': 'Runtime environment', class: 'card' }, h('h2', null, 'Runtime environment'),
        d ? runtimeEnvBody(d.runtime_env, 'actor') : h('p', { class: 'muted' }, 'Unknown: no definition event was indexed.'))),
  ];
}

export const actorPage: Page = (root, ctx) => {
  let req = ctx.api.child();
  async function load(route: RouteInfo): Promise<void> {
    req.abort();
    req = ctx.api.child();
    const p = route.params;
    const session = p.get('session') ?? '';
    const actorId = (p.get('actor_id') ?? '').trim();
    ctx.shell.setTitle('Actor');
    const back = h('a', { href: ctx.href('/actors', { session: session || null }) }, 'See every actor of this session');
    if (!actorId) {
      replace(root, ...notFoundView('No actor named', 'This address names no actor (actor_id is missing).', back));
      return;
    }
    const region = h('div', { class: 'detail-body' });
    replace(root, h('h1', null, 'Actor ', headId(actorId)), region);
    showLoading(region, 'Loading the actor…');
    try {
      // The count is a nicety: the page shows without it.
      const countP = req.get<TaskCountAnswer>('tasks/count', { session: session || null, actor_id: actorId })
        .then((c) => c.total, (e: unknown) => { if (isAbort(e)) throw e; return null; });
      const [actor, taskCount] = await Promise.all([req.get<ActorDetail>('actor', { session: session || null, actor_id: actorId }), countP]);
      setBusy(region, false);
      swapPage(root, render(ctx, actor, taskCount));
    } catch (e) {
      if (isAbort(e)) return;
      setBusy(region, false);
      if (e instanceof ApiError && e.status === 404) {
        ctx.shell.setTitle('No such actor');
        replace(root, ...notFoundView('No such actor in this session',
          `The session ${session ? sessionName(session) : '(the newest)'} has no actor ${actorId}.`, back));
        return;
      }
      replace(region, errorView(e, 'Could not load this actor'));
    }
  }
  void load(ctx.route);
  return {
    update(route) { void load(route); return true; },
    dispose() { req.abort(); },
  };
};
