// The consent page of the host's own OAuth authorization server: it reads
// the request it was opened with (its own query string) through the
// person's session, shows who asks and where they will be sent, and sends
// the person's decision. The server checks everything again; this page
// only shows and asks.

const request = location.search;
const $ = (id) => document.getElementById(id);

function say(text) {
  $("status").textContent = text;
}

async function json(response) {
  return response.headers.get("content-type")?.startsWith("application/json") ? response.json() : {};
}

async function load() {
  document.body.dataset.state = "loading";
  const response = await fetch(`/oauth/authorization${request}`, { credentials: "same-origin" });
  const body = await json(response);
  if (response.status === 401 && typeof body.error !== "string") {
    say("Sign in to decide whether this agent may act for you.");
    $("sign-in").hidden = false;
    document.body.dataset.state = "signed-out";
    return;
  }
  if (!response.ok) {
    say(`This request cannot be approved: ${body.error_description ?? body.error?.message ?? response.status}`);
    document.body.dataset.state = "refused";
    return;
  }
  if (body.redirect) {
    // Wrong in a way the client must hear of: said here, and the way back
    // is the person's to take.
    say(`This request cannot be approved: ${body.errorDescription}`);
    $("back").href = body.redirect;
    $("back").textContent = `Back to ${body.redirectHost}`;
    $("back").hidden = false;
    document.body.dataset.state = "refused";
    return;
  }
  $("who").textContent = `Signed in as ${body.userId}`;
  $("who").hidden = false;
  $("client").textContent = body.clientName;
  $("client-id").textContent = body.clientId;
  $("redirect").textContent = body.redirectHost;
  $("sign-in").hidden = true;
  $("consent").hidden = false;
  say("");
  document.body.dataset.state = "asking";
}

async function decide(approve) {
  for (const button of [$("approve"), $("deny")]) button.disabled = true;
  const response = await fetch("/oauth/authorization", {
    method: "POST",
    credentials: "same-origin",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ request, approve }),
  });
  const body = await json(response);
  if (response.ok && body.redirect) {
    document.body.dataset.state = "decided";
    location.assign(body.redirect);
    return;
  }
  say(`The decision could not be sent: ${body.error_description ?? body.error?.message ?? response.status}`);
  for (const button of [$("approve"), $("deny")]) button.disabled = false;
}

// A sign-in link pasted whole is its key (`…/inbox#login=idx_…`).
const keyOf = (pasted) => new URLSearchParams(pasted.split("#")[1] ?? "").get("login") ?? pasted;

$("sign-in").addEventListener("submit", async (event) => {
  event.preventDefault();
  const response = await fetch("/session", {
    method: "POST",
    credentials: "same-origin",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ key: keyOf($("key").value.trim()) }),
  });
  $("key").value = "";
  if (!response.ok) {
    const body = await json(response);
    say(`Not signed in: ${body.error?.message ?? response.status}`);
    return;
  }
  await load();
});
$("approve").addEventListener("click", () => decide(true));
$("deny").addEventListener("click", () => decide(false));
load().catch((error) => say(`Something went wrong: ${error}`));
