// The real pieces the browser tests run against, started as a user's machine
// runs them: ray-event-aggregator (HTTP ingest and gRPC on ports the OS
// picks, one dir:// object-store sink in the KubeRay layout cutting objects
// after 200 ms), ray-task-history on that store, and the demo cluster's fixed
// session sent through the daemon's HTTP ingest by rayagg-demo-cluster
// --fixture, which writes what it sent as the expectation
// (/work/carry/ui-contract.md §4). Every wait polls for a condition with a
// deadline; nothing waits for time.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

// Generous: only a failing run waits this long (a loaded 2-core machine
// indexes the fixture in seconds).
export const DEADLINE_MS = 180_000;
// Between two polls of a condition: a poll interval, not a wait for time.
const POLL_MS = 100;

// What the tests run; ctest passes the built targets' paths.
export const paths = {
  daemon: process.env.RAYAGG_BINARY ?? join(ROOT, "build/release/ray-event-aggregator"),
  history: process.env.RAYAGG_HISTORY_BINARY ?? join(ROOT, "build/release/ray-task-history"),
  demo: process.env.RAYAGG_DEMO_BINARY ?? join(ROOT, "build/release/bench/rayagg-demo-cluster"),
  chromium: process.env.RAYAGG_CHROMIUM ?? "/usr/bin/chromium",
  bundle: process.env.RAYAGG_UI_DIR ?? join(ROOT, "build/ui"),
  screenshots: process.env.RAYAGG_SCREENSHOT_DIR ?? join(ROOT, "build/ui-screenshots"),
};

// The daemon's sink names the cluster (the history's session is
// "raycluster/<namespace>/<name>/<session_name>"); the fixture's expectation
// names the demo's (rayagg-demo-cluster's --namespace and --cluster-name
// defaults, config/demo.yaml; docs/DEMO.md).
export const FIXTURE_CLUSTER = { namespace: "default", name: "demo-cluster" };

// Chromium as the issue fixes it: headless, no sandbox (root), nothing that
// talks to the network on its own. The profile is a fresh directory.
export const CHROMIUM_ARGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
  "--no-first-run", "--disable-background-networking", "--disable-component-update",
  "--disable-sync",
];

// Everything the tests need and a clear word for what is missing: in the
// release preset a missing piece is a failure, never a skip.
export function missingPrerequisites() {
  const missing = [];
  const need = (path, how) => { if (!existsSync(path)) missing.push(`${path} (${how})`); };
  need(paths.chromium, "apt-get install chromium; scripts/test installs it");
  need(paths.daemon, "build the release preset");
  need(paths.history, "build the release preset");
  need(paths.demo, "build the release preset's rayagg-demo-cluster");
  need(join(paths.bundle, "index.html"), "scripts/build-ui, then rebuild ray-task-history");
  need(join(ROOT, "ui/node_modules/playwright-core/package.json"), "scripts/build-ui runs npm ci");
  need(join(ROOT, "ui/node_modules/axe-core/axe.min.js"), "scripts/build-ui runs npm ci");
  return missing;
}

// playwright-core and axe-core come from the page's own lock file (ui/).
const uiRequire = createRequire(join(ROOT, "ui/package.json"));
export function loadPlaywright() {
  return uiRequire("playwright-core");
}
export function axeSource() {
  return readFileSync(uiRequire.resolve("axe-core/axe.min.js"), "utf8");
}

