// The history API client: JSON over fetch, one AbortController per view (a view's requests die
// with it), a deadline per request, the bearer token from sessionStorage, and typed errors that
// say what happened and what to do.
import { h } from './dom';

export const API_BASE = '/api/history/v1/';
export const TOKEN_KEY = 'rayagg.token';
const DEFAULT_TIMEOUT_MS = 30_000;

export type ApiErrorKind = 'network' | 'timeout' | 'aborted' | 'http' | 'auth' | 'schema' | 'unavailable' | 'bad-answer';

export class ApiError extends Error {
  constructor(
    readonly kind: ApiErrorKind,
    message: string,
    readonly status = 0,
    /** The API's own `msg`, when it gave one. */
    readonly apiMsg = '',
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** What to do about it, in a sentence. */
  get advice(): string {
    switch (this.kind) {
      case 'network': return 'Check that ray-task-history is running and reachable, then reload the page.';
      case 'timeout': return 'The history did not answer in time; reload to try again, or narrow the filters.';
      case 'auth': return 'Reload the page and enter the bearer token from http.bearer_token_file.';
      case 'schema': return 'Run the newer ray-task-history, or delete the index to rebuild it from the store.';
      case 'unavailable': return 'The index is not open yet or the query was too large; try again in a moment or narrow the filters.';
      case 'bad-answer': return 'The answer was not the JSON this page expects; check that the page and ray-task-history are the same version.';
      case 'aborted': return '';
      case 'http':
        if (this.status === 404) return 'Check the link: the session, task, actor or job may not exist (or was removed from the index).';
        if (this.status === 400) return 'A parameter in the address is not valid; remove it or start again from the Sessions page.';
        if (this.status === 502 || this.status === 504) return 'The proxy in front of the history cannot reach it: check that ray-task-history is running, then reload.';
        if (this.status === 429) return 'Too many exports at once; try again in a few seconds.';
        return 'Reload the page to try again.';
    }
  }
}

export type ParamValue = string | number | boolean | null | undefined | ReadonlyArray<string>;
export type Params = URLSearchParams | Record<string, ParamValue>;

export function toSearch(params?: Params): URLSearchParams {
  if (!params) return new URLSearchParams();
  if (params instanceof URLSearchParams) return new URLSearchParams(params);
  const sp = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === null || v === undefined || v === '' || v === false) continue;
    if (Array.isArray(v)) for (const item of v as ReadonlyArray<string>) sp.append(k, item);
    else sp.append(k, String(v));
  }
  return sp;
}

export function apiUrl(route: string, params?: Params): string {
  const qs = toSearch(params).toString();
  return API_BASE + route + (qs ? `?${qs}` : '');
}

export function getToken(): string | null {
  try { return sessionStorage.getItem(TOKEN_KEY); } catch { return null; }
}
function setToken(token: string): void {
  try { sessionStorage.setItem(TOKEN_KEY, token); } catch { /* storage off: the token lives for this request only */ }
}

// One dialog at a time: concurrent 401s wait on the same question.
let tokenQuestion: Promise<string | null> | null = null;
let tokenRefused = false;

function askToken(rejected: boolean): Promise<string | null> {
  if (tokenQuestion) return tokenQuestion;
  tokenQuestion = new Promise<string | null>((resolve) => {
    const input = h('input', { type: 'password', id: 'token-input', autocomplete: 'off', spellcheck: 'false', required: true });
    const form = h('form', { method: 'dialog', class: 'token-form' },
      h('h2', { id: 'token-title' }, 'Access token needed'),
      h('p', { id: 'token-desc' }, rejected
        ? 'The token was not accepted. Enter the bearer token from the history\'s http.bearer_token_file.'
        : 'This history asks for a bearer token (http.bearer_token_file). It is kept for this tab only (sessionStorage) and never put in a URL.'),
      h('label', { for: 'token-input' }, 'Token'), input,
      h('div', { class: 'row-actions' },
        h('button', { type: 'submit', value: 'ok', class: 'primary' }, 'Use token'),
        h('button', { type: 'submit', value: 'cancel', formnovalidate: true }, 'Cancel')));
    const dialog = h('dialog', { 'aria-labelledby': 'token-title', 'aria-describedby': 'token-desc' }, form);
    document.body.appendChild(dialog);
    dialog.addEventListener('close', () => {
      const value = dialog.returnValue === 'ok' ? input.value.trim() : '';
      dialog.remove();
      tokenQuestion = null;
      if (value) setToken(value); else tokenRefused = true;
      resolve(value || null);
    });
    dialog.showModal();
    input.focus();
  });
  return tokenQuestion;
}

