// Shared helpers for the deployment tests: where the repository is, reading
// YAML files (multi-document), durations and byte sizes as the daemon's
// config parser reads them, and small lookups in pod specs.
import { readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments, parse } from "yaml";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

export function repoPath(...parts) {
  return join(ROOT, ...parts);
}

export function readText(path) {
  return readFileSync(repoPath(path), "utf8");
}

// Every *.yaml / *.yml file under a repository directory, sorted.
export function yamlFilesUnder(dir) {
  const out = [];
  const walk = (abs) => {
    for (const name of readdirSync(abs).sort()) {
      const child = join(abs, name);
      if (statSync(child).isDirectory()) walk(child);
      else if (/\.ya?ml$/.test(name)) out.push(relative(ROOT, child));
    }
  };
  walk(repoPath(dir));
  return out;
}

// The documents of a YAML file as plain objects; a syntax error throws with
// the file name.
export function loadDocuments(path) {
  const docs = parseAllDocuments(readText(path));
  const objects = [];
  for (const doc of docs) {
    if (doc.errors.length > 0) {
      throw new Error(`${path}: ${doc.errors.map((e) => e.message).join("; ")}`);
    }
    const value = doc.toJS({ maxAliasCount: 100 });
    if (value !== null && value !== undefined) objects.push(value);
  }
  return objects;
}

export function parseYaml(text) {
  return parse(text);
}

// "100ms", "1.5s", "2m", "1h" -> seconds (the daemon's duration syntax).
export function durationSeconds(text) {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(String(text).trim());
  if (!match) throw new Error(`not a duration: ${text}`);
  const unit = { ms: 0.001, s: 1, m: 60, h: 3600 }[match[2]];
  return Number(match[1]) * unit;
}

// Byte sizes in the daemon's syntax ("256MiB", "10MB", 1048576) and
// Kubernetes quantities ("512Mi", "1Gi") -> bytes.
export function bytes(text) {
  const match = /^(\d+(?:\.\d+)?)\s*(KiB|MiB|GiB|KB|MB|GB|Ki|Mi|Gi|K|M|G)?$/.exec(String(text).trim());
  if (!match) throw new Error(`not a byte size: ${text}`);
  const unit = {
    undefined: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3,
    KB: 1e3, MB: 1e6, GB: 1e9, K: 1e3, M: 1e6, G: 1e9,
  }[match[2]];
  return Number(match[1]) * unit;
}

// The daemon's defaults for the keys these tests reason about
// (config/example.yaml; INTERFACES for http_ingest and ops).
export const DEFAULTS = {
  drainTimeout: "5s",
  httpIngestPort: 8084,
  httpIngestPath: "/v1/events",
  httpIngestMaxBody: "20MiB",
  opsPort: 9188,
  bufferMaxBytes: "256MiB",
  bufferMaxEvents: 100000,
  batchMaxBytes: "10MiB",
  objectMaxBytes: "32MiB",
  objectMaxOpenBytes: "64MiB",
  spoolSegmentBytes: "64MiB",
};

// s3:// and dir:// sinks (docs/OBJECT_STORE.md).
export function isObjectStoreUrl(url) {
  return /^(s3|dir):\/\//i.test(String(url ?? ""));
}

export function drainSeconds(config) {
  return durationSeconds(config?.shutdown?.drain_timeout ?? DEFAULTS.drainTimeout);
}

// The memory rule of docs/OPERATIONS.md (sizing): fixed overhead, the
// buffered bytes B = min(max_bytes, max_events x 1 KiB) times a budget of 2
// (1.2-1.35x measured at rest, more under overload), each sink's batch being
// encoded plus the one in flight (an object-store sink: object.max_open_bytes
// plus object.max_bytes), and two HTTP ingest bodies being parsed.
export const BASE_RSS_BYTES = 32 * 1024 ** 2;
export const AVERAGE_EVENT_BYTES = 1024;
export const RSS_PER_BUFFERED_BYTE = 2;
export function memoryNeededBytes(config) {
  const buffered = Math.min(bytes(config?.buffer?.max_bytes ?? DEFAULTS.bufferMaxBytes),
    (config?.buffer?.max_events ?? DEFAULTS.bufferMaxEvents) * AVERAGE_EVENT_BYTES);
  // An object-store sink holds object.max_open_bytes of JSON plus one object
  // being compressed; the others a batch being encoded plus one in flight.
  const sinks = (config?.sinks ?? []).reduce((sum, sink) => sum + (isObjectStoreUrl(sink?.url)
    ? bytes(sink?.object?.max_open_bytes ?? DEFAULTS.objectMaxOpenBytes)
      + bytes(sink?.object?.max_bytes ?? DEFAULTS.objectMaxBytes)
    : 2 * bytes(sink?.batch?.max_bytes ?? DEFAULTS.batchMaxBytes)), 0);
  const ingest = config?.http_ingest?.enabled
    ? 2 * bytes(config.http_ingest.max_body_bytes ?? DEFAULTS.httpIngestMaxBody) : 0;
  return BASE_RSS_BYTES + RSS_PER_BUFFERED_BYTE * buffered + sinks + ingest;
}

// The spool's rule of docs/OPERATIONS.md (sizing): its volume holds up to
// spool.max_bytes of segments, plus the files recovery moved aside (at most
// 8, each up to a segment: src/spool/recovery.h, kMovedAsideKept) and the
// segment being written while the oldest waits to be evicted. An emptyDir
// past its sizeLimit gets the pod evicted, so the limit covers all of it.
export const SPOOL_MOVED_ASIDE_KEPT = 8;
export function spoolVolumeNeededBytes(config) {
  const segment = bytes(config.spool.segment_bytes ?? DEFAULTS.spoolSegmentBytes);
  return bytes(config.spool.max_bytes) + (SPOOL_MOVED_ASIDE_KEPT + 1) * segment;
}

// The volume mount (and its volume) holding a path of a container, if any.
export function mountFor(podSpec, container, path) {
  const mount = (container.volumeMounts ?? []).find((m) => path === m.mountPath
    || path.startsWith(`${m.mountPath.replace(/\/$/, "")}/`));
  if (!mount) return undefined;
  return { mount, volume: (podSpec.volumes ?? []).find((v) => v.name === mount.name) };
}

// All containers of a pod spec, regular and init, with where they sit.
export function podContainers(podSpec) {
  return [
    ...(podSpec.initContainers ?? []).map((c) => ({ ...c, init: true })),
    ...(podSpec.containers ?? []).map((c) => ({ ...c, init: false })),
  ];
}

export function envValue(container, name) {
  return (container.env ?? []).find((e) => e.name === name);
}

export function namedPort(container, name) {
  return (container.ports ?? []).find((p) => p.name === name);
}

// The RayEvent.EventType names this build knows (from proto/).
export function knownEventTypes() {
  const proto = readText("proto/src/ray/protobuf/public/events_base_event.proto");
  const body = /enum EventType \{([^}]*)\}/.exec(proto)[1];
  return new Set([...body.matchAll(/^\s*([A-Z_]+)\s*=/gm)].map((m) => m[1]));
}
