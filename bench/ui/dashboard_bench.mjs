// The task dashboard's targets (issue 31, "Targets"), in headless Chromium
// against the real ray-task-history over a generated session (bench/ui/run
// writes the store): first paint of the summary strip and the first group
// panel (Element Timing), a table page change and a sort change (click to
// rows replaced), the bytes of the first view, and the JS heap after paging
// through many pages and a forced GC. Prints one table; --json FILE also
// writes the figures. Not a test: it asserts nothing but that the page works.
//
//   node bench/ui/dashboard_bench.mjs --store DIR --index DIR --expect FILE
//        [--loads 10] [--pages 100] [--json FILE]
// FILE is what rayagg-demo-cluster --write-store --expect-out wrote: the
// session and its counts, to know when the index holds all of it.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { CHROMIUM_ARGS, loadPlaywright, paths, waitFor } from "../../tests/browser/harness.mjs";

const { values: options } = parseArgs({
  options: {
    store: { type: "string" },
    index: { type: "string" },
    expect: { type: "string" },
    loads: { type: "string", default: "10" },
    pages: { type: "string", default: "100" },
    json: { type: "string" },
  },
});
for (const required of ["store", "index", "expect"]) {
  if (!options[required]) {
    console.error(`usage: dashboard_bench.mjs --store DIR --index DIR --expect FILE [--loads N] [--pages N] [--json FILE]`);
    process.exit(2);
  }
}
const expected = JSON.parse(readFileSync(options.expect, "utf8"));
const TASKS = expected.tasks.total;
const LOADS = Number(options.loads);
const PAGES = Number(options.pages);
const log = (...parts) => console.error("==>", ...parts);

// ---------------------------------------------------------------- history
const scratch = mkdtempSync(join(tmpdir(), "rayagg-ui-bench-"));
const portFile = join(scratch, "history.port");
const opsPortFile = join(scratch, "history-ops.port");
const stderrPath = join(scratch, "history.err");
const history = spawn(paths.history, [
  "--store", `dir://${options.store}`, "--index-dir", options.index,
  "--http-port", "0", "--port-file", portFile, "--ops-port", "0", "--ops-port-file", opsPortFile,
], { stdio: ["ignore", "ignore", openSync(stderrPath, "w")] });
let historyExit = null;
history.on("exit", (code, signal) => { historyExit = { code, signal }; });
// Whatever ends this script (a failure too) stops the history it started.
process.on("exit", () => { if (!historyExit) history.kill("SIGTERM"); });
const alive = () => {
  if (historyExit) {
    throw new Error(`ray-task-history exited ${JSON.stringify(historyExit)}:\n${readFileSync(stderrPath, "utf8")}`);
  }
};
const readPort = (file) => waitFor(`ray-task-history to write ${file}`, () => {
  alive();
  return existsSync(file) && Number(readFileSync(file, "utf8").trim());
});
const origin = `http://127.0.0.1:${await readPort(portFile)}`;
const opsOrigin = `http://127.0.0.1:${await readPort(opsPortFile)}`;

// Indexed: caught up (rayhist_lag_seconds >= 0) and the session holds every
// task and attempt the generator wrote. Indexing 1,000,000 tasks takes
// minutes on this machine.
const indexStart = Date.now();
let session = null;
let lastSeen = "";
await waitFor(`the index to hold ${TASKS} tasks`, async () => {
  alive();
  const metrics = await (await fetch(`${opsOrigin}/metrics`)).text();
  const lag = /^rayhist_lag_seconds (\S+)$/m.exec(metrics)?.[1];
  const answer = await (await fetch(`${origin}/api/history/v1/sessions`)).json();
  const sessions = answer.sessions ?? [];
  lastSeen = `lag ${lag}; ${sessions.map((s) => `${s.session}: ${s.tasks?.total} tasks`).join(", ")}`;
  if (!(Number(lag) >= 0) || sessions.length !== 1 || sessions[0].session !== expected.session ||
      sessions[0].tasks?.total !== TASKS || sessions[0].tasks?.attempts !== expected.attempts.total) {
    return false;
  }
  session = sessions[0];
  return true;
}, { deadlineMs: 600_000 + TASKS, describe: () => lastSeen });
log(`indexed (${((Date.now() - indexStart) / 1000).toFixed(0)} s after start): ${session.session}, ` +
  `${session.tasks.total} tasks, ${session.tasks.attempts} attempts`);
