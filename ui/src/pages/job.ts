// Stub: the Job page (ui-contract §2 "/job"), to be written on top of the core.
import { h, replace } from '../core/dom';
import type { Page } from '../core/page';

export const jobPage: Page = (root, ctx) => {
  ctx.shell.setTitle('Job');
  replace(root, h('h1', null, 'Job'), h('p', null, 'This page is not written yet.'));
  return { dispose() {} };
};
