// Group panels (by function, error type, job, node): each row's counts by state and its duration
// histogram are buttons that filter the table to exactly that set (ui-contract §3). Events are
// handled by delegation in the page (data-action), so a refresh can morph rows in place.
import { h, type Child } from '../../core/dom';
import { count, duration, durationUs, shortId } from '../../core/format';
import { orderedStates } from '../../core/states';
import type { DurKind, GroupRow, HistogramBucket, Unit } from '../../core/types';
import { unitWord } from './summary';

export type GroupBy = 'function' | 'error_type' | 'job' | 'node';
export const GROUPS: Array<{ by: GroupBy; title: string; keyHead: string; param: string; empty: string }> = [
  { by: 'function', title: 'By function', keyHead: 'Function', param: 'function', empty: '(no function)' },
  { by: 'error_type', title: 'By error type', keyHead: 'Error type', param: 'error_type', empty: '(no error)' },
  { by: 'job', title: 'By job', keyHead: 'Job', param: 'job_id', empty: '(no job)' },
  { by: 'node', title: 'By node', keyHead: 'Node', param: 'node_id', empty: '(not on a node)' },
];

/** Index of a power-of-two bucket on a shared axis: (-1, 0] is 0, (2^k - 1, 2^(k+1) - 1] is k + 1. */
function bucketIndex(b: HistogramBucket): number {
  return b.gt_us < 0 ? 0 : Math.round(Math.log2(b.gt_us + 1)) + 1;
}

export function bucketName(b: HistogramBucket, unit: Unit, dur: DurKind): string {
  const what = `${count(b.count)} ${unitWord(unit, b.count)} with ${dur} duration`;
  if (b.gt_us < 0) return `${what} of 0`;
  if (b.le_us === null || b.le_us === undefined) return `${what} over ${durationUs(b.gt_us)}`;
  return `${what} over ${durationUs(b.gt_us)} up to ${durationUs(b.le_us)}`;
}

export interface PanelOptions {
  unit: Unit;
  dur: DurKind;
  /** The group's current filter value in the URL, to mark pressed cells. */
  activeKey: string | null;
  activeStates: Set<string>;
}

function histogram(by: GroupBy, key: string, stats: GroupRow['durations'][DurKind], lo: number, hi: number, o: PanelOptions): HTMLElement {
  const wrap = h('div', { class: 'hist', role: 'group', 'aria-label': 'Duration histogram' });
  const buckets = (stats?.histogram ?? []).filter((b) => b.count > 0);
  const max = buckets.reduce((m, b) => Math.max(m, b.count), 0);
  let first = true;
  const byIndex = new Map(buckets.map((b) => [bucketIndex(b), b]));
  for (let i = lo; i <= hi; i++) {
    const b = byIndex.get(i);
    if (!b) {
      wrap.appendChild(h('span', { class: 'gap', 'aria-hidden': 'true' }));
      continue;
    }
    const bar = h('span', { class: 'hbar', 'aria-hidden': 'true' });
    // Square-root heights so a bucket of a few outliers stays visible beside thousands.
    bar.style.height = `${Math.max(8, Math.round((100 * Math.sqrt(b.count)) / Math.sqrt(max)))}%`;
    const name = bucketName(b, o.unit, o.dur);
    wrap.appendChild(h('button', {
      type: 'button', 'data-action': 'bucket', 'data-by': by, 'data-group': key,
      'data-gt-us': b.gt_us, 'data-le-us': b.le_us ?? null, 'data-count': b.count,
      'aria-label': name, title: key === '' ? `${name} (no filter for an empty group)` : name, disabled: key === '',
      // One tab stop per histogram; the arrow keys move between its buckets (the page handles them).
      tabindex: first ? 0 : -1,
    }, bar));
    first = false;
  }
  return wrap;
}

