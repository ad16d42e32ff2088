// The inbox: a person's negotiations, the questions their agents ask
// them, what their agents ask through the interaction contract, and the
// agents they connected through OAuth.
// Question messages are read here, with the question-block package,
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
    error.code = json?.error?.code;
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
// When the page saw each negotiation change (the store keeps no clock).
const moved = new Map();
const done = { propose: "proposed", counter: "countered", accept: "accepted", decline: "declined" };

function signedOut(message) {
  me = null;
  events?.close();
  events = null;
  clearTimeout(pending);
  pending = null;
  for (const id of ["who", "sign-out", "asked", "requests", "mine", "connected"]) $(id).hidden = true;
  $("sign-in").hidden = false;
  document.body.dataset.state = "signed-out";
  if (message) say(message);
  $("key").focus();
}

async function signedIn(who) {
  me = who;
  $("sign-in").hidden = true;
  $("who").textContent = `Signed in as ${me.userId}`;
  document.body.dataset.state = "loading";
  for (const id of ["who", "sign-out", "asked", "requests", "mine", "connected"]) $(id).hidden = false;
  await refresh().catch(failed);
  if (!me) return;
  events = new EventSource("/events");
  // A refused stream closes for good: a read says why.
  events.onerror = () => events?.readyState === 2 && refresh().catch(failed);
  events.addEventListener("changed", (event) => {
    moved.set(event.data, new Date());
    pending ??= setTimeout(() => {
      pending = null;
      refresh().catch(failed);
    }, 50);
  });
  if (loading()) document.body.dataset.state = "ready";
}

const loading = () => document.body.dataset.state === "loading";

// Why a sign-in failed, and what to do, for a person; `link` when they
// came with a login link rather than a pasted key.
function refusal(error, link) {
  const fresh = "Ask for a new sign-in link (index keys login-link makes one), or sign in with your key below.";
  const known = {
    login_link_used: `This sign-in link was used already: a link signs you in once. ${fresh}`,
    key_expired: link ? `This sign-in link has expired: a link works for a short time only. ${fresh}` : "That key has expired. Ask for a new one, or sign in with a sign-in link.",
    unauthorized: link ? `This host does not know that sign-in link. Check you opened all of it. ${fresh}` : "This host does not know that key: check you pasted all of it. It may also have been revoked.",
    forbidden: "That is a host key: it acts for no one person, so it cannot open an inbox. Sign in with your own key or a sign-in link.",
  };
  return known[error.code] ?? `You are not signed in: ${error.message}`;
}

function failed(error) {
  if (error.status === 401) signedOut("Your session has ended: a session lasts 12 hours, and signing out ends it. Sign in again.");
  else {
    say(error.message, true);
    if (loading()) document.body.dataset.state = "error";
  }
}

async function refresh() {
  const [page, asked, requests, connected] = await Promise.all([
    api("GET", "/negotiations"),
    api("GET", "/questions"),
    api("GET", "/interactions?status=pending"),
    api("GET", "/connections"),
  ]);
  const views = await Promise.all(
    page.negotiations.map((n) => api("GET", `/opportunities/${n.id}/negotiation`).catch(() => null)),
  );
  // Signed out meanwhile: nothing to show.
  if (!me) return;
  showNegotiations(page.negotiations, views);
  showQuestions(asked.questions, asked.unreadable);
  showInteractions(requests.interactions);
  showConnections(connected.connections);
}

function showConnections(connections) {
  $("connections").replaceChildren(...connections.map((c) => {
    const item = element("li", undefined, "connection");
    item.dataset.connectionId = c.id;
    const when = (at) => (at ? new Date(at).toLocaleString() : "never");
    item.append(element("strong", c.clientName), element("span", ` connected ${when(c.connectedAt)}, last used ${when(c.lastUsedAt)}`), element("code", c.clientId));
    const end = element("button", "Disconnect");
    end.type = "button";
    end.addEventListener("click", () => api("DELETE", `/connections/${encodeURIComponent(c.id)}`).then(() => { say(`${c.clientName} is disconnected.`); return refresh(); }).catch(failed));
    item.append(end);
    return item;
  }));
  $("no-connections").hidden = connections.length > 0;
}

function moveOf(n, other) {
  if (n.settled) return `Settled (${n.status})`;
  if (n.waitingOn === me.userId) return "Waiting on your answer";
  if (n.waitingOn) return `Waiting on ${other}'s answer`;
  if (n.awaitingUserId === me.userId) return "Your agent's move";
  if (n.awaitingUserId) return `Waiting on ${other}'s agent`;
  return "Paused between rounds";
}

