"""Two negotiator agents, one per seat, negotiate through `index serve` with
the official Python MCP SDK (a client nobody here wrote): over streamable
HTTP and over stdio, each until agreement; a stranger's key and a bad key are
refused. Run by crates/cli/tests/mcp.rs; exits non-zero on any failure.

usage: python mcp_agents.py --index PATH/TO/index --dir SCRATCH_DIR
"""

import asyncio
import os
import time

import httpx2
from mcp import Client, ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp_support import arguments, check, key_of, refusal_code, run, serving

HTTP_OPP = "5d1e8c2a-7b4f-4e90-a1c3-9f0b2d4e6a81"
# Nobody moves here: sam waits on it, dana being to move.
QUIET_OPP = "2b6d8f0a-4c5e-4a71-9b3d-5e7f9a1c3d5e"
STDIO_OPP = "9a3c5e7f-1b2d-4f60-8e9a-0c1d2e3f4a5b"

# What each seat says, in order: the initiator proposes, the responder
# counters, the initiator proposes again, the responder accepts.
SCRIPTS = {
    "dana": [("propose", "A founding role at 1% equity?"), ("propose", "1.5% with a four-year vest.")],
    "sam": [("counter", "What about the vesting schedule?"), ("accept", "Agreed.")],
}




async def agent(session, me, opp):
    """Plays `me`'s script on `opp`, waiting (never polling) for its turns."""
    await session.initialize()
    tools = {tool.name: tool for tool in (await session.list_tools()).tools}
    check({"get_negotiation", "submit_negotiation_turn", "resume_negotiation", "list_negotiations"} <= set(tools), f"{me} sees the four tools")
    check(tools["get_negotiation"].annotations.read_only_hint is True, f"{me}: get_negotiation is read-only")
    script = list(SCRIPTS[me])
    while True:
        seen = await session.call_tool("get_negotiation", {"opportunityId": opp, "wait": 20})
        check(not seen.is_error, f"{me} reads the negotiation")
        view = seen.structured_content
        if view["negotiation"]["settled"]:
            return view
        if view["negotiation"]["awaitingUserId"] != me:
            continue
        action, message = script.pop(0)
        check(action in view["observation"]["availableActions"], f"{me} may {action}")
        taken = await session.call_tool("submit_negotiation_turn", {"opportunityId": opp, "action": action, "message": message})
        check(not taken.is_error, f"{me} {action}s: {taken.content[0].text}")


async def over_http(url, key, me, opp):
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=60) as http:
        async with streamable_http_client(url, http_client=http) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                return await agent(session, me, opp)


async def refusals(url, keys):
    """Before anyone moves: the rules' refusals come back as tool errors
    with their codes, and change nothing."""
    for me, action, code in [("sam", "propose", "not_your_turn"), ("dana", "counter", "counter_is_first")]:
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {keys[me]}"}, timeout=60) as http:
            async with streamable_http_client(url, http_client=http) as streams:
                async with ClientSession(streams[0], streams[1]) as session:
                    await session.initialize()
                    await session.list_tools()  # as agents do first
                    result = await session.call_tool("submit_negotiation_turn", {"opportunityId": HTTP_OPP, "action": action, "message": "Too soon."})
                    check(refusal_code(result) == code, f"{me}'s {action} is refused: {code}")
                    seen = await session.call_tool("get_negotiation", {"opportunityId": HTTP_OPP})
                    check(seen.structured_content["state"]["turns"] == [], "a refusal changes nothing")


async def stranger(url, key):
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=60) as http:
        async with streamable_http_client(url, http_client=http) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                await session.list_tools()  # as agents do first
                for tool, args in [
                    ("get_negotiation", {"opportunityId": HTTP_OPP}),
                    ("submit_negotiation_turn", {"opportunityId": HTTP_OPP, "action": "accept", "message": "Mine."}),
                ]:
                    result = await session.call_tool(tool, args)
                    check(refusal_code(result) == "not_found", f"a stranger's {tool} is not_found")
                listed = await session.call_tool("list_negotiations", {})
                check(listed.structured_content["negotiations"] == [], "a stranger lists nothing")