// Polls `check` (sync or async) until it returns a truthy value; throws with
// `what` and the last value seen (`describe`) past the deadline.
export async function waitFor(what, check, { deadlineMs = DEADLINE_MS, describe } = {}) {
  const deadline = Date.now() + deadlineMs;
  let last;
  for (;;) {
    last = await check();
    if (last) return last;
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${deadlineMs} ms waiting for ${what}` +
        (describe ? `; last seen: ${describe()}` : ""));
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

// One child process, its stderr (and stdout) in files under `dir`.
class Child {
  constructor(name, binary, args, dir) {
    this.name = name;
    this.stderrPath = join(dir, `${name}.err`);
    this.stdoutPath = join(dir, `${name}.out`);
    this.process = spawn(binary, args, {
      stdio: ["ignore", openSync(this.stdoutPath, "w"), openSync(this.stderrPath, "w")],
    });
    this.exit = null;
    this.exited = new Promise((resolve) => {
      this.process.on("exit", (code, signal) => { this.exit = { code, signal }; resolve(this.exit); });
      this.process.on("error", (error) => { this.exit = { error: error.message }; resolve(this.exit); });
    });
  }

  stderr() {
    return existsSync(this.stderrPath) ? readFileSync(this.stderrPath, "utf8") : "";
  }

  // The port a --port-file names, once written (a port file is complete
  // when it ends in a newline or holds a number: the programs write it whole).
  async port(portFile) {
    return waitFor(`${this.name} to write ${portFile}`, () => {
      if (this.exit) throw new Error(`${this.name} exited ${JSON.stringify(this.exit)}:\n${this.stderr()}`);
      if (!existsSync(portFile)) return null;
      const port = Number.parseInt(readFileSync(portFile, "utf8").trim(), 10);
      return port > 0 ? port : null;
    });
  }

  async stop() {
    if (this.exit) return this.exit;
    this.process.kill("SIGTERM");
    return this.exited;
  }
}

async function getJson(url) {
  const response = await fetch(url, { signal: AbortSignal.timeout(30_000) });
  const text = await response.text();
  try {
    return { status: response.status, body: JSON.parse(text) };
  } catch {
    return { status: response.status, body: text };
  }
}

// A by_state object without its zero counts, keys sorted (for comparison).
export function nonZero(byState) {
  return Object.fromEntries(Object.entries(byState ?? {})
    .filter(([, count]) => count !== 0).sort(([a], [b]) => a.localeCompare(b)));
}

// Starts the daemon and the history, sends the fixture and waits until the
// history's counts in both units equal the fixture's expectation. Returns
// { origin, expect, stop(), logs() }.
export async function startStack() {
  const dir = mkdtempSync(join(tmpdir(), "rayagg-browser-"));
  const store = join(dir, "store");
  mkdirSync(store);
  const children = [];
  const logs = () => children.map((c) => `--- ${c.name} stderr:\n${c.stderr()}`).join("\n");
  const stop = async () => {
    const results = {};
    for (const child of children.reverse()) results[child.name] = await child.stop();
    return results;
  };
  try {
    writeFileSync(join(dir, "daemon.yaml"), [
      "sinks:",
      "  - name: history",
      `    url: dir://${store}`,
      `    cluster: {namespace: ${FIXTURE_CLUSTER.namespace}, name: ${FIXTURE_CLUSTER.name}}`,
      "    object: {max_age: 200ms}",
      "",
    ].join("\n"));
    const daemon = new Child("ray-event-aggregator", paths.daemon, [
      "--config", join(dir, "daemon.yaml"),
      "--grpc-port", "0", "--port-file", join(dir, "grpc.port"),
      "--http-port", "0", "--http-port-file", join(dir, "http.port"),
    ], dir);
    children.push(daemon);
    const httpPort = await daemon.port(join(dir, "http.port"));

    writeFileSync(join(dir, "history.yaml"),
      "indexing: {poll_interval: 50ms, discovery_interval: 0ms}\n");
    const history = new Child("ray-task-history", paths.history, [
      "--store", `dir://${store}`, "--index-dir", join(dir, "index"),
      "--http-port", "0", "--port-file", join(dir, "history.port"),
      "--ops-port", "0", "--ops-port-file", join(dir, "history-ops.port"),
      "--config", join(dir, "history.yaml"),
    ], dir);
    children.push(history);
    const origin = `http://127.0.0.1:${await history.port(join(dir, "history.port"))}`;

    // The fixture: the same bytes every run, through the daemon's HTTP ingest.
    const expectPath = join(dir, "expect.json");
    const demo = new Child("rayagg-demo-cluster", paths.demo, [
      "--fixture", "--expect-out", expectPath, "--http", `http://127.0.0.1:${httpPort}`,
    ], dir);
    children.push(demo);
    const demoExit = await demo.exited;
    if (demoExit.code !== 0) {
      throw new Error(`rayagg-demo-cluster --fixture exited ${JSON.stringify(demoExit)}`);
    }
    const expect = JSON.parse(readFileSync(expectPath, "utf8"));

    // Indexed: the session the fixture names, with its counts in both units.
    let seen = null;
    await waitFor("the history's counts to equal the fixture's", async () => {
      const session = encodeURIComponent(expect.session);
      const tasks = await getJson(`${origin}/api/history/v1/counts?session=${session}&unit=tasks`);
      const attempts = await getJson(`${origin}/api/history/v1/counts?session=${session}&unit=attempts`);
      seen = { tasks, attempts };
      if (tasks.status !== 200 || attempts.status !== 200) return false;
      return tasks.body.total === expect.tasks.total &&
        attempts.body.total === expect.attempts.total &&
        JSON.stringify(nonZero(tasks.body.by_state)) === JSON.stringify(nonZero(expect.tasks.by_state)) &&
        JSON.stringify(nonZero(attempts.body.by_state)) === JSON.stringify(nonZero(expect.attempts.by_state));
    }, { describe: () => JSON.stringify(seen) }).catch(async (error) => {
      const sessions = await getJson(`${origin}/api/history/v1/sessions`).catch((e) => e.message);
      throw new Error(`${error.message}\nexpected ${JSON.stringify(expect)}\n` +
        `sessions: ${JSON.stringify(sessions.body ?? sessions)}`);
    });
    // Everything is in the store now; the daemon is no longer needed.
    const daemonExit = await daemon.stop();
    if (daemonExit.code !== 0) throw new Error(`the daemon exited ${JSON.stringify(daemonExit)}`);
    return { origin, expect, stop, logs, dir };
  } catch (error) {
    await stop();
    error.message += `\n${logs()}`;
    throw error;
  }
}
