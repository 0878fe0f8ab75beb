// The only way the page makes elements. Text is set with createTextNode (never parsed as HTML),
// attributes with setAttribute through an allowlist: no event-handler attributes, no
// javascript:/data: URLs, no style (CSP forbids inline style anyway). Task names, errors and stack
// traces are data from the cluster: they only ever reach the DOM through here.

export type Child = Node | string | number | null | undefined | false | Child[];
export type AttrValue = string | number | boolean | null | undefined;
export type Attrs = Record<string, AttrValue>;

const ALLOWED_ATTRS = new Set([
  'id', 'class', 'href', 'title', 'type', 'name', 'value', 'placeholder', 'role', 'tabindex',
  'for', 'colspan', 'rowspan', 'scope', 'hidden', 'disabled', 'checked', 'selected', 'open',
  'download', 'rel', 'target', 'lang', 'dir', 'autocomplete', 'spellcheck', 'inputmode',
  'minlength', 'maxlength', 'datetime', 'method', 'enterkeyhint', 'accesskey', 'required',
  'formnovalidate', 'min', 'max', 'step', 'multiple', 'size', 'form', 'start', 'headers', 'elementtiming',
  'list',
  // SVG geometry for the small charts
  'viewBox', 'width', 'height', 'x', 'y', 'rx', 'ry', 'd', 'fill', 'stroke', 'focusable',
  'preserveAspectRatio', 'xmlns',
]);
const URL_ATTRS = new Set(['href', 'src', 'action', 'formaction', 'xlink:href']);
const SVG_NS = 'http://www.w3.org/2000/svg';
const SVG_TAGS = new Set(['svg', 'g', 'rect', 'path', 'line']);

/** True for URLs the page may put in href: relative ones and http(s). */
export function safeUrl(url: string): boolean {
  // Browsers ignore ASCII whitespace and control characters inside a scheme: strip them first.
  const compact = url.replace(/[\u0000-\u0020\u007f]/g, '').toLowerCase();
  const scheme = /^([a-z][a-z0-9+.-]*):/.exec(compact);
  if (!scheme) return true; // relative
  // blob: only for objects this page made (downloads of exports).
  if (scheme[1] === 'blob') return url.startsWith(`blob:${location.origin}/`);
  return scheme[1] === 'http' || scheme[1] === 'https';
}

function attrAllowed(name: string): boolean {
  const lower = name.toLowerCase();
  if (lower.startsWith('on')) return false;
  return ALLOWED_ATTRS.has(name) || lower.startsWith('aria-') || lower.startsWith('data-');
}

/** Sets one attribute, or throws for one the page must never set. false/null/undefined remove it. */
export function setAttr(el: Element, name: string, value: AttrValue): void {
  if (!attrAllowed(name)) throw new Error(`attribute not allowed: ${name}`);
  if (value === false || value === null || value === undefined) {
    el.removeAttribute(name);
    return;
  }
  const text = value === true ? '' : String(value);
  if (URL_ATTRS.has(name.toLowerCase()) && !safeUrl(text)) throw new Error(`URL not allowed in ${name}`);
  el.setAttribute(name, text);
}

export function append(parent: Node, ...children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(parent, ...c);
    else if (typeof c === 'string' || typeof c === 'number') parent.appendChild(document.createTextNode(String(c)));
    else parent.appendChild(c);
  }
}

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Attrs | null, ...children: Child[]): HTMLElementTagNameMap[K];
export function h(tag: string, attrs?: Attrs | null, ...children: Child[]): Element;
export function h(tag: string, attrs?: Attrs | null, ...children: Child[]): Element {
  const el = SVG_TAGS.has(tag) ? document.createElementNS(SVG_NS, tag) : document.createElement(tag);
  if (attrs) for (const [k, v] of Object.entries(attrs)) setAttr(el, k, v);
  append(el, ...children);
  return el;
}

/** Replaces every child of el. */
export function replace(el: Element, ...children: Child[]): void {
  while (el.firstChild) el.removeChild(el.firstChild);
  append(el, ...children);
}

/**
 * Text with the given UTF-16 [start, end) ranges wrapped in <mark>; ranges out of order, overlapping
 * or out of bounds are clamped, so a bad answer never throws.
 */
export function highlighted(text: string, ranges: ReadonlyArray<readonly [number, number]> | undefined): Child[] {
  if (!ranges || ranges.length === 0) return [text];
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: Child[] = [];
  let pos = 0;
  for (const [s0, e0] of sorted) {
    const s = Math.max(pos, Math.min(text.length, s0));
    const e = Math.max(s, Math.min(text.length, e0));
    if (e <= s) continue;
    if (s > pos) out.push(text.slice(pos, s));
    out.push(h('mark', null, text.slice(s, e)));
    pos = e;
  }
  if (pos < text.length) out.push(text.slice(pos));
  return out;
}

/** An <svg> icon drawn from path data (aria-hidden; the control names itself). */
export function icon(d: string, size = 16): SVGSVGElement {
  const svg = h('svg', { viewBox: '0 0 16 16', width: size, height: size, 'aria-hidden': 'true', focusable: 'false' },
    h('path', { d, fill: 'currentColor' })) as SVGSVGElement;
  return svg;
}
