// The KubeRay RayCluster example has no validator that installs here, so this
// parses it and checks what matters: the aggregator sidecar in the head and
// every worker group, unique port names per pod, Ray's event-export variables
// pointing at the sidecar, the agg-metrics port, probes and grace period. The
// pod templates themselves are validated as Kubernetes PodTemplates.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as core from "kubernetes-models/v1";
import {
  loadDocuments, parseYaml, drainSeconds, bytes, memoryNeededBytes, podContainers, envValue,
  namedPort, knownEventTypes, isObjectStoreUrl, DEFAULTS, mountFor, spoolVolumeNeededBytes,
} from "./lib.mjs";

const EXPOSABLE_VARIABLES = [
  "RAY_DASHBOARD_AGGREGATOR_AGENT_EXPOSABLE_EVENT_TYPES",
  "RAY_DASHBOARD_AGGREGATOR_AGENT_PUBLISHER_HTTP_ENDPOINT_EXPOSABLE_EVENT_TYPES",
];

// The plain sidecar and its object-store variant (the KubeRay history-server layout).
const FILES = [
  "deploy/kubernetes/sidecar/raycluster.yaml",
  "deploy/kubernetes/sidecar/raycluster-history.yaml",
];

for (const FILE of FILES) {
  const docs = loadDocuments(FILE);
  const cluster = docs.find((d) => d.apiVersion === "ray.io/v1" && d.kind === "RayCluster");
  const configMaps = docs.filter((d) => d.kind === "ConfigMap");

  const groups = cluster ? [
    { name: "head", template: cluster.spec.headGroupSpec.template },
    ...cluster.spec.workerGroupSpecs.map((g) => ({ name: `worker group ${g.groupName}`, template: g.template })),
  ] : [];

  test(`${FILE}: the file holds a ray.io/v1 RayCluster with a head and at least one worker group`, () => {
    assert.ok(cluster, `${FILE}: no ray.io/v1 RayCluster`);
    assert.ok(cluster.spec.headGroupSpec?.template, "no headGroupSpec.template");
    assert.ok(cluster.spec.workerGroupSpecs?.length > 0, "no workerGroupSpecs");
  });

  for (const { name, template } of groups) {
    const spec = template.spec;
    const all = podContainers(spec);
    const sidecars = all.filter((c) => /ray-event-aggregator/.test(c.image));
    const sidecar = sidecars[0];
    // KubeRay runs Ray in the first regular container.
    const ray = spec.containers[0];

    test(`${FILE} ${name}: the pod template is a valid Kubernetes pod`, () => {
      new core.PodTemplate({ metadata: { name: "template" }, template }).validate();
    });

    test(`${FILE} ${name}: exactly one aggregator sidecar, and Ray stays the first container`, () => {
      assert.equal(sidecars.length, 1, `${sidecars.length} aggregator containers`);
      assert.ok(!/ray-event-aggregator/.test(ray.image), "KubeRay expects Ray in containers[0]");
      if (sidecar.init) {
        assert.equal(sidecar.restartPolicy, "Always", "an init container must be a native sidecar");
      }
    });

    test(`${FILE} ${name}: port names and numbers are unique in the pod`, () => {
      const ports = all.flatMap((c) => c.ports ?? []);
      const names = ports.map((p) => p.name).filter(Boolean);
      assert.deepEqual(names, [...new Set(names)], `duplicate port names: ${names}`);
      const numbers = ports.map((p) => p.containerPort);
      assert.deepEqual(numbers, [...new Set(numbers)], `duplicate ports: ${numbers}`);
      assert.ok(namedPort(ray, "metrics"), "Ray's own port `metrics` is missing");
    });

    const mount = sidecar?.volumeMounts?.find((m) => m.mountPath === "/etc/ray-event-aggregator");
    const volume = spec.volumes?.find((v) => v.name === mount?.name);
    const configMap = configMaps.find((c) => c.metadata.name === volume?.configMap?.name);
    const config = configMap ? parseYaml(configMap.data["config.yaml"]) : undefined;

    test(`${FILE} ${name}: the sidecar's config comes from the ConfigMap in this file`, () => {
      assert.ok(sidecar.args.includes("--config=/etc/ray-event-aggregator/config.yaml"));
      assert.ok(configMap, "the config volume names no ConfigMap of this file");
      assert.equal(config.http_ingest?.enabled, true);
      assert.equal(config.ops?.enabled, true);
      for (const value of Object.values(config.ops.constant_labels ?? {})) {
        for (const [, variable] of String(value).matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)) {
          assert.ok(envValue(sidecar, variable), `constant label uses \${${variable}}, not in the env`);
        }
      }
    });

    test(`${FILE} ${name}: metrics on a port named agg-metrics, bound to the pod IP`, () => {
      assert.equal(namedPort(sidecar, "agg-metrics")?.containerPort, config.ops.port ?? DEFAULTS.opsPort);
      assert.ok(sidecar.args.includes("--ops-address=$(POD_IP)"));
      assert.equal(envValue(sidecar, "POD_IP")?.valueFrom?.fieldRef?.fieldPath, "status.podIP");
    });

    test(`${FILE} ${name}: probes on /healthz and /readyz through agg-metrics`, () => {
      assert.equal(sidecar.livenessProbe?.httpGet?.path, "/healthz");
      assert.equal(sidecar.readinessProbe?.httpGet?.path, "/readyz");
      assert.equal(sidecar.livenessProbe.httpGet.port, "agg-metrics");
      assert.equal(sidecar.readinessProbe.httpGet.port, "agg-metrics");
    });

    test(`${FILE} ${name}: Ray exports its events to the sidecar's HTTP ingest`, () => {
      assert.equal(envValue(ray, "RAY_enable_core_worker_ray_event_to_aggregator")?.value, "1");
      assert.equal(envValue(ray, "RAY_enable_ray_event")?.value, "1");
      const address = envValue(ray, "RAY_DASHBOARD_AGGREGATOR_AGENT_EVENTS_EXPORT_ADDR")?.value;
      const url = new URL(address);
      assert.ok(["127.0.0.1", "localhost"].includes(url.hostname), `${address} is not the pod's loopback`);
      assert.equal(Number(url.port), config.http_ingest.port ?? DEFAULTS.httpIngestPort);
      assert.equal(url.pathname, config.http_ingest.path ?? DEFAULTS.httpIngestPath);
      assert.ok(!envValue(sidecar, "RAY_DASHBOARD_AGGREGATOR_AGENT_EVENTS_EXPORT_ADDR"),
        "the sidecar must not export to itself");
    });

    test(`${FILE} ${name}: the exposable event types are set under both names and are real types`, () => {
      const known = knownEventTypes();
      const values = EXPOSABLE_VARIABLES.map((v) => envValue(ray, v)?.value);
      assert.ok(values.every((v) => typeof v === "string"), `missing: ${EXPOSABLE_VARIABLES}`);
      assert.equal(values[0], values[1]);
      const types = values[0].split(",").map((t) => t.trim()).filter(Boolean);
      assert.ok(types.includes("TASK_DEFINITION_EVENT") && types.includes("TASK_LIFECYCLE_EVENT"));
      for (const type of types) assert.ok(known.has(type), `unknown event type ${type}`);
    });

    test(`${FILE} ${name}: the spool is on an emptyDir whose sizeLimit holds it`, () => {
      assert.ok(config.spool?.dir, "the sidecar's config has no spool.dir");
      const found = mountFor(spec, sidecar, config.spool.dir);
      assert.ok(found, `spool.dir ${config.spool.dir} is on no volume mount (the root is read-only)`);
      assert.notEqual(found.mount.readOnly, true, "the spool's mount is read-only");
      // emptyDir survives restarts of the container (a crash, an OOM kill).
      const emptyDir = found.volume?.emptyDir;
      assert.ok(emptyDir, `volume ${found.mount.name} is not an emptyDir`);
      assert.notEqual(emptyDir.medium, "Memory", "a tmpfs spool counts against the memory limit");
      // Past its sizeLimit the kubelet evicts the pod.
      assert.ok(emptyDir.sizeLimit, "the spool's emptyDir has no sizeLimit");
      const needed = spoolVolumeNeededBytes(config);
      assert.ok(bytes(emptyDir.sizeLimit) >= needed,
        `sizeLimit ${emptyDir.sizeLimit} < ${Math.ceil(needed / 2 ** 20)}Mi: spool.max_bytes `
        + "+ 9 x spool.segment_bytes (docs/OPERATIONS.md, sizing)");
    });

    test(`${FILE} ${name}: probes wait for the listener only (spool recovery runs behind serving)`, () => {
      for (const probe of [sidecar.startupProbe, sidecar.livenessProbe, sidecar.readinessProbe]) {
        assert.ok(probe?.httpGet, "every probe is an httpGet");
        assert.ok(["/healthz", "/readyz"].includes(probe.httpGet.path), probe.httpGet.path);
      }
      assert.equal(sidecar.startupProbe.httpGet.path, "/healthz");
    });

    test(`${FILE} ${name}: grace period above the drain timeout; memory limit fits the buffer`, () => {
      assert.ok(spec.terminationGracePeriodSeconds > drainSeconds(config),
        `grace ${spec.terminationGracePeriodSeconds}s <= drain ${drainSeconds(config)}s`);
      const needed = memoryNeededBytes(config);
      assert.ok(bytes(sidecar.resources.limits.memory) >= needed,
        `memory limit ${sidecar.resources.limits.memory} < ${Math.ceil(needed / 2 ** 20)}Mi needed`);
      assert.ok(sidecar.resources.requests.memory && sidecar.resources.requests.cpu);
    });
  }
}

