// A state timeline: one bar per state, as wide as the time the task spent in it, and the same
// facts as a list (role=list, one item per transition: state, time, duration) for people who do
// not see the bar, and for everyone who wants the numbers. The bar is decorative (aria-hidden);
// each segment carries its state's name as text and in title.
import { h } from '../../core/dom';
import { duration, isoUtc } from '../../core/format';
import { stateClass, stateInfo } from '../../core/states';

export interface Transition {
  state: string;
  time_ms: number;
  time_ns?: string;
}

export interface Segment {
  state: string;
  startMs: number;
  /** Time in this state until the next transition; null for the last one. */
  durMs: number | null;
  last: boolean;
}

const TERMINAL = new Set(['FINISHED', 'FAILED']);

/** ns strings give sub-ms durations; ms times are the fallback. */
function diffMs(a: Transition, b: Transition): number {
  if (a.time_ns && b.time_ns && /^\d+$/.test(a.time_ns) && /^\d+$/.test(b.time_ns)) {
    try {
      return Number(BigInt(b.time_ns) - BigInt(a.time_ns)) / 1e6;
    } catch { /* fall through */ }
  }
  return b.time_ms - a.time_ms;
}

export function segments(transitions: Transition[]): Segment[] {
  const sorted = [...transitions].sort((a, b) => diffMs(b, a));
  return sorted.map((t, i) => ({
    state: t.state,
    startMs: t.time_ms,
    durMs: i + 1 < sorted.length ? Math.max(0, diffMs(t, sorted[i + 1])) : null,
    last: i + 1 === sorted.length,
  }));
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

const clockFmt = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });

/** Local wall-clock time (the locale's clock) with milliseconds: task states often last less than a second. */
export function clockMs(ms: number): string {
  const d = new Date(ms);
  return clockFmt.formatToParts(d)
    .map((p) => (p.type === 'second' ? `${p.value}.${pad(d.getMilliseconds(), 3)}` : p.value)).join('');
}

export function timeMsEl(ms: number): HTMLElement {
  const d = new Date(ms);
  return h('time', { datetime: d.toISOString(), title: `${d.toDateString()} · ${isoUtc(ms)} (UTC)` }, clockMs(ms));
}

/** What the last segment means: a terminal state is an instant; any other one had no later event. */
function lastText(seg: Segment): string {
  return TERMINAL.has(seg.state) ? 'final state' : 'no later event';
}

/**
 * The bar. scale (0–1] sets its width relative to the longest attempt drawn beside it, so
 * attempts compare at a glance.
 */
export function timelineBar(segs: Segment[], scale = 1): HTMLElement {
  const bar = h('div', { class: 'tl-bar', 'aria-hidden': 'true' });
  bar.style.width = `${Math.max(20, Math.min(100, scale * 100))}%`;
  const total = segs.reduce((s, x) => s + (x.durMs ?? 0), 0);
  for (const seg of segs) {
    const info = stateInfo(seg.state);
    const open = seg.last && !TERMINAL.has(seg.state);
    const text = `${info.label} · ${seg.durMs === null ? lastText(seg) : duration(seg.durMs)}`;
    const el = h('span', { class: `${stateClass(seg.state)} tl-seg${seg.last ? ' tl-last' : ''}${open ? ' tl-open' : ''}`, title: text },
      h('span', { class: 'tl-text' }, info.label));
    if (seg.durMs !== null && total > 0) el.style.flex = `${seg.durMs / total} 1 0px`;
    bar.appendChild(el);
  }
  return bar;
}

/** The list: one item per transition with its state, time, offset from the first and duration. */
export function timelineList(segs: Segment[], label: string): HTMLElement {
  // Offsets add up the segments' own (ns-precise) durations, so they agree with them.
  let offset = 0;
  return h('ol', { role: 'list', 'aria-label': label, class: 'tl-list' }, segs.map((seg, i) => {
    const info = stateInfo(seg.state);
    if (i > 0) offset += segs[i - 1].durMs ?? 0;
    return h('li', { role: 'listitem', class: 'tl-item', 'data-state': seg.state },
      h('span', { class: stateClass(seg.state), title: info.evidence ? `Inferred: ${info.evidence}` : null }, info.label),
      ' ', h('span', { class: 'tl-when' }, 'at ', timeMsEl(seg.startMs), offset > 0 ? ` (+${duration(offset)})` : ''),
      ' ', h('span', { class: 'tl-dur' }, seg.durMs === null ? `— ${lastText(seg)}` : `for ${duration(seg.durMs)}`));
  }));
}

/** The time from creation to the first RUNNING, and the states it was spent in. */
export function pendingWindow(segs: Segment[]): { startMs: number; endMs: number | null; parts: Segment[] } | null {
  if (segs.length === 0) return null;
  const run = segs.findIndex((s) => s.state === 'RUNNING');
  if (run === 0) return null;
  const parts = run < 0 ? segs : segs.slice(0, run);
  return { startMs: segs[0].startMs, endMs: run < 0 ? null : segs[run].startMs, parts };
}