const dashboard = `${origin}/session?session=${encodeURIComponent(session.session)}`;

// ---------------------------------------------------------------- browser
const { chromium } = await loadPlaywright();
const context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), "rayagg-chromium-")), {
  executablePath: paths.chromium, headless: true, args: CHROMIUM_ARGS,
  viewport: { width: 1440, height: 900 },
});
const page = context.pages()[0] ?? await context.newPage();
const errors = [];
page.on("pageerror", (error) => errors.push(error.message));
page.on("console", (message) => { if (message.type() === "error") errors.push(message.text()); });
const cdp = await context.newCDPSession(page);
await cdp.send("Network.enable");

// Before any script of the page: Element Timing marks on what the contract
// names (the page may set its own; these need nothing from it) and an
// observer that keeps every entry. An element with `elementtiming` is
// reported when the text it holds is first painted, so the mark goes on the
// block that holds the text: the summary's total, and the first cell of the
// By function panel's first row.
await page.addInitScript(() => {
  window.__rayaggPaints = {};
  window.__rayaggAlias = {};
  window.__rayaggPaint = (identifier) =>
    window.__rayaggPaints[window.__rayaggAlias[identifier] ?? identifier];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (!(entry.identifier in window.__rayaggPaints)) {
        window.__rayaggPaints[entry.identifier] = entry.renderTime || entry.loadTime;
      }
    }
  }).observe({ type: "element", buffered: true });
  // Chromium gives a text's paint to its nearest block container (an inline
  // <strong> with the attribute is never reported): the first text's
  // nearest ancestor that is not inline.
  const textHolder = (element) => {
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!node.textContent.trim()) continue;
      let holder = node.parentElement;
      while (holder.parentElement && getComputedStyle(holder).display === "inline") holder = holder.parentElement;
      return holder;
    }
    return null;
  };
  const marks = [
    ["rayagg-summary", '[data-testid="summary-total"][data-count]'],
    ["rayagg-first-panel", 'section[aria-label="By function"] tr[data-group-key]'],
  ];
  // The page re-renders by morphing, which drops attributes it did not set:
  // a mark it drops before the paint is put back before the paint (this
  // observer runs before the next frame). Besides, the first frame after the
  // element is in the DOM (requestAnimationFrame, then a task) is kept as a
  // fallback where Chromium reports no entry.
  const held = {};
  const mark = () => {
    for (const [identifier, selector] of marks) {
      const kept = held[identifier];
      if (kept) {
        if (kept.isConnected && !kept.hasAttribute("elementtiming")) kept.setAttribute("elementtiming", identifier);
        continue;
      }
      const element = document.querySelector(selector);
      const holder = element && textHolder(element);
      if (!holder) continue;
      // The page's own mark, when it put one there, is the same paint.
      const own = holder.getAttribute("elementtiming");
      if (own) window.__rayaggAlias[identifier] = own;
      else { holder.setAttribute("elementtiming", identifier); held[identifier] = holder; }
      held[identifier] = holder;
      window.__rayaggPaints[`${identifier}-dom`] = performance.now();
      requestAnimationFrame(() => setTimeout(() => {
        window.__rayaggPaints[`${identifier}-frame`] = performance.now();
      }, 0));
    }
  };
  new MutationObserver(mark).observe(document, { childList: true, subtree: true, attributes: true,
    attributeFilter: ["data-count", "elementtiming"] });
});

const settled = () => page.waitForFunction(() =>
  document.querySelector('[data-testid="summary-total"][data-count]') &&
  document.querySelector('section[aria-label="By function"] tr[data-group-key]') &&
  document.querySelector('table[aria-label="Tasks"] tbody tr[data-task-id]') &&
  !document.querySelector('[aria-busy="true"]'), null, { timeout: 120_000 });

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const stats = (values) => ({ median: median(values), max: Math.max(...values), n: values.length });

