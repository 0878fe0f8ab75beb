// docker/Dockerfile beyond what dockerfilelint checks: the stages, a non-root
// user, a HEALTHCHECK through the daemon's own probe on the configured ops
// port, no build tools in the final image, and — against the built binary —
// that the final stage installs every shared library the daemon links.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
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

function aptInstalled(stage) {
  return stage.filter((s) => s.keyword === "RUN" && /apt-get install/.test(s.args))
    .flatMap((s) => s.args.split(/apt-get install/)[1].split("&&")[0].split(" "))
    .filter((w) => w && !w.startsWith("-"));
}

test("multi-stage from Debian bookworm: a build stage and a final stage", () => {
  assert.ok(stages.length >= 2, "not multi-stage");
  assert.match(stages[0][0].args, /^debian:bookworm\b.* AS build$/i);
  assert.match(final[0].args, /^debian:bookworm(-slim)?$/);
  const build = stages[0].filter((s) => s.keyword === "RUN").map((s) => s.args).join(" ");
  assert.match(build, /cmake --preset release/);
  assert.ok(final.some((s) => s.keyword === "COPY" && /--from=build/.test(s.args)));
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

test("the final stage installs every shared library the daemon links", () => {
  const binary = process.env.RAYAGG_BINARY ?? repoPath("build/release/ray-event-aggregator");
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

test("the build stage installs what the build needs (scripts/lib/common.sh)", () => {
  const common = readText("scripts/lib/common.sh");
  const list = /RAYAGG_PACKAGES=\(([^)]*)\)/.exec(common)[1].replace(/#.*$/gm, "");
  // Only the benchmarks (found QUIET) and the compiler cache are optional.
  const optional = new Set(["ccache", "libbenchmark-dev"]);
  const needed = list.split(/\s+/).filter((p) => p && !optional.has(p));
  const installed = new Set(aptInstalled(stages[0]));
  const missing = needed.filter((p) => !installed.has(p));
  assert.deepEqual(missing, [], "add to the build stage of docker/Dockerfile");
});
