// Bundles the page once: src/main.ts → assets/app.js, src/styles.css → assets/app.css (minified,
// ES2020), and index.html with each asset's URL carrying ?v=<sha256 prefix> so a server may cache
// assets long. Output: $RAYAGG_UI_OUT, else ../build/ui (relative to this folder).
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = resolve(process.env.RAYAGG_UI_OUT || join(here, '..', 'build', 'ui'));

const common = { bundle: true, minify: true, target: 'es2020', write: false, logLevel: 'warning', legalComments: 'none' };
const [js, css] = await Promise.all([
  build({ ...common, entryPoints: [join(here, 'src', 'main.ts')], format: 'esm', outfile: 'app.js', sourcemap: false }),
  build({ ...common, entryPoints: [join(here, 'src', 'styles.css')], outfile: 'app.css' }),
]);

const files = { 'app.js': js.outputFiles[0].contents, 'app.css': css.outputFiles[0].contents };
// static/ (the icon) is copied as it is.
for (const name of await readdir(join(here, 'static'))) files[name] = await readFile(join(here, 'static', name));
const version = {};
for (const [name, bytes] of Object.entries(files)) {
  version[name] = createHash('sha256').update(bytes).digest('hex').slice(0, 12);
}

let html = await readFile(join(here, 'index.html'), 'utf8');
for (const name of Object.keys(files)) {
  const ref = `/assets/${name}"`;
  if (!html.includes(ref)) throw new Error(`index.html does not reference /assets/${name}`);
  html = html.replace(ref, `/assets/${name}?v=${version[name]}"`);
}
if (/<script(?![^>]*\bsrc=)[^>]*>|\sstyle=|<style/i.test(html)) throw new Error('index.html has inline script or style (CSP)');

await rm(join(out, 'assets'), { recursive: true, force: true });
await mkdir(join(out, 'assets'), { recursive: true });
await Promise.all([
  writeFile(join(out, 'index.html'), html),
  ...Object.entries(files).map(([name, bytes]) => writeFile(join(out, 'assets', name), bytes)),
]);
const sizes = Object.entries(files).map(([n, b]) => `${n} ${(b.length / 1024).toFixed(1)} KiB`).join(', ');
console.log(`ui: wrote ${out} (${sizes})`);