/** Links a child signal to a parent: aborting the parent aborts the child. */
function linked(parent: AbortSignal | undefined, ...more: Array<AbortSignal | undefined>): AbortController {
  const c = new AbortController();
  for (const s of [parent, ...more]) {
    if (!s) continue;
    if (s.aborted) c.abort();
    else s.addEventListener('abort', () => c.abort(), { once: true });
  }
  return c;
}

interface ErrorBody { msg?: unknown }

export interface RequestOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

export class Api {
  private readonly controller: AbortController;

  constructor(parent?: AbortSignal) {
    this.controller = linked(parent);
  }

  get signal(): AbortSignal { return this.controller.signal; }

  /** A client whose requests end with this one's, or earlier with abort(). */
  child(): Api { return new Api(this.controller.signal); }

  abort(): void { this.controller.abort(); }

  url(route: string, params?: Params): string { return apiUrl(route, params); }

  async get<T>(route: string, params?: Params, opts: RequestOptions = {}): Promise<T> {
    const res = await this.fetchOk(route, params, opts, 'application/json');
    let body: unknown;
    try {
      body = await res.json();
    } catch (e) {
      if (this.signal.aborted || opts.signal?.aborted) throw new ApiError('aborted', 'aborted');
      throw new ApiError('bad-answer', `The answer of ${route} was not JSON (${String(e)}).`, res.status);
    }
    if (body === null || typeof body !== 'object') throw new ApiError('bad-answer', `The answer of ${route} was not a JSON object.`, res.status);
    return body as T;
  }

  /** Fetches a download (exports) as a Blob, for when a token must go in a header. */
  async blob(route: string, params?: Params): Promise<Blob> {
    const res = await this.fetchOk(route, params, { timeoutMs: 10 * 60_000 }, '*/*');
    return res.blob();
  }

  private async fetchOk(route: string, params: Params | undefined, opts: RequestOptions, accept: string, tries = 0): Promise<Response> {
    const timeout = new AbortController();
    const ctl = linked(this.signal, opts.signal, timeout.signal);
    const timer = setTimeout(() => timeout.abort(), opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const headers: Record<string, string> = { Accept: accept };
    const token = getToken();
    if (token) headers.Authorization = `Bearer ${token}`;
    let res: Response;
    try {
      res = await fetch(apiUrl(route, params), { headers, signal: ctl.signal, credentials: 'same-origin', cache: 'no-store' });
    } catch (e) {
      if (timeout.signal.aborted && !this.signal.aborted && !opts.signal?.aborted) {
        throw new ApiError('timeout', `The history did not answer ${route} within ${Math.round((opts.timeoutMs ?? DEFAULT_TIMEOUT_MS) / 1000)} s.`);
      }
      if (ctl.signal.aborted) throw new ApiError('aborted', 'aborted');
      throw new ApiError('network', `Cannot reach the history API (${e instanceof Error ? e.message : String(e)}).`);
    } finally {
      clearTimeout(timer);
    }
    if (res.ok) return res;
    const msg = await readMsg(res);
    if (res.status === 401) {
      // Ask (a wrong token asks again, up to 3 times); concurrent requests share one dialog.
      if (tries < 3 && !tokenRefused) {
        const fresh = getToken();
        if (fresh && fresh !== token) return this.fetchOk(route, params, opts, accept, tries + 1);
        const t = await askToken(token !== null);
        if (t) return this.fetchOk(route, params, opts, accept, tries + 1);
      }
      throw new ApiError('auth', `The history asks for a bearer token (401)${msg ? `: ${msg}` : ''}.`, 401, msg);
    }
    if (res.status === 503) {
      const schema = /index schema version (\d+) found, newer than this binary's version (\d+)/.exec(msg);
      if (schema) {
        throw new ApiError('schema',
          `The index was written by a newer ray-task-history (index schema version ${schema[1]}; this binary reads version ${schema[2]}) and cannot be read by this one (503).`,
          503, msg);
      }
      throw new ApiError('unavailable', `The history is unavailable (503)${msg ? `: ${msg}` : ''}.`, 503, msg);
    }
    throw new ApiError('http', `${res.status} ${res.statusText || 'error'}${msg ? `: ${msg}` : ''}`, res.status, msg);
  }
}

async function readMsg(res: Response): Promise<string> {
  try {
    const body = (await res.json()) as ErrorBody;
    return typeof body.msg === 'string' ? body.msg : '';
  } catch {
    return '';
  }
}

export function isAbort(e: unknown): boolean {
  return e instanceof ApiError && e.kind === 'aborted';
}
