"""A person's negotiations as MCP resources, read and watched with the
official Python MCP SDK (a client nobody here wrote). Run by
crates/cli/tests/mcp.rs; exits non-zero on any failure.

dana lists her negotiations as resources, reads one, and is told when sam
takes a turn on it: as a client of the current protocol (2026-07-28,
`subscriptions/listen`) and as an older one (`resources/subscribe`). A
negotiation she holds no seat in reads as not found.

usage: python mcp_resources.py --index PATH --dir DIR
"""

import asyncio
import json
import os
import warnings

import httpx2
from mcp import Client, ClientSession, types
from mcp.client.streamable_http import streamable_http_client
from mcp_support import arguments, check, key_of, run, serving

OPP = "6a7b8c9d-0e1f-4a2b-8c3d-4e5f6a7b8c9d"
OTHER = "1f2e3d4c-5b6a-4978-8695-a4b3c2d1e0f9"
URI = f"index://negotiations/{OPP}"




async def rest(base, key, method, path, body=None):
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=30) as http:
        response = await http.request(method, base + path, json=body)
        return response.status_code, response.json()


async def current(base, keys):
    turns = iter(["Lunch on Friday?", "Friday it is, at noon?"])
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {keys['dana']}"}, timeout=60) as http:
        async with Client(streamable_http_client(base + "/mcp", http_client=http), mode="2026-07-28") as client:
            await client.list_tools()  # as agents do first
            listed = await client.list_resources()
            check([r.uri for r in listed.resources] == [URI], f"dana's negotiations are listed as resources: {[r.uri for r in listed.resources]}")
            templates = await client.list_resource_templates()
            check(templates.resource_templates[0].uri_template == "index://negotiations/{opportunityId}", "with the template that names one")
            read = await client.read_resource(URI)
            view = json.loads(read.contents[0].text)
            check(view["negotiation"]["id"] == OPP and view["observation"]["availableActions"] == ["propose", "decline"], "a read is the negotiation as dana's seat sees it")
            try:
                await client.read_resource(f"index://negotiations/{OTHER}")
                check(False, "a stranger's negotiation is not read")
            except Exception as err:  # the SDK raises the server's error
                check("no negotiation" in str(err), "a negotiation dana holds no seat in reads as not found")

            async with client.listen(resource_subscriptions=[URI, f"index://negotiations/{OTHER}"]) as sub:
                check(URI in (sub.honored.resource_subscriptions or []), "a current client listens to its negotiation")
                status, _ = await rest(base, keys["dana"], "POST", f"/opportunities/{OPP}/negotiation/turns", {"action": "propose", "message": next(turns)})
                check(status == 200, "dana proposes over REST")
                event = await asyncio.wait_for(sub.__anext__(), 20)
                check(getattr(event, "uri", None) == URI, f"and hears of the change: {event!r}")


async def legacy(base, keys):
    updated = asyncio.Queue()

    async def on_message(message):
        if isinstance(message, types.ResourceUpdatedNotification):
            await updated.put(message)

    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {keys['dana']}"}, timeout=60) as http:
        async with streamable_http_client(base + "/mcp", http_client=http) as streams:
            async with ClientSession(streams[0], streams[1], message_handler=on_message) as session:
                initialized = await session.initialize()
                await session.list_tools()  # as agents do first
                check(initialized.capabilities.resources.subscribe, "an older client is offered subscriptions")
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    await session.subscribe_resource(URI)
                status, _ = await rest(base, keys["sam"], "POST", f"/opportunities/{OPP}/negotiation/turns", {"action": "accept", "message": "Friday it is."})
                check(status == 200, "sam accepts over REST")
                heard = await asyncio.wait_for(updated.get(), 20)
                check(heard.params.uri == URI, "and the older client hears of it")


async def main():
    args = arguments()
    db = os.path.join(args.dir, "resources.db")
    keys = {user: key_of(args.index, db, user, user == "host") for user in ["host", "dana", "sam", "mallory"]}
    with serving(args.index, db, env={"RUST_LOG": "warn"}) as (base, _log):
        for opp, (a, b) in [(OPP, ("dana", "sam")), (OTHER, ("sam", "mallory"))]:
            status, _ = await rest(base, keys["host"], "POST", "/negotiations", {
                "opportunityId": opp,
                "initiator": {"userId": a, "intentId": "hire"},
                "responder": {"userId": b, "intentId": "join"},
            })
            check(status == 201, f"the host opens {opp}")
        await current(base, keys)
        await legacy(base, keys)
    print("resources done", flush=True)


if __name__ == "__main__":
    run(main)
