"""An MCP client that knows only the host's URL connects over OAuth with the
official Python MCP SDK's OAuth client (`OAuthClientProvider`): it finds the
authorization server from the 401, identifies itself by a Client ID
Metadata Document (first run; served over https, as the SDK requires, under
a throwaway authority the host is told to trust with SSL_CERT_FILE) or
registers (second run, RFC 7591), then sends dana to the consent step. This
script plays her browser there, through the consent page's own API with
her session: signed in with a login link, it reads the request and
approves. The SDK exchanges the code, lists the tools and takes a turn as
dana's agent; its access token expired, it refreshes; its grant revoked
with `index keys revoke`, it is refused. Run by crates/cli/tests/mcp.rs;
exits non-zero on any failure.

usage: python mcp_oauth.py --index PATH/TO/index --dir SCRATCH_DIR
"""

import asyncio
import http.server
import json
import os
import ssl
import subprocess
import threading
from urllib.parse import parse_qs, urlparse

import httpx2
from mcp import ClientSession
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientMetadata
from mcp_support import arguments, check, key_of, run, serving

OPP = "7c2e4a6b-8d1f-4e3a-9b5c-0d2f4a6b8c1e"
# Access tokens that expire while the script looks on.
LIFETIME = 2
# Where the SDK says dana's browser comes back: never opened, since this
# script is her browser and reads the code from the redirect it is given.
CALLBACK = "http://127.0.0.1:53000/callback"


class Memory:
    """The SDK's token storage, kept where the script can look."""

    def __init__(self):
        self.tokens = None
        self.client = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client

    async def set_client_info(self, client_info):
        self.client = client_info


def index_tool(args, *command):
    """Runs the `index` tool on the script's store; what it printed."""
    done = subprocess.run([args.index, *command, "--db", args.db], check=True, capture_output=True, text=True)
    return done.stdout.strip()


METADATA = {
    "client_name": "Dana's Python agent",
    "redirect_uris": [CALLBACK],
    "grant_types": ["authorization_code", "refresh_token"],
    "response_types": ["code"],
    "token_endpoint_auth_method": "none",
}


def serve_metadata_document(directory):
    """Serves the client's metadata document over https on a free port,
    under a throwaway authority made here; its URL, and the authority's
    certificate file."""
    at = lambda name: os.path.join(directory, name)
    openssl = lambda *args: subprocess.run(["openssl", *args], check=True, capture_output=True)
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=test client CA", "-keyout", at("ca.key"), "-out", at("ca.crt"))
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", at("client.key"), "-out", at("client.csr"))
    with open(at("san.ext"), "w") as ext:
        ext.write("subjectAltName = IP:127.0.0.1\n")
    openssl("x509", "-req", "-in", at("client.csr"), "-CA", at("ca.crt"), "-CAkey", at("ca.key"), "-CAcreateserial", "-days", "1", "-extfile", at("san.ext"), "-out", at("client.crt"))
    document = {}

    class Document(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = json.dumps(document).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Document)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(at("client.crt"), at("client.key"))
    server.socket = context.wrap_socket(server.socket, server_side=True)
    url = f"https://127.0.0.1:{server.server_address[1]}/client.json"
    document.update(METADATA, client_id=url)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return url, at("ca.crt")


class Dana:
    """Dana's browser at the consent step: signed in with a new login link
    each time (a link signs in once), she reads who asks and approves, and
    her browser is sent back with the code."""

    def __init__(self, base, login_link):
        self.base = base
        self.login_link = login_link
        self.answers = []
        self.asked = 0

    async def approve(self, authorization_url):
        self.asked += 1
        request = urlparse(authorization_url)
        check(request.path == "/oauth/authorize", "the SDK sends dana to the consent page")
        # A page of the host sends what it sends with the host's origin.
        page = {"origin": self.base}
        async with httpx2.AsyncClient(base_url=self.base, timeout=30) as browser:
            login = parse_qs(urlparse(self.login_link()).fragment)["login"][0]
            signed = await browser.post("/session", json={"key": login}, headers=page)
            check(signed.status_code == 201, "dana signs in with her login link")
            shown = await browser.get(f"/oauth/authorization?{request.query}")
            check(shown.status_code == 200, "the consent page reads the request" + ("" if shown.is_success else f": {shown.text}"))
            check(shown.json()["clientName"] == "Dana's Python agent", "it names the client")
            decided = await browser.post("/oauth/authorization", json={"request": f"?{request.query}", "approve": True}, headers=page)
            check(decided.status_code == 200, "dana approves" + ("" if decided.is_success else f": {decided.text}"))
        back = parse_qs(urlparse(decided.json()["redirect"]).query)
        self.answers.append(AuthorizationCodeResult(code=back["code"][0], state=back.get("state", [None])[0], iss=back.get("iss", [None])[0]))

    async def callback(self):
        return self.answers.pop()