/** p50/p90/p99 open the tasks slower than them (slowest first); max is text. */
function percentiles(by: GroupBy, key: string, what: string, stats: GroupRow['durations'][DurKind], o: PanelOptions): Child {
  if (!stats || stats.count === 0) return h('span', { class: 'pct' }, 'no durations');
  const items: Child[] = [];
  for (const [name, ms] of [['p50', stats.p50_ms], ['p90', stats.p90_ms], ['p99', stats.p99_ms]] as const) {
    const text = `${name} ${duration(ms)}`;
    items.push(key === ''
      ? text
      : h('button', {
        type: 'button', class: 'cell pct-btn', 'data-action': 'slower', 'data-by': by, 'data-group': key,
        'data-gt-us': Math.floor(ms * 1000),
        // The visible text leads the name (WCAG 2.5.3, label in name).
        'aria-label': `${text}: ${unitWord(o.unit, 2)} of ${what} with a longer ${o.dur} duration, slowest first`,
      }, text), ' · ');
  }
  items.push(`max ${duration(stats.max_ms)}`);
  return h('span', { class: 'pct' }, items);
}

function keyCell(by: GroupBy, key: string, empty: string): Child {
  if (key === '') return h('span', { class: 'muted' }, empty);
  if (by === 'node') return shortId(key, 8, 4);
  return h('span', { title: key }, key);
}

export function renderPanelTable(by: GroupBy, rows: GroupRow[], o: PanelOptions): HTMLElement {
  const meta = GROUPS.find((g) => g.by === by) ?? GROUPS[0];
  let lo = Infinity, hi = -Infinity;
  for (const r of rows) {
    for (const b of r.durations[o.dur]?.histogram ?? []) {
      if (b.count <= 0) continue;
      const i = bucketIndex(b);
      lo = Math.min(lo, i);
      hi = Math.max(hi, i);
    }
  }
  const otherUnit: Unit = o.unit === 'tasks' ? 'attempts' : 'tasks';
  return h('table', { class: 'groups' },
    h('thead', null, h('tr', null,
      h('th', { scope: 'col' }, meta.keyHead),
      h('th', { scope: 'col', class: 'num' }, o.unit === 'tasks' ? 'Tasks' : 'Attempts'),
      h('th', { scope: 'col' }, 'By state'),
      h('th', { scope: 'col' }, `${o.dur[0].toUpperCase()}${o.dur.slice(1)} duration`))),
    h('tbody', null, rows.map((r, i) => {
      const key = r.key ?? '';
      const filterable = key !== '';
      const other = o.unit === 'tasks' ? r.attempts : r.tasks;
      const pressedGroup = filterable && o.activeKey === key;
      const stats = r.durations[o.dur];
      const stateCells = orderedStates(r.by_state).map(([info, n]) => {
        const label = `${info.label}: ${count(n)} ${unitWord(o.unit, n)}`;
        return filterable
          ? h('button', {
            type: 'button', class: 'cell', 'data-action': 'group-state', 'data-by': by, 'data-group': key,
            'data-state': info.state, 'data-count': n, 'aria-label': `${label} of ${meta.keyHead.toLowerCase()} ${key}`,
            'aria-pressed': pressedGroup && o.activeStates.size === 1 && o.activeStates.has(info.state) ? 'true' : 'false',
            title: label,
          }, h('span', { class: `st st-${info.group}` }, count(n)))
          : h('span', { class: 'cell', 'data-state': info.state, 'data-count': n, title: `${label} (no filter for an empty ${meta.keyHead.toLowerCase()})` },
            h('span', { class: `st st-${info.group}`, 'aria-label': label }, count(n)));
      });
      return h('tr', { 'data-group-key': key, 'data-key': key },
        h('th', { scope: 'row', class: 'key', elementtiming: i === 0 ? `panel-${by}` : null }, keyCell(by, key, meta.empty)),
        h('td', { class: 'num' },
          filterable
            ? h('button', { type: 'button', class: 'cell', 'data-action': 'group', 'data-by': by, 'data-group': key, 'data-count': r.total,
              'aria-label': `All ${count(r.total)} ${unitWord(o.unit, r.total)} of ${meta.keyHead.toLowerCase()} ${key}`,
              'aria-pressed': pressedGroup && o.activeStates.size === 0 ? 'true' : 'false' }, count(r.total))
            : count(r.total),
          other !== undefined ? h('div', { class: 'pct' }, `${count(other)} ${unitWord(otherUnit, other)}`) : null),
        h('td', { class: 'states-cell' }, stateCells),
        h('td', { class: 'dist' },
          Number.isFinite(lo) ? histogram(by, key, stats, lo, hi, o) : null,
          percentiles(by, key, `${meta.keyHead.toLowerCase()} ${key}`, stats, o)));
    })));
}
