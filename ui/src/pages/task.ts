// Task detail (`/task?session=&task_id=&attempt=&q=`): every attempt with its state timeline,
// then the chosen attempt's error (the whole stack trace, `q` highlighted), pending window,
// definition, runtime env, logs and profile spans. The chosen attempt is `attempt` or the
// latest; the others are fetched beside it (one GET each) so every attempt's timeline shows.
// Names, errors, traces and envs are the cluster's text: they reach the DOM only through h().
import { ApiError, isAbort, type Api } from '../core/api';
import { h, highlighted, replace, type Child } from '../core/dom';
import { duration, plural, shortId, timeEl } from '../core/format';
import type { Page, PageContext, RouteInfo } from '../core/page';
import { stateInfo } from '../core/states';
import type { Ranges } from '../core/types';
import { errorView, setBusy, showLoading } from '../core/views';
import { stateLabel } from '../core/widgets';
import {
  actorLink, backToDashboard, blank, copyButton, dashHref, dl, externalLink, headId, jobLink, jsonPre, keyValues, nodeLink, notFoundView, runtimeEnvBody, scrollWrap, sessionName, swapPage, taskLink, type DlItem,
} from './detail/common';
import { grafanaNodeUrl } from './detail/grafana';
import { pendingWindow, segments, timeMsEl, timelineBar, timelineList, type Segment } from './detail/timeline';
import type { ProfileSpan, TaskDetail, TaskLogInfo } from './detail/types';

/** Attempts fetched beside the chosen one; a task retried more often lists the rest by state. */
const MAX_ATTEMPTS_FETCHED = 50;

interface Loaded {
  key: string;
  chosen: TaskDetail;
  /** Every attempt's answer (or why it could not be read), by attempt number. */
  byAttempt: Map<number, TaskDetail | Error>;
}

function validQuery(q: string | null): string | null {
  const t = (q ?? '').trim();
  return [...t].length >= 3 ? t : null;
}

function taskTitle(t: TaskDetail): string {
  return t.definition?.name || t.definition?.function || `Task ${t.task_id.slice(0, 8)}…`;
}

/** Beside the state's label: "after 2 attempts" (FAILED after 2 attempts), "attempt 2 of 2" while it runs. */
function headline(latestState: string, attempts: number): string {
  if (attempts <= 1) return 'in its only attempt';
  if (terminal(latestState) || stateInfo(latestState).inferred) return `after ${plural(attempts, 'attempt', 'attempts')}`;
  return `on attempt ${attempts} of ${attempts}`;
}

function terminal(state: string): boolean {
  return state === 'FINISHED' || state === 'FAILED';
}

/** The API's durations are -1 or null when unknown. */
function knownMs(v: number | null | undefined): v is number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0;
}

function sameDay(a: number | null, b: number | null): boolean {
  return a !== null && b !== null && a > 0 && b > 0 && new Date(a).toDateString() === new Date(b).toDateString();
}

function windowOf(t: TaskDetail): { fromMs: number | null; toMs: number | null } {
  const times = t.transitions.map((x) => x.time_ms).filter((x) => x > 0);
  return { fromMs: times.length ? Math.min(...times) : null, toMs: times.length ? Math.max(...times) : null };
}

function grafanaLink(ctx: PageContext, t: TaskDetail): Child {
  if (!t.node_id) return null;
  const url = grafanaNodeUrl(ctx.config.grafana_url, sessionName(t.session), t.node_id, windowOf(t));
  return url ? externalLink(url, 'Node metrics in Grafana', `Node metrics in Grafana for attempt ${t.attempt} (opens in a new tab)`) : null;
}

/** Node / worker / pid of one attempt, the node a link to the dashboard filtered by it. */
function whereItRan(ctx: PageContext, t: TaskDetail): DlItem[] {
  return [
    ['Node', t.node_id ? [nodeLink(ctx, t.session, t.node_id), ' ', grafanaLink(ctx, t)] : h('span', { class: 'muted' }, 'not assigned')],
    ['Worker', t.worker_id ? shortId(t.worker_id, 8, 6) : null],
    ['PID', t.worker_pid ? String(t.worker_pid) : null],
    ['Actor', t.actor_repr_name ? h('span', { class: 'mono' }, t.actor_repr_name) : null],
    ['Debugger', t.is_debugger_paused ? 'paused in the debugger' : null],
  ];
}

