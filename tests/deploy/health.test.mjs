// The health checks the artifacts configure, against the real daemon started
// with the image's config (listeners moved to 127.0.0.1, ports picked by the
// OS): the Dockerfile's HEALTHCHECK command, the probes' /healthz and /readyz,
// and a clean exit on SIGTERM (what Kubernetes and systemd send).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readText, repoPath } from "./lib.mjs";

const binary = process.env.RAYAGG_BINARY ?? repoPath("build/release/ray-event-aggregator");
const scratch = mkdtempSync(join(tmpdir(), "rayagg-health-"));

// Waits for a condition with a deadline (no fixed sleeps).
async function waitFor(what, check, deadlineMs = 10_000) {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

function healthcheckCommand() {
  const dockerfile = readText("docker/Dockerfile").replace(/\\\n/g, " ");
  const line = dockerfile.split("\n").find((l) => l.startsWith("HEALTHCHECK"));
  return JSON.parse(line.slice(line.indexOf("CMD") + 3).trim());
}

test("the image's HEALTHCHECK and the probe paths answer on a running daemon", async () => {
  assert.ok(existsSync(binary), `${binary} missing`);
  const portFile = join(scratch, "ops.port");
  const daemon = spawn(binary, [
    "--config", repoPath("docker/config.yaml"), "--grpc-port", "0",
    "--http-address", "127.0.0.1", "--http-port", "0",
    "--ops-address", "127.0.0.1", "--ops-port", "0", "--ops-port-file", portFile,
  ], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  daemon.stderr.on("data", (chunk) => { stderr += chunk; });
  const exited = new Promise((resolve) => daemon.on("exit", (code, signal) => resolve({ code, signal })));
  try {
    const port = await waitFor("the ops port file",
      () => existsSync(portFile) && readFileSync(portFile, "utf8").trim());
    const [command, verb, url] = healthcheckCommand();
    const healthz = url.replace(/:\d+\//, `:${port}/`);
    assert.equal(spawnSync(binary, [verb, healthz]).status, 0, `${command} ${verb} ${healthz}`);
    assert.notEqual(spawnSync(binary, [verb, healthz.replace("/healthz", "/nothing-here")]).status, 0,
      "probe must fail on a non-2xx answer");
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    assert.equal(ready.status, 200);
  } finally {
    daemon.kill("SIGTERM");
  }
  const { code, signal } = await exited;
  assert.deepEqual({ code, signal }, { code: 0, signal: null }, stderr);
});
