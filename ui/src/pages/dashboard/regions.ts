// Downloads for the dashboard.
import { h } from '../../core/dom';

/** Downloads a Blob under a file name (exports when a token must go in a header). */
export function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = h('a', { href: url, download: name });
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