function attemptSection(ctx: PageContext, t: TaskDetail | Error, n: number, chosen: number, scale: number, q: string | null): HTMLElement {
  const selected = n === chosen;
  const head = h('div', { class: 'attempt-head' }, h('h3', { id: `attempt-${n}-h` }, `Attempt ${n}`));
  const sec = h('section', { 'data-attempt': String(n), 'aria-labelledby': `attempt-${n}-h`, class: selected ? 'attempt selected' : 'attempt' }, head);
  if (t instanceof Error) {
    sec.append(errorView(t, `Could not load attempt ${n}`));
    return sec;
  }
  const segs = segments(t.transitions);
  head.append(stateLabel(t.state),
    h('span', { class: 'attempt-span' }, timeEl(t.creation_time_ms), ' → ', terminal(t.raw_state ?? t.state) ? timeEl(t.end_time_ms, { clock: sameDay(t.creation_time_ms, t.end_time_ms) }) : 'no end',
      knownMs(t.total_ms) ? ` (${duration(t.total_ms)})` : ''),
    selected
      ? h('span', { class: 'muted small' }, 'details below')
      : h('a', { href: ctx.href('/task', { session: t.session, task_id: t.task_id, attempt: n, q }) }, `Show attempt ${n}'s details`));
  if (stateInfo(t.state).inferred) {
    sec.append(h('p', { class: 'evidence' }, `Inferred: ${stateInfo(t.state).evidence ?? ''} Last reported state: ${stateInfo(t.raw_state ?? '').label}.`));
  }
  if (segs.length === 0) {
    sec.append(h('p', { class: 'muted' }, 'No state transition was indexed for this attempt.'));
  } else {
    sec.append(timelineBar(segs, scale), timelineList(segs, `State timeline, attempt ${n}`));
  }
  sec.append(h('p', { class: 'attempt-totals' },
    `Pending ${duration(t.pending_ms)} · running ${duration(t.running_ms)} · total ${duration(t.total_ms)}`));
  sec.append(dl(whereItRan(ctx, t), 'kv inline'));
  if (t.error && !selected) {
    sec.append(h('p', { class: 'attempt-error' }, h('span', { class: 'err-type' }, t.error.type ?? 'error'),
      t.error.exception ? [' · ', h('strong', null, t.error.exception)] : null));
  }
  return sec;
}

function errorSection(ctx: PageContext, t: TaskDetail, q: string | null): HTMLElement | null {
  const err = t.error;
  if (!err) return null;
  const message = err.message ?? '';
  const exception = err.exception ?? '';
  const ranges: Ranges | undefined = t.matches?.error_message;
  const links: Child[] = [];
  // "Search this": the dashboard's search (q, 3+ characters) for the exception.
  if ([...exception].length >= 3) {
    links.push(h('a', { href: dashHref(ctx, t.session, { q: exception }) }, 'Search this'));
    links.push(h('a', { href: dashHref(ctx, t.session, { exception }) }, `Tasks with ${exception}`));
  }
  if (err.type) links.push(h('a', { href: dashHref(ctx, t.session, { error_type: err.type }) }, `Tasks with ${err.type}`));
  const nMatches = ranges?.length ?? 0;
  return h('section', { 'aria-label': 'Error', class: 'card error-card' },
    h('h2', null, 'Error', h('span', { class: 'muted' }, ` · attempt ${t.attempt}`)),
    h('p', { class: 'err-head' },
      err.type ? h('span', { class: 'err-type' }, err.type) : null,
      err.type && exception ? ' · ' : null,
      exception ? h('strong', { class: 'exception' }, highlighted(exception, t.matches?.exception)) : null),
    h('div', { class: 'toolbar' }, copyButton(() => message, 'Copy stack trace'), links),
    q ? h('p', { class: 'muted small' }, nMatches > 0
      ? `${plural(nMatches, 'match', 'matches')} of “${q}” highlighted in the message.`
      : `“${q}” is not in this attempt's message.`) : null,
    message
      ? h('pre', { class: 'trace', tabindex: '0', 'aria-label': 'Error message and stack trace' }, highlighted(message, ranges))
      : h('p', { class: 'muted' }, 'Ray sent no error message for this attempt.'));
}

