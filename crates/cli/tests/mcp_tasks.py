"""An agent whose client takes MCP tasks (the `io.modelcontextprotocol/tasks`
extension) waits and parks through them, with the official Python MCP SDK's
client (a client nobody here wrote) and its extension interface. The SDK
carries no tasks client of its own, so `Tasks` below is the part a client
adds through that interface: the task result it claims on `tools/call`, and
a resolver that polls `tasks/get`, answers what the task asks with
`tasks/update`, and returns the task's tool result. Run by
crates/cli/tests/mcp.rs, which stalls two negotiations and serves a model
first; exits non-zero on any failure.

dana's client waits on the first as a task; sam resumes it, and the task
ends with sam to move. dana parks the second as a task; the task asks her
through itself, her answer goes back by `tasks/update`, and the negotiation
resumes with her to move. sam cannot read dana's task.

usage: python mcp_tasks.py --index PATH --dir DIR --db DB --model-base URL
"""

import asyncio
from typing import Any, Literal

import httpx2
from mcp import Client, types
from mcp.client import ClientExtension, ResultClaim
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import Request, RequestParams, Result
from mcp_support import arguments, check, key_of, run, serving
from pydantic import TypeAdapter

FIRST = "3e4f5a6b-7c8d-4e9f-a0b1-c2d3e4f5a6b7"
SECOND = "8f9a0b1c-2d3e-4f5a-b6c7-d8e9f0a1b2c3"
TASKS = "io.modelcontextprotocol/tasks"


class TaskHandle(Result):
    """What a `tools/call` answers when it runs as a task."""

    result_type: Literal["task"]
    task_id: str
    status: str
    poll_interval_ms: int | None = None


class OnTask(RequestParams):
    task_id: str


class Answers(OnTask):
    input_responses: dict[str, Any]


class GetTask(Request[OnTask, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    name_param = "taskId"


class UpdateTask(Request[Answers, Literal["tasks/update"]]):
    method: Literal["tasks/update"] = "tasks/update"
    name_param = "taskId"


ANY = TypeAdapter(dict[str, Any])


async def get_task(session, task_id):
    return await session.send_request(GetTask(params=OnTask(task_id=task_id)), ANY)


class Tasks(ClientExtension):
    """The tasks extension, as a client: `answer` answers what a task asks
    (an elicitation's params, as JSON, with an `ElicitResult`)."""

    identifier = TASKS

    def __init__(self, answer=None):
        self.answer = answer
        self.started = []
        self.asked = []

    def claims(self):
        return [ResultClaim(result_type="task", model=TaskHandle, resolve=self.resolve)]

    async def resolve(self, handle, context):
        self.started.append(handle.task_id)
        answered = set()
        while True:
            task = await get_task(context.session, handle.task_id)
            status = task["status"]
            if status == "completed":
                return types.CallToolResult.model_validate(task["result"])
            if status != "working" and status != "input_required":
                raise RuntimeError(f"the task ended {status}: {task}")
            await self.respond(context.session, handle.task_id, task, answered)
            await asyncio.sleep((task.get("pollIntervalMs") or 1000) / 1000)

    async def respond(self, session, task_id, task, answered):
        """Answers, by `tasks/update`, what `task` asks that is not in
        `answered` (the keys answered before, which it adds to)."""
        responses = {}
        for key, request in task.get("inputRequests", {}).items():
            if key in answered or self.answer is None:
                continue
            self.asked.append((key, request))
            result = await self.answer(request["params"])
            responses[key] = result.model_dump(by_alias=True, exclude_none=True, mode="json")
        if responses:
            answered.update(responses)
            update = UpdateTask(params=Answers(task_id=task_id, input_responses=responses))
            await session.send_request(update, ANY)


def client(url, key, extensions=()):
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=60)
    elicit = {}
    if extensions:
        # The form comes through the task, so the client says it shows forms.
        async def never(context, params):
            raise AssertionError("a task client is asked through its tasks")

        elicit = {"elicitation_callback": never}
    return http, Client(streamable_http_client(url, http_client=http), mode="2026-07-28", extensions=list(extensions), **elicit)


async def agents(url, dana_key, sam_key, first=FIRST, second=SECOND):
    """dana's wait and park as tasks on `first` and `second`, sam beside
    her: every check of this script but the log's."""
    async def answer(params):
        check("How much equity could you offer?" in params["message"], "the question reaches dana through her task")
        return types.ElicitResult(action="accept", content={"answer": "1"})

    dana_tasks = Tasks(answer)
    dana_http, dana = client(url, dana_key, [dana_tasks])
    sam_http, sam = client(url, sam_key, [Tasks()])
    async with dana_http, sam_http, dana, sam:
        for agent in (dana, sam):
            await agent.list_tools()  # as agents do first
        waiting = asyncio.create_task(dana.call_tool("get_negotiation", {"opportunityId": first, "wait": 40}))
        await asyncio.sleep(1.5)
        check(not waiting.done() and len(dana_tasks.started) == 1, "dana's wait runs as a task")
        resumed = await sam.call_tool("resume_negotiation", {"opportunityId": first})
        check(not resumed.is_error, f"sam resumes the first: {resumed.content}")
        seen = await asyncio.wait_for(waiting, 30)
        check(seen.structured_content["negotiation"]["awaitingUserId"] == "sam", f"the task ends on sam's move: {seen.structured_content['negotiation']}")

        parked = await dana.call_tool("park_negotiation", {"opportunityId": second, "counterpartyName": "sam"})
        check(len(dana_tasks.started) == 2 and [key for key, _ in dana_tasks.asked] == [f"park:{second}"], "the park runs as a task that asks once, keyed by its question")
        check(parked.structured_content["outcome"] == "parked" and "1 negotiation(s) resumed" in parked.content[1].text, f"the task ends with the answer delivered: {parked.content[1].text}")
        view = (await dana.call_tool("get_negotiation", {"opportunityId": second})).structured_content
        check(view["negotiation"]["awaitingUserId"] == "dana" and view["parked"] is None and view["state"]["park"]["answer"] == "1% to 3%", "the second resumes with dana to move, the answer on record")

        try:
            stolen = await get_task(sam.session, dana_tasks.started[1])
        except MCPError as err:
            stolen = err
        check(isinstance(stolen, MCPError) and stolen.code == -32602, f"sam cannot read dana's task: {stolen!r}")


async def main():
    args = arguments("db", "model-base")
    dana, sam = key_of(args.index, args.db, "dana"), key_of(args.index, args.db, "sam")
    env = dict(INDEX_MODEL_BASE_URL=args.model_base, INDEX_MODEL="gpt-4o", INDEX_MODEL_API_KEY="sk-tasks-secret", RUST_LOG="info")
    with serving(args.index, args.db, env=env) as (base, log):
        await agents(base + "/mcp", dana, sam)
    text = "".join(log)
    check(dana not in text and sam not in text and "sk-tasks-secret" not in text, "no key reaches the log")
    print("tasks done", flush=True)


if __name__ == "__main__":
    run(main)
