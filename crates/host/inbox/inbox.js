// The inbox: a person's negotiations and the questions their agents ask
// them. Question messages are read here, with the question-block package,
// exactly as the server reads them; every text is shown as text.
import { parseQuestionMessage } from "/inbox/pkg/index.js";

const $ = (id) => document.getElementById(id);

function say(text, error = false) {
  $("status").textContent = text;
  $("status").classList.toggle("error", error);
}

async function api(method, path, body) {
  const response = await fetch(path, {
    method,
    credentials: "same-origin",
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = response.status === 204 ? null : await response.json().catch(() => null);
  if (!response.ok) {
    const error = new Error(json?.error?.message ?? response.statusText);
    error.status = response.status;
    throw error;
  }
  return json;
}

function element(tag, text, className) {
  const made = document.createElement(tag);
  if (text !== undefined) made.textContent = text;
  if (className) made.className = className;
  return made;
}

let me = null;
let events = null;
let pending = null;

function signedOut(message) {
  me = null;
  events?.close();
  events = null;
  for (const id of ["who", "sign-out", "asked", "mine"]) $(id).hidden = true;
  $("sign-in").hidden = false;
  document.body.dataset.state = "signed-out";
  if (message) say(message);
  $("key").focus();
}

async function signedIn(who) {
  me = who;
  $("sign-in").hidden = true;
  $("who").textContent = `Signed in as ${me.userId}`;
  for (const id of ["who", "sign-out", "asked", "mine"]) $(id).hidden = false;
  await refresh().catch(failed);
  if (!me) return;
  events = new EventSource("/events");
  events.addEventListener("changed", () => {
    pending ??= setTimeout(() => {
      pending = null;
      refresh().catch(failed);
    }, 50);
  });
  if (loading()) document.body.dataset.state = "ready";
}

const loading = () => document.body.dataset.state === "loading";

function failed(error) {
  if (error.status === 401) signedOut("Your session ended; sign in again.");
  else {
    say(error.message, true);
    if (loading()) document.body.dataset.state = "error";
  }
}

async function refresh() {
  const [page, asked] = await Promise.all([api("GET", "/negotiations"), api("GET", "/questions")]);
  const views = await Promise.all(
    page.negotiations.map((n) => api("GET", `/opportunities/${n.id}/negotiation`).catch(() => null)),
  );
  showNegotiations(page.negotiations, views);
  showQuestions(asked.questions, asked.unreadable);
}

function moveOf(n) {
  const other = n.initiator.userId === me.userId ? n.responder.userId : n.initiator.userId;
  if (n.settled) return `Settled (${n.status})`;
  if (n.waitingOn === me.userId) return "Waiting on your answer";
  if (n.waitingOn) return `Waiting on ${other}'s answer`;
  if (n.awaitingUserId === me.userId) return "Your move";
  if (n.awaitingUserId) return `${other}'s move`;
  return "Paused between rounds";
}

function showNegotiations(negotiations, views) {
  const list = $("negotiations");
  list.replaceChildren();
  negotiations.forEach((n, i) => {
    const other = n.initiator.userId === me.userId ? n.responder.userId : n.initiator.userId;
    const item = element("li", undefined, "negotiation");
    item.dataset.opportunityId = n.id;
    item.append(element("h3", `With ${other}`));
    item.append(element("p", moveOf(n), "move"));
    const turns = views[i]?.state?.turns ?? [];
    const last = turns[turns.length - 1];
    const lastText = last ? `Last turn: ${last.action}${last.message ? ` — ${last.message}` : ""}` : "No turn yet in this round.";
    item.append(element("p", `${n.turnCount} turn(s). ${lastText}`, "meta"));
    list.append(item);
  });
  $("no-negotiations").hidden = negotiations.length > 0;
}

function showQuestions(questions, unreadable) {
  const list = $("questions");
  // Named, never dropped.
  const lost = (id, why) => element("li", `Could not show the question of ${id}: ${why}`, "unreadable");
  const shown = unreadable.map((u) => lost(u.opportunityId, u.reason));
  questions.forEach((asked, k) => {
    const parsed = parseQuestionMessage(asked.message);
    if (!parsed) return shown.push(lost(asked.opportunityIds[0], "not a question message."));
    const item = element("li", undefined, "question");
    item.dataset.negotiations = String(asked.opportunityIds.length);
    item.append(element("p", parsed.prose, "prose"));
    const form = element("form");
    const prompts = element("ol");
    parsed.block.questions.forEach((question, i) => {
      const entry = element("li");
      const id = `answer-${k}-${i}`;
      entry.append(element("p", question.prompt, "prompt"));
      const label = element("label", "Your answer");
      label.htmlFor = id;
      const field = element("textarea");
      field.id = id;
      field.required = true;
      field.maxLength = 4000;
      entry.append(label, field);
      prompts.append(entry);
    });
    form.append(prompts, element("button", "Send answer"));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const answers = parsed.block.questions.map((_, i) => ({ question: i, answer: form.elements[`answer-${k}-${i}`].value }));
      answer(asked.message, answers).catch(failed);
    });
    item.append(form);
    shown.push(item);
  });
  list.replaceChildren(...shown);
  $("no-questions").hidden = shown.length > 0;
}

async function answer(message, answers) {
  const report = await api("POST", "/answers", { message, answers });
  const resumed = report.negotiations.filter((n) => n.outcome === "resumed").length;
  say(`Answer sent: ${resumed} negotiation(s) resumed.`);
  await refresh();
}

$("sign-in").addEventListener("submit", (event) => {
  event.preventDefault();
  const key = $("key").value;
  $("key").value = "";
  api("POST", "/session", { key })
    .then((who) => { say(""); return signedIn(who); })
    .catch((error) => say(`That key did not sign you in: ${error.message}`, true));
});

$("sign-out").addEventListener("click", () => {
  api("DELETE", "/session").then(() => signedOut("Signed out.")).catch(failed);
});

async function start() {
  const login = new URLSearchParams(location.hash.slice(1)).get("login");
  if (login) {
    history.replaceState(null, "", location.pathname);
    await api("POST", "/session", { key: login }).catch((error) => say(`That link did not sign you in: ${error.message}`, true));
  }
  try {
    await signedIn(await api("GET", "/session"));
  } catch (error) {
    if (error.status === 401) signedOut();
    else failed(error);
  }
}

start();