function pendingSection(t: TaskDetail, segs: Segment[]): HTMLElement {
  const win = pendingWindow(segs);
  const body: Child[] = [];
  if (!win) {
    body.push(h('p', { class: 'muted' }, segs.length ? 'It started RUNNING at its first recorded transition: no pending window.' : 'No transitions recorded.'));
  } else {
    // The API's pending duration (µs resolution), else the sum of the pending states' times.
    const waited = win.endMs === null ? null : knownMs(t.pending_ms) ? t.pending_ms : win.parts.reduce((sum, p) => sum + (p.durMs ?? 0), 0);
    body.push(win.endMs === null
      ? h('p', null, 'It never reached RUNNING: it waited from its creation at ', timeMsEl(win.startMs),
        ' until its last recorded state, ', stateLabel(win.parts[win.parts.length - 1].state), '.')
      : h('p', null, h('strong', null, duration(waited)), ' from its creation at ', timeMsEl(win.startMs), ' to RUNNING at ', timeMsEl(win.endMs), '.'));
    const timed = win.parts.filter((p) => p.durMs !== null && p.durMs > 0);
    if (timed.length) {
      body.push(h('ul', { class: 'pending-parts' }, timed.map((p) =>
        h('li', null, stateLabel(p.state), ' ', duration(p.durMs)))));
    }
  }
  body.push(h('p', null, h('strong', null, 'Node and autoscaler events in this window: '),
    'none recorded. ', h('span', { class: 'muted' }, 'This history\'s task answer carries no node or autoscaler events yet.')));
  return h('section', { 'aria-label': 'Pending window', class: 'card' },
    h('h2', null, 'Pending window', h('span', { class: 'muted' }, ` · attempt ${t.attempt}`)), body);
}

function definitionSection(ctx: PageContext, t: TaskDetail): HTMLElement {
  const d = t.definition;
  if (!d) {
    return h('section', { 'aria-label': 'Definition', class: 'card' }, h('h2', null, 'Definition'),
      h('p', { class: 'muted' }, 'No definition event was indexed for this attempt (Ray sends it once per attempt; it may be in an object not read yet, or lost).'));
  }
  const m = t.matches;
  return h('section', { 'aria-label': 'Definition', class: 'card' }, h('h2', null, 'Definition'),
    dl([
      ['Function', d.function ? h('span', { class: 'mono wrap' }, highlighted(d.function, m?.function)) : null],
      ['Name', d.name && d.name !== d.function ? h('span', { class: 'wrap' }, highlighted(d.name, m?.name)) : null],
      ['Type', d.type ?? null],
      ['Language', d.language ?? null],
      ['Job', jobLink(ctx, t.session, t.job_id)],
      ['Resources', keyValues(d.required_resources)],
      ['Label selector', keyValues(d.label_selector, ' = ')],
      ['Placement group', d.placement_group_id ? h('span', { class: 'mono wrap' }, d.placement_group_id) : null],
      ['Parent task', taskLink(ctx, t.session, d.parent_task_id)],
      ['Actor', d.actor_id ? [actorLink(ctx, t.session, d.actor_id), d.is_detached_actor ? ' (detached)' : null] : null],
      ['Call site', d.call_site ? h('pre', { class: 'call-site' }, d.call_site) : null],
    ]));
}

function runtimeEnvSection(t: TaskDetail): HTMLElement {
  return h('section', { 'aria-label': 'Runtime environment', class: 'card' }, h('h2', null, 'Runtime environment'),
    t.definition ? runtimeEnvBody(t.definition.runtime_env, 'task') : h('p', { class: 'muted' }, 'Unknown: no definition event was indexed.'));
}

function byteRange(start?: number, end?: number): string {
  if (start === undefined && end === undefined) return '';
  return ` (bytes ${start ?? '?'}–${end ?? '?'})`;
}

function logsSection(ctx: PageContext, t: TaskDetail, info: TaskLogInfo): HTMLElement {
  const files: Child[] = [];
  if (info.stdout_file) files.push(h('li', null, 'stdout: ', h('code', null, info.stdout_file), byteRange(info.stdout_start, info.stdout_end)));
  if (info.stderr_file) files.push(h('li', null, 'stderr: ', h('code', null, info.stderr_file), byteRange(info.stderr_start, info.stderr_end)));
  return h('section', { 'aria-label': 'Logs', class: 'card' }, h('h2', null, 'Logs'),
    h('p', null, 'Ray wrote this attempt\'s output on node ', nodeLink(ctx, t.session, t.node_id) ?? 'unknown', ' to:'),
    files.length ? h('ul', null, files) : h('p', { class: 'muted' }, 'No file names were reported, only offsets.'),
    h('p', { class: 'muted' }, 'The files are in the session\'s logs directory on that node (by default ',
      h('code', null, `/tmp/ray/${sessionName(t.session)}/logs/`), '). This history keeps no log contents; while the cluster is up, ',
      h('code', null, `ray logs task --id ${t.task_id} --attempt-number ${t.attempt}`), ' prints them.'));
}