// ------------------------------------------------ first paint, 10 loads
// Each load with the browser's cache emptied first (the server's is warm):
// the first view as a new visitor gets it.
const paints = { summary: [], panel: [] };
const fallbacks = []; // loads where Element Timing reported nothing
let firstView = null;
for (let load = 0; load < LOADS; load++) {
  await cdp.send("Network.clearBrowserCache");
  await page.goto("about:blank");
  await page.goto(dashboard);
  await settled();
  await page.waitForFunction(() => window.__rayaggPaint("rayagg-summary") !== undefined &&
    window.__rayaggPaint("rayagg-first-panel") !== undefined, null, { timeout: 10_000 }).catch(() => {});
  const result = await page.evaluate(() => {
    const navigation = performance.getEntriesByType("navigation")[0];
    const resources = performance.getEntriesByType("resource");
    return {
      paints: window.__rayaggPaints,
      summary: window.__rayaggPaint("rayagg-summary"),
      panel: window.__rayaggPaint("rayagg-first-panel"),
      bytes: navigation.transferSize + resources.reduce((sum, r) => sum + r.transferSize, 0),
      decoded: navigation.decodedBodySize + resources.reduce((sum, r) => sum + r.decodedBodySize, 0),
      requests: 1 + resources.length,
      resources: [navigation, ...resources].map((r) => ({
        name: new URL(r.name).pathname + new URL(r.name).search.slice(0, 60),
        transfer: r.transferSize, decoded: r.decodedBodySize,
      })),
    };
  });
  // Element Timing's paint, else the first frame after the element came.
  const pick = (identifier, entry) => {
    if (entry !== undefined) return entry;
    const frame = result.paints[`${identifier}-frame`];
    if (frame === undefined) throw new Error(`load ${load + 1}: nothing painted (${JSON.stringify(result.paints)})`);
    fallbacks.push(`load ${load + 1} ${identifier}`);
    return frame;
  };
  const summary = pick("rayagg-summary", result.summary);
  const panel = pick("rayagg-first-panel", result.panel);
  paints.summary.push(summary);
  paints.panel.push(panel);
  if (load === 0) firstView = result;
  log(`load ${load + 1}: summary ${summary.toFixed(0)} ms, first panel ${panel.toFixed(0)} ms, ` +
    `${result.bytes} bytes in ${result.requests} requests`);
}

// ------------------------------------- page and sort changes, in the page
// Clicks `selector` (the n-th match) from inside the page and resolves when
// the table's rows are another set (the DOM replaced) and after the next
// frame (painted): both from the click, in ms.
// `name`: a button's accessible name (its aria-label, else its text).
const timedClick = ({ selector, nth = 0, name }) => page.evaluate(({ selector, nth, name }) => {
  const signature = () => [...document.querySelectorAll('table[aria-label="Tasks"] tbody tr[data-task-id]')]
    .map((row) => `${row.dataset.taskId}:${row.dataset.attempt}`).join(",");
  const button = name
    ? [...document.querySelectorAll("button")].find((b) => (b.getAttribute("aria-label") ?? b.textContent).trim() === name)
    : document.querySelectorAll(selector)[nth];
  if (!button) return Promise.reject(new Error(`nothing to click: ${name ?? `${selector} #${nth}`}`));
  const before = signature();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { observer.disconnect(); reject(new Error(`rows never changed after ${selector}`)); }, 60_000);
    const start = performance.now();
    const observer = new MutationObserver(() => {
      const now = signature();
      if (now === before || now === "" || document.querySelector('table[aria-label="Tasks"][aria-busy="true"]')) return;
      const replaced = performance.now() - start;
      observer.disconnect();
      clearTimeout(timer);
      requestAnimationFrame(() => setTimeout(() => resolve({ replaced, painted: performance.now() - start })));
    });
    observer.observe(document.body, { childList: true, subtree: true, attributes: true });
    button.click();
  });
}, { selector, nth, name });

await page.goto(dashboard);
await settled();
const pageChanges = [];
for (let n = 0; n < PAGES; n++) {
  const { replaced, painted } = await timedClick({ name: "Next page" });
  pageChanges.push({ replaced, painted });
  await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'), null, { timeout: 60_000 });
}
log(`paged through ${PAGES} pages`);

