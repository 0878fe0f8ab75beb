// The summary strip: totals in both units, the states as filter buttons (ui-contract §3), the
// stacked bar, and what the inferred states mean.
import { h } from '../../core/dom';
import { count } from '../../core/format';
import { orderedStates } from '../../core/states';
import type { CountsAnswer, Unit } from '../../core/types';
import { stateBar } from '../../core/widgets';

export function unitWord(unit: Unit, n: number): string {
  if (unit === 'attempts') return n === 1 ? 'attempt' : 'attempts';
  return n === 1 ? 'task' : 'tasks';
}

/** other: the same counts in the other unit (attempts beside tasks), when it has arrived. */
export function renderSummary(c: CountsAnswer, other: CountsAnswer | null, active: Set<string>, jobId: string | null, tableFiltered: boolean): HTMLElement {
  const unit = c.unit;
  const otherUnit: Unit = unit === 'tasks' ? 'attempts' : 'tasks';
  const otherN = unit === 'tasks' ? c.attempts : c.tasks;
  const otherBy = other && other.unit !== unit ? other.by_state : null;
  const states = orderedStates(c.by_state);
  const inferred = states.filter(([i]) => i.inferred);
  return h('div', { class: 'summary-body' },
    // Element Timing aggregates text at the block that holds it: the mark goes on the <p>.
    h('p', { class: 'totals', elementtiming: 'summary' },
      h('span', { 'data-testid': 'summary-total', 'data-count': c.total },
        h('strong', { class: 'num' }, count(c.total)), ` ${unitWord(unit, c.total)}`),
      h('span', { class: 'muted' }, ` · ${count(otherN)} ${unitWord(otherUnit, otherN)}`),
      jobId ? h('span', { class: 'muted' }, ' in this job') : null),
    stateBar(c.by_state, true),
    h('ul', { class: 'state-buttons', 'aria-label': 'Filter by state' },
      states.map(([info, n]) => h('li', { 'data-key': info.state },
        h('button', {
          type: 'button', class: `state-btn`, 'data-action': 'summary-state', 'data-state': info.state, 'data-count': n,
          'aria-pressed': active.has(info.state) ? 'true' : 'false',
          title: info.evidence ? `Inferred: ${info.evidence}` : `Show only ${info.label} ${unitWord(unit, 2)}`,
        }, h('span', { class: `st st-${info.group}` }, info.label), ' ', h('span', { class: 'num' }, count(n))),
        otherBy ? h('span', { class: 'beside' }, `${count(otherBy[info.state] ?? 0)} ${unitWord(otherUnit, otherBy[info.state] ?? 0)}`) : null))),
    inferred.length
      ? h('p', { class: 'evidence' }, inferred.map(([i]) => `${i.label}: ${i.evidence ?? ''}`).join(' '),
        ' Each such row in the table shows its last reported state.')
      : null,
    tableFiltered ? h('p', { class: 'evidence' }, 'These counts are for the whole session', jobId ? ' (this job)' : '', '; the table below is filtered.') : null);
}
