// The task dashboard in a real browser (issue 31, "Tested in a real
// browser"): Debian's Chromium, headless, driven by playwright-core, against
// the real ray-task-history over the demo cluster's fixed session sent
// through the real daemon (harness.mjs). Assertions read DOM text, ARIA and
// the data- attributes of /work/carry/ui-contract.md §3, never pixels. One
// browser, one data set; every test starts from its own URL.
//
// On every page: axe-core finds no serious or critical violation, the
// fixture's secret is not in the document, no <img src=x> exists, and the
// page is screenshotted whole at 1440 and 390 px (build/ui-screenshots/, for
// reviewers; also when a test fails). During every test: no console error, no
// uncaught exception, no dialog, no request to another origin, and no
// response the page received holds the secret.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CHROMIUM_ARGS, axeSource, loadPlaywright, missingPrerequisites, paths, startStack, waitFor,
} from "./harness.mjs";

// A condition on the page: short next to the harness's, still generous.
const PAGE_DEADLINE_MS = 30_000;
const WIDTHS = [1440, 390];

let stack; // { origin, expect, stop, logs }
let context; // the persistent browser context (one fresh profile)
let profile; // its directory
let page;
let axe; // axe-core's source
let shots = 0;
// What the page did wrong during the current test.
let problems = [];
let pendingBodies = [];

function record(problem) {
  problems.push(problem);
}

before(async () => {
  const missing = missingPrerequisites();
  assert.deepEqual(missing, [], `the browser tests cannot run without:\n  ${missing.join("\n  ")}`);
  mkdirSync(paths.screenshots, { recursive: true });
  for (const name of readdirSync(paths.screenshots)) {
    if (name.endsWith(".png")) rmSync(join(paths.screenshots, name));
  }
  axe = axeSource();
  stack = await startStack();

  // The binary embeds the page, not the placeholder a build without build/ui
  // embeds.
  const shell = await (await fetch(`${stack.origin}/`)).text();
  assert.match(shell, /\/assets\/app\.js/,
    "ray-task-history serves no page bundle: run scripts/build-ui, then rebuild ray-task-history");

  const { chromium } = await loadPlaywright();
  profile = mkdtempSync(join(tmpdir(), "rayagg-chromium-"));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: paths.chromium,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: WIDTHS[0], height: 900 },
  });
  page = context.pages()[0] ?? await context.newPage();
  const origin = new URL(stack.origin).origin;
  page.on("console", (message) => {
    if (message.type() === "error") record(`console error: ${message.text()}`);
  });
  page.on("pageerror", (error) => record(`uncaught exception: ${error.message}`));
  page.on("dialog", (dialog) => {
    record(`a ${dialog.type()} dialog opened: ${dialog.message()}`);
    dialog.dismiss().catch(() => {});
  });
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (["data:", "blob:", "about:"].includes(url.protocol)) return;
    if (url.origin !== origin) record(`request to another origin: ${request.url()}`);
  });
  page.on("response", (response) => {
    if (response.status() >= 300 && response.status() < 400) return;
    pendingBodies.push(response.body().then((body) => {
      if (body.includes(stack.expect.secret.value)) {
        record(`the secret reached the browser in ${response.url()}`);
      }
    }, () => {})); // a body the page navigated away from before it was read
  });
});

after(async () => {
  await context?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
  if (stack) {
    const exits = await stack.stop();
    const logs = stack.logs();
    rmSync(stack.dir, { recursive: true, force: true });
    assert.deepEqual(exits["ray-task-history"], { code: 0, signal: null },
      `ray-task-history did not exit cleanly:\n${logs}`);
  }
});

// Runs one test's body; then checks what the page did wrong meanwhile, and
// on any failure screenshots the page as it was.
async function step(name, body) {
  problems = [];
  pendingBodies = [];
  try {
    await body();
    await Promise.all(pendingBodies);
    assert.deepEqual(problems, [], `the page misbehaved during "${name}"`);
  } catch (error) {
    await screenshots(`FAILED-${name}`).catch(() => {});
    throw error;
  }
}

function session() {
  return encodeURIComponent(stack.expect.session);
}

function query() {
  return new URL(page.url()).searchParams;
}

// Loaded: a heading and nothing marked busy.
async function settled() {
  await page.waitForFunction(
    () => document.querySelector("h1") && !document.querySelector('[aria-busy="true"]'),
    null, { timeout: PAGE_DEADLINE_MS });
}

