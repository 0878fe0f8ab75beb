// deploy/systemd/ray-event-aggregator.service beyond `systemd-analyze verify`:
// the settings the deployment relies on (check-config before start, HUP on
// reload, a stop timeout above the sample config's drain timeout, a non-root
// user and the hardening set).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readText, parseYaml, drainSeconds, durationSeconds } from "./lib.mjs";

const UNIT = "deploy/systemd/ray-event-aggregator.service";
const SAMPLE_CONFIG = "deploy/systemd/config.yaml";

// [Service] key -> list of values (keys may repeat).
function section(text, name) {
  const out = new Map();
  let current = "";
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (!line || line.startsWith("#") || line.startsWith(";")) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) { current = header[1]; continue; }
    if (current !== name) continue;
    const eq = line.indexOf("=");
    const key = line.slice(0, eq);
    out.set(key, [...(out.get(key) ?? []), line.slice(eq + 1)]);
  }
  return out;
}

const service = section(readText(UNIT), "Service");
const one = (key) => service.get(key)?.at(-1);
const config = parseYaml(readText(SAMPLE_CONFIG));

test("ExecStartPre checks the same config ExecStart runs with", () => {
  const start = one("ExecStart");
  const pre = one("ExecStartPre");
  assert.ok(pre, "no ExecStartPre");
  assert.match(pre, /--check-config\b/);
  const configOf = (cmd) => /--config[= ](\S+)/.exec(cmd)?.[1];
  assert.equal(configOf(pre), configOf(start));
  assert.equal(configOf(start), "/etc/ray-event-aggregator/config.yaml", `install ${SAMPLE_CONFIG} there`);
  assert.equal(pre.split(" ")[0], start.split(" ")[0]);
});

test("ExecReload sends SIGHUP to the main process", () => {
  assert.match(one("ExecReload") ?? "", /kill -(HUP|SIGHUP) \$MAINPID$/);
});

test("TimeoutStopSec is above the sample config's shutdown.drain_timeout", () => {
  const stop = durationSeconds(one("TimeoutStopSec") ?? "90s");
  assert.ok(stop > drainSeconds(config), `TimeoutStopSec ${stop}s <= drain ${drainSeconds(config)}s`);
  assert.notEqual(one("KillSignal") ?? "SIGTERM", "SIGKILL");
});

test("runs as a dynamic or dedicated non-root user", () => {
  const dynamic = one("DynamicUser") === "yes";
  const user = one("User");
  assert.ok(dynamic || (user && user !== "root" && user !== "0"), "no DynamicUser=yes or User=");
});

test("hardening settings are on", () => {
  const expected = {
    ProtectSystem: "strict", NoNewPrivileges: "yes", PrivateTmp: "yes", ProtectHome: "yes",
    PrivateDevices: "yes", ProtectKernelTunables: "yes", ProtectKernelModules: "yes",
    ProtectControlGroups: "yes", RestrictNamespaces: "yes", RestrictSUIDSGID: "yes",
    LockPersonality: "yes", SystemCallArchitectures: "native", CapabilityBoundingSet: "",
  };
  for (const [key, value] of Object.entries(expected)) {
    assert.equal(one(key), value, `${key}=${value} missing`);
  }
  assert.ok(one("RestrictAddressFamilies")?.includes("AF_INET"));
});

test("the sample config listens where the unit's comments tell Ray to send", () => {
  assert.equal(config.http_ingest?.enabled, true);
  const url = new URL(`http://${config.http_ingest.address}:${config.http_ingest.port}${config.http_ingest.path}`);
  assert.ok(readText(UNIT).includes(`EVENTS_EXPORT_ADDR=${url.href}`), `the unit should name ${url.href}`);
});
