// Stub: the Jobs page (ui-contract §2 "/jobs"), to be written on top of the core.
import { h, replace } from '../core/dom';
import type { Page } from '../core/page';

export const jobsPage: Page = (root, ctx) => {
  ctx.shell.setTitle('Jobs');
  replace(root, h('h1', null, 'Jobs'), h('p', null, 'This page is not written yet.'));
  return { dispose() {} };
};