// The object-store variant: the sink's cluster identity comes from the
// downward API (KubeRay's labels), its credentials from a mounted Secret.
{
  const FILE = "deploy/kubernetes/sidecar/raycluster-history.yaml";
  const docs = loadDocuments(FILE);
  const cluster = docs.find((d) => d.apiVersion === "ray.io/v1" && d.kind === "RayCluster");
  const map = docs.find((d) => d.kind === "ConfigMap");
  const config = parseYaml(map.data["config.yaml"]);
  const sink = config.sinks.find((s) => isObjectStoreUrl(s.url));
  const templates = [cluster.spec.headGroupSpec.template,
    ...cluster.spec.workerGroupSpecs.map((g) => g.template)];

  test(`${FILE}: one object-store sink whose identity the environment gives`, () => {
    assert.ok(sink, "no s3:// or dir:// sink");
    assert.equal(sink.cluster, undefined, "cluster.* would override the downward API");
    assert.ok(!sink.batch && !sink.retry_policy, "batch and retry_policy are errors on it");
  });

  for (const template of templates) {
    const sidecar = podContainers(template.spec).find((c) => /ray-event-aggregator/.test(c.image));
    test(`${FILE}: ${sidecar.name} gets namespace, cluster and owner from the downward API`, () => {
      const path = (name) => envValue(sidecar, name)?.valueFrom?.fieldRef?.fieldPath;
      assert.equal(path("RAY_CLUSTER_NAMESPACE"), "metadata.namespace");
      assert.equal(path("RAY_CLUSTER_NAME"), "metadata.labels['ray.io/cluster']");
      assert.equal(path("OWNER_KIND"), "metadata.labels['ray.io/originated-from-crd']");
      assert.equal(path("OWNER_NAME"), "metadata.labels['ray.io/originated-from-cr-name']");
    });
    test(`${FILE}: ${sidecar.name} reads the credentials files from a mounted Secret`, () => {
      for (const file of [sink.s3.access_key_id_file, sink.s3.secret_access_key_file]) {
        const mount = sidecar.volumeMounts.find((m) => file.startsWith(`${m.mountPath}/`));
        assert.ok(mount, `${file} is on no mount`);
        const volume = template.spec.volumes.find((v) => v.name === mount.name);
        assert.ok(volume?.secret?.secretName, `${mount.name} is not a Secret`);
      }
      assert.ok(!envValue(sidecar, "AWS_SECRET_ACCESS_KEY")?.value, "no secret in plain env");
    });
  }
}

test("no Prometheus target label collides with a constant label of the sidecar", () => {
  const monitor = loadDocuments("deploy/kubernetes/monitoring/podmonitor.yaml")[0];
  const targets = monitor.spec.podMetricsEndpoints.flatMap((e) => e.relabelings ?? [])
    .map((r) => r.targetLabel);
  const map = loadDocuments("deploy/kubernetes/sidecar/raycluster.yaml")
    .find((c) => c.kind === "ConfigMap" && c.metadata.name === "ray-event-aggregator-sidecar");
  const labels = Object.keys(parseYaml(map.data["config.yaml"]).ops.constant_labels ?? {});
  const clash = labels.filter((l) => targets.includes(l) || ["namespace", "pod", "instance", "job"].includes(l));
  assert.deepEqual(clash, [], "these would be renamed exported_<name> by Prometheus");
});
