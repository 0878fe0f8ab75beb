// The task table: chosen columns, sortable headers (aria-sort), search matches as <mark>, a row
// link to the task page. Rows carry data-key so a refresh only touches rows that changed.
import { h, highlighted, type Child } from '../../core/dom';
import { duration, shortId, timeEl } from '../../core/format';
import { stateInfo } from '../../core/states';
import type { Ranges, TaskRow } from '../../core/types';
import { stateLabel } from '../../core/widgets';

export interface Column {
  id: string;
  label: string;
  /** The API's sort name, when sortable. */
  sort?: string;
  num?: boolean;
  cell(t: TaskRow): Child;
  className?: string;
}

function idCell(id: string | undefined, ranges: Ranges | undefined, head = 6, tail = 4): Child {
  if (!id) return '—';
  // A matched id is shown whole so the match can be marked; others shortened.
  if (ranges && ranges.length) return h('span', { class: 'id' }, highlighted(id, ranges));
  return shortId(id, head, tail);
}

export const COLUMNS: Column[] = [
  { id: 'function', label: 'Function', sort: 'function', cell: (t) => highlighted(t.function, t.matches?.function) },
  { id: 'state', label: 'State', sort: 'state', cell: (t) => {
    const info = stateInfo(t.state);
    return [stateLabel(t.state),
      info.inferred && t.raw_state ? h('div', { class: 'pct', title: info.evidence ? `Inferred: ${info.evidence}` : null }, `last reported ${t.raw_state}`) : null];
  } },
  { id: 'attempt', label: 'Attempt', sort: 'attempt', num: true, cell: (t) =>
    h('span', { title: `attempt ${t.attempt} of ${t.attempts} (numbered from 0)` }, `${t.attempt + 1}/${t.attempts}`) },
  { id: 'type', label: 'Type', cell: (t) => t.type ?? '—' },
  { id: 'job', label: 'Job', sort: 'job_id', cell: (t) => idCell(t.job_id, t.matches?.job_id) },
  { id: 'node', label: 'Node', sort: 'node_id', cell: (t) => idCell(t.node_id, t.matches?.node_id) },
  { id: 'worker', label: 'Worker', cell: (t) => idCell(t.worker_id, undefined) },
  { id: 'pid', label: 'PID', num: true, cell: (t) => (t.worker_pid ? String(t.worker_pid) : '—') },
  { id: 'actor', label: 'Actor', cell: (t) => idCell(t.actor_id, undefined) },
  { id: 'created', label: 'Created', sort: 'creation_time', cell: (t) => timeEl(t.creation_time_ms, { short: true }) },
  { id: 'start', label: 'Started', sort: 'start_time', cell: (t) => timeEl(t.start_time_ms, { short: true }) },
  { id: 'end', label: 'Ended', sort: 'end_time', cell: (t) => timeEl(t.end_time_ms, { short: true }) },
  { id: 'pending', label: 'Pending', sort: 'pending_duration', num: true, cell: (t) => duration(t.pending_ms) },
  { id: 'running', label: 'Running', sort: 'running_duration', num: true, cell: (t) => duration(t.running_ms) },
  { id: 'total', label: 'Total', sort: 'total_duration', num: true, cell: (t) => duration(t.total_ms) },
  { id: 'error_type', label: 'Error type', sort: 'error_type', cell: (t) => t.error_type || '—' },
  { id: 'exception', label: 'Exception', sort: 'exception', className: 'error', cell: (t) => {
    const m = t.matches?.error_message;
    return [t.exception ? highlighted(t.exception, t.matches?.exception) : (t.error_type ? '' : '—'),
      m ? h('span', { class: 'excerpt', title: `line ${m.line} of the error message` },
        m.cut_before ? '…' : '', highlighted(m.excerpt, m.matches), m.cut_after ? '…' : '') : null];
  } },
];
export const DEFAULT_COLUMNS = ['state', 'attempt', 'job', 'node', 'start', 'pending', 'running', 'total', 'error_type', 'exception'];

/** Columns shown: the URL's cols= (known ids, in table order) or the defaults. */
export function shownColumns(cols: string[] | null): Column[] {
  const want = new Set(cols ?? DEFAULT_COLUMNS);
  return COLUMNS.filter((c) => want.has(c.id));
}

/** Default order of a newly chosen sort: longest and latest first for durations and times. */
export function defaultOrder(sort: string): 'asc' | 'desc' {
  return /duration|_time$/.test(sort) && sort !== 'start_time' ? 'desc' : 'asc';
}

export interface TableOptions {
  columns: Column[];
  sort: string;
  order: 'asc' | 'desc';
  taskHref(t: TaskRow): string;
}

export function renderTaskTable(rows: TaskRow[], o: TableOptions): HTMLElement {
  const head = h('tr', null,
    h('th', { scope: 'col' }, 'Task'),
    o.columns.map((c) => {
      const sorted = c.sort === o.sort;
      const th = h('th', { scope: 'col', class: c.num ? 'num' : null, 'aria-sort': sorted ? (o.order === 'asc' ? 'ascending' : 'descending') : null });
      if (c.sort) {
        th.appendChild(h('button', { type: 'button', class: 'sort', 'data-action': 'sort', 'data-sort': c.sort },
          c.label, h('span', { 'aria-hidden': 'true' }, sorted ? (o.order === 'asc' ? ' ▲' : ' ▼') : '')));
      } else {
        th.appendChild(document.createTextNode(c.label));
      }
      return th;
    }));
  return h('table', { 'aria-label': 'Tasks', class: 'tasks' },
    h('thead', null, head),
    h('tbody', null, rows.map((t) => h('tr', {
      'data-task-id': t.task_id, 'data-attempt': t.attempt, 'data-key': `${t.task_id}:${t.attempt}`,
    },
    h('td', { class: 'name' },
      h('a', { href: o.taskHref(t) }, highlighted(t.name || t.function || t.task_id, t.matches?.name ?? (t.name ? undefined : t.matches?.function))),
      h('div', { class: 'pct' }, idCell(t.task_id, t.matches?.task_id, 12, 0))),
    o.columns.map((c) => h('td', { class: [c.num ? 'num' : '', c.className ?? ''].join(' ').trim() || null, 'data-label': c.label }, c.cell(t)))))));
}
