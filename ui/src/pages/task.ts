// Stub: the Task page (ui-contract §2 "/task"), to be written on top of the core.
import { h, replace } from '../core/dom';
import type { Page } from '../core/page';

export const taskPage: Page = (root, ctx) => {
  ctx.shell.setTitle('Task');
  replace(root, h('h1', null, 'Task'), h('p', null, 'This page is not written yet.'));
  return { dispose() {} };
};
