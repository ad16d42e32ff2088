// `index serve` driven by the official TypeScript MCP SDK, with the SDK's
// own defaults (its 60-second request timeout included):
//
// - over streamable HTTP, a host key opens two negotiations with
//   `open_negotiation`; every tool lists an output schema, and every result
//   the SDK takes is checked against it by the SDK itself;
// - two seats negotiate to agreement over HTTP, and two more over stdio;
// - a wait at the maximum answers inside the SDK's default timeout, and a
//   longer one than a short timeout survives on progress notifications;
// - a stranger's call is `not_found`, and a bad key is refused before any
//   session starts;
// - a subscription to a negotiation is woken by the other seat's turn, and
//   a parked question reaches a client that shows forms as one, whose
//   answer resumes the negotiation (this SDK speaks the older protocols,
//   so the form is pushed; `input_required` is the Python SDK test's).
//
// usage: node mcp_ts.mjs --index BIN --dir DIR --sdk PATH/TO/@modelcontextprotocol/sdk --model-base URL

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { isDeepStrictEqual } from "node:util";

import { arg, serve } from "./support/host.mjs";

const index = arg("index");
const dir = arg("dir");
const sdk = arg("sdk");
const load = (path) => import(pathToFileURL(join(sdk, "dist/esm", path)).href);
const { Client } = await load("client/index.js");
const { StreamableHTTPClientTransport } = await load("client/streamableHttp.js");
const { StdioClientTransport } = await load("client/stdio.js");
const { ElicitRequestSchema, LATEST_PROTOCOL_VERSION, ResourceUpdatedNotificationSchema } = await load("types.js");

const db = join(dir, "ts.db");
const HTTP_OPP = "3f6b8d2a-4c1e-4a7b-9d0f-1e2a3b4c5d6e";
const STDIO_OPP = "8e7d6c5b-4a39-4281-b7c6-d5e4f3a2b1c0";
const PARK_OPP = "c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f";

function ok(condition, what) {
  if (!condition) throw new Error(`not ok: ${what}`);
  console.log(`ok: ${what}`);
}

function key(user, host) {
  const file = join(dir, `${user}.key`);
  const args = ["keys", "create", "--user", user, "--output", file, "--db", db];
  if (host) args.push("--host");
  execFileSync(index, args, { stdio: ["ignore", "ignore", "inherit"] });
  return { file, secret: readFileSync(file, "utf8").trim() };
}

async function overHttp(url, secret, name, options) {
  const client = new Client({ name, version: "1.0.0" }, options);
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { Authorization: `Bearer ${secret}` } },
  });
  await client.connect(transport);
  // As every agent does first: from here on the SDK checks each result's
  // structured content against its tool's output schema.
  await client.listTools();
  return client;
}

async function overStdio(keyFile, name) {
  const client = new Client({ name, version: "1.0.0" });
  const transport = new StdioClientTransport({
    command: index,
    args: ["serve", "--mcp-stdio", "--key-file", keyFile, "--db", db],
    env: { ...process.env, RUST_LOG: "warn" },
    stderr: "inherit",
  });
  await client.connect(transport);
  await client.listTools();
  return client;
}

/** One tool call that must succeed; its structured content. */
async function call(client, name, args, options) {
  const result = await client.callTool({ name, arguments: args }, undefined, options);
  if (result.isError) throw new Error(`${name}: ${result.content?.[0]?.text}`);
  const text = JSON.parse(result.content[0].text);
  if (!isDeepStrictEqual(text, result.structuredContent)) {
    throw new Error(`${name}: the text block is not the structured content`);
  }
  return result.structuredContent;
}

/** Dana proposes, sam accepts: agreement. */
async function negotiate(dana, sam, opp, how) {
  await call(dana, "submit_negotiation_turn", { opportunityId: opp, action: "propose", message: "Intro call on Monday?" });
  const seen = await call(sam, "get_negotiation", { opportunityId: opp, wait: 5 });
  ok(seen.negotiation.awaitingUserId === "sam" && seen.observation.availableActions.includes("accept"), `${how}: sam sees it is their turn`);
  const taken = await call(sam, "submit_negotiation_turn", { opportunityId: opp, action: "accept", message: "Monday it is." });
  ok(taken.negotiation.negotiation.outcome === "agreed" && taken.decision.turnIndex === 1, `${how}: the seats agree`);
}

