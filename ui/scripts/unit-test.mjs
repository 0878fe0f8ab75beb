#!/usr/bin/env node
// Bundles test/*.test.ts with esbuild (for Node, into a temporary folder) and runs them with
// node's own test runner: the page's pure parts tested without a browser.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const testDir = join(here, '..', 'test');
const out = mkdtempSync(join(tmpdir(), 'rayagg-ui-test-'));
try {
  const entries = readdirSync(testDir).filter((f) => f.endsWith('.test.ts')).map((f) => join(testDir, f));
  await build({ entryPoints: entries, bundle: true, platform: 'node', format: 'esm', target: 'node18', outdir: out,
    outExtension: { '.js': '.mjs' }, logLevel: 'warning' });
  const files = readdirSync(out).filter((f) => f.endsWith('.mjs')).map((f) => join(out, f));
  const run = spawnSync(process.execPath, ['--test', ...files], { stdio: 'inherit' });
  process.exitCode = run.status ?? 1;
} finally {
  rmSync(out, { recursive: true, force: true });
}
