"""The official Python MCP SDK's client (current protocol, no sessions)
through nginx in front of several `index serve` on one store: every request
goes to the next host, so each poll, answer and retry lands on another host
than the call before it. Run by crates/cli/tests/mcp.rs, which stalls the
negotiations, serves a model, and starts the hosts and the balancer first;
exits non-zero on any failure.

- mcp_tasks.py's agents: dana's wait runs as a task (each `tasks/get` on
  the next host) and ends on sam's move; her park runs as a task that asks
  her through itself, and her answer, sent by `tasks/update` to whichever
  host, is delivered once; sam cannot read her task on any host;
- ivy's park asks through `input_required`, and the SDK's retry, on another
  host, delivers her answer;
- with `--kills 1` or more: jay's park asks through `input_required`, the
  host that asked is killed (SIGKILL) before the retry, and the retry is
  answered by another host; with `--kills 2`: kim's park runs as a task, the
  host running it is killed while it asks her, her answer goes to another
  host, and the task ends failed, saying that her answer was delivered.
  Each answer is on record once.

usage: python mcp_balanced.py --index PATH --dir DIR --db DB --url URL
       --hosts URL,URL,... --pids PID,PID,... --metrics-key KEY --ids ID,ID,... --kills N
"""

import argparse
import asyncio
import json
import os
import signal
import subprocess

import httpx2
from mcp import Client, types
from mcp.client.streamable_http import streamable_http_client
from mcp_support import check, key_of, run
from mcp_tasks import Tasks, agents, client, get_task


def arguments():
    parser = argparse.ArgumentParser()
    for name in ("index", "dir", "db", "url", "hosts", "pids", "metrics-key", "ids", "kills"):
        parser.add_argument(f"--{name}", required=True)
    return parser.parse_args()


def metric(base, key, name):
    """The sum of the samples of `name` on the host at `base`."""
    text = httpx2.get(f"{base}/metrics", headers={"Authorization": f"Bearer {key}"}).text
    total = 0.0
    for line in text.splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            total += float(line.rsplit(" ", 1)[1])
    return total


def answers_on_record(index, db, opp, answer):
    out = subprocess.run([index, "--json", "negotiation", "messages", opp, "--db", db], check=True, capture_output=True, text=True)
    return sum(1 for message in json.loads(out.stdout) if message["parts"][0].get("text") == answer)


class Hosts:
    """The hosts behind the balancer, to find and kill the one that holds
    some work."""

    def __init__(self, args):
        self.bases = args.hosts.split(",")
        self.pids = [int(pid) for pid in args.pids.split(",")]
        self.key = args.metrics_key
        self.alive = set(range(len(self.bases)))

    def counts(self, name):
        return {i: metric(self.bases[i], self.key, name) for i in self.alive}

    def kill(self, i):
        os.kill(self.pids[i], signal.SIGKILL)
        self.alive.discard(i)


async def current(url, key, answer):
    """A current client whose elicitation callback is `answer`."""
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=60)
    return http, Client(streamable_http_client(url, http_client=http), mode="2026-07-28", elicitation_callback=answer)


async def main():
    args = arguments()
    url = args.url + "/mcp"
    first, second, third, fourth, fifth = args.ids.split(",")
    hosts = Hosts(args)
    kills = int(args.kills)
    keys = {user: key_of(args.index, args.db, user) for user in ("dana", "sam", "ivy", "jay", "kim")}

    # Every poll, update and call of mcp_tasks.py's agents, each on the next host.
    await agents(url, keys["dana"], keys["sam"], first, second)
    check(answers_on_record(args.index, args.db, second, "1% to 3%") == 1, "dana's answer is on record once")

    asked = []

    async def answer_ivy(context, params):
        asked.append(params)
        return types.ElicitResult(action="accept", content={"answer": "1"})

    http, ivy = await current(url, keys["ivy"], answer_ivy)
    async with http, ivy:
        parked = await ivy.call_tool("park_negotiation", {"opportunityId": third, "counterpartyName": "sam"})
        check(len(asked) == 1 and "1 negotiation(s) resumed" in parked.content[1].text, f"ivy's retry, on another host, delivers her answer: {parked.content[1].text}")
    check(answers_on_record(args.index, args.db, third, "1% to 3%") == 1, "ivy's answer is on record once")

    if kills >= 1:
        before = hosts.counts("index_parks_total")

        async def answer_jay(context, params):
            after = hosts.counts("index_parks_total")
            asker = next(i for i in after if after[i] > before[i])
            hosts.kill(asker)
            return types.ElicitResult(action="accept", content={"answer": "1"})

        http, jay = await current(url, keys["jay"], answer_jay)
        async with http, jay:
            parked = await jay.call_tool("park_negotiation", {"opportunityId": fourth, "counterpartyName": "sam"})
            check("1 negotiation(s) resumed" in parked.content[1].text, f"the host that asked jay is killed, and his retry is answered by another: {parked.content[1].text}")
        check(answers_on_record(args.index, args.db, fourth, "1% to 3%") == 1, "jay's answer is on record once")

    if kills >= 2:

        async def answer_kim(params):
            running = hosts.counts("index_mcp_tasks_running")
            hosts.kill(next(i for i in running if running[i] == 1))
            return types.ElicitResult(action="accept", content={"answer": "1"})

        class Surviving(Tasks):
            """Returns how the task ended, failed or not."""

            async def resolve(self, handle, context):
                self.started.append(handle.task_id)
                answered = set()
                while True:
                    task = await get_task(context.session, handle.task_id)
                    if task["status"] in ("completed", "failed", "cancelled"):
                        return types.CallToolResult(content=[types.TextContent(type="text", text=repr(task))], is_error=task["status"] != "completed")
                    await self.respond(context.session, handle.task_id, task, answered)
                    await asyncio.sleep(0.5)

        kim_tasks = Surviving(answer_kim)
        kim_http, kim = client(url, keys["kim"], [kim_tasks])
        async with kim_http, kim:
            ended = await kim.call_tool("park_negotiation", {"opportunityId": fifth, "counterpartyName": "sam"})
            text = ended.content[0].text
            check("failed" in text and "answer was delivered" in text, f"the host running kim's task is killed; another fails the task, delivering her answer: {text}")
            view = (await kim.call_tool("get_negotiation", {"opportunityId": fifth})).structured_content
            check(view["negotiation"]["awaitingUserId"] == "kim" and view["parked"] is None, "kim's negotiation resumes with her to move")
        check(answers_on_record(args.index, args.db, fifth, "1% to 3%") == 1, "kim's answer is on record once")

    print("balanced done", flush=True)


if __name__ == "__main__":
    run(main)