async def connect(args, base, rest, dana, documented):
    """One client's whole life: connected from the URL alone (by its
    metadata document when `documented`, else registered), acting,
    refreshed, and revoked."""
    how = "a metadata document" if documented else "registration"
    memory = Memory()
    asked = dana.asked
    provider = OAuthClientProvider(
        server_url=f"{base}/mcp",
        client_metadata=OAuthClientMetadata(**METADATA),
        storage=memory,
        redirect_handler=dana.approve,
        callback_handler=dana.callback,
        client_metadata_url=args.document if documented else None,
    )
    async with httpx2.AsyncClient(auth=provider, timeout=60) as http_client:
        async with streamable_http_client(f"{base}/mcp", http_client=http_client) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                check(dana.asked == asked + 1, f"the SDK found the authorization server from the URL alone ({how})")
                check((memory.client.client_id == args.document) == documented, f"the client is known by {how}")
                tools = {tool.name for tool in (await session.list_tools()).tools}
                check("submit_negotiation_turn" in tools and "open_negotiation" not in tools, "it is offered an agent's tools")
                if documented:
                    turn = await session.call_tool("submit_negotiation_turn", {"opportunityId": OPP, "action": "propose", "message": "Three days a week, from Python."})
                    check(not turn.is_error, "it takes a turn as dana's agent")
                # Its access token expired (keys end on whole seconds).
                expired = memory.tokens.access_token
                rotating = memory.tokens.refresh_token
                await asyncio.sleep(LIFETIME + 1.2)
                refused = await rest.get("/negotiations", headers={"authorization": f"Bearer {expired}"})
                check(refused.status_code == 401, "the expired access token is refused")
                viewed = await session.call_tool("list_negotiations", {})
                check(not viewed.is_error and memory.tokens.refresh_token != rotating, "the SDK refreshes, and the refresh token rotates")
                check(dana.asked == asked + 1, "without asking dana again")

    listed = json.loads(index_tool(args, "--json", "keys", "list"))
    grant = [key for key in listed if key.get("kind") == "oauth" and key["state"] == "active"]
    check(len(grant) == 1 and grant[0]["name"] == "Dana's Python agent", "index keys list shows the grant's token, named for its client")
    index_tool(args, "keys", "revoke", grant[0]["id"])
    refused = await rest.get("/negotiations", headers={"authorization": f"Bearer {memory.tokens.access_token}"})
    check(refused.status_code == 401, "after index keys revoke, the token is refused at once")
    refreshed = await rest.post(
        "/oauth/token",
        data={"grant_type": "refresh_token", "refresh_token": memory.tokens.refresh_token, "client_id": memory.client.client_id},
    )
    check(refreshed.status_code == 400, "and so is its refresh token")


async def main():
    args = arguments()
    args.db = os.path.join(args.dir, "oauth.db")
    args.document, authority = serve_metadata_document(args.dir)
    host_key = key_of(args.index, args.db, "host", host=True)
    serve_args = ("--oauth-allow-local-clients", "--oauth-access-lifetime", str(LIFETIME))
    with serving(args.index, args.db, *serve_args, env={"SSL_CERT_FILE": authority}) as (base, _log):
        async with httpx2.AsyncClient(base_url=base, timeout=30) as rest:
            opened = await rest.post(
                "/negotiations",
                headers={"authorization": f"Bearer {host_key}"},
                json={"opportunityId": OPP, "initiator": {"userId": "dana", "intentId": "dana-intent"}, "responder": {"userId": "sam", "intentId": "sam-intent"}},
            )
            check(opened.status_code == 201, "a negotiation between dana and sam is open")
            dana = Dana(base, lambda: index_tool(args, "keys", "login-link", "--user", "dana", "--base", base))
            for documented in (True, False):
                await connect(args, base, rest, dana, documented)
    print("python oauth done", flush=True)


if __name__ == "__main__":
    run(main)
