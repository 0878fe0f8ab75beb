#!/usr/bin/env node
// Screenshots of pages of a running dev server (or ray-task-history) at 1440 and 390 px, with an
// axe-core run on each (serious and critical violations printed). Debian's Chromium, headless,
// a fresh profile; never a browser download.
//   node scripts/screenshots.mjs --base http://127.0.0.1:5173 --out DIR PATH [PATH...]
import { mkdtemp, mkdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
function arg(name, fallback) {
  const i = args.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const v = args[i + 1];
  args.splice(i, 2);
  return v;
}
const base = arg('base', 'http://127.0.0.1:5173');
const out = arg('out', join(here, '..', '..', 'build', 'ui-shots'));
const widths = arg('widths', '1440,390').split(',').map(Number);
const scheme = arg('scheme', 'light');
const clip = arg('clip', ''); // "y,height": a band of the page instead of the whole page
const paths = args.length ? args : ['/'];

await mkdir(out, { recursive: true });
const profile = await mkdtemp(join(tmpdir(), 'rayagg-shots-'));
const axe = await readFile(join(here, '..', 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
const browser = await chromium.launchPersistentContext(profile, {
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  colorScheme: scheme,
});
let failed = 0;
try {
  for (const path of paths) {
    for (const width of widths) {
      const page = await browser.newPage();
      await page.setViewportSize({ width, height: 900 });
      const errors = [];
      page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto(base + path, { waitUntil: 'networkidle' });
      await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'), null, { timeout: 15000 }).catch(() => {});
      const name = `${path.replace(/[^a-z0-9]+/gi, '_').replace(/^_|_$/g, '') || 'sessions'}-${width}-${scheme}.png`.slice(-120);
      if (clip) {
        const [y, height] = clip.split(',').map(Number);
        await page.screenshot({ path: join(out, name), fullPage: true, clip: { x: 0, y, width, height } });
      } else await page.screenshot({ path: join(out, name), fullPage: true });
      // Injected through the DevTools protocol: the page's CSP (rightly) refuses an inline script tag.
      await page.evaluate(axe);
      const result = await page.evaluate(async () => {
        // eslint-disable-next-line no-undef
        const r = await axe.run(document, { resultTypes: ['violations'] });
        return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.length}) e.g. ${v.nodes[0]?.target?.join(' ')}`);
      });
      console.log(`${name}: ${result.length ? result.join('\n  ') : 'axe: no serious/critical'}${errors.length ? `\n  console: ${errors.join('\n  ')}` : ''}`);
      if (result.length || errors.length) failed++;
      await page.close();
    }
  }
} finally {
  await browser.close();
  await rm(profile, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