function nsToMs(ns: string): number | null {
  return /^\d+$/.test(ns) ? Number(BigInt(ns) / 1000n) / 1000 : null;
}

function profileSection(spans: ProfileSpan[]): HTMLElement {
  const rows = spans.map((s) => ({ s, start: nsToMs(s.start_time_ns), end: nsToMs(s.end_time_ns) }))
    .sort((a, b) => (a.start ?? 0) - (b.start ?? 0));
  return h('section', { 'aria-label': 'Profile spans', class: 'card' }, h('h2', null, 'Profile spans'),
    scrollWrap('Profile spans', h('table', { 'aria-label': 'Profile spans', class: 'compact' },
      h('thead', null, h('tr', null, ['Event', 'Component', 'Start', 'Duration', 'Node IP', 'Extra data'].map((c) =>
        h('th', { scope: 'col', class: c === 'Duration' ? 'num' : null }, c)))),
      h('tbody', null, rows.map(({ s, start, end }) => h('tr', null,
        h('td', { class: 'mono' }, s.event_name),
        h('td', null, [s.component_type, s.component_id].filter(Boolean).join(' ')),
        h('td', { class: 'nowrap' }, start !== null ? timeMsEl(start) : '—'),
        h('td', { class: 'num' }, start !== null && end !== null ? duration(end - start) : '—'),
        h('td', { class: 'mono' }, s.node_ip_address || '—'),
        h('td', null, blank(s.extra_data) ? '—' : jsonPre(s.extra_data))))))));
}

function render(ctx: PageContext, data: Loaded, q: string | null): Child[] {
  const t = data.chosen;
  const list = [...t.attempts].sort((a, b) => a.attempt - b.attempt);
  const latest = list.length ? list[list.length - 1] : { attempt: t.attempt, state: t.state };
  const title = taskTitle(t);
  ctx.shell.setTitle(`${title} · task`);
  const maxTotal = Math.max(1e-9, ...[...data.byAttempt.values()].map((a) => (a instanceof Error || !knownMs(a.total_ms) ? 0 : a.total_ms)));
  const attemptSections = list.map((a) => {
    const ans = data.byAttempt.get(a.attempt);
    if (!ans) {
      return h('section', { 'data-attempt': String(a.attempt), class: 'attempt', 'aria-labelledby': `attempt-${a.attempt}-h` },
        h('div', { class: 'attempt-head' }, h('h3', { id: `attempt-${a.attempt}-h` }, `Attempt ${a.attempt}`), stateLabel(a.state),
          h('a', { href: ctx.href('/task', { session: t.session, task_id: t.task_id, attempt: a.attempt, q }) }, `Show attempt ${a.attempt}`)),
        h('p', { class: 'muted' }, `Not loaded here: only ${MAX_ATTEMPTS_FETCHED} attempts are drawn at once.`));
    }
    // Bars compare attempts: each as wide as its total against the longest (an unknown total: full width).
    const scale = ans instanceof Error || !knownMs(ans.total_ms) ? 1 : ans.total_ms / maxTotal;
    return attemptSection(ctx, ans, a.attempt, t.attempt, scale, q);
  });
  const segs = segments(t.transitions);
  const name = t.definition?.name || t.definition?.function;
  return [
    h('p', { class: 'crumbs' }, backToDashboard(ctx, t.session, { q })),
    h('div', { class: 'page-head detail-head' },
      h('h1', null, name ? highlighted(name, t.matches?.name) : title),
      h('p', { class: 'sub' }, 'Task ', h('span', { class: 'mono wrap' }, highlighted(t.task_id, t.matches?.task_id)), ' ',
        copyButton(() => t.task_id, 'Copy id'))),
    h('p', { class: 'headline' }, stateLabel(latest.state), ' ', h('span', null, headline(latest.state, list.length)),
      list.length > 1 && t.attempt !== latest.attempt ? h('span', { class: 'muted' }, ` · showing attempt ${t.attempt}'s details`) : null),
    dl([
      ['Job', jobLink(ctx, t.session, t.job_id)],
      ['Type', t.definition?.type ?? null],
      ...whereItRan(ctx, t),
      ['Created', timeEl(t.creation_time_ms)],
      ['Total', duration(t.total_ms)],
    ], 'kv facts'),
    h('section', { 'aria-label': 'Attempts', class: 'attempts' },
      h('h2', null, list.length === 1 ? 'Attempt' : `Attempts (${list.length})`), attemptSections),
    errorSection(ctx, t, q),
    pendingSection(t, segs),
    h('div', { class: 'detail-grid' }, definitionSection(ctx, t), runtimeEnvSection(t)),
    t.task_log_info && !blank(t.task_log_info) ? logsSection(ctx, t, t.task_log_info) : null,
    t.profile && t.profile.length ? profileSection(t.profile) : null,
  ];
}

