// Validates every Kubernetes manifest under deploy/kubernetes/ with
// kubernetes-models (and the Prometheus Operator models), then checks what
// the schemas cannot: the DaemonSet's listeners, probes and grace period
// against its ConfigMap, the Service route, the NetworkPolicy's peers, and
// the monitors' ARMS discovery.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as core from "kubernetes-models/v1";
import * as apps from "kubernetes-models/apps/v1";
import * as networking from "kubernetes-models/networking.k8s.io/v1";
import * as monitoring from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1";
import {
  yamlFilesUnder, loadDocuments, parseYaml, drainSeconds, bytes, memoryNeededBytes,
  podContainers, envValue, namedPort, DEFAULTS, readText, mountFor,
} from "./lib.mjs";

const MODELS = {
  v1: core, "apps/v1": apps, "networking.k8s.io/v1": networking,
  "monitoring.coreos.com/v1": monitoring,
};
// Kinds no validator exists for; raycluster.test.mjs checks them.
const CHECKED_ELSEWHERE = new Set(["ray.io/v1/RayCluster"]);

const manifests = yamlFilesUnder("deploy/kubernetes").flatMap((file) =>
  loadDocuments(file).map((doc, index) => ({ file, index, doc })));

function find(kind, name) {
  const hit = manifests.find((m) => m.doc.kind === kind && m.doc.metadata?.name === name);
  assert.ok(hit, `no ${kind} ${name} under deploy/kubernetes`);
  return hit.doc;
}

test("there are manifests to validate", () => {
  assert.ok(manifests.length >= 6, `only ${manifests.length} documents found`);
});

for (const { file, index, doc } of manifests) {
  test(`${file}#${index} ${doc.kind}/${doc.metadata?.name} passes its schema`, () => {
    const key = `${doc.apiVersion}/${doc.kind}`;
    if (CHECKED_ELSEWHERE.has(key)) return;
    const Model = MODELS[doc.apiVersion]?.[doc.kind];
    assert.ok(Model, `no validator for ${key}: add its model to MODELS`);
    new Model(doc).validate();  // throws with the failing path
  });
}

test("PodTemplate validation rejects a broken pod (the validator is live)", () => {
  const broken = new core.PodTemplate({
    metadata: { name: "x" },
    template: { spec: { containers: [{ name: "c", ports: [{ containerPort: "http" }] }] } },
  });
  assert.throws(() => broken.validate(), /containerPort/);
});

const daemonSet = find("DaemonSet", "ray-event-aggregator");
const configMap = find("ConfigMap", "ray-event-aggregator");
const service = find("Service", "ray-event-aggregator");
const config = parseYaml(configMap.data["config.yaml"]);
const podSpec = daemonSet.spec.template.spec;
// The daemon: the regular container running the image (an init container
// may run the same image for a setup step).
const [aggregator] = podContainers(podSpec)
  .filter((c) => !c.init && /ray-event-aggregator/.test(c.image));

test("the DaemonSet runs one aggregator container with the ConfigMap's config", () => {
  assert.ok(aggregator, "no container runs the ray-event-aggregator image");
  const configArg = aggregator.args.find((a) => a.startsWith("--config="));
  assert.ok(configArg, "no --config=");
  const mount = aggregator.volumeMounts.find((m) => configArg.slice(9).startsWith(`${m.mountPath}/`));
  assert.ok(mount, `${configArg} is not under a volume mount`);
  const volume = podSpec.volumes.find((v) => v.name === mount.name);
  assert.equal(volume.configMap?.name, configMap.metadata.name);
  assert.equal(configArg.slice(9), `${mount.mountPath}/config.yaml`);
  assert.equal(configMap.metadata.namespace, daemonSet.metadata.namespace);
});