const hostKey = key("host", true);
const danaKey = key("dana", false);
const samKey = key("sam", false);
const mallory = key("mallory", false);
const host = await serve(index, db, {
  INDEX_MODEL_BASE_URL: arg("model-base"),
  INDEX_MODEL: "gpt-4o",
  INDEX_MODEL_API_KEY: "sk-ts-secret",
});
const url = new URL("/mcp", host.base);
try {
  const admin = await overHttp(url, hostKey.secret, "host");
  ok(admin.getServerVersion()?.name === "index-host", `a host key connects over HTTP (the SDK speaks up to ${LATEST_PROTOCOL_VERSION})`);
  const { tools } = await admin.listTools();
  ok(tools.length === 17 && tools.every((tool) => tool.outputSchema?.type === "object"), "seventeen tools, each with an output schema");
  for (const opp of [HTTP_OPP, STDIO_OPP, PARK_OPP]) {
    const opened = await call(admin, "open_negotiation", {
      opportunityId: opp,
      initiator: { userId: "dana", intentId: "hire" },
      responder: { userId: "sam", intentId: "join" },
    });
    ok(opened.negotiation.id === opp, `open_negotiation opens ${opp}`);
  }

  const dana = await overHttp(url, danaKey.secret, "dana");
  const sam = await overHttp(url, samKey.secret, "sam");
  await negotiate(dana, sam, HTTP_OPP, "over HTTP");

  // Two waits at once, on a negotiation where nobody moves (dana is to
  // move on STDIO_OPP until the stdio seats play it, after the waits).
  const waiter = await overHttp(url, samKey.secret, "sam-waits");
  const started = Date.now();
  const atMaximum = call(waiter, "get_negotiation", { opportunityId: STDIO_OPP, wait: 50 });
  let ticks = 0;
  const onProgress = call(
    waiter,
    "get_negotiation",
    { opportunityId: STDIO_OPP, wait: 25 },
    { timeout: 15000, resetTimeoutOnProgress: true, onprogress: () => (ticks += 1) },
  );
  const [long, short] = await Promise.all([atMaximum, onProgress]);
  ok(long.negotiation.awaitingUserId === "dana" && Date.now() - started >= 49000, `a 50-second wait answers inside the SDK's default timeout (${Date.now() - started} ms)`);
  ok(short.negotiation.awaitingUserId === "dana" && ticks >= 2, `a 25-second wait outlives a 15-second timeout on ${ticks} progress notifications`);

  // Every refusal reaches a client that listed the tools as its code.
  const stranger = await overHttp(url, mallory.secret, "mallory");
  const refusals = [
    [stranger, "submit_negotiation_turn", { opportunityId: HTTP_OPP, action: "accept", message: "Mine." }, "not_found"],
    [sam, "submit_negotiation_turn", { opportunityId: STDIO_OPP, action: "propose", message: "Me first." }, "not_your_turn"],
    [sam, "get_negotiation", { opportunityId: STDIO_OPP, wait: 61 }, "invalid_request"],
    [dana, "open_negotiation", { opportunityId: HTTP_OPP, initiator: { userId: "dana", intentId: "a" }, responder: { userId: "sam", intentId: "b" } }, "forbidden"],
  ];
  for (const [client, name, args, code] of refusals) {
    const refused = await client.callTool({ name, arguments: args });
    const error = refused.isError && refused.structuredContent === undefined ? JSON.parse(refused.content[0].text).error : undefined;
    ok(error?.code === code, `${name} is refused as ${code}: ${refused.content?.[1]?.text}`);
  }
  let rejected = false;
  try {
    await overHttp(url, "idx_not-a-key", "nobody");
  } catch (error) {
    rejected = /401|invalid API key|Unauthorized/i.test(String(error));
  }
  ok(rejected, "a bad key is refused with 401");

  // Dana subscribes to PARK_OPP and hears each of sam's turns on it.
  const watcher = new Client({ name: "dana-watches", version: "1.0.0" });
  const heard = [];
  watcher.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
    heard.push(notification.params.uri);
  });
  await watcher.connect(
    new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${danaKey.secret}` } } }),
  );
  const parkUri = `index://negotiations/${PARK_OPP}`;
  await watcher.subscribeResource({ uri: parkUri });
  for (let n = 0; n < 12; n += 1) {
    const [seat, action] = n % 2 === 0 ? [dana, "propose"] : [sam, "counter"];
    await call(seat, "submit_negotiation_turn", { opportunityId: PARK_OPP, action, message: `Offer ${n}` });
  }
  for (let tries = 0; tries < 50 && heard.length === 0; tries += 1) await new Promise((wake) => setTimeout(wake, 100));
  ok(heard.includes(parkUri), `a subscription is woken by the other seat's turn (${heard.length} updates)`);

  // The round ran out: dana's client that shows forms parks it, and the
  // question is pushed to it as one.
  let shown;
  const form = new Promise((resolve) => (shown = resolve));
  const asker = await overHttp(url, danaKey.secret, "dana-forms", { capabilities: { elicitation: { form: {} } } });
  asker.setRequestHandler(ElicitRequestSchema, async (request) => {
    shown(request.params);
    return { action: "accept", content: { answer: "1" } };
  });
  const parked = await call(asker, "park_negotiation", { opportunityId: PARK_OPP, counterpartyName: "sam" });
  ok(parked.outcome === "parked", "dana parks the stalled negotiation");
  const params = await Promise.race([form, new Promise((wake) => setTimeout(() => wake(null), 20000))]);
  ok(params?.message?.includes("How much equity could you offer?"), "the question reaches dana's client as a form");
  let view;
  for (let tries = 0; tries < 10; tries += 1) {
    view = await call(asker, "get_negotiation", { opportunityId: PARK_OPP, wait: 5 });
    if (view.parked === null && view.negotiation.awaitingUserId === "dana") break;
  }
  ok(view.parked === null && view.state.park?.answer === "1% to 3%", "its answer resumes the negotiation, dana to move");

  for (const client of [admin, dana, sam, waiter, stranger, watcher, asker]) await client.close();

  const danaStdio = await overStdio(danaKey.file, "dana-stdio");
  const samStdio = await overStdio(samKey.file, "sam-stdio");
  await negotiate(danaStdio, samStdio, STDIO_OPP, "over stdio");
  await danaStdio.close();
  await samStdio.close();
  console.log("typescript done");
} finally {
  host.child.kill("SIGTERM");
}
