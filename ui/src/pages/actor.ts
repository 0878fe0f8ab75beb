// Stub: the Actor page (ui-contract §2 "/actor"), to be written on top of the core.
import { h, replace } from '../core/dom';
import type { Page } from '../core/page';

export const actorPage: Page = (root, ctx) => {
  ctx.shell.setTitle('Actor');
  replace(root, h('h1', null, 'Actor'), h('p', null, 'This page is not written yet.'));
  return { dispose() {} };
};
