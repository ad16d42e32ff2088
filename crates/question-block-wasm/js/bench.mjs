// `cargo xtask wasm --bench`: the package against the reference's
// JavaScript in Node 20 and in headless Chromium, printing a ratio table
// for each engine.
//
// INDEX_WASM_PKG is the built package; INDEX_REFERENCE_QUESTION_BLOCK the
// reference's `question-block.schema.js` (from its npm package, with zod
// installed where it resolves it). Without the reference, the package is
// timed against itself, which checks that the benchmark runs but measures
// nothing, and says so. INDEX_BENCH_BUDGET_MS is how long each case runs
// (300 ms by default); INDEX_BENCH_NODE_ONLY skips Chromium.
import { createServer } from "node:http";
import { readFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, extname, resolve } from "node:path";
import { spawn } from "node:child_process";
import { pathToFileURL, fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { run, table } from "./bench-core.mjs";

const pkg = process.env.INDEX_WASM_PKG;
const referencePath = process.env.INDEX_REFERENCE_QUESTION_BLOCK;
const budgetMs = Number(process.env.INDEX_BENCH_BUDGET_MS ?? 300);
if (!pkg) throw new Error("INDEX_WASM_PKG must name the built package");

const ours = await import(pathToFileURL(join(pkg, "index.js")).href);
const fixture = await import(pathToFileURL(join(pkg, "fixture.js")).href);
const reference = referencePath ? await import(pathToFileURL(resolve(referencePath)).href) : ours;
if (!referencePath) {
  console.log("INDEX_REFERENCE_QUESTION_BLOCK is not set: the package is timed against itself, and the ratios mean nothing");
}

function agree(name, mine, theirs) {
  if (!isDeepStrictEqual(mine, theirs)) {
    throw new Error(`${name}: the package and the reference disagree`);
  }
}

const options = {
  message: fixture.questionMessageFixture,
  prose: fixture.questionProseFixture,
  block: fixture.questionBlockFixture,
  budgetMs,
  agree,
};
console.log(table(`Node ${process.versions.node}`, run(ours, reference, options)));

if (process.env.INDEX_BENCH_NODE_ONLY) process.exit(0);

// Chromium: a page served from a local port imports the same benchmark, the
// package and the reference (zod through an import map) and posts its rows
// back.
const here = dirname(fileURLToPath(import.meta.url));
const referenceDir = referencePath ? dirname(resolve(referencePath)) : null;
const zod = referenceDir ? await findZod(referenceDir) : null;
const types = { ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".html": "text/html" };
const page = `<!doctype html><meta charset="utf-8"><title>bench</title>
<script type="importmap">${JSON.stringify({ imports: zod ? { zod: `/reference/${zod}` } : {} })}</script>
<script type="module">
import { run } from "/bench/bench-core.mjs";
import * as ours from "/pkg/index.js";
import * as fixture from "/pkg/fixture.js";
const reference = ${referencePath ? `await import("/reference/${referencePath.split("/").pop()}")` : "ours"};
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
let rows, error;
try {
  rows = run(ours, reference, {
    message: fixture.questionMessageFixture, prose: fixture.questionProseFixture, block: fixture.questionBlockFixture,
    budgetMs: ${budgetMs},
    agree(name, a, b) { if (!same(a, b)) throw new Error(name + ": the package and the reference disagree"); },
  });
} catch (e) { error = String(e); }
await fetch("/rows", { method: "POST", body: JSON.stringify({ rows, error, agent: navigator.userAgent, isolated: crossOriginIsolated }) });
</script>`;

// zod's ES module entry, relative to the reference's directory.
async function findZod(dir) {
  for (let at = dir; ; at = dirname(at)) {
    try {
      const manifest = JSON.parse(await readFile(join(at, "node_modules/zod/package.json"), "utf8"));
      const entry = manifest.exports?.["."]?.import?.default ?? manifest.exports?.["."]?.import ?? manifest.module;
      const relative = join(at, "node_modules/zod", entry).slice(dir.length + 1);
      return relative;
    } catch {
      if (dirname(at) === at) return null;
    }
  }
}

const roots = { "/pkg/": pkg, "/bench/": here, "/reference/": referenceDir };
let browser;
const profile = await mkdtemp(join(tmpdir(), "index-bench-chromium-"));
const result = new Promise((resolveRows, reject) => {
  const server = createServer(async (req, res) => {
    const path = new URL(req.url, "http://localhost").pathname;
    // Cross-origin isolated, so that the page's clock is not coarsened.
    res.setHeader("cross-origin-opener-policy", "same-origin");
    res.setHeader("cross-origin-embedder-policy", "require-corp");
    if (path === "/") return res.writeHead(200, { "content-type": "text/html" }).end(page);
    if (path === "/rows" && req.method === "POST") {
      let body = "";
      for await (const chunk of req) body += chunk;
      res.writeHead(204).end();
      return resolveRows({ server, posted: JSON.parse(body) });
    }
    const root = Object.keys(roots).find((prefix) => path.startsWith(prefix) && roots[prefix]);
    try {
      if (!root || path.includes("..")) throw new Error("outside");
      const file = await readFile(join(roots[root], path.slice(root.length)));
      res.writeHead(200, { "content-type": types[extname(path)] ?? "application/octet-stream" }).end(file);
    } catch {
      res.writeHead(404).end();
    }
  });
  server.on("error", reject);
  server.listen(0, "127.0.0.1", () => {
    chromium(`http://127.0.0.1:${server.address().port}/`).catch(reject);
  });
});

async function chromium(url) {
  browser = spawn("/usr/bin/chromium", [
    "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", `--user-data-dir=${profile}`, url,
  ], { stdio: "ignore" });
  await new Promise((_, reject) => browser.on("exit", (code) => reject(new Error(`chromium exited (${code}) before posting its rows`))));
}
try {
  const { server, posted } = await result;
  server.close();
  if (posted.error) throw new Error(`in Chromium: ${posted.error}`);
  if (!posted.isolated) throw new Error("the page was not cross-origin isolated, so its clock is too coarse to time by");
  const version = posted.agent.match(/Chrome\/([\d.]+)/)?.[1] ?? "?";
  console.log(`\n${table(`Chromium ${version}`, posted.rows)}`);
} finally {
  if (browser && browser.exitCode === null) {
    const exited = new Promise((done) => browser.once("exit", done));
    browser.kill();
    await exited;
  }
  await rm(profile, { recursive: true, force: true, maxRetries: 5 });
}