// The JS heap after the paging, with a garbage collection forced first.
await cdp.send("HeapProfiler.enable");
await cdp.send("HeapProfiler.collectGarbage");
const heap = await cdp.send("Runtime.getHeapUsage");

// Sort changes: every sortable column header, descending then ascending.
await page.goto(dashboard);
await settled();
const headers = await page.$$eval('table[aria-label="Tasks"] thead th button', (buttons) =>
  buttons.map((b) => b.textContent.trim()));
const sortChanges = [];
for (let column = 0; column < headers.length; column++) {
  for (let click = 0; click < 2; click++) {
    try {
      const { replaced, painted } = await timedClick({ selector: 'table[aria-label="Tasks"] thead th button', nth: column });
      sortChanges.push({ column: headers[column], replaced, painted });
    } catch (error) {
      log(`sort by ${headers[column]}: ${error.message}`); // rows in the same order
    }
    await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'), null, { timeout: 60_000 });
  }
}

const chromiumVersion = context.browser()?.version() ?? "";
await context.close();
history.kill("SIGTERM");

// ---------------------------------------------------------------- report
const figures = {
  tasks: TASKS,
  session: session.session,
  attempts: session.tasks.attempts,
  loads: LOADS,
  summary_paint_ms: stats(paints.summary),
  first_panel_paint_ms: stats(paints.panel),
  page_change_ms: { replaced: stats(pageChanges.map((c) => c.replaced)), painted: stats(pageChanges.map((c) => c.painted)) },
  sort_change_ms: {
    replaced: stats(sortChanges.map((c) => c.replaced)), painted: stats(sortChanges.map((c) => c.painted)),
    worst: sortChanges.reduce((w, c) => (c.painted > (w?.painted ?? -1) ? c : w), null),
  },
  element_timing_missing: fallbacks,
  first_view: { bytes: firstView.bytes, decoded_bytes: firstView.decoded, requests: firstView.requests, resources: firstView.resources },
  heap_after_pages: { pages: PAGES, used_bytes: heap.usedSize, total_bytes: heap.totalSize },
  errors,
};
if (options.json) writeFileSync(options.json, JSON.stringify(figures, null, 2));

const ms = (s) => `median ${s.median.toFixed(0)} ms, max ${s.max.toFixed(0)} ms (${s.n})`;
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
const rows = [
  ["summary strip painted", ms(figures.summary_paint_ms), "median <= 1 s, max <= 1.5 s"],
  ["first group panel painted", ms(figures.first_panel_paint_ms), "median <= 1 s, max <= 1.5 s"],
  ["table page change (painted)", ms(figures.page_change_ms.painted), "<= 200 ms"],
  ["table sort change (painted)", `${ms(figures.sort_change_ms.painted)}; worst ${figures.sort_change_ms.worst?.column}`, "<= 200 ms"],
  ["first view transferred", `${kb(firstView.bytes)} in ${firstView.requests} requests (${kb(firstView.decoded)} decoded)`, "<= 150 KB"],
  [`JS heap after ${PAGES} pages + GC`, `${(heap.usedSize / 1048576).toFixed(1)} MB used`, "<= 50 MB"],
];
console.log(`task dashboard, ${TASKS.toLocaleString("en-US")} tasks (${session.tasks.attempts.toLocaleString("en-US")} attempts), Chromium ${chromiumVersion}`);
console.log(`| measure | figure | target |\n|---|---|---|`);
for (const [what, figure, target] of rows) console.log(`| ${what} | ${figure} | ${target} |`);
if (fallbacks.length) {
  console.log(`\nno Element Timing entry (first frame after the element instead): ${fallbacks.join(", ")}`);
}
console.log("\nfirst view, per resource (transferred / decoded bytes):");
for (const r of firstView.resources) console.log(`  ${r.transfer}\t${r.decoded}\t${r.name}`);
if (errors.length) console.log(`\npage errors: ${errors.join("; ")}`);
process.exit(errors.length ? 1 : 0);
