// Shapes of the detail answers (src/history/api/detail_queries.cc): GET task, actor, job. Only
// what the pages read; everything optional that the API may leave empty or null.
import type { ByState, Ranges } from '../../core/types';
import type { Transition } from './timeline';

export interface TaskDefinition {
  type?: string;
  language?: string;
  function?: string;
  name?: string;
  parent_task_id?: string;
  placement_group_id?: string;
  actor_id?: string;
  required_resources?: unknown;
  /** The serialized runtime env (JSON text), env_vars values redacted by the server. */
  runtime_env?: unknown;
  label_selector?: unknown;
  call_site?: string;
  is_detached_actor?: boolean;
}

export interface ProfileSpan {
  event_name: string;
  start_time_ns: string;
  end_time_ns: string;
  component_type?: string;
  component_id?: string;
  node_ip_address?: string;
  extra_data?: unknown;
}

export interface TaskLogInfo {
  stdout_file?: string;
  stderr_file?: string;
  stdout_start?: number;
  stdout_end?: number;
  stderr_start?: number;
  stderr_end?: number;
}

export interface TaskDetailMatches {
  function?: Ranges;
  name?: Ranges;
  exception?: Ranges;
  /** On the detail: ranges over the whole message. */
  error_message?: Ranges;
  task_id?: Ranges;
  job_id?: Ranges;
  node_id?: Ranges;
}

export interface TaskDetail {
  session: string;
  task_id: string;
  attempt: number;
  state: string;
  raw_state?: string;
  job_id?: string;
  definition: TaskDefinition | null;
  transitions: Transition[];
  node_id?: string;
  worker_id?: string;
  worker_pid?: number;
  actor_repr_name?: string | null;
  is_debugger_paused?: boolean | null;
  error: { type?: string; exception?: string; message?: string } | null;
  creation_time_ms: number | null;
  start_time_ms: number | null;
  end_time_ms: number | null;
  pending_ms: number | null;
  running_ms: number | null;
  total_ms: number | null;
  task_log_info?: TaskLogInfo | null;
  profile?: ProfileSpan[];
  attempts: Array<{ attempt: number; state: string }>;
  matches?: TaskDetailMatches;
}

export interface ActorTransition {
  state: string | null;
  time_ms: number;
  node_id?: string;
  worker_id?: string;
  repr_name?: string;
  pid?: number;
  port?: number;
  restart_reason?: number | string;
  death_cause?: unknown;
}

export interface ActorDetail {
  session: string;
  actor_id: string;
  state: string | null;
  restarts?: number;
  start_time_ms?: number;
  end_time_ms?: number;
  definition: {
    job_id?: string;
    name?: string;
    ray_namespace?: string;
    class_name?: string;
    runtime_env?: unknown;
    required_resources?: unknown;
    placement_group_id?: string;
    label_selector?: unknown;
    call_site?: string;
    parent_id?: string;
    is_detached?: boolean;
  } | null;
  transitions: ActorTransition[];
  death_cause?: unknown;
}

export interface JobTransition {
  state: string;
  time_ms: number;
  message?: string;
  error_type?: string;
  exit_code?: number | null;
}

export interface JobDetail {
  session: string;
  job_id: string;
  status?: string;
  start_time_ms?: number;
  end_time_ms?: number;
  definition: {
    entrypoint?: string;
    driver_node_id?: string;
    driver_pid?: number;
    runtime_env?: unknown;
    metadata?: unknown;
  } | null;
  transitions: JobTransition[];
  tasks?: { total: number; attempts?: number; by_state: ByState };
}
