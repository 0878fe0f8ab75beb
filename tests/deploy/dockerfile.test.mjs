// docker/Dockerfile beyond what dockerfilelint checks: the stages (the page
// bundled with Debian's Node 18 before the C++ build embeds it), a non-root
// user, a HEALTHCHECK through the daemon's own probe on the configured ops
// port, no build tools in the final image, and — against the built binaries —
// that the final stage installs every shared library the daemon and
// ray-task-history link.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { readText, parseYaml, repoPath, DEFAULTS } from "./lib.mjs";

// Instructions with continuation lines joined and comments dropped.
function instructions(text) {
  const joined = text.replace(/\\\n/g, " ").split("\n");
  return joined.map((l) => l.trim()).filter((l) => l && !l.startsWith("#"))
    .map((l) => {
      const [, keyword, rest] = /^(\S+)\s*(.*)$/.exec(l);
      return { keyword: keyword.toUpperCase(), args: rest.replace(/\s+/g, " ") };
    });
}

const steps = instructions(readText("docker/Dockerfile"));
const stageStarts = steps.map((s, i) => (s.keyword === "FROM" ? i : -1)).filter((i) => i >= 0);
const stages = stageStarts.map((start, n) => steps.slice(start, stageStarts[n + 1] ?? steps.length));
const final = stages.at(-1);
// A stage by its name (FROM image AS name).
const stageNamed = (name) =>
  stages.find((stage) => new RegExp(`\\sAS ${name}$`, "i").test(stage[0].args));

function aptInstalled(stage) {
  return stage.filter((s) => s.keyword === "RUN" && /apt-get install/.test(s.args))
    .flatMap((s) => s.args.split(/apt-get install/)[1].split("&&")[0].split(" "))
    .filter((w) => w && !w.startsWith("-"));
}

test("multi-stage from Debian bookworm: a build stage and a final stage", () => {
  assert.ok(stages.length >= 2, "not multi-stage");
  const buildStage = stageNamed("build");
  assert.ok(buildStage, "no stage named build");
  assert.match(buildStage[0].args, /^debian:bookworm\b.* AS build$/i);
  assert.match(final[0].args, /^debian:bookworm(-slim)?$/);
  const build = buildStage.filter((s) => s.keyword === "RUN").map((s) => s.args).join(" ");
  assert.match(build, /cmake --preset release/);
  assert.match(build, /--target [^&]*\bray-task-history\b/, "the image builds no ray-task-history");
  for (const binary of ["ray-event-aggregator", "ray-task-history"]) {
    assert.ok(final.some((s) => s.keyword === "COPY" && /--from=build/.test(s.args) &&
      s.args.includes(`build/release/${binary} `)), `the final stage copies no ${binary}`);
  }
});

// The "builds on Node >= 18 (the image's build stage)": Debian's
// nodejs (18 in bookworm), npm ci from the lock file, the bundle only (eslint
// 10 needs Node 20, so no lint there), copied into build/ui before cmake.
test("the page is bundled with Debian's Node before the C++ build embeds it", () => {
  const ui = stageNamed("ui");
  assert.ok(ui, "no stage named ui");
  assert.match(ui[0].args, /^debian:bookworm\b/i);
  assert.ok(stages.indexOf(ui) < stages.indexOf(stageNamed("build")), "ui must come before build");
  assert.ok(aptInstalled(ui).includes("nodejs"), "the ui stage installs no nodejs");
  const runs = ui.filter((s) => s.keyword === "RUN").map((s) => s.args);
  assert.ok(runs.some((r) => /\bnpm ci\b/.test(r)), "no npm ci in the ui stage");
  assert.ok(runs.some((r) => /\bnpm run build\b/.test(r)), "no npm run build in the ui stage");
  assert.ok(!runs.some((r) => /eslint|npm run (check|lint)/.test(r)), "the ui stage lints (Node 18)");
  const copyLock = ui.findIndex((s) => s.keyword === "COPY" && /package-lock\.json/.test(s.args));
  const npmCi = ui.findIndex((s) => s.keyword === "RUN" && /\bnpm ci\b/.test(s.args));
  assert.ok(copyLock >= 0 && copyLock < npmCi, "copy the lock file before npm ci");
  const build = stageNamed("build");
  const copyUi = build.findIndex((s) => s.keyword === "COPY" && /--from=ui\b.*\bbuild\/ui$/.test(s.args));
  const cmake = build.findIndex((s) => s.keyword === "RUN" && /cmake --preset/.test(s.args));
  assert.ok(copyUi >= 0, "the build stage copies no bundle from the ui stage into build/ui");
  assert.ok(copyUi < cmake, "the bundle must be in build/ui before cmake runs");
});

test("the final stage has runtime libraries only", () => {
  const packages = aptInstalled(final);
  assert.ok(packages.length > 0, "the final stage installs nothing");
  for (const p of packages) {
    assert.ok(!/-dev$|^g\+\+|^gcc|^cmake|^ninja|^curl$|^wget$/.test(p), `${p} in the final image`);
  }
});

