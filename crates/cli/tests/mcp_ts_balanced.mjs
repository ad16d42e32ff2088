// The official TypeScript MCP SDK (which speaks the older, session-based
// protocols) through nginx in front of several `index serve` on one store,
// configured as docs/deploy/index-nginx.conf has it: a session stays with
// the host its key picks, and each seat's key may pick another host. Run by
// crates/cli/tests/mcp.rs, which opens the negotiation and starts the hosts
// and the balancer first.
//
// - the seats agree, each through its host, every turn committed once;
// - a subscription on one seat's host hears the other seat's turn, taken
//   on another host (the store's change feed tells every host).
//
// usage: node mcp_ts_balanced.mjs --index BIN --dir DIR --sdk PATH --url URL --db DB --ids ID,ID

import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

import { arg } from "./support/host.mjs";

const index = arg("index");
const sdk = arg("sdk");
const db = arg("db");
const [agreed, watched] = arg("ids").split(",");
const load = (path) => import(pathToFileURL(join(sdk, "dist/esm", path)).href);
const { Client } = await load("client/index.js");
const { StreamableHTTPClientTransport } = await load("client/streamableHttp.js");
const { ResourceUpdatedNotificationSchema } = await load("types.js");

function ok(condition, what) {
  if (!condition) throw new Error(`not ok: ${what}`);
  console.log(`ok: ${what}`);
}

function key(user) {
  return execFileSync(index, ["keys", "create", "--user", user, "--db", db], { encoding: "utf8" }).trim();
}

async function connect(secret, name) {
  const client = new Client({ name, version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL("/mcp", arg("url")), {
      requestInit: { headers: { Authorization: `Bearer ${secret}` } },
    }),
  );
  await client.listTools();
  return client;
}

async function call(client, name, args) {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name}: ${result.content?.[0]?.text}`);
  return result.structuredContent;
}

const [tia, tom] = [await connect(key("tia"), "tia"), await connect(key("tom"), "tom")];
// A session's requests reaching another host would be refused there
// (404: an unknown session), failing the calls below.

await call(tia, "submit_negotiation_turn", { opportunityId: agreed, action: "propose", message: "Intro call on Monday?" });
const seen = await call(tom, "get_negotiation", { opportunityId: agreed, wait: 5 });
ok(seen.negotiation.awaitingUserId === "tom", "tom, through his host, sees tia's turn");
const taken = await call(tom, "submit_negotiation_turn", { opportunityId: agreed, action: "accept", message: "Monday it is." });
ok(taken.negotiation.negotiation.outcome === "agreed" && taken.decision.turnIndex === 1, "the seats agree, each turn committed once");

const heard = [];
const watcher = new Client({ name: "tia-watches", version: "1.0.0" });
watcher.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => heard.push(notification.params.uri));
await watcher.connect(
  new StreamableHTTPClientTransport(new URL("/mcp", arg("url")), {
    requestInit: { headers: { Authorization: `Bearer ${key("tia")}` } },
  }),
);
const uri = `index://negotiations/${watched}`;
await watcher.subscribeResource({ uri });
await call(tia, "submit_negotiation_turn", { opportunityId: watched, action: "propose", message: "Lunch?" });
await call(tom, "submit_negotiation_turn", { opportunityId: watched, action: "counter", message: "Which day?" });
for (let tries = 0; tries < 50 && !heard.includes(uri); tries += 1) await new Promise((wake) => setTimeout(wake, 100));
ok(heard.includes(uri), "a subscription on one host hears a turn taken on another");
for (const client of [tia, tom, watcher]) await client.close();
console.log("typescript balanced done");
