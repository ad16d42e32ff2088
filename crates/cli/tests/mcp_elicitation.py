"""A person's own assistant answers a parked question by MCP elicitation,
with the official Python MCP SDK's client (a client nobody here wrote). Run
by crates/cli/tests/mcp.rs, which stalls three negotiations and serves a
model first; exits non-zero on any failure.

dana's client advertises elicitation. Her first park is put to it as a form
and declined: the negotiation stays parked. Her second park (the same
question) comes with the first folded in; she accepts, and both resume. A
client that did not advertise elicitation parks the third and is never
sent a form. A form nobody answers (the fourth) gives up after the ask-user
window, and the question is still answered the ordinary way. A client of
the current protocol (2026-07-28, no sessions to push a form to) parks the
fifth and is asked through `input_required`: the SDK shows the form, retries
with the answer, and the negotiation resumes.

usage: python mcp_elicitation.py --index PATH --dir DIR --db DB --model-base URL
"""

import asyncio

import httpx2
from mcp import Client, ClientSession, types
from mcp.client.streamable_http import streamable_http_client
from mcp_support import arguments, check, key_of, refusal_code, run, serving

FIRST = "5d1e8c2a-7b4f-4e90-a1c3-9f0b2d4e6a81"
SECOND = "9a3c5e7f-1b2d-4f60-8e9a-0c1d2e3f4a5b"
THIRD = "2b4d6f80-1a3c-4e5f-9a7b-8c9d0e1f2a3b"
FOURTH = "7c8d9e0f-2a3b-4c5d-8e6f-0a1b2c3d4e5f"
FIFTH = "4e5f6a7b-8c9d-4e0f-a1b2-c3d4e5f6a7b8"
# The host waits this long for an answer by form.
WINDOW_SECONDS = 2



async def resumed(session, opp):
    """Waits (never polling blindly) until dana's seat moves in a new round."""
    for _ in range(10):
        seen = await session.call_tool("get_negotiation", {"opportunityId": opp, "wait": 5})
        view = seen.structured_content
        if view["negotiation"]["awaitingUserId"] == "dana" and view["parked"] is None:
            return True
    return False


async def logged(log, text):
    for _ in range(100):
        if any(text in line for line in log):
            return True
        await asyncio.sleep(0.1)
    return False


async def with_elicitation(url, key, log):
    asked = asyncio.Queue()
    replies = asyncio.Queue()

    async def on_elicit(context, params):
        await asked.put(params)
        return await replies.get()

    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=60) as http:
        async with streamable_http_client(url, http_client=http) as streams:
            async with ClientSession(streams[0], streams[1], elicitation_callback=on_elicit) as session:
                await session.initialize()
                await session.list_tools()  # as agents do first

                await replies.put(types.ElicitResult(action="decline"))
                parked = await session.call_tool("park_negotiation", {"opportunityId": FIRST, "counterpartyName": "sam"})
                check(parked.structured_content.get("outcome") == "parked", f"the first stalled negotiation parks: {parked.structured_content}")
                form = await asyncio.wait_for(asked.get(), 30)
                check(form.message.startswith("Equity") and "How much equity could you offer?" in form.message, "the question reaches dana's client as a form")
                answer = form.requested_schema["properties"]["answer"]
                check([c["title"] for c in answer["oneOf"]] == ["Under 1%", "1% to 3%"], "its options are the question's")
                check(form.requested_schema["required"] == ["answer"], "an answer is required")
                seen = await session.call_tool("get_negotiation", {"opportunityId": FIRST})
                check(seen.structured_content["parked"] is not None, "declined: the negotiation stays parked")
                again = await session.call_tool("park_negotiation", {"opportunityId": FIRST, "counterpartyName": "sam"})
                check(refusal_code(again) == "already_parked", f"a parked negotiation does not park again, nor ask twice: {again}")

                await replies.put(types.ElicitResult(action="accept", content={"answer": "1"}))
                parked = await session.call_tool("park_negotiation", {"opportunityId": SECOND, "counterpartyName": "sam"})
                check(parked.structured_content["outcome"] == "parked", "the second parks on the same question")
                await asyncio.wait_for(asked.get(), 30)
                check(await resumed(session, SECOND), "accepted: the second resumes with dana to move")
                check(await resumed(session, FIRST), "and the first, which the same answer unblocks")

                # Nobody answers the next form: it gives up after the window.
                parked = await session.call_tool("park_negotiation", {"opportunityId": FOURTH, "counterpartyName": "sam"})
                check(parked.structured_content["outcome"] == "parked", "the fourth parks")
                await asyncio.wait_for(asked.get(), 30)
                check(await logged(log, "no answer by elicitation"), "an unanswered form gives up after the ask-user window")
                blank = await session.call_tool("answer_questions", {
                    "message": parked.structured_content["message"],
                    "answers": [{"question": 0, "answer": "  "}],
                })
                check(refusal_code(blank) == "blank_answer", f"a blank answer is refused whole: {blank}")
                answered = await session.call_tool("answer_questions", {
                    "message": parked.structured_content["message"],
                    "answers": [{"question": 0, "answer": "Under 1%"}],
                })
                outcomes = [(r["opportunityId"], r["outcome"]) for r in answered.structured_content["negotiations"]]
                check(outcomes == [(FOURTH, "resumed")], f"and the question is answered the ordinary way: {outcomes}")