test("the final image runs as a non-root user", () => {
  const user = final.filter((s) => s.keyword === "USER").at(-1);
  assert.ok(user, "no USER in the final stage");
  const name = user.args.split(":")[0];
  assert.ok(name !== "root" && name !== "0", `USER ${user.args}`);
});

test("HEALTHCHECK runs `ray-event-aggregator probe` on the image config's ops port", () => {
  const check = final.find((s) => s.keyword === "HEALTHCHECK");
  assert.ok(check, "no HEALTHCHECK");
  const command = JSON.parse(check.args.slice(check.args.indexOf("CMD") + 3).trim());
  assert.match(command[0], /\/ray-event-aggregator$/);
  assert.equal(command[1], "probe");
  const copy = final.find((s) => s.keyword === "COPY" && /\/etc\/ray-event-aggregator\/config\.yaml$/.test(s.args));
  assert.ok(copy, "the final stage copies no config to /etc/ray-event-aggregator/config.yaml");
  const config = parseYaml(readText(copy.args.split(" ")[0]));
  assert.equal(config.ops?.enabled, true, "ops is off in the image config: nothing to probe");
  const port = config.ops.port ?? DEFAULTS.opsPort;
  assert.equal(command[2], `http://127.0.0.1:${port}/healthz`);
  const entrypoint = JSON.parse(final.find((s) => s.keyword === "ENTRYPOINT").args);
  assert.equal(entrypoint[0], command[0], "HEALTHCHECK and ENTRYPOINT run different binaries");
});

// Which Debian package owns each file, in one dpkg-query call. dpkg records
// either a library's symlink or its target, so both spellings are asked.
function owners(paths) {
  const candidates = [...new Set(paths.flatMap((p) => [p, realpathSync(p)]))];
  let output = "";
  try {
    output = execFileSync("dpkg-query", ["-S", ...candidates],
      { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  } catch (error) {
    output = error.stdout ?? "";  // exit 1 when some spelling is unknown
  }
  const byPath = new Map();
  for (const line of output.split("\n")) {
    const match = /^([^:,\s]+)(?::\S+)?: (\/\S+)$/.exec(line.trim());
    if (match) byPath.set(match[2], match[1]);
  }
  return paths.map((p) => {
    const owner = byPath.get(p) ?? byPath.get(realpathSync(p));
    if (!owner) throw new Error(`no Debian package owns ${p}`);
    return owner;
  });
}

// Every package the given ones pull in (first alternative of each
// dependency), from the installed packages' metadata.
function dependencyClosure(packages) {
  const depends = new Map();
  const table = execFileSync("dpkg-query", ["-W", "-f=${Package}\t${Depends},${Pre-Depends}\n"],
    { encoding: "utf8" });
  for (const line of table.split("\n")) {
    const [name, list] = line.split("\t");
    if (!name) continue;
    depends.set(name, (list ?? "").split(",")
      .map((alternative) => alternative.split("|")[0].trim().split(/[\s:]/)[0])
      .filter(Boolean));
  }
  const seen = new Set();
  const queue = [...packages];
  while (queue.length > 0) {
    const name = queue.pop();
    if (seen.has(name)) continue;
    seen.add(name);
    queue.push(...(depends.get(name) ?? []));
  }
  return seen;
}

// The daemon (scripts/lint-deploy builds it, or --binary) and ray-task-history
// beside it (its directory is the same build's).
const daemonBinary = process.env.RAYAGG_BINARY ?? repoPath("build/release/ray-event-aggregator");
const historyBinary = process.env.RAYAGG_HISTORY_BINARY ??
  join(dirname(daemonBinary), "ray-task-history");
for (const binary of [daemonBinary, historyBinary]) {
  test(`the final stage installs every shared library ${basename(binary)} links`, () => {
    assert.ok(existsSync(binary), `${binary} not built (scripts/lint-deploy builds it)`);
    const libraries = execFileSync("ldd", [binary], { encoding: "utf8" }).split("\n")
      .map((l) => /=>\s*(\/\S+)/.exec(l)?.[1]).filter(Boolean);
    assert.ok(libraries.length > 5, "ldd found almost nothing");
    // In every debian:bookworm-slim image already (apt itself needs them).
    const base = ["libc6", "libgcc-s1", "libstdc++6"];
    const provided = dependencyClosure([...aptInstalled(final), ...base]);
    const missing = [...new Set(owners(libraries))].filter((p) => !provided.has(p));
    assert.deepEqual(missing, [], `add to the final stage of docker/Dockerfile: ${missing}`);
  });
}

test("the build stage installs what the build needs (scripts/lib/common.sh)", () => {
  const common = readText("scripts/lib/common.sh");
  const list = /RAYAGG_PACKAGES=\(([^)]*)\)/.exec(common)[1].replace(/#.*$/gm, "");
  // Only the benchmarks (found QUIET) and the compiler cache are optional.
  const optional = new Set(["ccache", "libbenchmark-dev"]);
  const needed = list.split(/\s+/).filter((p) => p && !optional.has(p));
  const installed = new Set(aptInstalled(stageNamed("build")));
  const missing = needed.filter((p) => !installed.has(p));
  assert.deepEqual(missing, [], "add to the build stage of docker/Dockerfile");
});
