// An MCP client that knows nothing but the host's URL connects over OAuth,
// with the official TypeScript SDK's OAuth client (`client/auth`, through
// an `OAuthClientProvider`) and dana's approval in Chromium: the SDK finds
// the authorization server from the 401, identifies itself by a Client ID
// Metadata Document (first run) or registers (second run), sends dana's
// browser to the consent page, where she signs in with a login link
// (first run; her session holds for the second) and approves; the SDK
// exchanges the code, lists the tools and takes a turn as dana's agent.
// Its access token expired, it refreshes; its grant revoked with `index
// keys revoke` (first run) or disconnected in dana's inbox (second run),
// it is refused at once.
//
// usage: node mcp_ts_oauth.mjs --index BIN --dir DIR --sdk PATH/TO/@modelcontextprotocol/sdk
//          --puppeteer PATH/TO/puppeteer-core

import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

import { arg, serve } from "./support/host.mjs";

const index = arg("index");
const dir = arg("dir");
const db = join(dir, "oauth.db");
const load = (path) => import(pathToFileURL(join(arg("sdk"), "dist/esm", path)).href);
const { Client } = await load("client/index.js");
const { StreamableHTTPClientTransport } = await load("client/streamableHttp.js");
const { UnauthorizedError } = await load("client/auth.js");
const puppeteer = (await import(pathToFileURL(join(arg("puppeteer"), "lib/puppeteer/puppeteer-core.js")).href)).default;

function ok(condition, what) {
  if (!condition) throw new Error(`not ok: ${what}`);
  console.log(`ok: ${what}`);
}

