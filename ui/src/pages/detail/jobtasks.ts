// A job's tasks by state, each count a door to the dashboard filtered by the job and that state.
import { h } from '../../core/dom';
import { count } from '../../core/format';
import type { PageContext } from '../../core/page';
import { orderedStates, stateClass } from '../../core/states';
import type { ByState } from '../../core/types';
import { dashHref } from './common';

export function jobStateCounts(ctx: PageContext, session: string, jobId: string, byState: ByState | undefined): HTMLElement {
  const entries = orderedStates(byState);
  if (entries.length === 0) return h('span', { class: 'muted' }, 'no tasks');
  return h('ul', { class: 'state-counts', 'aria-label': `Tasks of job ${jobId} by state` }, entries.map(([info, n]) =>
    h('li', null, h('a', {
      href: dashHref(ctx, session, { job_id: jobId, state: info.state }),
      class: stateClass(info.state), title: info.evidence ? `Inferred: ${info.evidence}` : null,
      'aria-label': `${info.label} ${count(n)} tasks of job ${jobId}`,
    }, `${info.label} ${count(n)}`))));
}