async function fetchAll(api: Api, session: string, taskId: string, attempt: string | null, q: string | null): Promise<Loaded> {
  const params = { session, task_id: taskId, q };
  const chosen = await api.get<TaskDetail>('task', { ...params, attempt });
  const byAttempt = new Map<number, TaskDetail | Error>([[chosen.attempt, chosen]]);
  const others = (chosen.attempts ?? []).map((a) => a.attempt).filter((n) => n !== chosen.attempt)
    .sort((a, b) => b - a).slice(0, MAX_ATTEMPTS_FETCHED - 1);
  const answers = await Promise.all(others.map((n) => api.get<TaskDetail>('task', { ...params, attempt: n })
    .catch((e: unknown) => {
      if (isAbort(e)) throw e;
      return e instanceof Error ? e : new Error(String(e));
    })));
  others.forEach((n, i) => byAttempt.set(n, answers[i]));
  return { key: '', chosen, byAttempt };
}

export const taskPage: Page = (root, ctx) => {
  let req = ctx.api.child();
  let loaded: Loaded | null = null;

  function keyOf(p: URLSearchParams): string {
    return `${p.get('session') ?? ''}\n${p.get('task_id') ?? ''}\n${validQuery(p.get('q')) ?? ''}`;
  }

  async function load(route: RouteInfo): Promise<void> {
    req.abort();
    req = ctx.api.child();
    const p = route.params;
    const session = p.get('session') ?? '';
    const taskId = (p.get('task_id') ?? '').trim();
    const q = validQuery(p.get('q'));
    if (!taskId) {
      ctx.shell.setTitle('Task');
      replace(root, ...notFoundView('No task named', 'This address names no task (task_id is missing).',
        session ? backToDashboard(ctx, session) : h('a', { href: '/' }, 'Go to the sessions')));
      return;
    }
    ctx.shell.setTitle('Task');
    const region = h('div', { class: 'detail-body' });
    replace(root, h('p', { class: 'crumbs' }, session ? backToDashboard(ctx, session, { q }) : null), h('h1', null, 'Task ', headId(taskId)), region);
    showLoading(region, 'Loading the task and its attempts…');
    try {
      const data = await fetchAll(req, session, taskId, p.get('attempt'), q);
      data.key = keyOf(p);
      loaded = data;
      setBusy(region, false);
      swapPage(root, render(ctx, data, q));
    } catch (e) {
      if (isAbort(e)) return;
      setBusy(region, false);
      if (e instanceof ApiError && e.status === 404) {
        ctx.shell.setTitle('No such task');
        const attempt = p.get('attempt');
        replace(root, ...notFoundView('No such task in this session',
          `The session ${session ? sessionName(session) : '(the newest)'} has no task ${taskId}${attempt ? ` with attempt ${attempt}` : ''}.`,
          session ? backToDashboard(ctx, session) : h('a', { href: '/' }, 'Go to the sessions')));
        return;
      }
      replace(region, errorView(e, 'Could not load this task'));
    }
  }

  void load(ctx.route);
  return {
    update(route) {
      // Another attempt of the same task (same search): every attempt is already here.
      const p = route.params;
      if (loaded && loaded.key === keyOf(p)) {
        const want = p.get('attempt');
        const n = want === null ? Math.max(...loaded.chosen.attempts.map((a) => a.attempt)) : Number(want);
        const ans = loaded.byAttempt.get(n);
        if (ans && !(ans instanceof Error)) {
          loaded = { ...loaded, chosen: ans };
          replace(root, ...render(ctx, loaded, validQuery(p.get('q'))));
          // The link that was clicked is gone: the chosen attempt's heading takes the focus.
          const heading = root.querySelector<HTMLElement>(`section[data-attempt="${n}"] h3`);
          if (heading) {
            heading.setAttribute('tabindex', '-1');
            heading.focus({ preventScroll: true });
            heading.scrollIntoView({ block: 'nearest' });
          }
          return true;
        }
      }
      void load(route);
      return true;
    },
    dispose() {
      req.abort();
    },
  };
};