const cli = (...args) =>
  execFileSync(index, [...args, "--db", db], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim();

const OPP = "4f7b2c1d-8e9a-4b3c-a2d1-5e6f7a8b9c0d";
/** A throwaway certificate authority, and a certificate of it for
 * 127.0.0.1: the SDK takes a metadata document's URL over https only, so
 * the client serves it so, and the host trusts this authority
 * (SSL_CERT_FILE, as an operator's own authority would be). */
function certificates() {
  const at = (name) => join(dir, name);
  const openssl = (...args) => execFileSync("openssl", args, { stdio: "ignore" });
  openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=test client CA", "-keyout", at("ca.key"), "-out", at("ca.crt"));
  openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", at("client.key"), "-out", at("client.csr"));
  writeFileSync(at("san.ext"), "subjectAltName = IP:127.0.0.1\n");
  openssl("x509", "-req", "-in", at("client.csr"), "-CA", at("ca.crt"), "-CAkey", at("ca.key"), "-CAcreateserial", "-days", "1", "-extfile", at("san.ext"), "-out", at("client.crt"));
  return { ca: at("ca.crt"), key: readFileSync(at("client.key")), cert: readFileSync(at("client.crt")) };
}
const tls = certificates();

const hostKey = cli("keys", "create", "--user", "host", "--host");
// Access tokens that expire while the test looks on.
const LIFETIME = 2;
const { child: host, base } = await serve(index, db, { SSL_CERT_FILE: tls.ca }, ["--oauth-allow-local-clients", "--oauth-access-lifetime", `${LIFETIME}`]);
const loginLink = cli("keys", "login-link", "--user", "dana", "--base", base);
const mcp = new URL("/mcp", base);

// The client's own servers: its metadata document, over https, and its
// callback on loopback.
const codes = [];
const documents = https.createServer({ key: tls.key, cert: tls.cert }, (request, response) => {
  response.writeHead(200, { "content-type": "application/json" });
  response.end(JSON.stringify({ ...metadata(), client_id: documentUrl }));
});
const client = http.createServer((request, response) => {
  const url = new URL(request.url, "http://127.0.0.1");
  // (The browser asks for a favicon too.)
  if (url.pathname === "/callback") codes.push(url.searchParams.get("code"));
  response.writeHead(200, { "content-type": "text/plain" });
  response.end("You may close this page.");
});
await new Promise((resolve) => documents.listen(0, "127.0.0.1", resolve));
await new Promise((resolve) => client.listen(0, "127.0.0.1", resolve));
const documentUrl = `https://127.0.0.1:${documents.address().port}/client.json`;
const callback = `http://127.0.0.1:${client.address().port}`;

function metadata() {
  return {
    client_name: "Dana's test agent",
    redirect_uris: [`${callback}/callback`],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  };
}

const browser = await puppeteer.launch({
  executablePath: "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});

/** An OAuth client's memory, as the SDK asks a provider to keep it; its
 * authorization URL opened in Chromium, where dana signs in and approves. */
class Provider {
  constructor(documented) {
    this.documented = documented;
    this.saved = {};
    this.authorizations = 0;
  }
  get redirectUrl() {
    return `${callback}/callback`;
  }
  get clientMetadataUrl() {
    return this.documented ? documentUrl : undefined;
  }
  get clientMetadata() {
    return metadata();
  }
  clientInformation() {
    return this.saved.client;
  }
  saveClientInformation(information) {
    this.saved.client = information;
  }
  tokens() {
    return this.saved.tokens;
  }
  saveTokens(tokens) {
    this.saved.tokens = tokens;
  }
  saveCodeVerifier(verifier) {
    this.saved.verifier = verifier;
  }
  codeVerifier() {
    return this.saved.verifier;
  }
  async redirectToAuthorization(url) {
    this.authorizations += 1;
    const page = await browser.newPage();
    try {
      await page.goto(url.href);
      // Not signed in yet: the login link she was sent, pasted once.
      await page.waitForSelector("#sign-in:not([hidden]), #consent:not([hidden])");
      const signingIn = (await page.$("#sign-in:not([hidden])")) !== null;
      ok(signingIn === (this.authorizations === 1 && this.documented), `dana signs in ${signingIn ? "with her login link" : "no more: her session holds"}`);
      if (signingIn) {
        await page.type("#key", loginLink);
        await page.click("#sign-in button");
      }
      await page.waitForSelector("#consent:not([hidden])");
      const shown = await page.$eval("#client", (node) => node.textContent);
      ok(shown === "Dana's test agent", "the consent page names the client");
      const before = codes.length;
      await page.click("#approve");
      await page.waitForFunction(() => document.location.pathname === "/callback");
      ok(codes.length === before + 1, "dana approves, and her browser brings the code back");
    } finally {
      await page.close();
    }
  }
}

/** Connects a client of `provider` to the host the way a client that
 * knows only the URL does: refused first, authorized, then connected. */
async function connect(provider) {
  const transport = new StreamableHTTPClientTransport(mcp, { authProvider: provider });
  const agent = new Client({ name: "oauth agent", version: "1.0.0" });
  try {
    await agent.connect(transport);
    return agent;
  } catch (error) {
    if (!(error instanceof UnauthorizedError)) throw error;
  }
  await transport.finishAuth(codes.at(-1));
  const again = new Client({ name: "oauth agent", version: "1.0.0" });
  await again.connect(new StreamableHTTPClientTransport(mcp, { authProvider: provider }));
  return again;
}

const rest = async (method, path, key, body) => {
  const response = await fetch(new URL(path, base), {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body && JSON.stringify(body),
  });
  return response.status;
};

try {
  const opened = await rest("POST", "/negotiations", hostKey, {
    opportunityId: OPP,
    initiator: { userId: "dana", intentId: "dana-intent" },
    responder: { userId: "sam", intentId: "sam-intent" },
  });
  ok(opened === 201, "a negotiation between dana and sam is open");

  for (const [documented, how] of [[true, "a metadata document"], [false, "registration"]]) {
    const provider = new Provider(documented);
    const agent = await connect(provider);
    ok(provider.authorizations === 1, `the SDK found the authorization server from the URL alone (${how})`);
    const tools = (await agent.listTools()).tools.map((tool) => tool.name);
    ok(tools.includes("submit_negotiation_turn") && !tools.includes("open_negotiation"), "it is offered an agent's tools");
    if (documented) {
      const turn = await agent.callTool({
        name: "submit_negotiation_turn",
        arguments: { opportunityId: OPP, action: "propose", message: "Three days a week, over OAuth." },
      });
      ok(!turn.isError, "it takes a turn as dana's agent");
    }
    // Its access token expired (keys end on whole seconds), it refreshes.
    const refreshing = provider.saved.tokens.refresh_token;
    const expired = provider.saved.tokens.access_token;
    ok(provider.saved.tokens.expires_in === LIFETIME, "the access token says when it expires");
    await new Promise((resolve) => setTimeout(resolve, (LIFETIME + 1.2) * 1000));
    ok((await rest("GET", "/negotiations", expired)) === 401, "the expired access token is refused");
    const viewed = await agent.callTool({ name: "list_negotiations", arguments: {} });
    ok(!viewed.isError && provider.saved.tokens.refresh_token !== refreshing, "a refused access token is refreshed, and the refresh token rotates");
    ok(provider.authorizations === 1, "without asking dana again");
    await agent.close();

    const listed = JSON.parse(cli("--json", "keys", "list"));
    const grantKey = listed.find((key) => key.kind === "oauth" && key.state === "active");
    ok(grantKey && grantKey.name === "Dana's test agent", "index keys list shows the grant's token, named for its client");
    if (documented) {
      // Revoked with `index keys revoke`: refused at once, refresh included.
      cli("keys", "revoke", grantKey.id);
    } else {
      // Disconnected in dana's inbox, where she sees it listed.
      const page = await browser.newPage();
      try {
        await page.goto(new URL("/inbox", base).href);
        await page.waitForSelector("li.connection button");
        const shown = await page.$$eval("li.connection strong", (nodes) => nodes.map((node) => node.textContent));
        ok(shown.length === 1 && shown[0] === "Dana's test agent", "dana's inbox lists the connected client");
        await page.click("li.connection button");
        await page.waitForSelector("#no-connections:not([hidden])");
        ok(true, "dana disconnects it in her inbox");
      } finally {
        await page.close();
      }
    }
    const refused = await fetch(new URL("/negotiations", base), {
      headers: { authorization: `Bearer ${provider.saved.tokens.access_token}` },
    });
    ok(refused.status === 401, `after ${documented ? "index keys revoke" : "the inbox's disconnect"}, the token is refused at once`);
    const token = await fetch(new URL("/oauth/token", base), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: provider.saved.tokens.refresh_token,
        client_id: provider.saved.client?.client_id ?? documentUrl,
      }),
    });
    ok(token.status === 400, "and so is its refresh token");
  }
  console.log("typescript oauth done");
} finally {
  await browser.close();
  client.close();
  documents.close();
  host.kill("SIGTERM");
}
