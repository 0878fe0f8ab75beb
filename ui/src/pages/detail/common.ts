// Pieces the task, actor and job pages share: definition lists, JSON values as text, runtime
// environments (env vars as a table, the server's `•••` shown as it comes), links into the
// dashboard, the Grafana base URL (checked again here), a copy button and the not-found view.
// Everything from the cluster goes through h() as text.
import { h, replace, type Child } from '../../core/dom';
import { shortId } from '../../core/format';
import type { PageContext } from '../../core/page';
import { emptyView } from '../../core/views';

/** What the server puts in place of a value whose key matches ui.redact (ui-contract §2). */
export const REDACTED = '•••';

export type DlItem = [label: string, value: Child] | null | false | undefined;

/** A definition list; items whose value is null/undefined/'' are left out. */
export function dl(items: DlItem[], cls = 'kv'): HTMLElement {
  const rows: HTMLElement[] = [];
  for (const item of items) {
    if (!item) continue;
    const [label, value] = item;
    if (value === null || value === undefined || value === '' || value === false) continue;
    rows.push(h('div', null, h('dt', null, label), h('dd', null, value)));
  }
  return h('dl', { class: cls }, rows);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** True for values that say nothing: '', null, {}, []. */
export function blank(v: unknown): boolean {
  if (v === null || v === undefined || v === '') return true;
  if (Array.isArray(v)) return v.length === 0;
  if (isObject(v)) return Object.keys(v).length === 0;
  return false;
}

/** A scalar as text; objects and arrays as compact JSON. */
export function scalarText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v === null || v === undefined) return '—';
  return JSON.stringify(v);
}

/** A flat object as "key value" chips ({CPU: 1, GPU: 0.5} → "CPU 1", "GPU 0.5"); nested values as JSON. */
export function keyValues(v: unknown, sep = ' '): Child {
  if (blank(v)) return null;
  if (!isObject(v)) return h('span', { class: 'mono' }, scalarText(v));
  return h('ul', { class: 'pairs' }, Object.entries(v).map(([k, val]) =>
    h('li', null, h('span', { class: 'pair-key' }, k), sep, h('span', { class: 'pair-val' }, scalarText(val)))));
}

/** A JSON value as indented text in a <pre>. */
export function jsonPre(v: unknown): HTMLElement {
  return h('pre', { class: 'json' }, typeof v === 'string' ? v : JSON.stringify(v, null, 2));
}

/** A runtime env arrives as the serialized JSON Ray sent (or already parsed); unparseable text stays text. */
export function parseRuntimeEnv(raw: unknown): { value: unknown; parsed: boolean } {
  if (typeof raw !== 'string') return { value: raw, parsed: true };
  if (raw.trim() === '') return { value: null, parsed: true };
  try {
    return { value: JSON.parse(raw) as unknown, parsed: true };
  } catch {
    return { value: raw, parsed: false };
  }
}

/** A table's horizontal scroller: focusable, so a keyboard can scroll it (axe scrollable-region-focusable). */
export function scrollWrap(label: string, table: HTMLElement): HTMLElement {
  return h('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': `${label} table` }, table);
}

/** Name/value rows (env vars, job metadata); `•••` is marked as hidden by the server. */
export function valueTable(label: string, entries: Array<[string, unknown]>, keyHead = 'Name'): HTMLElement {
  return scrollWrap(label, h('table', { class: 'kv-table', 'aria-label': label },
    h('thead', null, h('tr', null, h('th', { scope: 'col' }, keyHead), h('th', { scope: 'col' }, 'Value'))),
    h('tbody', null, entries.map(([k, v]) => {
      const text = scalarText(v);
      const redacted = text === REDACTED;
      return h('tr', null, h('th', { scope: 'row', class: 'mono' }, k),
        h('td', { class: redacted ? 'mono redacted' : 'mono' }, text,
          redacted ? h('span', { class: 'visually-hidden' }, ' (hidden by the server: the name matches ui.redact)') : null));
    }))));
}

/** True when any value in the answer was redacted by the server. */
function anyRedacted(v: unknown): boolean {
  if (v === REDACTED) return true;
  if (Array.isArray(v)) return v.some(anyRedacted);
  if (isObject(v)) return Object.values(v).some(anyRedacted);
  return false;
}

export function redactionNote(v: unknown): Child {
  return anyRedacted(v)
    ? h('p', { class: 'muted small' }, `Values shown as ${REDACTED} were hidden by the server: their names match ui.redact, and ui.show_secrets is off.`)
    : null;
}

/**
 * A runtime environment: env_vars as a table, the other fields (pip, conda, working_dir,
 * py_modules, …) as a definition list of JSON text. Returns the section's body.
 */
export function runtimeEnvBody(raw: unknown, what: string): Child[] {
  const { value, parsed } = parseRuntimeEnv(raw);
  if (blank(value)) return [h('p', { class: 'muted' }, `No runtime environment was set for this ${what}.`)];
  if (value === REDACTED) {
    return [h('p', null, REDACTED, ' ', h('span', { class: 'muted' }, 'The server hid the whole runtime environment (it could not be read as JSON, or was nested too deep to redact by name).'))];
  }
  if (!parsed || !isObject(value)) {
    return [h('p', { class: 'muted small' }, 'As sent (not JSON):'), jsonPre(value)];
  }
  const out: Child[] = [];
  const env = value.env_vars;
  const rest = Object.entries(value).filter(([k]) => k !== 'env_vars');
  if (isObject(env) && Object.keys(env).length > 0) {
    out.push(h('h3', null, 'Environment variables'), valueTable('Environment variables', Object.entries(env)));
  } else if (env !== undefined && !blank(env)) {
    out.push(dl([['env_vars', jsonPre(env)]]));
  }
  if (rest.length > 0) {
    out.push(h('h3', null, 'Other fields'),
      dl(rest.map(([k, v]): DlItem => [k, typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'
        ? h('span', { class: 'mono wrap' }, String(v)) : jsonPre(v)])));
  }
  out.push(redactionNote(value));
  return out;
}

