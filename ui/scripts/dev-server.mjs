#!/usr/bin/env node
// Development server for the page: serves the built bundle (index.html for every page route) with
// the headers ray-task-history sends (CSP and friends), and proxies /api/ to a running
// ray-task-history. Node's http module only.
//   node scripts/dev-server.mjs --api http://127.0.0.1:8090 [--port 5173] [--host 127.0.0.1] [--dir ../build/ui]
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import http from 'node:http';
import { dirname, extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
function arg(name, fallback) {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
}
if (args.includes('--help')) {
  console.log('usage: dev-server.mjs --api http://127.0.0.1:PORT [--port N] [--host ADDR] [--dir BUNDLE_DIR]');
  process.exit(0);
}
const api = new URL(arg('api', 'http://127.0.0.1:8090'));
const dir = resolve(arg('dir', process.env.RAYAGG_UI_OUT || join(here, '..', '..', 'build', 'ui')));
const port = Number(arg('port', '5173'));
const host = arg('host', '127.0.0.1');

const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.json': 'application/json', '.ico': 'image/x-icon' };
const SECURITY = {
  'Content-Security-Policy': "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

async function sendFile(res, file, cache) {
  const info = await stat(file);
  res.writeHead(200, { ...SECURITY, 'Content-Type': TYPES[extname(file)] || 'application/octet-stream',
    'Content-Length': info.size, 'Cache-Control': cache });
  createReadStream(file).pipe(res);
}

function proxy(req, res) {
  const headers = { ...req.headers, host: api.host };
  delete headers.connection;
  const up = http.request({ hostname: api.hostname, port: api.port, path: req.url, method: req.method, headers, timeout: 60_000 }, (r) => {
    res.writeHead(r.statusCode || 502, r.headers);
    r.pipe(res);
  });
  up.on('timeout', () => up.destroy(new Error('upstream timeout')));
  up.on('error', (e) => {
    if (!res.headersSent) {
      res.writeHead(502, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ result: false, msg: `dev server: cannot reach ${api.origin} (${e.code || e.message})` }));
    } else res.destroy();
  });
  req.pipe(up);
}

const server = http.createServer(async (req, res) => {
  try {
    const url = new URL(req.url, 'http://dev');
    if (url.pathname.startsWith('/api/')) return proxy(req, res);
    if (req.method !== 'GET' && req.method !== 'HEAD') { res.writeHead(405); return res.end(); }
    if (url.pathname.startsWith('/assets/')) {
      const file = normalize(join(dir, decodeURIComponent(url.pathname)));
      if (!file.startsWith(dir + sep)) { res.writeHead(404); return res.end(); }
      return await sendFile(res, file, url.searchParams.has('v') ? 'public, max-age=31536000, immutable' : 'no-cache');
    }
    return await sendFile(res, join(dir, 'index.html'), 'no-cache');
  } catch (e) {
    if (!res.headersSent) { res.writeHead(e.code === 'ENOENT' ? 404 : 500, { 'Content-Type': 'text/plain' }); }
    res.end(e.code === 'ENOENT' ? 'not found (run npm run build)\n' : 'error\n');
  }
});
server.listen(port, host, () => {
  const a = server.address();
  console.log(`dev server: http://${host}:${a.port}/ (bundle ${dir}, API ${api.origin})`);
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => server.close(() => process.exit(0)));
