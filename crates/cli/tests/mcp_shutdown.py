"""A host stopped while MCP waits are under way answers each of them, on
both protocols, with the negotiation as it is, and logs no error: a
session (2025-11-25) and a current client (2026-07-28), each on httpx's
default timeout and having listed the tools first as agents do, wait on a
negotiation nobody moves, and the host gets SIGTERM three seconds in.
Run by crates/cli/tests/mcp.rs; exits non-zero on any failure.

usage: python mcp_shutdown.py --index PATH/TO/index --dir SCRATCH_DIR
"""

import asyncio
import os
import time

import httpx2
from mcp import Client, ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp_support import arguments, check, key_of, run, serving, stop_now

OPP = "6f1a3c5e-7b9d-4e2f-8a0c-1d3e5f7a9b2c"


async def waited(connect):
    """The result of a 40-second wait through `connect`; what the client
    does after it, with the host gone, is not this test's business."""
    result = None
    try:
        async with connect() as call:
            result = await call()
    except Exception:
        if result is None:
            raise
    return result


def as_session(url, key):
    class Session:
        async def __aenter__(self):
            self.http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"})
            self.streams = streamable_http_client(url, http_client=self.http)
            read, write, *_ = await self.streams.__aenter__()
            self.session = ClientSession(read, write)
            await self.session.__aenter__()
            await self.session.initialize()
            await self.session.list_tools()
            return lambda: self.session.call_tool("get_negotiation", {"opportunityId": OPP, "wait": 40})

        async def __aexit__(self, *exc):
            await self.session.__aexit__(*exc)
            await self.streams.__aexit__(*exc)
            await self.http.aclose()

    return Session()


def as_current(url, key):
    class Current:
        async def __aenter__(self):
            self.http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"})
            self.client = Client(streamable_http_client(url, http_client=self.http), mode="2026-07-28")
            await self.client.__aenter__()
            await self.client.list_tools()
            return lambda: self.client.call_tool("get_negotiation", {"opportunityId": OPP, "wait": 40})

        async def __aexit__(self, *exc):
            await self.client.__aexit__(*exc)
            await self.http.aclose()

    return Current()


async def main():
    args = arguments()
    db = os.path.join(args.dir, "shutdown.db")
    host_key = key_of(args.index, db, "host", host=True)
    sam = key_of(args.index, db, "sam")
    with serving(args.index, db) as (base, log):
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {host_key}"}) as http:
            opened = await http.post(base + "/negotiations", json={
                "opportunityId": OPP,
                "initiator": {"userId": "dana", "intentId": "hire"},
                "responder": {"userId": "sam", "intentId": "join"},
            })
            check(opened.status_code == 201, "the host key opens the negotiation")

        async def stop_soon():
            await asyncio.sleep(3)
            stop_now(base)

        started = time.monotonic()
        old, new, _ = await asyncio.gather(
            waited(lambda: as_session(base + "/mcp", sam)),
            waited(lambda: as_current(base + "/mcp", sam)),
            stop_soon(),
        )
        took = time.monotonic() - started
        for how, seen in [("a session's", old), ("a current client's", new)]:
            check(not seen.is_error and seen.structured_content["negotiation"]["awaitingUserId"] == "dana",
                  f"{how} wait is answered with the negotiation as the host stops")
        check(took < 10, f"the stop answered the waits at once ({took:.1f} s)")
    text = "".join(log)
    errors = [line for line in text.splitlines() if " ERROR " in line]
    check(not errors, "an ordinary stop logs no error" + "".join("\n  " + line for line in errors))
    print("shutdown done", flush=True)


if __name__ == "__main__":
    run(main)
