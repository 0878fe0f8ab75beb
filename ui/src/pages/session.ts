// The session dashboard (`/session`): summary strip, group panels, task table; every number a
// filter (ui-contract §3). All state is in the URL; update() follows a new query without
// rebuilding, and a live session refreshes in place every few seconds while the tab is visible.
import { ApiError, getToken, isAbort } from '../core/api';
import { h, replace } from '../core/dom';
import { ago, count, timeEl, timeText } from '../core/format';
import type { Page, ParamUpdate, RouteInfo } from '../core/page';
import type { CountsAnswer, GroupRow, GroupsAnswer, JobsAnswer, SessionRow, SessionsAnswer, TaskCountAnswer, TasksAnswer } from '../core/types';
import { emptyView, setBusy, showError, showLoading } from '../core/views';
import { pager } from '../core/widgets';
import { GROUPS, renderPanelTable, type GroupBy } from './dashboard/groups';
import {
  activeStates, aggregateKey, chips, clearFilters, countKey, countParams, exportParams, listFilters, listParams,
  readState, tableKey, type DashState,
} from './dashboard/params';
import { fill } from '../core/morph';
import { saveBlob } from './dashboard/regions';
import { renderSummary, unitWord } from './dashboard/summary';
import { COLUMNS, DEFAULT_COLUMNS, defaultOrder, renderTaskTable, shownColumns } from './dashboard/table';

const PAGE_ROWS = 50;
const GROUP_ROWS = 10;
const POLL_MS = 4000;

interface PanelData { rows: GroupRow[]; next: string | null }

