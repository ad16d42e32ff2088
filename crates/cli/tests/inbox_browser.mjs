// The inbox of `index serve` in a real browser: Debian's headless Chromium,
// driven by puppeteer-core, with the other seat's agent and dana's agent
// on the official TypeScript MCP SDK.
//
// dana signs in with a login link (the link works once, and the key never
// stays in the address bar or the page); her negotiations are listed,
// and one moves to "Your move" when sam's agent takes a turn over MCP,
// without a reload. Her agent parks two stalled negotiations on the same
// question; the inbox shows it once, read from its question message by
// the WebAssembly package, with its prose and prompt as text. She answers;
// both negotiations resume and the question is gone. A hostile question
// (markup, a fence, U+2028, a right-to-left override), parked on a fourth
// behind the safety gate's back, is shown as its text, exactly as
// `index question-block render` reads it. She signs out,
// and the old cookie gets 401.
//
// usage: node inbox_browser.mjs --index BIN --dir DIR --db DB --model-base URL
//          --sdk PATH/TO/@modelcontextprotocol/sdk --puppeteer PATH/TO/puppeteer-core
//          --screenshot FILE --first ID --second ID --third ID --fourth ID

import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

import { arg, serve } from "./support/host.mjs";

const index = arg("index");
const db = arg("db");
const [first, second, third, fourth] = [arg("first"), arg("second"), arg("third"), arg("fourth")];
const load = (path) => import(pathToFileURL(join(arg("sdk"), "dist/esm", path)).href);
const { Client } = await load("client/index.js");
const { StreamableHTTPClientTransport } = await load("client/streamableHttp.js");
const puppeteer = (await import(pathToFileURL(join(arg("puppeteer"), "lib/puppeteer/puppeteer-core.js")).href)).default;

function ok(condition, what) {
  if (!condition) throw new Error(`not ok: ${what}`);
  console.log(`ok: ${what}`);
}

