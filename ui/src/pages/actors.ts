// Stub: the Actors page (ui-contract §2 "/actors"), to be written on top of the core.
import { h, replace } from '../core/dom';
import type { Page } from '../core/page';

export const actorsPage: Page = (root, ctx) => {
  ctx.shell.setTitle('Actors');
  replace(root, h('h1', null, 'Actors'), h('p', null, 'This page is not written yet.'));
  return { dispose() {} };
};