async def without_elicitation(url, key, log):
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=60) as http:
        async with streamable_http_client(url, http_client=http) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                await session.list_tools()  # as agents do first
                parked = await session.call_tool("park_negotiation", {"opportunityId": THIRD, "counterpartyName": "sam"})
                check(parked.structured_content["outcome"] == "parked", "a client without elicitation parks the third")
                check(await logged(log, "not offered"), "and is never sent a form")
                seen = await session.call_tool("get_negotiation", {"opportunityId": THIRD})
                check(seen.structured_content["parked"] is not None, "the third waits for the ordinary answer")


async def current_client(url, key):
    asked = []

    async def on_elicit(context, params):
        asked.append(params)
        return types.ElicitResult(action="accept", content={"answer": "0"})

    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=60) as http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(transport, mode="2026-07-28", elicitation_callback=on_elicit) as client:
            await client.list_tools()  # as agents do first
            parked = await client.call_tool("park_negotiation", {"opportunityId": FIFTH, "counterpartyName": "sam"})
            check(len(asked) == 1 and "How much equity could you offer?" in asked[0].message, "a current client is asked through input_required")
            # The third is still parked on the same question: one answer
            # unblocks both.
            check(parked.structured_content["outcome"] == "parked" and "2 negotiation(s) resumed" in parked.content[1].text, f"its retry carries the answer: {parked.content[1].text}")
            seen = await client.call_tool("get_negotiation", {"opportunityId": FIFTH})
            view = seen.structured_content
            check(view["negotiation"]["awaitingUserId"] == "dana" and view["parked"] is None and view["state"]["park"]["answer"] == "Under 1%", "the fifth resumes with dana to move, the answer on record")
            third = (await client.call_tool("get_negotiation", {"opportunityId": THIRD})).structured_content
            check(third["parked"] is None and third["state"]["park"]["answer"] == "Under 1%", "and the third, parked on the same question")


async def main():
    args = arguments("db", "model-base")
    key = key_of(args.index, args.db, "dana")
    env = dict(INDEX_MODEL_BASE_URL=args.model_base, INDEX_MODEL="gpt-4o", INDEX_MODEL_API_KEY="sk-elicit-secret", RUST_LOG="info")
    with serving(args.index, args.db, "--ask-user-window", str(WINDOW_SECONDS), env=env) as (base, log):
        await with_elicitation(base + "/mcp", key, log)
        await without_elicitation(base + "/mcp", key, log)
        await current_client(base + "/mcp", key)
    text = "".join(log)
    check(key not in text and "sk-elicit-secret" not in text, "no key reaches the log")
    print("elicitation done", flush=True)


if __name__ == "__main__":
    run(main)
