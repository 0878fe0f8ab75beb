// How numbers, durations, times and ids read on the page. Unknown values (the API's -1 or null)
// read as an em dash, never as 0.
import { h } from './dom';

const intFmt = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });

export function count(n: number): string {
  return intFmt.format(n);
}

/** A count as an element in tabular figures (class num). */
export function countEl(n: number): HTMLElement {
  return h('span', { class: 'num' }, count(n));
}

function known(v: number | null | undefined): v is number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0;
}

function sig(v: number): string {
  if (v >= 100) return v.toFixed(0);
  if (v >= 10) return v.toFixed(1);
  return v.toFixed(2);
}

/** Milliseconds as "420 µs", "12.5 ms", "38.2 s", "4 min 12 s", "1 h 2 min", "3 d 4 h"; unknown: "—". */
export function duration(ms: number | null | undefined): string {
  if (!known(ms)) return '—';
  if (ms === 0) return '0 s';
  if (ms < 1) return `${Math.round(ms * 1000)} µs`;
  if (ms < 1000) return `${sig(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${sig(s)} s`;
  const totalS = Math.round(s);
  if (totalS < 3600) {
    const m = Math.floor(totalS / 60), r = totalS % 60;
    return r ? `${m} min ${r} s` : `${m} min`;
  }
  const totalMin = Math.round(s / 60);
  if (totalMin < 24 * 60) {
    const hr = Math.floor(totalMin / 60), m = totalMin % 60;
    return m ? `${hr} h ${m} min` : `${hr} h`;
  }
  const totalH = Math.round(s / 3600);
  const d = Math.floor(totalH / 24), hr = totalH % 24;
  return hr ? `${d} d ${hr} h` : `${d} d`;
}

/** Microseconds (histogram bounds) as a duration. */
export function durationUs(us: number): string {
  return duration(us / 1000);
}

const timeFmt = new Intl.DateTimeFormat(undefined, {
  year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit',
});
const shortFmt = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' });
const clockFmt = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });

export function isoUtc(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

/** A time in ms since the epoch, local, as <time> with the UTC time on hover. */
export function timeEl(ms: number | null | undefined, opts: { clock?: boolean; short?: boolean } = {}): HTMLElement | string {
  if (!known(ms) || ms === 0) return '—';
  const d = new Date(ms);
  const sameDay = new Date().toDateString() === d.toDateString();
  const text = opts.clock || sameDay ? clockFmt.format(d) : opts.short ? shortFmt.format(d) : timeFmt.format(d);
  return h('time', { datetime: d.toISOString(), title: `${isoUtc(ms)} (UTC)` }, text);
}

export function timeText(ms: number | null | undefined): string {
  if (!known(ms) || ms === 0) return '—';
  return timeFmt.format(new Date(ms));
}

/** "2 s", "5 min" ago, for the live indicator. */
export function ago(ms: number): string {
  if (ms < 1000) return 'less than a second';
  return duration(Math.round(ms / 1000) * 1000);
}

/** An id shortened to its head and tail, with the whole id in title (and for copy, data-id). */
export function shortId(id: string | null | undefined, head = 6, tail = 4): HTMLElement | string {
  if (!id) return '—';
  const text = id.length > head + tail + 1 ? `${id.slice(0, head)}…${tail > 0 ? id.slice(-tail) : ''}` : id;
  return h('span', { class: 'id', title: id }, text);
}

export function plural(n: number, one: string, many: string): string {
  return `${count(n)} ${n === 1 ? one : many}`;
}
