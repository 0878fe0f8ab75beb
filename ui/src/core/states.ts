// Task states: Ray's fine states grouped by what a user asks about (DASHBOARD.md, "States and
// colour"). The exact state is always shown in text; colour is a second signal, never the only one.

export type StateGroup = 'finished' | 'failed' | 'inferred' | 'running' | 'sched' | 'deps' | 'unknown';

export interface StateInfo {
  state: string;
  group: StateGroup;
  /** Visible label (the state name, readable); inferred states say so. */
  label: string;
  /** Order in summaries: finished, failed, inferred, running, waiting, unknown. */
  order: number;
  inferred: boolean;
  /** What an inferred state means, from the API's reconciliation rule (docs/HISTORY.md). */
  evidence?: string;
}

export const GROUP_LABEL: Record<StateGroup, string> = {
  finished: 'Finished',
  failed: 'Failed',
  inferred: 'Inferred',
  running: 'Running',
  sched: 'Waiting for scheduling',
  deps: 'Waiting for dependencies',
  unknown: 'Unknown',
};

const TABLE: Array<[string, StateGroup]> = [
  ['FINISHED', 'finished'],
  ['FAILED', 'failed'],
  ['UNKNOWN_JOB_FINISHED', 'inferred'],
  ['UNKNOWN_NODE_DIED', 'inferred'],
  ['RUNNING', 'running'],
  ['RUNNING_IN_RAY_GET', 'running'],
  ['RUNNING_IN_RAY_WAIT', 'running'],
  ['PENDING_NODE_ASSIGNMENT', 'sched'],
  ['SUBMITTED_TO_WORKER', 'sched'],
  ['PENDING_ACTOR_TASK_ORDERING_OR_CONCURRENCY', 'sched'],
  ['PENDING_ARGS_AVAIL', 'deps'],
  ['PENDING_OBJ_STORE_MEM_AVAIL', 'deps'],
  ['PENDING_ARGS_FETCH', 'deps'],
  ['PENDING_ACTOR_TASK_ARGS_FETCH', 'deps'],
  ['GETTING_AND_PINNING_ARGS', 'deps'],
  ['NIL', 'unknown'],
];

const INFERRED_LABEL: Record<string, string> = {
  UNKNOWN_JOB_FINISHED: 'LOST AT JOB END (inferred)',
  UNKNOWN_NODE_DIED: 'LOST WITH NODE (inferred)',
};
const EVIDENCE: Record<string, string> = {
  UNKNOWN_JOB_FINISHED:
    'the task had no terminal event when its job finished; its last reported state is kept as the raw state.',
  UNKNOWN_NODE_DIED:
    'the task had no terminal event when the node it ran on died; its last reported state is kept as the raw state.',
};

const INFO = new Map<string, StateInfo>();
TABLE.forEach(([state, group], i) => {
  INFO.set(state, {
    state, group, order: i,
    label: INFERRED_LABEL[state] ?? state.replace(/_/g, ' '),
    inferred: group === 'inferred',
    evidence: EVIDENCE[state],
  });
});

/** What is known of a state; states this page does not know are grouped as unknown, shown as given. */
export function stateInfo(state: string): StateInfo {
  return INFO.get(state) ?? {
    state, group: 'unknown', order: 1000, label: state.replace(/_/g, ' '), inferred: false,
  };
}

/** Entries of a by_state map in display order, zero counts dropped. */
export function orderedStates(byState: Record<string, number> | undefined): Array<[StateInfo, number]> {
  if (!byState) return [];
  return Object.entries(byState)
    .filter(([, n]) => n > 0)
    .map(([s, n]): [StateInfo, number] => [stateInfo(s), n])
    .sort((a, b) => a[0].order - b[0].order || a[0].state.localeCompare(b[0].state));
}

/** The CSS class carrying a state's colour role. */
export function stateClass(state: string): string {
  return `st st-${stateInfo(state).group}`;
}