/** The dashboard of this session with some task-list filters (ui-contract §2 `/session`). */
export function dashHref(ctx: PageContext, session: string, filters: Record<string, string | null | undefined> = {}): string {
  return ctx.href('/session', { session, ...filters });
}

/**
 * Task and actor ids shortened to their head: Ray puts the unique bytes first and the job's (or
 * the actor's) id last, so tails repeat across a job while heads differ.
 */
export function headId(id: string): HTMLElement | string {
  return shortId(id, 12, 0);
}

/** A link to another task's detail, or a dash. */
export function taskLink(ctx: PageContext, session: string, taskId: string | null | undefined): Child {
  if (!taskId) return null;
  return h('a', { href: ctx.href('/task', { session, task_id: taskId }), class: 'id-link', title: taskId }, headId(taskId));
}

export function actorLink(ctx: PageContext, session: string, actorId: string | null | undefined, label?: string): Child {
  if (!actorId) return null;
  return h('a', { href: ctx.href('/actor', { session, actor_id: actorId }), class: 'id-link', title: actorId },
    label ? [label, ' ', h('span', { class: 'muted' }, headId(actorId))] : headId(actorId));
}

export function jobLink(ctx: PageContext, session: string, jobId: string | null | undefined): Child {
  if (!jobId) return null;
  return h('a', { href: ctx.href('/job', { session, job_id: jobId }), class: 'mono' }, jobId);
}

/** A node id linking to the dashboard filtered by it. */
export function nodeLink(ctx: PageContext, session: string, nodeId: string | null | undefined): Child {
  if (!nodeId) return null;
  return h('a', { href: dashHref(ctx, session, { node_id: nodeId }), title: `Tasks on node ${nodeId}` }, shortId(nodeId, 8, 6));
}

/**
 * ui.grafana_url when it is an absolute http(s) URL, without a trailing slash; null otherwise.
 * The server checks it too; the page does again, since a link built from it opens in a new tab.
 */
export function grafanaBase(url: string | null | undefined): string | null {
  if (!url) return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
  if (parsed.username || parsed.password) return null;
  return parsed.href.replace(/[?#].*$/, '').replace(/\/+$/, '');
}

/** A link that leaves the page: a new tab, no opener, no referrer. */
export function externalLink(url: string, text: string, label?: string): HTMLElement {
  return h('a', { href: url, target: '_blank', rel: 'noopener noreferrer', class: 'external', 'aria-label': label ?? null },
    text, h('span', { 'aria-hidden': 'true' }, ' ↗'));
}

/** A button that copies text, saying so (or why not) in a polite live region beside it. */
export function copyButton(text: () => string, label: string): HTMLElement {
  const msg = h('span', { class: 'copy-msg muted', 'aria-live': 'polite' });
  const button = h('button', { type: 'button', class: 'small-btn' }, label);
  button.addEventListener('click', () => {
    const done = (ok: boolean) => {
      msg.textContent = ok ? 'Copied.' : 'Copying was refused by the browser: select the text instead.';
      window.setTimeout(() => { msg.textContent = ''; }, 4000);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text()).then(() => done(true), () => done(false));
    } else {
      done(false);
    }
  });
  return h('span', { class: 'copy' }, button, msg);
}

/** The 404 view of a detail page: a heading saying what is missing and a way back. */
export function notFoundView(title: string, detail: string, back: Child): HTMLElement[] {
  return [
    h('h1', null, title),
    h('div', { class: 'not-found' }, emptyView(detail, h('p', null, back))),
  ];
}

/** A back link to the session's dashboard. */
export function backToDashboard(ctx: PageContext, session: string, extra: Record<string, string | null> = {}): HTMLElement {
  return h('a', { href: dashHref(ctx, session, extra), class: 'back' }, h('span', { 'aria-hidden': 'true' }, '← '), 'Back to the dashboard');
}

/** The session's short name (the part after the cluster) for headings. */
export function sessionName(session: string): string {
  return session.split('/').pop() || session;
}

/** A duration between two ms times, or null when either is unknown. */
export function span(start: number | null | undefined, end: number | null | undefined): number | null {
  if (typeof start !== 'number' || typeof end !== 'number' || start <= 0 || end <= 0 || end < start) return null;
  return end - start;
}

/**
 * Replaces a detail page's content once its answer is in. The router focused the placeholder's
 * <h1> on navigation; the new <h1> takes the focus over, so a screen reader hears the real title.
 */
export function swapPage(root: HTMLElement, children: Child[]): void {
  const old = root.querySelector('h1');
  const focused = old !== null && document.activeElement === old;
  replace(root, ...children);
  const h1 = root.querySelector('h1');
  if (h1) {
    h1.setAttribute('tabindex', '-1');
    if (focused) h1.focus({ preventScroll: true });
  }
}
