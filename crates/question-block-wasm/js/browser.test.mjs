// The WebAssembly package in a real browser: headless Chromium loads a page
// from localhost that imports the module, parses the canonical fixture and
// renders its questions as a list; the test reads the rendered DOM.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { readFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, extname } from "node:path";
import { execFile } from "node:child_process";

const pkg = process.env.INDEX_WASM_PKG;
const page = `<!doctype html>
<html><head><meta charset="utf-8"><title>questions</title></head>
<body>
<ul id="questions" data-status="loading"></ul>
<script type="module">
import { parseQuestionMessage } from "./index.js";
import { questionMessageFixture } from "./fixture.js";
const list = document.getElementById("questions");
const parsed = parseQuestionMessage(questionMessageFixture);
for (const question of parsed.block.questions) {
  const item = document.createElement("li");
  item.dataset.opportunityId = question.opportunityId;
  item.textContent = question.prompt;
  list.append(item);
}
list.dataset.status = "ready";
</script>
</body></html>`;
const types = { ".js": "text/javascript", ".wasm": "application/wasm", ".html": "text/html" };

test("Chromium renders the parsed questions", async () => {
  const server = createServer(async (req, res) => {
    const path = new URL(req.url, "http://localhost").pathname;
    if (path === "/" || path === "/page.html") {
      res.writeHead(200, { "content-type": "text/html" }).end(page);
      return;
    }
    try {
      const body = await readFile(join(pkg, path.replace(/^\/+/, "")));
      res.writeHead(200, { "content-type": types[extname(path)] ?? "application/octet-stream" }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${server.address().port}/page.html`;
  const profile = await mkdtemp(join(tmpdir(), "index-chromium-"));
  try {
    const dom = await new Promise((resolve, reject) => {
      execFile(
        "/usr/bin/chromium",
        ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
          "--disable-component-update", "--disable-sync", `--user-data-dir=${profile}`, "--virtual-time-budget=10000", "--dump-dom", url],
        { timeout: 60000 },
        (err, stdout) => (err ? reject(err) : resolve(stdout)),
      );
    });
    assert.match(dom, /<ul id="questions" data-status="ready">/);
    const items = [...dom.matchAll(/<li data-opportunity-id="([^"]+)">([^<]+)<\/li>/g)].map((m) => [m[1], m[2]]);
    const fixture = await import(new URL(`file://${join(pkg, "fixture.js")}`).href);
    assert.deepEqual(items, fixture.questionBlockFixture.questions.map((q) => [q.opportunityId, q.prompt]));
  } finally {
    server.close();
    await rm(profile, { recursive: true, force: true });
  }
});
