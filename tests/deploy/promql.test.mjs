// Every PromQL expression we ship — the PrometheusRule's alerts and the
// Grafana dashboard's panels and variables — parses with Prometheus' own
// grammar (@prometheus-io/lezer-promql, what Prometheus' UI uses), uses only
// metric names docs/METRICS.md lists (which a C++ test keeps equal to the
// daemon's metrics table), and matches only labels those metrics carry. The
// dashboard has Ray's RayClusterName / SessionName variables and every panel
// filters by them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { parser } from "@prometheus-io/lezer-promql";
import { yamlFilesUnder, loadDocuments, readText } from "./lib.mjs";

const DASHBOARD_PATH = "deploy/grafana/ray-event-aggregator.json";

// name -> labels, from the rows of docs/METRICS.md's tables.
const DOCUMENTED = new Map();
for (const line of readText("docs/METRICS.md").split("\n")) {
  const row = /^\|\s*`([a-zA-Z_:][a-zA-Z0-9_:]*)`\s*\|\s*(counter|gauge|histogram)\s*\|([^|]*)\|/.exec(line);
  if (!row) continue;
  DOCUMENTED.set(row[1], { type: row[2], labels: [...row[3].matchAll(/`([^`]+)`/g)].map((m) => m[1]) });
}

// Labels a series gets besides its own: the scrape's target labels and the
// ops.constant_labels our manifests set (docs/METRICS.md, first section).
const TARGET_AND_CONSTANT_LABELS = new Set([
  "instance", "job", "namespace", "pod", "container", "node", "ray_io_cluster", "ray_io_node_type",
  "RayClusterName", "SessionName",
]);
// Prometheus' own series, not the daemon's.
const PROMETHEUS_SERIES = new Set(["up"]);

// Grafana replaces these before Prometheus sees the query.
function withoutGrafanaMacros(expr) {
  return expr
    .replaceAll("$__rate_interval", "5m")
    .replaceAll("$__interval", "1m")
    .replaceAll("$__range", "1h");
}

// The family a sample name belongs to (histograms add suffixes).
function familyOf(name) {
  if (DOCUMENTED.has(name)) return name;
  const base = name.replace(/_(bucket|sum|count)$/, "");
  return DOCUMENTED.get(base)?.type === "histogram" ? base : undefined;
}

// Parses `expr`; returns its syntax errors and the selectors it uses.
function analyze(expr) {
  const text = withoutGrafanaMacros(expr);
  const tree = parser.parse(text);
  const errors = [];
  const selectors = [];
  tree.iterate({
    enter(node) {
      if (node.type.isError) errors.push(`syntax error at ${node.from}: "${text.slice(node.from, node.from + 20)}"`);
      if (node.name !== "VectorSelector") return;
      const selector = { name: undefined, labels: [] };
      const cursor = node.node.cursor();
      cursor.iterate((child) => {
        if (child.name === "Identifier" && child.node.parent?.name === "VectorSelector") {
          selector.name = text.slice(child.from, child.to);
        }
        if (child.name === "LabelName" && child.node.parent?.name.endsWith("LabelMatcher")) {
          selector.labels.push(text.slice(child.from, child.to));
        }
      });
      selectors.push(selector);
    },
  });
  if (text.trim() === "") errors.push("empty expression");
  return { errors, selectors };
}

// What is wrong with `expr` (syntax, unknown metrics, unknown labels).
function problemsOf(expr) {
  const { errors, selectors } = analyze(expr);
  const problems = [...errors];
  for (const { name, labels } of selectors) {
    if (name === undefined) {
      problems.push("a selector without a metric name");
      continue;
    }
    if (PROMETHEUS_SERIES.has(name)) continue;
    const family = familyOf(name);
    if (!family) {
      problems.push(`${name} is not in docs/METRICS.md`);
      continue;
    }
    const allowed = new Set([...DOCUMENTED.get(family).labels, ...TARGET_AND_CONSTANT_LABELS]);
    if (name.endsWith("_bucket")) allowed.add("le");
    for (const label of labels) {
      if (!allowed.has(label)) problems.push(`${name} has no label ${label}`);
    }
  }
  return problems;
}

const rules = yamlFilesUnder("deploy/kubernetes").flatMap(loadDocuments)
  .filter((doc) => doc.kind === "PrometheusRule")
  .flatMap((doc) => doc.spec.groups.flatMap((group) => group.rules));
const dashboard = JSON.parse(readText(DASHBOARD_PATH));
const panels = dashboard.panels.filter((panel) => panel.type !== "row");
const variables = dashboard.templating.list;

// label_values(<selector>, <label>): the selector is PromQL, the call is Grafana's.
function labelValuesSelector(query) {
  const match = /^label_values\((.*),\s*([a-zA-Z_][a-zA-Z0-9_]*)\)$/.exec(query.trim());
  assert.ok(match, `not a label_values() query: ${query}`);
  return { selector: match[1], label: match[2] };
}

test("docs/METRICS.md lists metrics to check against", () => {
  assert.ok(DOCUMENTED.size >= 30, `only ${DOCUMENTED.size} metrics found in docs/METRICS.md`);
});

test("the checks are live: bad syntax, unknown metrics and labels are reported", () => {
  assert.notDeepEqual(problemsOf("rate(rayagg_events_received_total[5m]"), []);
  assert.deepEqual(problemsOf("rate(rayagg_no_such_metric_total[5m])"),
    ["rayagg_no_such_metric_total is not in docs/METRICS.md"]);
  assert.deepEqual(problemsOf('rayagg_sink_request_duration_seconds_bucket{Outcome="success"}'),
    ["rayagg_sink_request_duration_seconds_bucket has no label Outcome"]);
  assert.deepEqual(problemsOf("histogram_quantile(0.9, sum by (le) (rate(rayagg_sink_request_duration_seconds_bucket[$__rate_interval])))"), []);
});

test("there is a PrometheusRule with alerts", () => {
  assert.ok(rules.length >= 5, `${rules.length} rules`);
});

for (const rule of rules) {
  test(`alert ${rule.alert} parses and uses documented metrics`, () => {
    assert.deepEqual(problemsOf(rule.expr), []);
  });
}

test("the dashboard has Ray's RayClusterName and SessionName variables and a data source", () => {
  const names = variables.map((v) => v.name);
  for (const name of ["datasource", "RayClusterName", "SessionName"]) {
    assert.ok(names.includes(name), `no $${name} variable`);
  }
  for (const variable of variables.filter((v) => v.type === "query")) {
    // "All" must also match series without the label (a deployment that does
    // not set it): .* matches the empty value, .+ would not.
    assert.equal(variable.allValue, ".*", `$${variable.name}`);
  }
});

for (const variable of variables.filter((v) => v.type === "query")) {
  test(`dashboard variable $${variable.name} queries a documented metric`, () => {
    const { selector, label } = labelValuesSelector(variable.query.query ?? variable.query);
    assert.deepEqual(problemsOf(selector), []);
    assert.ok(TARGET_AND_CONSTANT_LABELS.has(label), `${label} is not a target or constant label`);
  });
}

test("every dashboard panel has unique ids, fits the grid and has queries", () => {
  const ids = dashboard.panels.map((panel) => panel.id);
  assert.equal(new Set(ids).size, ids.length, "duplicate panel ids");
  for (const panel of dashboard.panels) {
    const { x, w } = panel.gridPos;
    assert.ok(x >= 0 && w > 0 && x + w <= 24, `${panel.title}: gridPos ${JSON.stringify(panel.gridPos)}`);
  }
  for (const panel of panels) {
    assert.ok(panel.targets?.length > 0, `${panel.title}: no queries`);
    const refIds = panel.targets.map((t) => t.refId);
    assert.equal(new Set(refIds).size, refIds.length, `${panel.title}: duplicate refIds`);
    assert.equal(panel.datasource?.uid, "${datasource}", `${panel.title}: not on $datasource`);
  }
});

for (const panel of panels) {
  test(`dashboard panel "${panel.title}": queries parse, use documented metrics, filter by cluster and session`, () => {
    for (const { expr } of panel.targets) {
      assert.deepEqual(problemsOf(expr), [], expr);
      for (const { name, labels } of analyze(expr).selectors) {
        for (const label of ["RayClusterName", "SessionName"]) {
          assert.ok(labels.includes(label), `${name} in "${expr}" is not filtered by $${label}`);
        }
      }
    }
  });
}

test("the dashboard shows ingest, buffer, drops by reason, per-sink delivery and latency", () => {
  const exprs = panels.flatMap((panel) => panel.targets.map((t) => t.expr)).join("\n");
  const wanted = [
    /rate\(rayagg_ingest_requests_total/,
    /rate\(rayagg_events_accepted_total/,
    /rayagg_buffer_events\{/,
    /sum by \(reason\) \(rate\(rayagg_sink_dropped_events_total/,
    /sum by \(sink\) \(rate\(rayagg_sink_sent_events_total/,
    /sum by \(sink, reason\) \(rate\(rayagg_sink_request_failures_total/,
    /histogram_quantile\(0\.99, sum by \(le, sink\) \(rate\(rayagg_sink_request_duration_seconds_bucket/,
  ];
  for (const pattern of wanted) assert.match(exprs, pattern);
});