async def patient(url, key):
    """Sam waits 40 seconds on a negotiation nobody moves, through clients
    on httpx's default timeout (5 seconds without a byte fails a read), on
    both protocols at once: each wait is answered when it ends."""
    async def session_wait():
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}) as http:
            async with streamable_http_client(url, http_client=http) as streams:
                async with ClientSession(streams[0], streams[1]) as session:
                    await session.initialize()
                    await session.list_tools()  # as agents do first
                    return await session.call_tool("get_negotiation", {"opportunityId": QUIET_OPP, "wait": 40})

    async def current_wait():
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}) as http:
            async with Client(streamable_http_client(url, http_client=http), mode="2026-07-28") as client:
                await client.list_tools()  # as agents do first
                return await client.call_tool("get_negotiation", {"opportunityId": QUIET_OPP, "wait": 40})

    started = time.monotonic()
    old, new = await asyncio.gather(session_wait(), current_wait())
    waited = time.monotonic() - started
    for how, seen in [("a session", old), ("a current client", new)]:
        check(not seen.is_error and seen.structured_content["negotiation"]["awaitingUserId"] == "dana",
              f"{how} on httpx's default timeout holds a 40-second wait ({waited:.0f} s)")
    check(waited >= 39, "the waits ran their whole length")


async def bad_key(base):
    async with httpx2.AsyncClient(headers={"Authorization": "Bearer idx_" + "0" * 64}) as http:
        reply = await http.post(base + "/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}})
        check(reply.status_code == 401, "an unknown key gets 401 from /mcp")


async def over_stdio(index, db, key_file, me, opp):
    params = StdioServerParameters(command=index, args=["serve", "--mcp-stdio", "--key-file", key_file, "--db", db], env={"RUST_LOG": "warn"})
    async with stdio_client(params) as streams:
        async with ClientSession(streams[0], streams[1]) as session:
            return await agent(session, me, opp)


async def main():
    args = arguments()
    db = os.path.join(args.dir, "agents.db")
    keys = {user: key_of(args.index, db, user, host=(user == "host")) for user in ["host", "dana", "sam", "mallory"]}
    for user, key in keys.items():
        with open(os.path.join(args.dir, f"{user}.key"), "w") as f:
            f.write(key + "\n")

    with serving(args.index, db) as (base, log):
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {keys['host']}"}) as host:
            for opp in (HTTP_OPP, STDIO_OPP, QUIET_OPP):
                opened = await host.post(base + "/negotiations", json={
                    "opportunityId": opp,
                    "initiator": {"userId": "dana", "intentId": "hire-founding-engineer"},
                    "responder": {"userId": "sam", "intentId": "join-early-startup"},
                })
                check(opened.status_code == 201, f"the host key opens {opp}")

        await refusals(base + "/mcp", keys)
        dana, sam, _ = await asyncio.gather(
            over_http(base + "/mcp", keys["dana"], "dana", HTTP_OPP),
            over_http(base + "/mcp", keys["sam"], "sam", HTTP_OPP),
            patient(base + "/mcp", keys["sam"]),
        )
        check(dana["negotiation"]["outcome"] == "agreed" == sam["negotiation"]["outcome"], "over HTTP the seats agree")
        check(len(dana["state"]["turns"]) == 4, "four turns, none lost or doubled")
        await stranger(base + "/mcp", keys["mallory"])
        await bad_key(base)

        dana, sam = await asyncio.gather(
            over_stdio(args.index, db, os.path.join(args.dir, "dana.key"), "dana", STDIO_OPP),
            over_stdio(args.index, db, os.path.join(args.dir, "sam.key"), "sam", STDIO_OPP),
        )
        check(dana["negotiation"]["status"] == "pending" == sam["negotiation"]["status"], "over stdio the seats agree")
    text = "".join(log)
    check("authenticated" in text and 'user="dana"' in text, "the host logs who called")
    check(not any(key in text for key in keys.values()), "no key reaches the log")
    check(not any(message in text for turns in SCRIPTS.values() for _, message in turns), "no message body reaches the log")
    print("all agents done", flush=True)


if __name__ == "__main__":
    run(main)