function showNegotiations(negotiations, views) {
  const list = $("negotiations");
  list.replaceChildren();
  negotiations.forEach((n, i) => {
    const [mine, theirs] = n.initiator.userId === me.userId ? [n.initiator, n.responder] : [n.responder, n.initiator];
    const item = element("li", undefined, "negotiation");
    item.dataset.opportunityId = n.id;
    item.append(element("h3", `${mine.intentId}, with ${theirs.userId}`));
    item.append(element("p", moveOf(n, theirs.userId), "move"));
    const turns = views[i]?.state?.turns ?? [];
    const last = turns[turns.length - 1];
    item.append(element("p", last ? `Last move (turn ${n.turnCount}): ${last.seatUserId} ${done[last.action] ?? last.action}${last.message ? ` — ${last.message}` : ""}` : "No move yet.", "meta"));
    const at = moved.get(n.id);
    if (at) item.append(element("p", `Changed at ${at.toLocaleTimeString([], { hour: "numeric", minute: "2-digit" })}`, "meta changed"));
    list.append(item);
  });
  $("no-negotiations").hidden = negotiations.length > 0;
}

// A question's choices, as `asked.question` gives its options: radio
// buttons, or checkboxes when several may be chosen.
function choices(question, name) {
  const set = element("fieldset", undefined, "choices");
  set.append(element("legend", question.multiSelect ? "Choose any" : "Choose one"));
  question.options.forEach((option, j) => {
    const label = element("label");
    const input = element("input");
    input.type = question.multiSelect ? "checkbox" : "radio";
    input.name = name;
    input.value = j;
    label.append(input, element("span", option.label, "label"), element("span", option.description, "meta"));
    set.append(label);
  });
  return set;
}

// Whether `list` shows `what` already: a refresh that finds the same
// leaves it, and what the person has begun to answer, alone.
function unchanged(list, what) {
  const key = JSON.stringify(what);
  if (list.dataset.shown === key) return true;
  list.dataset.shown = key;
  return false;
}

function showQuestions(questions, unreadable) {
  const list = $("questions");
  if (unchanged(list, [questions, unreadable])) return;
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
    const offered = parsed.block.questions.map((question, i) => {
      const entry = element("li");
      const id = `answer-${k}-${i}`;
      entry.append(element("p", question.prompt, "prompt"));
      // The options go with the one question they were asked with.
      const options = parsed.block.questions.length === 1 && asked.question?.prompt === question.prompt && asked.question.options;
      const set = options?.length ? choices(asked.question, `choice-${k}-${i}`) : null;
      const label = element("label", set ? "Or write your own answer" : "Your answer");
      label.htmlFor = id;
      const field = element("textarea");
      field.id = id;
      field.maxLength = 4000;
      if (set) {
        entry.append(set);
        // One answer or the other: a choice clears the text, text the choices.
        set.addEventListener("change", () => (field.value = ""));
        field.addEventListener("input", () => set.querySelectorAll("input").forEach((input) => (input.checked = false)));
      } else field.required = true;
      entry.append(label, field);
      prompts.append(entry);
      return { set, field, options };
    });
    form.append(prompts, element("button", "Send answer"));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const answers = offered.map(({ set, field, options }, i) => {
        const chosen = set ? [...set.querySelectorAll("input:checked")].map((input) => options[input.value].label) : [];
        return { question: i, answer: field.value.trim() || chosen.join("; ") };
      });
      if (answers.some((a) => !a.answer)) return say("Choose an option or write your answer, then send it.", true);
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
  say(
    resumed
      ? `Sent. Your agent picks ${resumed > 1 ? `the ${resumed} negotiations` : "the negotiation"} up from here; nothing more is needed from you.`
      : "Nothing changed: this question was answered already, or its negotiations have moved on.",
    !resumed,
  );
  await refresh();
}

// RFC 8785's canonical JSON, as the contract digests it: keys in UTF-16
// order, numbers and strings as JavaScript writes them.
const canonical = (v) =>
  Array.isArray(v) ? `[${v.map(canonical)}]`
  : v !== null && typeof v === "object" ? `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)}}`
  : JSON.stringify(v);