test("the DaemonSet's listeners bind the pod IP from the downward API", () => {
  assert.ok(aggregator.args.includes("--ops-address=$(POD_IP)"), "ops listener not on $(POD_IP)");
  assert.ok(aggregator.args.includes("--http-address=$(POD_IP)"), "HTTP ingest not on $(POD_IP)");
  assert.equal(envValue(aggregator, "POD_IP")?.valueFrom?.fieldRef?.fieldPath, "status.podIP");
  assert.equal(config.http_ingest?.enabled, true, "http_ingest is off in the ConfigMap");
  assert.equal(config.ops?.enabled, true, "ops is off in the ConfigMap");
  // ${VAR}s in constant labels must come from the container's environment.
  for (const value of Object.values(config.ops.constant_labels ?? {})) {
    for (const [, name] of String(value).matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)) {
      assert.ok(envValue(aggregator, name), `constant label uses \${${name}}, not in the env`);
    }
  }
});

test("container ports match the configured listener ports", () => {
  assert.equal(namedPort(aggregator, "http-ingest")?.containerPort,
    config.http_ingest.port ?? DEFAULTS.httpIngestPort);
  assert.equal(namedPort(aggregator, "agg-metrics")?.containerPort,
    config.ops.port ?? DEFAULTS.opsPort);
});

test("probes: liveness on /healthz, readiness on /readyz, on the ops port", () => {
  assert.equal(aggregator.livenessProbe?.httpGet?.path, "/healthz");
  assert.equal(aggregator.readinessProbe?.httpGet?.path, "/readyz");
  for (const probe of [aggregator.livenessProbe, aggregator.readinessProbe, aggregator.startupProbe]) {
    if (!probe) continue;
    assert.equal(probe.httpGet.port, "agg-metrics");
  }
});

test("resources have requests and limits, and the memory limit fits the buffer", () => {
  for (const kind of ["requests", "limits"]) {
    for (const resource of ["cpu", "memory"]) {
      assert.ok(aggregator.resources?.[kind]?.[resource], `resources.${kind}.${resource} missing`);
    }
  }
  const limit = bytes(aggregator.resources.limits.memory);
  const needed = memoryNeededBytes(config);
  assert.ok(limit >= needed,
    `memory limit ${aggregator.resources.limits.memory} < ${Math.ceil(needed / 2 ** 20)}Mi needed`);
});

test("terminationGracePeriodSeconds covers preStop plus shutdown.drain_timeout", () => {
  const preStop = aggregator.lifecycle?.preStop?.exec?.command;
  const pause = preStop && /sleep$/.test(preStop[0]) ? Number(preStop[1]) : 0;
  const needed = pause + drainSeconds(config);
  assert.ok(podSpec.terminationGracePeriodSeconds > needed,
    `grace ${podSpec.terminationGracePeriodSeconds}s <= preStop ${pause}s + drain ${drainSeconds(config)}s`);
});

test("the pod runs as non-root with a read-only root filesystem", () => {
  assert.equal(podSpec.securityContext?.runAsNonRoot, true);
  assert.equal(aggregator.securityContext?.readOnlyRootFilesystem, true);
  assert.equal(aggregator.securityContext?.allowPrivilegeEscalation, false);
});

test("the spool lives on the node (hostPath), writable by the daemon's user", () => {
  assert.ok(config.spool?.dir, "the DaemonSet's ConfigMap has no spool.dir");
  const found = mountFor(podSpec, aggregator, config.spool.dir);
  assert.ok(found, `spool.dir ${config.spool.dir} is on no volume mount (the root is read-only)`);
  assert.notEqual(found.mount.readOnly, true, "the spool's mount is read-only");
  // hostPath: the next pod on the node (a rolling update, an eviction) resumes it.
  assert.ok(found.volume?.hostPath?.path, `volume ${found.mount.name} is not a hostPath`);
  assert.equal(found.volume.hostPath.type, "DirectoryOrCreate");
  // hostPath directories are created root-owned: an init container hands it
  // to the daemon's user before the daemon starts.
  const uid = aggregator.securityContext?.runAsUser ?? podSpec.securityContext?.runAsUser;
  const gid = aggregator.securityContext?.runAsGroup ?? podSpec.securityContext?.runAsGroup ?? uid;
  const owner = (podSpec.initContainers ?? []).find((c) => c.command?.[0] === "chown"
    && (c.volumeMounts ?? []).some((m) => m.name === found.mount.name));
  assert.ok(owner, "no init container chowns the spool's hostPath");
  const ownerMount = owner.volumeMounts.find((m) => m.name === found.mount.name);
  assert.deepEqual(owner.command.slice(1), [`${uid}:${gid}`, ownerMount.mountPath]);
  assert.deepEqual(owner.securityContext?.capabilities?.add, ["CHOWN"], "chown needs CAP_CHOWN only");
  assert.deepEqual(owner.securityContext?.capabilities?.drop, ["ALL"]);
});

