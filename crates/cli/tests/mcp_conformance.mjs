// The official MCP conformance suite (@modelcontextprotocol/conformance)
// against `index serve`, every server scenario of the active suite, with
// `mcp_conformance_expected.yaml` listing (and saying why) the scenarios
// that exercise features this host does not offer.
//
// The suite sends no credentials, and every request to this host needs
// an API key; a small proxy in front of the host adds the key to each
// request and passes everything else through untouched (the Host and
// Origin headers included, which the DNS-rebinding scenario is about).
//
// usage: node mcp_conformance.mjs --index BIN --dir DIR --suite PATH/TO/conformance/bin --node PATH/TO/node22

import { execFileSync, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { arg, serve } from "./support/host.mjs";

const index = arg("index");
const dir = arg("dir");
const suite = arg("suite");
const node = arg("node");
const db = join(dir, "conformance.db");
const expected = join(dirname(fileURLToPath(import.meta.url)), "mcp_conformance_expected.yaml");

const keyFile = join(dir, "agent.key");
execFileSync(index, ["keys", "create", "--user", "conformance", "--output", keyFile, "--db", db], {
  stdio: ["ignore", "ignore", "inherit"],
});
const key = readFileSync(keyFile, "utf8").trim();

const { child: host, base: upstream } = await serve(index, db);

const proxy = http.createServer((request, response) => {
  const forwarded = http.request(
    {
      host: upstream.hostname,
      port: upstream.port,
      method: request.method,
      path: request.url,
      headers: { ...request.headers, authorization: `Bearer ${key}` },
    },
    (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    },
  );
  forwarded.on("error", () => response.destroy());
  request.pipe(forwarded);
});
await new Promise((resolve) => proxy.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${proxy.address().port}/mcp`;

const run = spawn(node, [suite, "server", "--url", url, "--expected-failures", expected, "--output-dir", join(dir, "results")], {
  stdio: ["ignore", "inherit", "inherit"],
});
const code = await new Promise((resolve) => run.once("exit", resolve));
proxy.close();
host.kill("SIGTERM");
console.log(code === 0 ? "conformance done" : `conformance failed: ${code}`);
process.exit(code ?? 1);
