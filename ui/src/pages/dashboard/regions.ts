// Fills a region with new content by morphing it in place (focus and scroll survive a refresh).
import { append, h, type Child } from '../../core/dom';
import { morphChildren } from '../../core/morph';

export function fill(region: Element, ...children: Child[]): void {
  const next = h('div');
  append(next, ...children);
  morphChildren(region, next);
}

/** Downloads a Blob under a file name (exports when a token must go in a header). */
export function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = h('a', { href: url, download: name });
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