test("a rolling update never runs two pods on one node's spool (its lock refuses the second)", () => {
  const rolling = daemonSet.spec.updateStrategy?.rollingUpdate ?? {};
  assert.ok(rolling.maxSurge === undefined || rolling.maxSurge === 0 || rolling.maxSurge === "0%",
    `maxSurge ${rolling.maxSurge}: the new pod would find the spool locked and exit`);
});

test("probes wait for the listener only: recovery of the spool runs behind serving", () => {
  // /healthz and /readyz answer 200 while recovery scans (docs/SPOOL.md), so
  // a probe on them never waits for recovery; an exec probe or one on
  // another path could.
  for (const probe of [aggregator.startupProbe, aggregator.livenessProbe, aggregator.readinessProbe]) {
    assert.ok(probe?.httpGet, "every probe is an httpGet");
    assert.ok(["/healthz", "/readyz"].includes(probe.httpGet.path), probe.httpGet.path);
  }
  assert.equal(aggregator.startupProbe.httpGet.path, "/healthz");
});

test("Ray pods reach HTTP ingest on their own node (Service Local or hostPort)", () => {
  const hostPort = namedPort(aggregator, "http-ingest")?.hostPort;
  if (hostPort) return;
  assert.equal(service.spec.internalTrafficPolicy, "Local");
  assert.equal(service.metadata.namespace, daemonSet.metadata.namespace);
  for (const [key, value] of Object.entries(service.spec.selector)) {
    assert.equal(daemonSet.spec.template.metadata.labels[key], value, `selector ${key} misses the pods`);
  }
  const port = service.spec.ports.find((p) => p.targetPort === "http-ingest");
  assert.ok(port, "no Service port targets http-ingest");
});

// docs/SECURITY.md: HTTP ingest only from Ray pods, ops only from the
// monitoring namespace; every port the aggregator declares is covered by a
// rule, and no rule lets everyone in.
test("the NetworkPolicy admits HTTP ingest from Ray pods and ops from the monitoring namespace", () => {
  const policy = find("NetworkPolicy", "ray-event-aggregator");
  assert.equal(policy.metadata.namespace, daemonSet.metadata.namespace);
  const selected = policy.spec.podSelector.matchLabels;
  assert.ok(Object.keys(selected).length > 0, "the policy selects every pod of the namespace");
  for (const [key, value] of Object.entries(selected)) {
    assert.equal(daemonSet.spec.template.metadata.labels[key], value, `podSelector ${key} misses the pods`);
  }
  assert.ok(policy.spec.policyTypes.includes("Ingress"));
  const rules = policy.spec.ingress;
  for (const rule of rules) {
    assert.ok(rule.from?.length > 0, "a rule without `from` admits every peer");
    assert.ok(rule.ports?.length > 0, "a rule without `ports` admits every port");
    for (const port of rule.ports) {
      assert.ok(namedPort(aggregator, port.port), `rule port ${port.port} is not a container port`);
    }
    for (const peer of rule.from) assert.equal(peer.ipBlock, undefined, "no ipBlock peers");
  }
  const peersOf = (portName) => rules.filter((r) => r.ports.some((p) => p.port === portName))
    .flatMap((r) => r.from);
  for (const port of aggregator.ports) {
    assert.ok(peersOf(port.name).length > 0, `no rule admits anyone to ${port.name}`);
  }
  // Ray pods, by the label the PodMonitor selects them with, in any namespace.
  const rayLabel = find("PodMonitor", "ray-event-aggregator-sidecar").spec.selector.matchLabels;
  for (const peer of peersOf("http-ingest")) {
    assert.deepEqual(peer.podSelector?.matchLabels, rayLabel, "http-ingest admits pods that are not Ray's");
    assert.deepEqual(peer.namespaceSelector, {}, "Ray pods run in any namespace");
  }
  // The namespace the ServiceMonitor (and so Prometheus) lives in, and only it.
  const monitoringNamespace = find("ServiceMonitor", "ray-event-aggregator").metadata.namespace;
  for (const peer of peersOf("agg-metrics")) {
    assert.deepEqual(peer.namespaceSelector?.matchLabels,
      { "kubernetes.io/metadata.name": monitoringNamespace }, "ops admits another namespace");
  }
  assert.ok(readText("docs/SECURITY.md").includes("deploy/kubernetes/daemonset/networkpolicy.yaml"),
    "docs/SECURITY.md does not point at the NetworkPolicy");
});

