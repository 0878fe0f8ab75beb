// The Session page (being written).
import { h, replace } from '../core/dom';
import type { Page } from '../core/page';

export const sessionPage: Page = (root, ctx) => {
  ctx.shell.setTitle('Session');
  replace(root, h('h1', null, 'Session'), h('p', null, 'This page is not written yet.'));
  return { dispose() {} };
};
