// Updates a rendered region to match a freshly rendered one in place, so a refresh keeps what the
// user has: focus, scroll, an open <details>, text being typed. Children with a data-key are
// matched by key (a table row that did not change is not touched), others by position. Pages
// that use this handle events by delegation (reading data- attributes at click time), so a kept
// element never carries a stale closure.

import { append, h, type Child } from './dom';

/** Fills a region with new content by morphing it in place (focus and scroll survive a refresh). */
export function fill(region: Element, ...children: Child[]): void {
  const next = h('div');
  append(next, ...children);
  morphChildren(region, next);
}

function keyOf(n: Node): string | null {
  return n instanceof Element ? n.getAttribute('data-key') : null;
}

function syncAttributes(from: Element, to: Element): void {
  // style goes through the CSSOM below: CSP refuses a style set as an attribute.
  for (const a of Array.from(from.attributes)) {
    if (a.name !== 'style' && !to.hasAttribute(a.name)) from.removeAttribute(a.name);
  }
  for (const a of Array.from(to.attributes)) {
    if (a.name !== 'style' && from.getAttribute(a.name) !== a.value) from.setAttribute(a.name, a.value);
  }
  // Properties the user changes, which attributes do not follow.
  if (from instanceof HTMLInputElement && to instanceof HTMLInputElement) {
    if (from.type === 'checkbox' || from.type === 'radio') from.checked = to.checked;
  }
  if (from instanceof HTMLElement && to instanceof HTMLElement && from.style.cssText !== to.style.cssText) {
    from.style.cssText = to.style.cssText;
  }
}

function sameKind(a: Node, b: Node): boolean {
  return a.nodeType === b.nodeType && a.nodeName === b.nodeName && keyOf(a) === keyOf(b);
}

/** Makes `old` look like `next` (which is discarded), touching only what differs. */
export function morph(old: Node, next: Node): void {
  if (old.isEqualNode(next)) return;
  if (old.nodeType === Node.TEXT_NODE || old.nodeType === Node.COMMENT_NODE) {
    if (old.nodeValue !== next.nodeValue) old.nodeValue = next.nodeValue;
    return;
  }
  if (!(old instanceof Element) || !(next instanceof Element)) return;
  syncAttributes(old, next);
  morphChildren(old, next);
}

export function morphChildren(old: Element, next: Element): void {
  const keyed = new Map<string, Element>();
  for (const c of Array.from(old.children)) {
    const k = keyOf(c);
    if (k !== null) keyed.set(k, c);
  }
  const wanted = Array.from(next.childNodes);
  let cursor: ChildNode | null = old.firstChild;
  for (const n of wanted) {
    const k = keyOf(n);
    let match: ChildNode | null = null;
    if (k !== null) {
      match = keyed.get(k) ?? null;
      keyed.delete(k);
    } else if (cursor && keyOf(cursor) === null && sameKind(cursor, n)) {
      match = cursor;
    }
    if (match) {
      if (match !== cursor) old.insertBefore(match, cursor);
      else cursor = cursor.nextSibling;
      morph(match, n);
    } else {
      old.insertBefore(n, cursor);
    }
  }
  // Whatever is left after the last wanted node goes.
  while (cursor) {
    const nextSibling: ChildNode | null = cursor.nextSibling;
    cursor.remove();
    cursor = nextSibling;
  }
  for (const stale of keyed.values()) if (stale.parentNode === old) stale.remove();
}