const cli = (...args) => execFileSync(index, [...args, "--db", db], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim();
const render = (message) => {
  const file = join(arg("dir"), "message.txt");
  writeFileSync(file, message);
  return JSON.parse(execFileSync(index, ["--json", "question-block", "render", file], { encoding: "utf8" }));
};

async function agent(url, user) {
  const secret = cli("keys", "create", "--user", user);
  const client = new Client({ name: `${user}'s agent`, version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${secret}` } } }));
  return client;
}

const { child, base } = await serve(index, db, { INDEX_MODEL_BASE_URL: arg("model-base"), INDEX_MODEL: "gpt-4o", INDEX_MODEL_API_KEY: "sk-inbox-secret" });
const browser = await puppeteer.launch({
  executablePath: "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const problems = [];
try {
  const mcp = new URL("/mcp", base);
  const sam = await agent(mcp, "sam");
  const danas = await agent(mcp, "dana");
  const page = await browser.newPage();
  await page.setViewport({ width: 390, height: 844 });
  page.on("pageerror", (error) => problems.push(String(error)));
  page.on("console", (message) => message.type() === "error" && problems.push(message.text()));
  page.on("response", (response) => response.status() >= 400 && problems.push(`${response.status()} ${response.request().method()} ${response.url()}`));

  const link = cli("keys", "login-link", "--user", "dana", "--base", base.origin);
  await page.goto(link);
  await page.waitForSelector('body[data-state="ready"]');
  ok((await page.$eval("#who", (e) => e.textContent)) === "Signed in as dana", "a login link signs dana in");
  ok(!page.url().includes("login="), `the key leaves the address bar: ${page.url()}`);
  ok((await page.evaluate(() => document.cookie)) === "", "the page cannot read its session cookie");
  const again = await fetch(new URL("/session", base), {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ key: link.split("#login=")[1] }),
  });
  ok(again.status === 401, "the link signs in once");

  const move = (id) => page.$eval(`li[data-opportunity-id="${id}"] .move`, (e) => e.textContent).catch(() => null);
  ok((await page.$$("li.negotiation")).length === 4, "her four negotiations are listed");
  ok((await move(third)) === "sam's move", "the third waits on sam");
  const turned = await sam.callTool({ name: "submit_negotiation_turn", arguments: { opportunityId: third, action: "counter", message: "Meet halfway?" } });
  ok(!turned.isError, "sam's agent counters over MCP");
  await page.waitForFunction((id) => document.querySelector(`li[data-opportunity-id="${id}"] .move`)?.textContent === "Your move", { timeout: 15000 }, third);
  ok((await page.$eval(`li[data-opportunity-id="${third}"] .meta`, (e) => e.textContent)).includes("Meet halfway?"), "the inbox shows it live: her move, and sam's last turn");

  for (const id of [first, second]) {
    const parked = await danas.callTool({ name: "park_negotiation", arguments: { opportunityId: id, counterpartyName: "sam" } });
    ok(parked.structuredContent?.outcome === "parked", `dana's agent parks ${id === first ? "the first" : "the second"}`);
  }
  const equity = 'li.question[data-negotiations="2"]';
  await page.waitForSelector(equity, { timeout: 15000 });
  const questions = await page.$$eval("li.question", (items) => items.filter((item) => item.textContent.includes("equity")).map((item) => ({
    negotiations: item.dataset.negotiations,
    prose: item.querySelector(".prose").textContent,
    prompts: [...item.querySelectorAll(".prompt")].map((p) => p.textContent),
    text: item.textContent,
  })));
  ok(questions.length === 1 && questions[0].negotiations === "2", "the question appears once for both negotiations");
  ok(questions[0].prose.startsWith("Your agent paused a negotiation") && questions[0].prompts[0] === "How much equity could you offer?", "read from its question message: the prose and the prompt");
  ok(!questions[0].text.includes(first) && !questions[0].text.includes("index-questions"), "no ids and no block shown");
  await page.screenshot({ path: arg("screenshot"), fullPage: true });
  ok(true, `a screenshot of the parked question: ${arg("screenshot")}`);

  await page.type(`${equity} textarea`, "1% to 3%");
  await page.click(`${equity} button`);
  await page.waitForFunction(() => document.getElementById("status").textContent.includes("2 negotiation(s) resumed"), { timeout: 15000 });
  await page.waitForFunction(() => document.querySelectorAll("li.question").length === 1);
  ok(true, "her answer resumes both, and the question is gone");
  for (const id of [first, second]) {
    const seen = await danas.callTool({ name: "get_negotiation", arguments: { opportunityId: id } });
    const view = seen.structuredContent;
    ok(view.negotiation.awaitingUserId === "dana" && view.parked === null && view.state.park.answer === "1% to 3%", "resumed with dana to move, her answer on record");
  }

  page.on("dialog", (dialog) => { problems.push(`a dialog: ${dialog.message()}`); dialog.dismiss(); });
  // The fourth, parked on a hostile question, is the one left.
  const shown = await page.$eval("li.question", (item) => ({
    prose: item.querySelector(".prose").textContent,
    prompts: [...item.querySelectorAll(".prompt")].map((p) => p.textContent),
    markup: item.querySelectorAll("img, script, strong, em, code, pre").length,
  }));
  ok(shown.markup === 0 && shown.prose.includes("```<i>T</i>") && shown.prose.includes("<b>Yes</b>") && shown.prompts[0].includes("<img src=x onerror=alert(1)>") && shown.prompts[0].includes("\u2028") && shown.prompts[0].includes("\u202e"), "a hostile question is shown as its text, inert");
  const message = await page.evaluate(async () => (await (await fetch("/questions")).json()).questions[0].message);
  const rendered = render(message);
  ok(shown.prose === rendered.prose && JSON.stringify(shown.prompts) === JSON.stringify(rendered.block.questions.map((q) => q.prompt)), "exactly as `index question-block render` reads it");

  const [cookie] = (await page.cookies()).filter((c) => c.name === "index_session");
  ok(cookie?.httpOnly && cookie?.sameSite === "Strict", "the session cookie is HttpOnly and SameSite=Strict");
  await page.click("#sign-out");
  await page.waitForSelector('body[data-state="signed-out"]');
  const old = await fetch(new URL("/session", base), { headers: { cookie: `index_session=${cookie.value}` } });
  ok(old.status === 401, "signed out: the old cookie gets 401");
  ok(problems.length === 0, `no script errors: ${problems.join("; ")}`);
  await sam.close();
  await danas.close();
  console.log("inbox done");
} catch (error) {
  console.error(`script errors so far: ${problems.join("; ")}`);
  throw error;
} finally {
  await browser.close();
  child.kill("SIGTERM");
}
