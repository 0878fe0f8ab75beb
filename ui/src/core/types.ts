// Shapes of the history API's answers (docs/HISTORY.md, "API"). Only what the pages read is
// typed; everything is optional where the API may leave it out. Times are ms since the epoch,
// durations ms; unknown times and durations are -1.

export type ByState = Record<string, number>;
export type Unit = 'tasks' | 'attempts';

export interface Manifests {
  writers: number;
  objects_without_manifest: number;
  gaps: number;
  gap_events: number;
  missing_events: number;
}

export interface SessionRow {
  cluster: string;
  kind?: string;
  namespace?: string;
  owner?: string;
  cluster_name?: string;
  session_name: string;
  session: string;
  has_marker?: boolean;
  first_event_time_ms: number;
  last_event_time_ms: number;
  /** live, idle, gone or removed. */
  status: string;
  finished?: boolean;
  objects?: number;
  object_bytes?: number;
  events?: number;
  ignored_events?: number;
  bad_lines?: number;
  bad_objects?: number;
  lost_before_export?: number;
  removed?: { reason: string; time_ms: number; detail: string };
  tasks?: { total: number; attempts: number; by_state: ByState };
  manifests?: Manifests;
}

export interface SessionsAnswer { sessions: SessionRow[]; next_cursor?: string | null }

export interface CountsAnswer {
  unit: Unit;
  total: number;
  by_state: ByState;
  tasks: number;
  attempts: number;
}

export interface HistogramBucket { gt_us: number; le_us: number | null; le_ms?: number | null; count: number }
export interface DurationStats {
  count: number;
  p50_ms: number;
  p90_ms: number;
  p99_ms: number;
  max_ms: number;
  mean_ms?: number;
  histogram: HistogramBucket[];
}
export type DurKind = 'total' | 'pending' | 'running';

export interface GroupRow {
  key: string | null;
  total: number;
  attempts?: number;
  tasks?: number;
  by_state: ByState;
  durations: Partial<Record<DurKind, DurationStats>>;
  task_types?: Record<string, number> | string[];
}
export interface GroupsAnswer { unit?: Unit; by?: string; groups: GroupRow[]; next_cursor?: string | null }

export type Ranges = Array<[number, number]>;
export interface ErrorMessageMatch {
  excerpt: string;
  line: number;
  cut_before: boolean;
  cut_after: boolean;
  matches: Ranges;
}
export interface TaskMatches {
  function?: Ranges;
  name?: Ranges;
  exception?: Ranges;
  task_id?: Ranges;
  job_id?: Ranges;
  node_id?: Ranges;
  error_message?: ErrorMessageMatch;
}

export interface TaskRow {
  task_id: string;
  attempt: number;
  attempts: number;
  latest: boolean | number;
  name: string;
  function: string;
  state: string;
  raw_state?: string;
  type?: string;
  job_id?: string;
  node_id?: string;
  worker_id?: string;
  worker_pid?: number;
  actor_id?: string;
  error_type?: string;
  exception?: string;
  creation_time_ms: number;
  start_time_ms: number;
  end_time_ms: number;
  pending_ms: number;
  running_ms: number;
  total_ms: number;
  matches?: TaskMatches;
}
export interface TasksAnswer { tasks: TaskRow[]; next_cursor?: string | null; q?: string }
export interface TaskCountAnswer { total: number; unit: Unit; q?: string }

export interface JobRow {
  job_id: string;
  status?: string;
  start_time_ms?: number;
  end_time_ms?: number;
  entrypoint?: string;
  tasks?: { total: number; attempts?: number; by_state: ByState };
}
export interface JobsAnswer { jobs: JobRow[]; next_cursor?: string | null }

export interface ActorRow {
  actor_id: string;
  state?: string;
  class_name?: string;
  name?: string;
  job_id?: string;
  restarts?: number;
  start_time_ms?: number;
  end_time_ms?: number;
}
export interface ActorsAnswer { actors: ActorRow[]; next_cursor?: string | null }

/** GET /api/history/v1/ui (ui-contract §2); defaults when the route is missing. */
export interface UiConfig {
  grafana_url: string | null;
  show_secrets: boolean;
  redact: string;
  version: string;
}
export const DEFAULT_UI_CONFIG: UiConfig = {
  grafana_url: null, show_secrets: false, redact: '(?i)secret|token|password|key|credential', version: '',
};