for (const kind of ["PodMonitor", "ServiceMonitor"]) {
  test(`${kind}s carry ACK's ARMS discovery annotations and labels`, () => {
    const monitors = manifests.filter((m) => m.doc.kind === kind).map((m) => m.doc);
    assert.ok(monitors.length > 0, `no ${kind}`);
    for (const monitor of monitors) {
      assert.equal(monitor.metadata.namespace, "arms-prom");
      assert.equal(monitor.metadata.annotations?.["arms.prometheus.io/discovery"], "true");
      assert.equal(monitor.metadata.annotations?.["arms.prometheus.io/resource"], "arms");
      assert.equal(monitor.metadata.labels?.release, "prometheus");
      const endpoints = monitor.spec.podMetricsEndpoints ?? monitor.spec.endpoints;
      assert.ok(endpoints.every((e) => e.port === "agg-metrics" && e.path === "/metrics"));
    }
  });
}

test("the ServiceMonitor selects the DaemonSet's Service and its metrics port", () => {
  const monitor = find("ServiceMonitor", "ray-event-aggregator");
  assert.ok(monitor.spec.namespaceSelector.matchNames.includes(service.metadata.namespace));
  for (const [key, value] of Object.entries(monitor.spec.selector.matchLabels)) {
    assert.equal(service.metadata.labels[key], value);
  }
  assert.ok(service.spec.ports.some((p) => p.name === "agg-metrics" && p.targetPort === "agg-metrics"));
});

test("the PodMonitor selects KubeRay pods and relabels ray.io/cluster as ACK does", () => {
  const monitor = find("PodMonitor", "ray-event-aggregator-sidecar");
  assert.equal(monitor.spec.selector.matchLabels["ray.io/is-ray-node"], "yes");
  assert.equal(monitor.spec.namespaceSelector.any, true);
  const relabel = monitor.spec.podMetricsEndpoints[0].relabelings;
  assert.ok(relabel.some((r) => r.sourceLabels?.includes("__meta_kubernetes_pod_label_ray_io_cluster")
    && r.targetLabel === "ray_io_cluster"));
});

test("alert rules and docs/OPERATIONS.md use only metrics docs/METRICS.md lists", () => {
  const documented = new Set(readText("docs/METRICS.md").match(/\b(?:rayagg|ray_aggregator_agent)_[a-z_]+/g));
  const rules = manifests.filter((m) => m.doc.kind === "PrometheusRule")
    .flatMap((m) => m.doc.spec.groups.flatMap((g) => g.rules.map((r) => r.expr))).join("\n");
  assert.ok(rules.length > 0, "no PrometheusRule");
  const used = `${rules}\n${readText("docs/OPERATIONS.md")}`.match(/\b(?:rayagg|ray_aggregator_agent)_[a-z_]+/g);
  const unknown = [...new Set(used)].filter((name) => !documented.has(name)
    && !documented.has(name.replace(/_(bucket|sum|count)$/, "")));
  assert.deepEqual(unknown, [], "not in docs/METRICS.md");
});

test("every alert rule is the expression docs/OPERATIONS.md gives", () => {
  const docs = readText("docs/OPERATIONS.md").replace(/\s+/g, " ");
  const rules = manifests.filter((m) => m.doc.kind === "PrometheusRule")
    .flatMap((m) => m.doc.spec.groups.flatMap((g) => g.rules));
  for (const rule of rules) {
    const expr = rule.expr.replace(/\s+/g, " ").trim();
    assert.ok(docs.includes(`\`${expr}\``), `${rule.alert}: \`${expr}\` not in docs/OPERATIONS.md`);
  }
});