async function digest(value) {
  const hash = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(canonical(value)));
  return `sha256:${[...new Uint8Array(hash)].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

// A permission's grants, each with the response scope it needs.
const needs = { allow_once: "interaction", allow_session: "session", allow_always: "persistent" };

// One field of an answer spec as inputs: `read` gives its value (undefined
// when left empty) or throws what is wrong, by the contract's rules;
// `offered` says which of a select's options may be chosen.
function input(spec, id, offered) {
  const box = element("div", undefined, "field");
  const title = element("label", `${spec.label}${spec.required ? "" : " (optional)"}`);
  const wrong = (why) => { throw new Error(`${spec.label}: ${why}`); };
  if (spec.type === "select") {
    const set = element("fieldset", undefined, "choices");
    set.append(element("legend", spec.label));
    for (const option of spec.options.filter(offered)) {
      const label = element("label");
      const pick = element("input");
      pick.type = spec.multi ? "checkbox" : "radio";
      pick.name = id;
      pick.value = option.value;
      pick.checked = [spec.default ?? []].flat().includes(option.value);
      label.append(pick, element("span", option.label, "label"), element("span", option.description ?? "", "meta"));
      set.append(label);
    }
    const own = spec.allowCustom ? element("input") : null;
    if (own) set.append(element("label", "Or your own"), own);
    box.append(set);
    return { box, read: () => {
      const chosen = [...set.querySelectorAll("input:checked")].map((pick) => pick.value);
      if (own?.value.trim()) chosen.push(own.value.trim());
      if (!chosen.length) return spec.required ? wrong("choose one") : undefined;
      if (!spec.multi && chosen.length > 1) wrong("choose only one");
      return chosen;
    } };
  }
  const field = element(spec.type === "text" && spec.multiline ? "textarea" : "input");
  field.id = title.htmlFor = id;
  box.append(title, field);
  if (spec.type === "secret") {
    field.disabled = true;
    field.placeholder = "A secret cannot be given here: your agent asks for it elsewhere.";
    return { box, read: () => wrong("a secret cannot be given here") };
  }
  if (spec.type === "boolean") {
    field.type = "checkbox";
    field.checked = spec.default === true;
    return { box, read: () => field.checked };
  }
  if (spec.type === "number") {
    field.type = "number";
    field.step = "any";
    if (spec.default !== undefined) field.value = spec.default;
    return { box, read: () => {
      if (field.value === "") return spec.required ? wrong("give a number") : undefined;
      const n = Number(field.value);
      if (!Number.isFinite(n)) wrong("give a number");
      if (spec.min !== undefined && n < spec.min) wrong(`at least ${spec.min}`);
      if (spec.max !== undefined && n > spec.max) wrong(`at most ${spec.max}`);
      return n;
    } };
  }
  field.value = spec.default ?? "";
  return { box, read: () => {
    if (!field.value) return spec.required ? wrong("write an answer") : undefined;
    if (spec.maxLength !== undefined && field.value.length > spec.maxLength) wrong(`at most ${spec.maxLength} characters`);
    return field.value;
  } };
}

function showInteractions(interactions) {
  const list = $("interactions");
  if (unchanged(list, interactions.map((i) => i.request.requestDigest))) return;
  list.replaceChildren(...interactions.map(({ request }, k) => {
    const item = element("li", undefined, "interaction");
    item.dataset.interactionId = request.id;
    item.append(element("h3", request.title));
    if (request.body) item.append(element("p", request.body, "prose"));
    const form = element("form");
    // A permission's grant within the request's scopes only, as the
    // contract checks it.
    const scopes = request.responseScopes ?? ["interaction"];
    const grants = (spec) => (option) => request.kind !== "permission" || spec.name !== "grant" || !needs[option.value] || scopes.includes(needs[option.value]);
    const fields = request.answerSpec.fields.map((spec, i) => ({ spec, ...input(spec, `field-${k}-${i}`, grants(spec)) }));
    const decline = element("button", "Decline", "decline");
    decline.type = "button";
    form.append(...fields.map((f) => f.box), element("button", "Send"), decline);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      let data;
      try {
        data = Object.fromEntries(fields.map((f) => [f.spec.name, f.read()]).filter(([, value]) => value !== undefined));
      } catch (problem) {
        return say(problem.message, true);
      }
      respond(request, "accepted", data).catch(failed);
    });
    decline.addEventListener("click", () => respond(request, "declined").catch(failed));
    item.append(form);
    return item;
  }));
  $("no-requests").hidden = interactions.length > 0;
}

// Sends the person's response as the contract's command, sealed here.
async function respond(request, outcome, data) {
  const binding = { ...request.binding, requestDigest: request.requestDigest };
  const response = { id: request.id, outcome, ...(data ? { data } : {}) };
  const command = { operationId: crypto.randomUUID(), binding, commandDigest: await digest({ binding, response }), response };
  const acknowledged = await api("POST", "/interactions/responses", command);
  const sent = acknowledged.status === "accepted";
  say(sent ? "Sent. Your agent has your answer." : `Not sent (${acknowledged.status})${acknowledged.message ? `: ${acknowledged.message}` : "."}`, !sent);
  await refresh();
}

$("sign-in").addEventListener("submit", (event) => {
  event.preventDefault();
  const key = $("key").value;
  $("key").value = "";
  api("POST", "/session", { key })
    .then((who) => { say(""); return signedIn(who); })
    .catch((error) => say(refusal(error, false), true));
});

$("sign-out").addEventListener("click", () => {
  api("DELETE", "/session").then(() => signedOut("Signed out.")).catch(failed);
});

async function start() {
  const login = new URLSearchParams(location.hash.slice(1)).get("login");
  if (login) {
    history.replaceState(null, "", location.pathname);
    await api("POST", "/session", { key: login }).catch((error) => say(refusal(error, true), true));
  }
  try {
    await signedIn(await api("GET", "/session"));
  } catch (error) {
    if (error.status === 401) signedOut();
    else failed(error);
  }
}

start();
