// The inbox of `index serve` in a real browser: Debian's headless Chromium,
// driven by puppeteer-core, with the other seat's agent and dana's agent
// on the official TypeScript MCP SDK.
//
// dana signs in with a login link (the link works once, and the key never
// stays in the address bar or the page); opened again, the link says it
// was used, and an unknown key and a host key say what they are, each in
// words for a person. Her negotiations are listed, each card naming her
// intent and the other person, and one moves to "Your agent's move" when
// sam's agent takes a turn over MCP, without a reload. Her agent parks two
// stalled negotiations on the same question; the inbox shows it once, read
// from its question message by the WebAssembly package, with its prose
// and prompt as text and its options as radio buttons. She clicks one and
// sends it; both negotiations resume with her choice, the page says what
// happens next, and the question is gone. A hostile question (markup, a
// fence, U+2028, a right-to-left override), parked on a fourth behind the
// safety gate's back, is shown as its text, exactly as `index
// question-block render` reads it, its options as checkboxes; both
// checked, her answer is the two labels. She signs out, and the old
// cookie gets 401; signed in again, a session ended elsewhere is said to
// have ended.
//
// usage: node inbox_browser.mjs --index BIN --dir DIR --db DB --model-base URL
//          --sdk PATH/TO/@modelcontextprotocol/sdk --puppeteer PATH/TO/puppeteer-core
//          --phone FILE --desktop FILE --first ID --second ID --third ID --fourth ID

