// Every configuration the deployment artifacts ship is accepted by the real
// daemon's --check-config, with the command-line flags and environment its
// manifest gives it: the image's, the systemd sample, and each ConfigMap's.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readText, repoPath, yamlFilesUnder, loadDocuments, podContainers } from "./lib.mjs";

const binary = process.env.RAYAGG_BINARY ?? repoPath("build/release/ray-event-aggregator");
const scratch = mkdtempSync(join(tmpdir(), "rayagg-configs-"));

// Flags of a manifest's container, with $(POD_IP) standing for a loopback
// address (check-config binds nothing), minus --config (given separately).
function flagsOf(container) {
  return (container?.args ?? []).filter((a) => !a.startsWith("--config"))
    .map((a) => a.replaceAll("$(POD_IP)", "127.0.0.1"));
}

// What Kubernetes would give a variable taken from the downward API: names
// for the namespace and the ray.io/cluster label (object-store sinks check
// them as DNS-1123), "" for other labels (a plain RayCluster's pods lack
// KubeRay's originated-from labels); test-<NAME> for anything else.
function valueOf(entry) {
  const path = entry.valueFrom?.fieldRef?.fieldPath ?? "";
  if (path === "metadata.namespace") return "test-namespace";
  if (path === "metadata.labels['ray.io/cluster']") return "test-cluster";
  if (path.startsWith("metadata.labels[")) return "";
  return `test-${entry.name}`;
}

// Environment for ${VAR} expansion and the sinks' defaults: whatever the
// container's env names.
function envOf(container) {
  const env = { PATH: process.env.PATH };
  for (const entry of container?.env ?? []) env[entry.name] = entry.value ?? valueOf(entry);
  return env;
}

function checkConfig(text, flags, env) {
  const file = join(scratch, `config-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, text);
  return spawnSync(binary, ["--config", file, ...flags, "--check-config"],
    { encoding: "utf8", env, timeout: 10_000 });
}

function assertAccepted(name, text, flags = [], env = { PATH: process.env.PATH }) {
  const result = checkConfig(text, flags, env);
  assert.equal(result.status, 0, `${name} rejected:\n${result.stdout}${result.stderr}`);
}

const shipped = [
  { name: "docker/config.yaml", text: readText("docker/config.yaml") },
  { name: "deploy/systemd/config.yaml", text: readText("deploy/systemd/config.yaml") },
];
for (const file of yamlFilesUnder("deploy/kubernetes")) {
  const docs = loadDocuments(file);
  for (const map of docs.filter((d) => d.kind === "ConfigMap" && d.data?.["config.yaml"])) {
    // The container that mounts this ConfigMap gives the flags and env.
    const pods = docs.flatMap((d) => [
      d.spec?.template?.spec, d.spec?.headGroupSpec?.template?.spec,
      ...(d.spec?.workerGroupSpecs ?? []).map((g) => g.template.spec)]).filter(Boolean);
    const user = pods.flatMap((spec) => podContainers(spec).filter((c) => (c.volumeMounts ?? [])
      .some((m) => spec.volumes.find((v) => v.name === m.name)?.configMap?.name === map.metadata.name)))[0];
    shipped.push({ name: `${file} ConfigMap ${map.metadata.name}`, text: map.data["config.yaml"], container: user });
  }
}

test("the daemon to check with is built", () => {
  assert.ok(existsSync(binary), `${binary} missing (scripts/lint-deploy builds it)`);
});

test("a config with an unknown key is rejected (the check is live)", () => {
  const result = checkConfig("shutdown:\n  drain_timeoutt: 5s\n", [], { PATH: process.env.PATH });
  assert.notEqual(result.status, 0);
});

for (const { name, text, container } of shipped) {
  test(`${name} passes --check-config`, () => {
    assertAccepted(name, text, flagsOf(container), envOf(container));
  });
}
