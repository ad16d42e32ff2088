// The official MCP conformance suite's authorization-server scenarios
// (`authorization-server-metadata-endpoint`, `authorization-code-grant`)
// against `index serve`'s own authorization server. The code grant needs a
// person: the suite prints the authorization URL and waits for its
// callback, and dana, in Chromium, signs in on the consent page and
// approves, as she would.
//
// usage: node mcp_conformance_authorization.mjs --index BIN --dir DIR
//          --suite PATH/TO/conformance/dist/index.js --node PATH/TO/node22
//          --puppeteer PATH/TO/puppeteer-core

import { execFileSync, spawn } from "node:child_process";
import net from "node:net";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

import { arg, serve } from "./support/host.mjs";

const index = arg("index");
const dir = arg("dir");
const db = join(dir, "authorization.db");
const puppeteer = (await import(pathToFileURL(join(arg("puppeteer"), "lib/puppeteer/puppeteer-core.js")).href)).default;

const cli = (...args) =>
  execFileSync(index, [...args, "--db", db], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim();
const danaKey = cli("keys", "create", "--user", "dana");
const { child: host, base } = await serve(index, db);
const issuer = base.href.replace(/\/$/, "");

// A free port for the suite's callback server.
const port = await new Promise((resolve) => {
  const probe = net.createServer().listen(0, "127.0.0.1", () => {
    const { port } = probe.address();
    probe.close(() => resolve(port));
  });
});

// The suite's client, registered as any client may register.
const registered = await fetch(`${issuer}/oauth/register`, {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({
    client_name: "MCP conformance suite",
    redirect_uris: [`http://127.0.0.1:${port}/callback`],
    token_endpoint_auth_method: "none",
  }),
}).then((response) => response.json());

const browser = await puppeteer.launch({
  executablePath: "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});

/** dana approves the request at `url` in a page of her own. */
async function approve(url) {
  const page = await browser.newPage();
  await page.goto(url);
  await page.waitForSelector("#sign-in:not([hidden]), #consent:not([hidden])");
  if (await page.$("#sign-in:not([hidden])")) {
    await page.type("#key", danaKey);
    await page.click("#sign-in button");
  }
  await page.waitForSelector("#consent:not([hidden])");
  await page.click("#approve");
  await page.waitForFunction(() => document.location.pathname === "/callback");
  await page.close();
}

const run = spawn(
  arg("node"),
  [
    arg("suite"),
    "authorization",
    "--url", issuer,
    "--client-id", registered.client_id,
    "--resource", `${issuer}/mcp`,
    "--port", String(port),
    "--output-dir", join(dir, "results"),
  ],
  { stdio: ["ignore", "pipe", "inherit"] },
);
const approvals = [];
createInterface({ input: run.stdout }).on("line", (line) => {
  console.log(line);
  if (line.startsWith(`${issuer}/oauth/authorize?`)) approvals.push(approve(line));
});
const code = await new Promise((resolve) => run.once("exit", resolve));
await Promise.all(approvals);
await browser.close();
host.kill("SIGTERM");
console.log(code === 0 && approvals.length === 1 ? "authorization conformance done" : `authorization conformance failed: ${code}`);
process.exit(code ?? 1);
