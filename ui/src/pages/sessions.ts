// The Sessions page (being written).
import { h, replace } from '../core/dom';
import type { Page } from '../core/page';

export const sessionsPage: Page = (root, ctx) => {
  ctx.shell.setTitle('Sessions');
  replace(root, h('h1', null, 'Sessions'), h('p', null, 'This page is not written yet.'));
  return { dispose() {} };
};
