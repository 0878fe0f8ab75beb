// Actors and jobs in words: their states with a colour role (the exact state always in text),
// an actor's death cause and restart reason as a person would say them, and the small pieces the
// lists share (filter chips).
import { h, type Child } from '../../core/dom';
import type { PageContext } from '../../core/page';
import { dl, jsonPre, type DlItem } from './common';

const ACTOR_GROUP: Record<string, string> = {
  ALIVE: 'finished',
  DEAD: 'failed',
  RESTARTING: 'sched',
  PENDING_CREATION: 'deps',
  DEPENDENCIES_UNREADY: 'deps',
};
export const ACTOR_STATES = ['DEPENDENCIES_UNREADY', 'PENDING_CREATION', 'ALIVE', 'RESTARTING', 'DEAD'];

/** An actor state with its swatch (ALIVE green, DEAD red, RESTARTING and pending amber). */
export function actorStateLabel(state: string | null | undefined): HTMLElement {
  const s = state || 'UNKNOWN';
  return h('span', { class: `st st-${ACTOR_GROUP[s] ?? 'unknown'}` }, s.replace(/_/g, ' '));
}

/** A job status (FINISHED, RUNNING, UNKNOWN) with its swatch. */
export function jobStatusLabel(status: string | null | undefined): HTMLElement {
  const s = status || 'UNKNOWN';
  const group = s === 'FINISHED' ? 'finished' : s === 'RUNNING' ? 'running' : s === 'FAILED' || s === 'STOPPED' ? 'failed' : 'unknown';
  return h('span', { class: `st st-${group}` }, s);
}

const RESTART_REASONS: Record<string, string> = {
  '0': 'the actor failed (its worker or constructor died)',
  ACTOR_FAILURE: 'the actor failed (its worker or constructor died)',
  '1': 'lineage reconstruction: an object it had created was lost and is being rebuilt',
  LINEAGE_RECONSTRUCTION: 'lineage reconstruction: an object it had created was lost and is being rebuilt',
  '2': 'its node was preempted',
  NODE_PREEMPTION: 'its node was preempted',
};

export function restartReasonText(r: number | string | null | undefined): string | null {
  if (r === null || r === undefined || r === '') return null;
  return RESTART_REASONS[String(r)] ?? String(r);
}

const DIED_REASONS: Record<string, string> = {
  WORKER_DIED: 'Its worker process died.',
  OWNER_DIED: 'Its owner (the process that created it) died, and the actor was not detached.',
  NODE_DIED: 'The node it ran on died.',
  RAY_KILL: 'It was killed with ray.kill().',
  OUT_OF_SCOPE: 'Every handle to it went out of scope, so Ray ended it.',
  REF_DELETED: 'The references to it were deleted, so Ray ended it.',
};
const NODE_DEATH: Record<string, string> = {
  EXPECTED_TERMINATION: 'The node was shut down as expected.',
  UNEXPECTED_TERMINATION: 'The node stopped unexpectedly.',
  AUTOSCALER_DRAIN_PREEMPTED: 'The autoscaler drained the node because it was preempted.',
  AUTOSCALER_DRAIN_IDLE: 'The autoscaler removed the node as idle.',
};

type Obj = Record<string, unknown>;
function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
/** proto3 JSON is lowerCamelCase; accept snake_case too. */
function field(o: Obj, camel: string): unknown {
  if (camel in o) return o[camel];
  const snake = camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  return o[snake];
}
function str(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '';
}

export interface Worded { summary: string; details: Child[] }

/** Ray's ActorDeathCause (one of five contexts) in words, with its message as text. */
export function deathCauseWords(cause: unknown): Worded | null {
  if (cause === null || cause === undefined) return null;
  if (!isObj(cause)) return { summary: 'It died.', details: [jsonPre(cause)] };
  const msgPre = (m: string): Child => (m ? h('pre', { class: 'json' }, m) : null);
  const died = field(cause, 'actorDiedErrorContext');
  if (isObj(died)) {
    const reason = str(field(died, 'reason'));
    const parts = [DIED_REASONS[reason] ?? 'It died.'];
    const node = field(died, 'nodeDeathInfo');
    let nodeMsg = '';
    if (isObj(node)) {
      const nr = str(field(node, 'reason'));
      if (NODE_DEATH[nr]) parts.push(NODE_DEATH[nr]);
      nodeMsg = str(field(node, 'reasonMessage'));
    }
    if (field(died, 'neverStarted') === true) parts.push('It never started.');
    const items: DlItem[] = [
      ['Reason', reason || null],
      ['Node said', nodeMsg || null],
      ['Node IP', str(field(died, 'nodeIpAddress')) || null],
      ['PID', str(field(died, 'pid')) || null],
      ['Owner IP', str(field(died, 'ownerIpAddress')) || null],
    ];
    return { summary: parts.join(' '), details: [dl(items), msgPre(str(field(died, 'errorMessage')))] };
  }
  const creation = field(cause, 'creationTaskFailureContext');
  if (isObj(creation)) {
    return { summary: 'Its constructor (__init__) raised an exception.', details: [msgPre(str(field(creation, 'formattedExceptionString')))] };
  }
  const env = field(cause, 'runtimeEnvFailedContext');
  if (isObj(env)) return { summary: 'Its runtime environment could not be set up.', details: [msgPre(str(field(env, 'errorMessage')))] };
  const unsched = field(cause, 'actorUnschedulableContext');
  if (isObj(unsched)) {
    return { summary: 'It could not be scheduled: no node could satisfy its resources or placement.', details: [msgPre(str(field(unsched, 'errorMessage')))] };
  }
  const oom = field(cause, 'oomContext');
  if (isObj(oom)) {
    const now = field(oom, 'failImmediately') === true ? ' Ray did not retry it.' : '';
    return { summary: `It was killed because its node ran out of memory.${now}`, details: [msgPre(str(field(oom, 'errorMessage')))] };
  }
  if (Object.keys(cause).length === 0) return null;
  return { summary: 'It died (a cause this page does not know; as sent below).', details: [jsonPre(cause)] };
}

export interface FilterDef { key: string; name: string }

/** The active filters as removable chips (`ul aria-label="Active filters"`), like the dashboard's. */
export function filterChips(ctx: PageContext, defs: FilterDef[]): HTMLElement | null {
  const p = ctx.route.params;
  const items = defs.filter((d) => p.get(d.key)).map((d) => {
    const value = p.get(d.key) ?? '';
    const b = h('button', { type: 'button', 'aria-label': `Remove filter ${d.name}: ${value}` }, `${d.name}: ${value}`);
    b.addEventListener('click', () => ctx.navigate({ [d.key]: null, cursor: null }, { push: true, state: null }));
    return h('li', null, b);
  });
  return items.length ? h('ul', { 'aria-label': 'Active filters', class: 'chips' }, items) : null;
}