import { execFileSync } from "node:child_process";
import { existsSync, statSync, writeFileSync } from "node:fs";
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
// Refusals the test asks for are no problem.
let refusing = false;
try {
  const mcp = new URL("/mcp", base);
  const sam = await agent(mcp, "sam");
  const danas = await agent(mcp, "dana");
  const page = await browser.newPage();
  await page.setViewport({ width: 390, height: 844 });
  page.on("pageerror", (error) => problems.push(String(error)));
  page.on("console", (message) => message.type() === "error" && !refusing && problems.push(message.text()));
  page.on("response", (response) => response.status() >= 400 && !refusing && problems.push(`${response.status()} ${response.request().method()} ${response.url()}`));

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

  // Sign-in failures, in a browser of their own: each says what happened
  // and what to do.
  const elsewhere = await browser.createBrowserContext();
  const other = await elsewhere.newPage();
  const said = () => other.$eval("#status", (e) => e.textContent);
  await other.goto(link);
  await other.waitForSelector('body[data-state="signed-out"]');
  ok((await said()).startsWith("This sign-in link was used already: a link signs you in once."), `a used link says so: ${await said()}`);
  const paste = async (key) => {
    const before = await said();
    await other.type("#key", key);
    await other.click("#sign-in button");
    await other.waitForFunction((was) => document.getElementById("status").textContent !== was, {}, before);
    return said();
  };
  const unknown = await paste(`idx_${"0".repeat(64)}`);
  ok(unknown.startsWith("This host does not know that key"), `an unknown key says so: ${unknown}`);
  const hostKey = await paste(cli("keys", "create", "--user", "host", "--host"));
  ok(hostKey.startsWith("That is a host key"), `a host key says so: ${hostKey}`);
  ok(!`${unknown}${hostKey}`.includes("bearer"), "in words for a person, not the API's");
  await elsewhere.close();

  const move = (id) => page.$eval(`li[data-opportunity-id="${id}"] .move`, (e) => e.textContent).catch(() => null);
  ok((await page.$$("li.negotiation")).length === 4, "her four negotiations are listed");
  const titles = await page.$$eval("li.negotiation h3", (items) => items.map((h) => h.textContent));
  ok(new Set(titles).size === 4 && [first, second, third, fourth].every((id) => titles.includes(`hire-${id}, with sam`)), `each card says which it is, by her intent and the other person: ${titles}`);
  ok((await move(third)) === "Waiting on sam's agent", "the third waits on sam's agent");
  const turned = await sam.callTool({ name: "submit_negotiation_turn", arguments: { opportunityId: third, action: "counter", message: "Meet halfway?" } });
  ok(!turned.isError, "sam's agent counters over MCP");
  await page.waitForFunction((id) => document.querySelector(`li[data-opportunity-id="${id}"] .move`)?.textContent === "Your agent's move", { timeout: 15000 }, third);
  const [lastMove, changed] = await page.$$eval(`li[data-opportunity-id="${third}"] .meta`, (items) => items.map((e) => e.textContent));
  ok(lastMove === "Last move (turn 2): sam countered — Meet halfway?" && /^Changed at \d\d?:\d\d/.test(changed), `the inbox shows it live: her agent's move, sam's last turn, and when it came: ${lastMove} ${changed}`);

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
  const offered = await page.$$eval(`${equity} fieldset label`, (labels) => labels.map((label) => ({
    type: label.querySelector("input").type,
    text: [...label.querySelectorAll("span")].map((span) => span.textContent),
  })));
  ok(
    JSON.stringify(offered) === JSON.stringify([
      { type: "radio", text: ["Under 1%", "Retry with an offer below one percent."] },
      { type: "radio", text: ["1% to 3%", "Retry with an offer between one and three percent."] },
    ]),
    `its options are radio buttons, each with its description: ${JSON.stringify(offered)}`,
  );
  ok(!(await page.$eval(`${equity} textarea`, (e) => e.required)) && (await page.$eval(`${equity} label[for]`, (e) => e.textContent)) === "Or write your own answer", "beside a box to write her own");
  for (const [name, width, height] of [["phone", 390, 844], ["desktop", 1280, 800]]) {
    await page.setViewport({ width, height });
    await page.screenshot({ path: arg(name), fullPage: true });
    ok(existsSync(arg(name)) && statSync(arg(name)).size > 0, `a screenshot of the parked question at ${width} px: ${arg(name)}`);
  }

  const [choice] = await page.$$(`${equity} fieldset label`).then((labels) => labels.slice(1));
  await choice.click();
  ok(await page.$eval(`${equity} fieldset label:nth-of-type(2) input`, (e) => e.checked), "she chooses 1% to 3% with a click");
  await page.click(`${equity} button`);
  await page.waitForFunction(() => document.querySelectorAll("li.question").length === 1, { timeout: 15000 });
  const next = await page.$eval("#status", (e) => e.textContent);
  ok(next === "Sent. Your agent picks the 2 negotiations up from here; nothing more is needed from you.", `her answer resumes both, the page says what happens next, and the question is gone: ${next}`);
  for (const id of [first, second]) ok((await move(id)) === "Your agent's move", "each card says it is her agent's move");
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

  // Several may be chosen: checkboxes, and the answer is their labels.
  const boxes = await page.$$("li.question fieldset input");
  ok(boxes.length === 2 && (await page.$$eval("li.question fieldset input", (inputs) => inputs.every((input) => input.type === "checkbox"))), "a question that takes several options offers checkboxes");
  for (const box of boxes) await box.click();
  await page.click("li.question button");
  await page.waitForFunction(() => document.querySelectorAll("li.question").length === 0, { timeout: 15000 });
  const both = (await danas.callTool({ name: "get_negotiation", arguments: { opportunityId: fourth } })).structuredContent;
  ok(both.state.park.answer === "Yes; No", `both chosen, her answer is both labels: ${both.state.park.answer}`);
  // The page has read what the answer changed (its event stream aside).
  await page.waitForFunction((id) => document.querySelector(`li[data-opportunity-id="${id}"] .move`)?.textContent === "Your agent's move", {}, fourth);
  await page.waitForNetworkIdle({ idleTime: 500, concurrency: 1 });

  // What her agent asks through the interaction contract: a form typed
  // from the answer spec, checked in the page, sent as a response command
  // the page seals itself.
  const plan = 'li.interaction[data-interaction-id="plan-1"]';
  const asked = await danas.callTool({ name: "request_interaction", arguments: { wait: 0, request: {
    id: "plan-1", kind: "plan", title: "Approve the hiring plan?", body: "Three interviews, then an offer.",
    answerSpec: { fields: [
      { name: "approve", label: "Approve", type: "select", required: true, options: [{ value: "yes", label: "Yes" }, { value: "no", label: "No" }] },
      { name: "budget", label: "Budget", type: "number", required: true, min: 10, max: 200 },
      { name: "note", label: "Note", type: "text", multiline: true, maxLength: 200 },
      { name: "remote", label: "Remote", type: "boolean" },
    ] },
    binding: { runId: "run-1", provider: "dana-agent", environmentId: "laptop", sessionId: "chat-1", executionId: "step-1", interactionId: "plan-1" },
  } } });
  ok(asked.structuredContent?.status === "pending", "her agent asks her through request_interaction");
  await page.reload();
  await page.waitForSelector(plan, { timeout: 15000 });
  const card = await page.$eval(plan, (item) => ({ title: item.querySelector("h3").textContent, body: item.querySelector(".prose").textContent, radios: item.querySelectorAll("input[type=radio]").length }));
  ok(card.title === "Approve the hiring plan?" && card.body === "Three interviews, then an offer." && card.radios === 2, "the inbox shows what her agent asks, its choices as radio buttons");
  await page.click(`${plan} fieldset label:nth-of-type(1)`);
  await page.type(`${plan} input[type=number]`, "500");
  await page.click(`${plan} form > button:not(.decline)`);
  await page.waitForFunction(() => document.getElementById("status").textContent.startsWith("Budget"));
  const pending = (await danas.callTool({ name: "get_interaction", arguments: { interactionId: "plan-1" } })).structuredContent;
  ok((await page.$eval("#status", (e) => e.textContent)) === "Budget: at most 200" && pending.status === "pending", "a budget past its bound is refused in the page, and nothing is sent");
  await page.$eval(`${plan} input[type=number]`, (e) => { e.value = ""; });
  await page.type(`${plan} input[type=number]`, "120");
  await page.type(`${plan} textarea`, "Start in March.");
  await page.click(`${plan} input[type=checkbox]`);
  await page.click(`${plan} form > button:not(.decline)`);
  await page.waitForFunction(() => document.querySelectorAll("li.interaction").length === 0, { timeout: 15000 });
  ok((await page.$eval("#status", (e) => e.textContent)) === "Sent. Your agent has your answer.", "she sends it, and the page says her agent has it");
  const resolved = (await danas.callTool({ name: "get_interaction", arguments: { interactionId: "plan-1" } })).structuredContent;
  ok(resolved.status === "resolved" && JSON.stringify(resolved.response.data) === JSON.stringify({ approve: ["yes"], budget: 120, note: "Start in March.", remote: true }), `her agent reads her validated answer: ${JSON.stringify(resolved.response)}`);
  // A permission offers only the grants its scopes allow; she declines it.
  const grants = ["allow_once", "allow_session", "allow_always", "deny"].map((value) => ({ value, label: value }));
  await danas.callTool({ name: "request_interaction", arguments: { wait: 0, request: {
    id: "perm-1", kind: "permission", title: "Send the offer letter?", responseScopes: ["interaction"],
    answerSpec: { fields: [{ name: "grant", label: "Your decision", type: "select", required: true, options: grants }] },
    binding: { runId: "run-1", provider: "dana-agent", environmentId: "laptop", sessionId: "chat-1", executionId: "step-2", interactionId: "perm-1" },
  } } });
  await page.reload();
  const permission = 'li.interaction[data-interaction-id="perm-1"]';
  await page.waitForSelector(permission, { timeout: 15000 });
  const offeredGrants = await page.$$eval(`${permission} input[type=radio]`, (inputs) => inputs.map((input) => input.value));
  ok(JSON.stringify(offeredGrants) === JSON.stringify(["allow_once", "deny"]), `a permission offers only the grants its scopes allow: ${offeredGrants}`);
  await page.click(`${permission} button.decline`);
  await page.waitForFunction(() => document.querySelectorAll("li.interaction").length === 0, { timeout: 15000 });
  const declined = (await danas.callTool({ name: "get_interaction", arguments: { interactionId: "perm-1" } })).structuredContent;
  ok(declined.status === "resolved" && declined.response.outcome === "declined", "she declines it with a click, and her agent reads that");
  await page.waitForNetworkIdle({ idleTime: 500, concurrency: 1 });

  const [cookie] = (await page.cookies()).filter((c) => c.name === "index_session");
  ok(cookie?.httpOnly && cookie?.sameSite === "Strict", "the session cookie is HttpOnly and SameSite=Strict");
  await page.click("#sign-out");
  await page.waitForSelector('body[data-state="signed-out"]');
  const old = await fetch(new URL("/session", base), { headers: { cookie: `index_session=${cookie.value}` } });
  ok(old.status === 401, "signed out: the old cookie gets 401");

  // Signed in again with her key, then her session is ended elsewhere:
  // the page says so when it next reads.
  await page.type("#key", cli("keys", "create", "--user", "dana"));
  await page.click("#sign-in button");
  await page.waitForSelector('body[data-state="ready"]');
  const [session] = (await page.cookies()).filter((c) => c.name === "index_session");
  const ended = await fetch(new URL("/session", base), { method: "DELETE", headers: { cookie: `index_session=${session.value}`, origin: base.origin } });
  ok(ended.status === 204, "her session ends elsewhere");
  refusing = true;
  const proposed = await danas.callTool({ name: "submit_negotiation_turn", arguments: { opportunityId: third, action: "propose", message: "Three days a week." } });
  ok(!proposed.isError, "her agent moves");
  await page.waitForSelector('body[data-state="signed-out"]', { timeout: 15000 });
  const gone = await page.$eval("#status", (e) => e.textContent);
  ok(gone.startsWith("Your session has ended"), `the page says her session ended: ${gone}`);
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
