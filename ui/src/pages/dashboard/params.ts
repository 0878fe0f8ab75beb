// The dashboard's URL state (ui-contract §2) and what each API route receives from it.
import { durationUs } from '../../core/format';
import type { DurKind, Unit } from '../../core/types';

/** Task-list filters of the API (docs/HISTORY.md), passed through from the URL unchanged. */
export const LIST_FILTERS = [
  'state', 'raw_state', 'type', 'error_type', 'function', 'name', 'node_id', 'worker_id', 'worker_pid',
  'actor_id', 'task_id', 'attempt', 'exception', 'outcome',
  'created_after_ms', 'created_before_ms', 'started_after_ms', 'started_before_ms', 'ended_after_ms', 'ended_before_ms',
  'min_pending_ms', 'max_pending_ms', 'min_running_ms', 'max_running_ms', 'min_total_ms', 'max_total_ms',
  'pending_gt_us', 'pending_le_us', 'running_gt_us', 'running_le_us', 'total_gt_us', 'total_le_us',
] as const;
/** Filters whose values may be comma lists. */
export const COMMA_FILTERS = new Set(['state', 'raw_state', 'type', 'error_type']);
export const DUR_KINDS: DurKind[] = ['total', 'pending', 'running'];

export interface DashState {
  session: string;
  unit: Unit;
  jobId: string | null;
  dur: DurKind;
  q: string;
  sort: string;
  order: 'asc' | 'desc';
  cursor: string | null;
  cols: string[] | null;
}

export function readState(p: URLSearchParams): DashState {
  const unit = p.get('unit') === 'attempts' ? 'attempts' : 'tasks';
  const durRaw = p.get('dur');
  const dur: DurKind = durRaw === 'pending' || durRaw === 'running' ? durRaw : 'total';
  const order = p.get('order') === 'desc' ? 'desc' : 'asc';
  const cols = p.get('cols');
  return {
    session: p.get('session') ?? '',
    unit,
    jobId: p.get('job_id') || null,
    dur,
    q: p.get('q') ?? '',
    sort: p.get('sort') || 'start_time',
    order,
    cursor: p.get('cursor') || null,
    cols: cols === null ? null : cols.split(',').filter(Boolean),
  };
}

/** The list filters present in the URL, plus job_id (the job filter applies to the table too). */
export function listFilters(p: URLSearchParams): URLSearchParams {
  const out = new URLSearchParams();
  for (const k of ['job_id', ...LIST_FILTERS]) for (const v of p.getAll(k)) if (v !== '') out.append(k, v);
  return out;
}

/** Parameters of /tasks/count (and the base of /tasks and /export). */
export function countParams(p: URLSearchParams): URLSearchParams {
  const s = readState(p);
  const out = listFilters(p);
  out.set('session', s.session);
  if (s.unit === 'attempts') out.set('unit', 'attempts');
  if (s.q) out.set('q', s.q);
  return out;
}

export function listParams(p: URLSearchParams, limit: number): URLSearchParams {
  const s = readState(p);
  const out = countParams(p);
  if (p.has('sort')) out.set('sort', s.sort);
  if (p.has('order')) out.set('order', s.order);
  if (s.cursor) out.set('cursor', s.cursor);
  out.set('limit', String(limit));
  return out;
}

export function exportParams(p: URLSearchParams, format: 'csv' | 'ndjson'): URLSearchParams {
  const s = readState(p);
  const out = countParams(p);
  if (p.has('sort')) out.set('sort', s.sort);
  if (p.has('order')) out.set('order', s.order);
  out.set('format', format);
  return out;
}

/** A key over what the summary and the group panels depend on. */
export function aggregateKey(p: URLSearchParams): string {
  const s = readState(p);
  return `${s.session}\n${s.unit}\n${s.jobId ?? ''}`;
}
/** A key over what the table's rows depend on. */
export function tableKey(p: URLSearchParams): string {
  return listParams(p, 0).toString();
}
export function countKey(p: URLSearchParams): string {
  return countParams(p).toString();
}

export interface Chip {
  /** Name and value as the remove button names them. */
  name: string;
  value: string;
  /** The URL update that removes it. */
  remove: Record<string, string | string[] | null>;
}

const CHIP_NAMES: Record<string, string> = {
  state: 'state', raw_state: 'raw state', type: 'type', error_type: 'error type', function: 'function',
  name: 'name', job_id: 'job', node_id: 'node', worker_id: 'worker', worker_pid: 'pid', actor_id: 'actor',
  task_id: 'task', attempt: 'attempt', exception: 'exception', outcome: 'outcome',
  created_after_ms: 'created after', created_before_ms: 'created before', started_after_ms: 'started after',
  started_before_ms: 'started before', ended_after_ms: 'ended after', ended_before_ms: 'ended before',
  min_pending_ms: 'pending at least (ms)', max_pending_ms: 'pending at most (ms)',
  min_running_ms: 'running at least (ms)', max_running_ms: 'running at most (ms)',
  min_total_ms: 'total at least (ms)', max_total_ms: 'total at most (ms)',
};

/** One chip per filter value; a duration band's two bounds make one chip. */
export function chips(p: URLSearchParams): Chip[] {
  const out: Chip[] = [];
  for (const k of ['job_id', ...LIST_FILTERS]) {
    if (/_(gt|le)_us$/.test(k)) continue;
    const values = p.getAll(k).filter((v) => v !== '');
    for (const raw of values) {
      const parts = COMMA_FILTERS.has(k) ? raw.split(',').filter(Boolean) : [raw];
      for (const v of parts) {
        // Removing one value keeps the others of the same filter.
        const rest = values.flatMap((x) => (COMMA_FILTERS.has(k) ? x.split(',') : [x])).filter((x) => x !== v && x !== '');
        out.push({ name: CHIP_NAMES[k] ?? k, value: v, remove: { [k]: rest.length ? rest : null, cursor: null } });
      }
    }
  }
  for (const d of DUR_KINDS) {
    const gt = p.get(`${d}_gt_us`), le = p.get(`${d}_le_us`);
    if (gt === null && le === null) continue;
    const parts: string[] = [];
    if (gt !== null) parts.push(`over ${durationUs(Number(gt))}`);
    if (le !== null) parts.push(`up to ${durationUs(Number(le))}`);
    out.push({ name: `${d} duration`, value: parts.join(' '), remove: { [`${d}_gt_us`]: null, [`${d}_le_us`]: null, cursor: null } });
  }
  const q = p.get('q');
  if (q) out.push({ name: 'search', value: q, remove: { q: null, cursor: null } });
  return out;
}

/** The URL update that clears every filter of the table (keeping session, unit, job, dur, cols). */
export function clearFilters(): Record<string, null> {
  const out: Record<string, null> = { q: null, cursor: null };
  for (const k of LIST_FILTERS) out[k] = null;
  return out;
}

/** The active state filter's values. */
export function activeStates(p: URLSearchParams): Set<string> {
  return new Set(p.getAll('state').flatMap((v) => v.split(',')).filter(Boolean));
}