async function visit(path) {
  const response = await page.goto(`${stack.origin}${path}`);
  assert.equal(response.status(), 200, `GET ${path}`);
  await settled();
}

// JSON with every object's keys sorted: equal values, equal text.
function canonical(value) {
  return JSON.stringify(value, (key, v) => (v && typeof v === "object" && !Array.isArray(v)
    ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b))) : v));
}

// Polls a value read from the page until it equals `expected`.
async function eventually(what, read, expected) {
  let last;
  await waitFor(what, async () => {
    last = await read();
    return canonical(last) === canonical(expected);
  }, { deadlineMs: PAGE_DEADLINE_MS, describe: () => `${canonical(last)}, expected ${canonical(expected)}` });
}

async function screenshots(name) {
  const viewport = page.viewportSize();
  const index = String(++shots).padStart(2, "0");
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({
      path: join(paths.screenshots, `${index}-${name.replace(/[^A-Za-z0-9_-]+/g, "-")}-${width}.png`),
      fullPage: true,
    });
  }
  await page.setViewportSize(viewport);
}

// What every page must satisfy; then its screenshots.
async function review(name) {
  await settled();
  // axe-core evaluated through the DevTools protocol: the page's CSP (no
  // inline script) refuses a <script> tag with the source.
  await page.evaluate(axe);
  const violations = await page.evaluate(async () => {
    const result = await window.axe.run(document);
    return result.violations.filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join("; ")})`);
  });
  assert.deepEqual(violations, [], `axe-core on ${name} (${page.url()})`);
  const html = await page.evaluate(() => document.documentElement.outerHTML);
  assert.ok(!html.includes(stack.expect.secret.value), `the secret is in the DOM of ${name}`);
  const injected = await page.evaluate(() =>
    [...document.querySelectorAll("img")].filter((img) => img.getAttribute("src") === "x").length);
  assert.equal(injected, 0, `an <img src=x> was created on ${name}`);
  assert.equal(await page.locator("h1").count(), 1, `one <h1> on ${name}`);
  await screenshots(name);
}

// The summary's buttons: state -> data-count, and which is pressed.
async function summary() {
  return page.$$eval('section[aria-label="Summary"] button[data-state]', (buttons) =>
    Object.fromEntries(buttons.map((b) => [b.dataset.state, Number(b.dataset.count)])));
}

async function dataCount(selector) {
  const value = await page.locator(selector).first().getAttribute("data-count");
  return value === null ? null : Number(value);
}

function nonZeroSorted(byState) {
  return Object.fromEntries(Object.entries(byState).filter(([, n]) => n !== 0)
    .sort(([a], [b]) => a.localeCompare(b)));
}

// The text of every row's cell under the column headed `heading`.
async function column(heading) {
  return page.$$eval('table[aria-label="Tasks"]', ([table], wanted) => {
    const headers = [...table.querySelectorAll("thead th")].map((th) => th.textContent.trim());
    const index = headers.findIndex((text) => text.toLowerCase().startsWith(wanted));
    if (index < 0) return { error: `no column "${wanted}" in ${JSON.stringify(headers)}` };
    return [...table.querySelectorAll("tbody tr[data-task-id]")]
      .map((row) => row.cells[index]?.textContent.trim() ?? "");
  }, heading.toLowerCase());
}

// The integers written in a text, thousands separators ("1,234", a no-break space)
// read as part of the number.
function numbersIn(text) {
  return (text.replace(/(\d)[,.\u202f\u00a0'](?=\d{3}(?!\d))/g, "$1").match(/\d+/g) ?? []).map(Number);
}

async function rowIds() {
  return page.$$eval('table[aria-label="Tasks"] tbody tr[data-task-id]',
    (rows) => rows.map((r) => r.dataset.taskId.toLowerCase()));
}

describe("the task dashboard in Chromium", () => {
  it("lists the fixture's session and opens its dashboard", () => step("sessions", async () => {
    await visit("/");
    const row = page.locator(`table[aria-label="Sessions"] tr[data-session="${stack.expect.session}"]`);
    assert.equal(await row.count(), 1, "the fixture's session is not a row of the Sessions table");
    await review("sessions");
    await row.getByRole("link").first().click();
    await page.waitForURL((url) => url.pathname === "/session");
    assert.equal(query().get("session"), stack.expect.session);
    await settled();
  }));

  it("shows the fixture's counts in both units", () => step("summary", async () => {
    const { expect } = stack;
    await visit(`/session?session=${session()}`);
    await eventually("the summary in tasks", summary, nonZeroSorted(expect.tasks.by_state));
    assert.equal(await dataCount('[data-testid="summary-total"]'), expect.tasks.total);
    const beside = await page.locator('[data-testid="summary-total"]').first().locator("xpath=..").textContent();
    assert.ok(numbersIn(beside).includes(expect.attempts.total),
      `the attempts total (${expect.attempts.total}) is not beside the tasks total: "${beside}"`);
    await review("dashboard");

    await page.getByRole("radiogroup", { name: "Count" }).getByRole("radio", { name: "Attempts" }).check();
    await page.waitForURL((url) => url.searchParams.get("unit") === "attempts");
    await eventually("the summary in attempts", summary, nonZeroSorted(expect.attempts.by_state));
    await eventually("the attempts total", () => dataCount('[data-testid="summary-total"]'),
      expect.attempts.total);
    await review("dashboard-attempts");
  }));

  it("filters to FAILED; a reload keeps it and Back undoes it", () => step("failed", async () => {
    const { expect } = stack;
    const failed = expect.tasks.by_state.FAILED;
    assert.ok(failed > 0, "the fixture has no FAILED task");
    await visit(`/session?session=${session()}`);
    await page.locator('section[aria-label="Summary"] button[data-state="FAILED"]').click();
    await page.waitForURL((url) => url.searchParams.get("state") === "FAILED");
    await settled();
    const checkFiltered = async (when) => {
      await eventually(`the table total ${when}`, () => dataCount('[data-testid="task-total"]'), failed);
      assert.equal(await page.locator('section[aria-label="Summary"] button[data-state="FAILED"]')
        .getAttribute("aria-pressed"), "true", `FAILED is not pressed ${when}`);
      const states = await column("state");
      assert.ok(Array.isArray(states), states.error);
      assert.ok(states.length > 0 && states.length <= failed, `${states.length} rows ${when}`);
      for (const state of states) {
        assert.match(state.toUpperCase().replace(/[^A-Z]+/g, "_"), /FAILED/, `a row in state "${state}" ${when}`);
      }
      assert.equal(await page.getByRole("button", { name: /^Remove filter state: FAILED$/i }).count(), 1,
        `no removable "state: FAILED" chip ${when}`);
    };
    await checkFiltered("after the click");
    await review("dashboard-failed");

    await page.reload();
    await settled();
    assert.equal(query().get("state"), "FAILED", "the reload lost the filter");
    await checkFiltered("after a reload");

    await page.goBack();
    await page.waitForURL((url) => !url.searchParams.has("state"));
    await settled();
    await eventually("the table total after Back", () => dataCount('[data-testid="task-total"]'),
      expect.tasks.total);
    assert.notEqual(await page.locator('section[aria-label="Summary"] button[data-state="FAILED"]')
      .getAttribute("aria-pressed"), "true", "FAILED still pressed after Back");
  }));

  it("narrows the table to a histogram bucket's tasks", () => step("bucket", async () => {
    await visit(`/session?session=${session()}`);
    const bucket = page.locator('section[aria-label="By function"] [role="group"][aria-label="Duration histogram"] button[data-count]').first();
    assert.equal(await bucket.count(), 1, "no histogram bucket in the By function panel");
    const count = Number(await bucket.getAttribute("data-count"));
    const gt = await bucket.getAttribute("data-gt-us");
    const le = await bucket.getAttribute("data-le-us");
    assert.ok(count > 0, "a bucket with no task");
    await bucket.click();
    await page.waitForURL((url) => url.searchParams.has("total_le_us"));
    await settled();
    const params = query();
    assert.equal(params.get("total_gt_us"), gt);
    assert.equal(params.get("total_le_us"), le);
    assert.ok(params.has("function"), "the bucket's group (function=) is not in the URL");
    assert.equal(params.get("sort"), "total_duration");
    assert.equal(params.get("order"), "desc");
    await eventually("the table total for the bucket", () => dataCount('[data-testid="task-total"]'), count);
    assert.ok((await rowIds()).length <= count, "more rows than the bucket counts");
    await review("dashboard-bucket");
  }));

  it("finds exactly one task by 12 characters of its stack trace", () => step("search", async () => {
    const probe = stack.expect.trace_probe;
    assert.equal(probe.substring.length, 12);
    await visit(`/session?session=${session()}`);
    const box = page.getByRole("searchbox", { name: "Search tasks" });
    await box.fill(probe.substring);
    await box.press("Enter");
    await page.waitForURL((url) => url.searchParams.get("q") === probe.substring);
    await settled();
    await eventually("the search's total", () => dataCount('[data-testid="task-total"]'), 1);
    await eventually("the search's rows", rowIds, [probe.task_id.toLowerCase()]);
    await review("dashboard-search");

    // The task's page highlights the match in its stack trace.
    await visit(`/task?session=${session()}&task_id=${probe.task_id}&q=${encodeURIComponent(probe.substring)}`);
    const marks = await page.$$eval('section[aria-label="Error"] pre mark', (m) => m.map((e) => e.textContent));
    assert.ok(marks.some((text) => text.toLowerCase() === probe.substring.toLowerCase()),
      `the stack trace does not mark "${probe.substring}": ${JSON.stringify(marks)}`);
  }));

  it("shows every attempt's transitions of a retried task", () => step("retried", async () => {
    const retried = stack.expect.retried_task;
    assert.ok(retried.attempts >= 2, "the fixture's retried task has one attempt");
    await visit(`/task?session=${session()}&task_id=${retried.task_id}`);
    assert.ok((await page.locator("h1").textContent()).includes(retried.name), "the h1 lacks the task's name");
    const attempts = page.locator('section[aria-label="Attempts"] section[data-attempt]');
    await eventually("the attempts shown", () => attempts.count(), retried.attempts);
    for (const number of await attempts.evaluateAll((s) => s.map((e) => e.dataset.attempt))) {
      const timeline = page.locator(`section[data-attempt="${number}"] [role="list"][aria-label="State timeline, attempt ${number}"]`);
      assert.equal(await timeline.count(), 1, `no timeline for attempt ${number}`);
      const items = await timeline.getByRole("listitem").allTextContents();
      assert.ok(items.length >= 2, `attempt ${number} shows ${items.length} transition(s)`);
      for (const item of items) assert.match(item, /[A-Za-z]{3,}/, `a transition without a state: "${item}"`);
      assert.ok(items.some((item) => /\d/.test(item)), `attempt ${number}: no duration in ${JSON.stringify(items)}`);
    }
    await review("task-retried");
  }));

  it("shows a task named like markup as text and runs nothing", () => step("xss", async () => {
    const xss = stack.expect.xss_task;
    assert.equal(xss.name, "<img src=x onerror=alert(1)>");
    await visit(`/task?session=${session()}&task_id=${xss.task_id}`);
    assert.ok((await page.locator("h1").textContent()).includes(xss.name),
      `the h1 does not show the name as text: ${await page.locator("h1").innerHTML()}`);
    await review("task-markup-name"); // no <img src=x>; a dialog fails the test
  }));

  it("never lets a redacted runtime-env value reach the browser", () => step("secret", async () => {
    const secret = stack.expect.secret;
    // Redacted on the server, whatever the page does.
    const api = await (await fetch(`${stack.origin}/api/history/v1/task?session=${session()}&task_id=${secret.task_id}`)).text();
    assert.ok(!api.includes(secret.value), "the task API answers the secret");
    assert.ok(api.includes(secret.key), `the task API's answer lacks ${secret.key}`);
    await visit(`/task?session=${session()}&task_id=${secret.task_id}`);
    const env = page.locator('section[aria-label="Runtime environment"]');
    const text = await env.textContent();
    assert.ok(text.includes(secret.key), `${secret.key} is not shown`);
    assert.ok(text.includes("•••"), "the redacted value is not shown as •••");
    await review("task-secret"); // the value is not in the DOM
  }));

  it("lists actors and jobs and opens their details", () => step("actors-jobs", async () => {
    for (const [list, label, detail] of [["actors", "Actors", "/actor"], ["jobs", "Jobs", "/job"]]) {
      await visit(`/${list}?session=${session()}`);
      const table = page.locator(`table[aria-label="${label}"]`);
      assert.equal(await table.count(), 1, `no ${label} table`);
      await review(list);
      const link = table.locator("tbody tr").getByRole("link").first();
      assert.equal(await link.count(), 1, `the ${label} table has no row to open`);
      await link.click();
      await page.waitForURL((url) => url.pathname === detail);
      await review(detail.slice(1));
    }
  }));
});