export const sessionPage: Page = (root, ctx) => {
  let route: RouteInfo = ctx.route;
  let st: DashState = readState(route.params);

  if (!st.session) return pickNewest();

  // --- skeleton --------------------------------------------------------------------------
  const title = h('h1', null, st.session.split('/').pop() ?? st.session);
  const sub = h('p', { class: 'sub' }, st.session.split('/').slice(0, -1).join('/'));
  const radios = (['tasks', 'attempts'] as const).map((u) => h('input', { type: 'radio', name: 'unit', value: u, id: `unit-${u}` }));
  const unitGroup = h('div', { role: 'radiogroup', 'aria-label': 'Count', class: 'radios' },
    radios.map((r) => h('label', { for: r.id }, r, r.value === 'tasks' ? 'Tasks' : 'Attempts')));
  const jobSelect = h('select', { id: 'f-job', 'aria-label': 'Job' }, h('option', { value: '' }, 'All jobs'));
  const durSelect = h('select', { id: 'f-dur', 'aria-label': 'Duration' },
    h('option', { value: 'total' }, 'Total duration'),
    h('option', { value: 'pending' }, 'Pending duration'),
    h('option', { value: 'running' }, 'Running duration'));
  const search = h('input', { type: 'search', id: 'f-q', 'aria-label': 'Search tasks', placeholder: 'Search names, errors, stack traces, ids  ( / )', enterkeyhint: 'search', autocomplete: 'off', spellcheck: 'false' });
  const searchMsg = h('span', { class: 'inline-msg', id: 'q-msg', 'aria-live': 'polite' });
  search.setAttribute('aria-describedby', 'q-msg');
  const searchForm = h('form', { role: 'search', class: 'field search' }, search, h('button', { type: 'submit' }, 'Search'), searchMsg);
  const chipList = h('ul', { 'aria-label': 'Active filters', class: 'chips' });
  const chipBar = h('div', { class: 'toolbar chipbar' }, chipList);
  const summary = h('section', { 'aria-label': 'Summary', class: 'summary' });
  const panelRegions = new Map<GroupBy, HTMLElement>();
  const panels = h('div', { class: 'panels' }, GROUPS.map((g) => {
    const region = h('div', { class: 'panel-body' });
    panelRegions.set(g.by, region);
    return h('section', { 'aria-label': g.title, class: 'panel' }, h('h2', null, g.title), region);
  }));
  const total = h('span', { 'data-testid': 'task-total', class: 'muted' });
  const colMenu = h('div', { class: 'menu' });
  const columns = h('details', { class: 'columns' }, h('summary', null, 'Columns'), colMenu);
  const exportCsv = h('a', { href: '#', class: 'button', 'data-action': 'export', 'data-format': 'csv' }, 'Export CSV');
  const exportNd = h('a', { href: '#', class: 'button', 'data-action': 'export', 'data-format': 'ndjson' }, 'Export NDJSON');
  const tableRegion = h('div', { class: 'table-region' });
  const tableSection = h('section', { 'aria-labelledby': 'tasks-h', class: 'table-section' },
    h('div', { class: 'table-head' }, h('h2', { id: 'tasks-h', tabindex: '-1' }, 'Tasks'), total, columns, exportCsv, exportNd),
    tableRegion);
  replace(root,
    h('div', { class: 'page-head' }, title, sub),
    h('a', { href: '#tasks-h', class: 'skip' }, 'Skip to the task table'),
    h('div', { class: 'toolbar controls' },
      h('span', { class: 'field' }, h('span', { class: 'muted', 'aria-hidden': 'true' }, 'Count'), unitGroup),
      h('span', { class: 'field' }, h('label', { for: 'f-job' }, 'Job'), jobSelect),
      h('span', { class: 'field' }, h('label', { for: 'f-dur' }, 'Histograms'), durSelect),
      searchForm),
    chipBar, summary, panels, tableSection);
  ctx.shell.setTitle(title.textContent ?? 'Session');

  // --- data ------------------------------------------------------------------------------
  let session: SessionRow | null = null;
  let counts: CountsAnswer | null = null;
  let otherCounts: CountsAnswer | null = null;
  const groupData = new Map<GroupBy, PanelData>();
  let tasks: TasksAnswer | null = null;
  let taskTotal: number | null = null;
  let aggKey = '', tabKey = '', cntKey = '';
  let aggReq = ctx.api.child(), tabReq = ctx.api.child(), cntReq = ctx.api.child();
  let pollTimer = 0;
  let disposed = false;
  const jobOptions = new Map<string, string>();

  function nav(update: ParamUpdate, push = true): void {
    ctx.navigate(update, { push });
  }

  // --- rendering from cache --------------------------------------------------------------
  function syncControls(): void {
    for (const r of radios) r.checked = r.value === st.unit;
    durSelect.value = st.dur;
    if (document.activeElement !== search) search.value = st.q;
    renderJobSelect();
    const c = chips(route.params);
    fill(chipList, c.map((chip, i) => h('li', { 'data-key': `${chip.name}=${chip.value}` },
      h('button', { type: 'button', 'data-action': 'chip', 'data-index': i, 'aria-label': `Remove filter ${chip.name}: ${chip.value}` },
        `${chip.name}: ${chip.value}`))));
    chipBar.hidden = c.length === 0;
    if (c.length > 1 && !chipBar.querySelector('[data-action="clear"]')) {
      chipBar.appendChild(h('button', { type: 'button', class: 'link', 'data-action': 'clear' }, 'Clear all filters'));
    } else if (c.length <= 1) chipBar.querySelector('[data-action="clear"]')?.remove();
    const ex = (f: 'csv' | 'ndjson') => ctx.api.url('export', exportParams(route.params, f));
    exportCsv.setAttribute('href', ex('csv'));
    exportNd.setAttribute('href', ex('ndjson'));
    renderColumnMenu();
  }

  function renderJobSelect(): void {
    if (st.jobId && !jobOptions.has(st.jobId)) jobOptions.set(st.jobId, st.jobId);
    const opts = [h('option', { value: '' }, 'All jobs'),
      ...Array.from(jobOptions.entries()).map(([id, label]) => h('option', { value: id, 'data-key': id }, label))];
    fill(jobSelect, opts);
    jobSelect.value = st.jobId ?? '';
  }

  function renderColumnMenu(): void {
    const shown = new Set(shownColumns(st.cols).map((c) => c.id));
    fill(colMenu, COLUMNS.map((c) => h('label', { 'data-key': c.id },
      h('input', { type: 'checkbox', 'data-action': 'col', value: c.id, checked: shown.has(c.id) }), c.label)));
  }

  function renderSummaryRegion(): void {
    if (!counts) return;
    if (counts.total === 0 && counts.tasks === 0) {
      fill(summary, emptyView(st.jobId ? 'No tasks of this job are indexed.' : 'No tasks indexed yet.',
        h('p', null, session?.status === 'live'
          ? 'This session is live and still being indexed: its tasks appear here as their events reach the store (this view refreshes every few seconds).'
          : 'The session has events but none of them described a task.')));
      return;
    }
    const filtered = listFilters(route.params).toString() !== (st.jobId ? `job_id=${encodeURIComponent(st.jobId)}` : '') || st.q !== '';
    fill(summary, h('h2', { class: 'visually-hidden' }, 'Summary'), renderSummary(counts, otherCounts, activeStates(route.params), st.jobId, filtered));
  }

  function renderPanel(by: GroupBy): void {
    const region = panelRegions.get(by);
    const data = groupData.get(by);
    if (!region || !data) return;
    const meta = GROUPS.find((g) => g.by === by);
    if (data.rows.length === 0) {
      fill(region, h('p', { class: 'muted' }, `No ${unitWord(st.unit, 2)} to group.`));
      return;
    }
    const param = meta?.param ?? by;
    fill(region,
      h('div', { class: 'table-wrap' }, renderPanelTable(by, data.rows, {
        unit: st.unit, dur: st.dur, activeKey: route.params.get(param), activeStates: activeStates(route.params),
      })),
      data.next ? h('p', { class: 'more' }, h('button', { type: 'button', 'data-action': 'more', 'data-by': by }, `Show ${GROUP_ROWS} more`)) : null);
  }

  function renderTable(): void {
    if (!tasks) return;
    if (tasks.tasks.length === 0) {
      fill(tableRegion, emptyView(st.cursor ? 'No more tasks on this page.' : `No ${unitWord(st.unit, 2)} match these filters.`,
        h('p', null, 'Remove a filter above, or ', h('button', { type: 'button', class: 'link', 'data-action': 'clear' }, 'clear all filters'), '.')),
      st.cursor ? pager(ctx, null, 'Task pages') : null);
      return;
    }
    const table = renderTaskTable(tasks.tasks, {
      columns: shownColumns(st.cols), sort: st.sort, order: st.order,
      taskHref: (t) => ctx.href('/task', { session: st.session, task_id: t.task_id, attempt: t.attempt, q: st.q || null }),
    });
    fill(tableRegion, h('div', { class: 'table-wrap' }, table), pager(ctx, tasks.next_cursor, 'Task pages'));
  }

  function renderTotal(): void {
    if (taskTotal === null) { total.textContent = ''; total.removeAttribute('data-count'); return; }
    total.setAttribute('data-count', String(taskTotal));
    const filtered = listFilters(route.params).toString() !== '' || st.q !== '';
    total.textContent = `${count(taskTotal)} ${unitWord(st.unit, taskTotal)}${filtered ? ' match' : ''}`;
  }

  // --- loading ---------------------------------------------------------------------------
  async function loadAggregates(quiet: boolean): Promise<void> {
    aggReq.abort();
    aggReq = ctx.api.child();
    const req = aggReq;
    const base = { session: st.session, unit: st.unit === 'attempts' ? 'attempts' : null, job_id: st.jobId };
    if (!quiet) {
      if (!counts) showLoading(summary, 'Counting tasks…'); else setBusy(summary, true);
      for (const [by, region] of panelRegions) if (!groupData.has(by)) showLoading(region, 'Grouping…'); else setBusy(region, true);
    }
    const countsP = req.get<CountsAnswer>('counts', base).then((c) => {
      counts = c;
      setBusy(summary, false);
      renderSummaryRegion();
    }, (e: unknown) => {
      if (isAbort(e)) return;
      if (isFatal(e)) showFatal(e);
      else showError(summary, e, 'Could not count the tasks');
    });
    if (!quiet) otherCounts = null;
    // The other unit's counts after the first ones: the browser opens 6 connections at most, and
    // the summary and the panels come first.
    const otherP = countsP.then(() => req.get<CountsAnswer>('counts', { ...base, unit: st.unit === 'attempts' ? null : 'attempts' })).then((c) => {
      otherCounts = c;
      renderSummaryRegion();
    }, () => { /* the other unit is a nicety: its total is in the counts anyway */ });
    const panelsP = GROUPS.map(async (g) => {
      const region = panelRegions.get(g.by);
      if (!region) return;
      const shown = quiet ? Math.max(GROUP_ROWS, groupData.get(g.by)?.rows.length ?? 0) : GROUP_ROWS;
      try {
        const ans = await req.get<GroupsAnswer>('groups', { ...base, by: g.by, limit: shown });
        groupData.set(g.by, { rows: ans.groups, next: ans.next_cursor ?? null });
        setBusy(region, false);
        renderPanel(g.by);
        if (g.by === 'job' && jobOptions.size === 0) for (const r of ans.groups) if (r.key) jobOptions.set(r.key, r.key);
      } catch (e) {
        if (!isAbort(e)) showError(region, e, `Could not load ${g.title.toLowerCase()}`);
      }
    });
    await Promise.allSettled([countsP, otherP, ...panelsP]);
    renderJobSelect();
  }

  async function loadCount(): Promise<void> {
    cntReq.abort();
    cntReq = ctx.api.child();
    try {
      const ans = await cntReq.get<TaskCountAnswer>('tasks/count', countParams(route.params));
      taskTotal = ans.total;
      renderTotal();
    } catch (e) {
      if (isAbort(e)) return;
      taskTotal = null;
      total.textContent = 'total unknown';
    }
  }

  async function loadTable(quiet: boolean): Promise<void> {
    tabReq.abort();
    tabReq = ctx.api.child();
    if (!quiet) {
      if (!tasks) showLoading(tableRegion, 'Loading tasks…'); else setBusy(tableRegion, true);
    }
    try {
      tasks = await tabReq.get<TasksAnswer>('tasks', listParams(route.params, PAGE_ROWS));
      setBusy(tableRegion, false);
      renderTable();
    } catch (e) {
      if (isAbort(e)) return;
      if (e instanceof ApiError && e.status === 400 && /cursor/.test(e.apiMsg)) {
        showError(tableRegion, e, 'This page of the table cannot be shown');
        tableRegion.appendChild(h('p', null, h('button', { type: 'button', 'data-action': 'first' }, 'Go to the first page')));
        return;
      }
      showError(tableRegion, e, 'Could not load the tasks');
    }
  }

  async function loadSession(): Promise<void> {
    const slash = st.session.lastIndexOf('/');
    const params = slash > 0 ? { cluster: st.session.slice(0, slash), limit: 1000 } : { limit: 1000 };
    try {
      const ans = await ctx.api.get<SessionsAnswer>('sessions', params);
      session = ans.sessions.find((s) => s.session === st.session || s.session_name === st.session) ?? null;
    } catch (e) {
      if (isAbort(e)) return;
      session = null;
    }
    renderSessionInfo();
    renderSummaryRegion();
  }

  async function loadJobs(): Promise<void> {
    try {
      const ans = await ctx.api.get<JobsAnswer>('jobs', { session: st.session, limit: 500 });
      if (ans.jobs.length) jobOptions.clear();
      for (const j of ans.jobs) {
        const ep = j.entrypoint ? ` · ${j.entrypoint.length > 40 ? `${j.entrypoint.slice(0, 40)}…` : j.entrypoint}` : '';
        jobOptions.set(j.job_id, `${j.job_id}${j.status ? ` (${j.status})` : ''}${ep}`);
      }
      renderJobSelect();
    } catch { /* the job filter still works with the ids seen in the panel */ }
  }

  function renderSessionInfo(): void {
    if (!session) { ctx.shell.setLive(null); return; }
    const s = session;
    replace(sub, s.cluster, ' · ', h('span', { class: `status status-${s.status}` }, s.status),
      ' · first event ', timeEl(s.first_event_time_ms), ' · last event ', timeEl(s.last_event_time_ms));
    if (s.status === 'live') {
      const behind = Date.now() - s.last_event_time_ms;
      ctx.shell.setLive(
        behind < 15_000 ? `Live · last event ${ago(behind)} ago` : `Live · ${ago(behind)} behind (last event ${timeText(s.last_event_time_ms)})`,
        behind < 15_000 ? 'live' : 'behind');
    } else {
      ctx.shell.setLive(`${s.status === 'idle' ? 'Finished' : s.status} · last event ${timeText(s.last_event_time_ms)}`, 'idle');
    }
  }

  /** Errors that concern the whole view (no such session, the index or the API down), shown once. */
  function isFatal(e: unknown): boolean {
    return e instanceof ApiError && (e.kind === 'network' || e.kind === 'auth' || e.kind === 'schema' || (e.kind === 'http' && [404, 502, 504].includes(e.status)));
  }
  function showFatal(e: unknown): void {
    disposed = true;
    window.clearTimeout(pollTimer);
    aggReq.abort(); tabReq.abort(); cntReq.abort();
    const box = h('div');
    const notFound = e instanceof ApiError && e.status === 404;
    showError(box, e, notFound ? 'This session is not in the index' : 'Could not load this session');
    replace(root, h('div', { class: 'page-head' }, title, sub), box,
      h('p', null, h('a', { href: '/' }, 'Go to the sessions'), notFound ? ' to pick one that is indexed.' : '.'));
    ctx.shell.setLive(null);
  }

  // --- live refresh ----------------------------------------------------------------------
  function schedule(): void {
    window.clearTimeout(pollTimer);
    if (disposed || session?.status !== 'live' || document.hidden) return;
    pollTimer = window.setTimeout(() => void tick(), POLL_MS);
  }
  async function tick(): Promise<void> {
    if (disposed || document.hidden) return;
    await Promise.allSettled([loadSession(), loadAggregates(true), loadCount(), loadTable(true)]);
    schedule();
  }
  function onVisibility(): void {
    if (document.hidden) window.clearTimeout(pollTimer);
    else if (session?.status === 'live') void tick();
  }
  document.addEventListener('visibilitychange', onVisibility);

  // --- events ----------------------------------------------------------------------------
  root.addEventListener('click', (e) => {
    const el = (e.target as Element).closest<HTMLElement>('[data-action]');
    if (!el || !root.contains(el)) return;
    const d = el.dataset;
    const meta = GROUPS.find((g) => g.by === d.by);
    switch (d.action) {
      case 'summary-state': {
        const state = d.state ?? '';
        const active = activeStates(route.params);
        nav({ state: active.has(state) ? [...active].filter((s) => s !== state).join(',') || null : state, cursor: null });
        break;
      }
      case 'group':
        if (meta && d.group) nav({ ...clearFilters(), [meta.param]: d.group });
        break;
      case 'group-state':
        if (meta && d.group) nav({ ...clearFilters(), [meta.param]: d.group, state: d.state ?? null });
        break;
      case 'bucket':
        if (meta && d.group) {
          nav({
            ...clearFilters(), [meta.param]: d.group, [`${st.dur}_gt_us`]: d.gtUs ?? null, [`${st.dur}_le_us`]: d.leUs ?? null,
            sort: `${st.dur}_duration`, order: 'desc',
          });
        }
        break;
      case 'slower':
        if (meta && d.group) {
          nav({ ...clearFilters(), [meta.param]: d.group, [`${st.dur}_gt_us`]: d.gtUs ?? null, sort: `${st.dur}_duration`, order: 'desc' });
        }
        break;
      case 'sort': {
        const s = d.sort ?? 'start_time';
        const order = s === st.sort && route.params.has('sort') ? (st.order === 'asc' ? 'desc' : 'asc') : defaultOrder(s);
        nav({ sort: s, order, cursor: null });
        break;
      }
      case 'more':
        if (d.by) void loadMore(d.by as GroupBy, el);
        break;
      case 'chip': {
        const c = chips(route.params)[Number(d.index)];
        if (c) {
          const idx = Number(d.index);
          nav(c.remove);
          const buttons = chipList.querySelectorAll('button');
          (buttons[Math.min(idx, buttons.length - 1)] ?? search).focus();
        }
        break;
      }
      case 'clear':
        nav(clearFilters());
        search.focus();
        break;
      case 'first':
        nav({ cursor: null });
        break;
      case 'export':
        if (getToken()) {
          e.preventDefault();
          void exportWithToken((d.format === 'ndjson' ? 'ndjson' : 'csv'), el);
        }
        break;
    }
  });
  root.addEventListener('keydown', (e) => {
    const t = e.target as HTMLElement;
    const group = t.parentElement;
    if (!group?.classList.contains('hist') || !['ArrowLeft', 'ArrowRight', 'Home', 'End'].includes(e.key)) return;
    const buttons = Array.from(group.querySelectorAll<HTMLButtonElement>('button:not(:disabled)'));
    const i = buttons.indexOf(t as HTMLButtonElement);
    const j = e.key === 'Home' ? 0 : e.key === 'End' ? buttons.length - 1 : Math.max(0, Math.min(buttons.length - 1, i + (e.key === 'ArrowLeft' ? -1 : 1)));
    const target = buttons[j];
    if (!target) return;
    e.preventDefault();
    for (const b of buttons) b.tabIndex = b === target ? 0 : -1;
    target.focus();
  });
  root.addEventListener('change', (e) => {
    const t = e.target as HTMLInputElement | HTMLSelectElement;
    if (t.name === 'unit') nav({ unit: t.value === 'attempts' ? 'attempts' : null, cursor: null });
    else if (t === jobSelect) nav({ job_id: jobSelect.value || null, cursor: null });
    else if (t === durSelect) nav({ dur: durSelect.value === 'total' ? null : durSelect.value });
    else if (t instanceof HTMLInputElement && t.dataset.action === 'col') {
      const chosen = Array.from(colMenu.querySelectorAll<HTMLInputElement>('input:checked')).map((i) => i.value);
      const same = chosen.join(',') === DEFAULT_COLUMNS.filter((c) => chosen.includes(c)).join(',') && chosen.length === DEFAULT_COLUMNS.length;
      nav({ cols: same ? null : chosen.join(',') }, false);
    }
  });
  searchForm.addEventListener('submit', (e) => {
    e.preventDefault();
    const q = search.value.trim();
    if (q !== '' && [...q].length < 3) {
      searchMsg.textContent = 'Type at least 3 characters to search.';
      return;
    }
    searchMsg.textContent = '';
    nav({ q: q || null, cursor: null });
  });
  search.addEventListener('input', () => { if (searchMsg.textContent) searchMsg.textContent = ''; });
  // '/' focuses the search; j and k move between the table's rows (Enter opens the focused one).
  function onKey(e: KeyboardEvent): void {
    if (e.ctrlKey || e.metaKey || e.altKey || !['/', 'j', 'k'].includes(e.key)) return;
    const t = e.target as HTMLElement | null;
    if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
    e.preventDefault();
    if (e.key === '/') {
      search.focus();
      search.select();
      return;
    }
    const links = Array.from(tableRegion.querySelectorAll<HTMLAnchorElement>('tbody tr td.name a'));
    if (links.length === 0) return;
    const i = links.findIndex((a) => a === document.activeElement);
    const next = links[i < 0 ? 0 : Math.max(0, Math.min(links.length - 1, i + (e.key === 'j' ? 1 : -1)))];
    next?.focus();
    next?.closest('tr')?.scrollIntoView({ block: 'nearest' });
  }
  document.addEventListener('keydown', onKey);

  async function loadMore(by: GroupBy, button: HTMLElement): Promise<void> {
    const data = groupData.get(by);
    if (!data?.next) return;
    button.setAttribute('aria-busy', 'true');
    button.textContent = 'Loading…';
    try {
      const ans = await aggReq.get<GroupsAnswer>('groups', {
        session: st.session, unit: st.unit === 'attempts' ? 'attempts' : null, job_id: st.jobId, by, limit: GROUP_ROWS, cursor: data.next,
      });
      groupData.set(by, { rows: [...data.rows, ...ans.groups], next: ans.next_cursor ?? null });
      renderPanel(by);
      const region = panelRegions.get(by);
      // Keep the keyboard where it was: on the button, or on the last row when no more remain.
      const again = region?.querySelector<HTMLElement>('[data-action="more"]');
      (again ?? region?.querySelector<HTMLElement>('tbody tr:last-child button'))?.focus();
    } catch (e) {
      if (!isAbort(e)) {
        const region = panelRegions.get(by);
        if (region) region.appendChild(h('div', null, showErrorBox(e)));
      }
    }
  }
  function showErrorBox(e: unknown): HTMLElement {
    const box = h('div');
    showError(box, e, 'Could not load more rows');
    return box;
  }

  async function exportWithToken(format: 'csv' | 'ndjson', el: HTMLElement): Promise<void> {
    const label = el.textContent ?? '';
    el.textContent = 'Exporting…';
    el.setAttribute('aria-busy', 'true');
    try {
      const blob = await ctx.api.blob('export', exportParams(route.params, format));
      saveBlob(blob, `${st.session.split('/').pop() ?? 'tasks'}.${format === 'csv' ? 'csv' : 'ndjson'}`);
    } catch (e) {
      if (!isAbort(e)) tableSection.insertBefore(showErrorBox(e), tableRegion);
    } finally {
      el.textContent = label;
      el.removeAttribute('aria-busy');
    }
  }

  // --- start -----------------------------------------------------------------------------
  /** Follows the URL; resolves when the summary and the panels are drawn (or failed). */
  function apply(first: boolean): Promise<unknown> {
    syncControls();
    const a = aggregateKey(route.params), t = tableKey(route.params), c = countKey(route.params);
    let aggregates: Promise<unknown> = Promise.resolve();
    if (a !== aggKey) { aggKey = a; aggregates = loadAggregates(false); } else { renderSummaryRegion(); for (const g of GROUPS) renderPanel(g.by); }
    if (c !== cntKey) { cntKey = c; taskTotal = null; renderTotal(); void loadCount(); }
    if (t !== tabKey) {
      const pageOnly = !first && tabKey !== '' && t.replace(/(^|&)cursor=[^&]*/, '') === tabKey.replace(/(^|&)cursor=[^&]*/, '');
      tabKey = t;
      void loadTable(false).then(() => {
        if (pageOnly && tableSection.getBoundingClientRect().top < 0) tableSection.scrollIntoView({ block: 'start' });
      });
    } else renderTable();
    return aggregates;
  }
  const first = apply(true);
  // What the first paint does not need waits for it (6 connections per host).
  void first.then(() => {
    if (disposed) return;
    void loadSession().then(schedule);
    void loadJobs();
  });

  return {
    update(next) {
      const nextState = readState(next.params);
      if (nextState.session !== st.session) return false;
      route = next;
      st = nextState;
      void apply(false);
      return true;
    },
    dispose() {
      disposed = true;
      window.clearTimeout(pollTimer);
      document.removeEventListener('visibilitychange', onVisibility);
      document.removeEventListener('keydown', onKey);
      aggReq.abort(); tabReq.abort(); cntReq.abort();
    },
  };

  /** Without ?session=, opens the newest session (replacing the entry), or says there is none. */
  function pickNewest() {
    ctx.shell.setTitle('Session');
    const region = h('div');
    replace(root, h('h1', null, 'Session'), region);
    showLoading(region, 'Finding the newest session…');
    ctx.api.get<SessionsAnswer>('sessions', { limit: 1 }).then((ans) => {
      const s = ans.sessions.find((x) => x.status !== 'removed');
      if (s) ctx.navigate({ session: s.session }, { push: false });
      else {
        setBusy(region, false);
        replace(region, emptyView('No sessions yet', h('p', null, h('a', { href: '/' }, 'The sessions page'), ' says how to send a Ray cluster\'s events here.')));
      }
    }, (e: unknown) => { if (!isAbort(e)) showError(region, e, 'Could not find a session'); });
    return { dispose() { /* the view's requests end with it */ } };
  }
};
