"""The 2025-11-25 experimental tasks of examples/conformance-server, driven by the
Python MCP SDK 1.29.0 (its `session.experimental` tasks client) over stdio.

    python -m venv V && V/bin/pip install mcp==1.29.0
    V/bin/python tests/interop/python-tasks/tasks_2025.py target/release/conformance-server
    V/bin/python tests/interop/python-tasks/tasks_2025.py --http target/release/conformance-server

With --http, the server is started as `SERVER --listen 127.0.0.1:PORT` and driven over
Streamable HTTP (the input requests of a task then arrive on the `tasks/result`
response's stream). Exits 0 when every check holds (prints one line per check)."""

import asyncio
import contextlib
import socket
import subprocess
import sys

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamablehttp_client


# What the server asked through elicitation: (message, the related task's id).
asked: list[tuple[str, str | None]] = []


async def elicit(context, params: types.ElicitRequestParams) -> types.ElicitResult:
    """Answers every elicitation yes, noting the task it says it belongs to."""
    meta = params.meta.model_dump(by_alias=True) if params.meta else {}
    related = meta.get("io.modelcontextprotocol/related-task") or {}
    asked.append((params.message, related.get("taskId")))
    return types.ElicitResult(action="accept", content={"confirm": True, "name": "py"})


async def input_required(x, task_id: str) -> None:
    """Polls task `task_id` until it waits for input (tasks/result then carries the
    requests, as the revision has it)."""
    async for status in x.poll_task(task_id):
        if status.status == "input_required":
            return
    raise AssertionError(f"task {task_id} ended without asking")


@contextlib.asynccontextmanager
async def connect(server: str, http: bool):
    """The server's (read, write) streams: over stdio, or over Streamable HTTP to
    the server started on a free loopback port."""
    if not http:
        params = StdioServerParameters(command=server, args=["--stdio"])
        async with stdio_client(params) as (read, write):
            yield read, write
        return
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([server, "--listen", f"127.0.0.1:{port}"], stdout=subprocess.DEVNULL)
    try:
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                await asyncio.sleep(0.05)
        async with streamablehttp_client(f"http://127.0.0.1:{port}/mcp") as (read, write, _):
            yield read, write
    finally:
        proc.terminate()
        proc.wait()


async def main(server: str, http: bool) -> None:
    async with connect(server, http) as (read, write):
        async with ClientSession(read, write, elicitation_callback=elicit) as session:
            init = await session.initialize()
            assert init.protocolVersion == "2025-11-25", init.protocolVersion
            caps = init.capabilities
            assert caps.tasks is not None, caps
            print("ok initialize: capabilities.tasks", caps.tasks.model_dump(exclude_none=True))

            tools, cursor = {}, None
            while True:
                page = await session.list_tools(cursor=cursor)
                tools.update({t.name: t for t in page.tools})
                cursor = page.nextCursor
                if not cursor:
                    break
            assert tools["slow_compute"].execution.taskSupport == "optional"
            assert tools["failing_job"].execution.taskSupport == "required"
            assert tools["greet"].execution is None
            print("ok tools/list: execution.taskSupport")

            x = session.experimental
            created = await x.call_tool_as_task("slow_compute", {"seconds": 1, "label": "py"})
            task_id = created.task.taskId
            assert created.task.status == "working", created
            print("ok tools/call + task:", task_id, created.task.ttl, created.task.pollInterval)

            statuses = [s.status async for s in x.poll_task(task_id)]
            assert statuses[-1] == "completed", statuses
            print("ok tasks/get until terminal:", statuses)

            result = await x.get_task_result(task_id, types.CallToolResult)
            assert result.content[0].text == "Computed py", result
            print("ok tasks/result:", result.content[0].text)

            # tasks/result before the end waits for it.
            early = await x.call_tool_as_task("slow_compute", {"seconds": 1, "label": "wait"})
            result = await x.get_task_result(early.task.taskId, types.CallToolResult)
            assert result.content[0].text == "Computed wait", result
            print("ok tasks/result waits for the end")

            failing = await x.call_tool_as_task("failing_job", {})
            statuses = [s.status async for s in x.poll_task(failing.task.taskId)]
            assert statuses[-1] == "failed", statuses
            result = await x.get_task_result(failing.task.taskId, types.CallToolResult)
            assert result.isError, result
            print("ok isError fails the task; tasks/result gives the result")

            long = await x.call_tool_as_task("slow_compute", {"seconds": 60, "label": "c"})
            cancelled = await x.cancel_task(long.task.taskId)
            assert cancelled.status == "cancelled", cancelled
            print("ok tasks/cancel")

            listed = await x.list_tasks()
            ids = {t.taskId for t in listed.tasks}
            assert {task_id, failing.task.taskId, long.task.taskId} <= ids, ids
            print("ok tasks/list:", len(listed.tasks), "tasks")

            try:
                await session.send_request(
                    types.ClientRequest(
                        types.CallToolRequest(
                            params=types.CallToolRequestParams(name="failing_job", arguments={})
                        )
                    ),
                    types.CallToolResult,
                )
                raise AssertionError("a required tool without a task was served")
            except Exception as e:  # McpError
                assert getattr(getattr(e, "error", None), "code", None) == -32601, e
            print("ok a required tool without a task: -32601")

            # Input during a task: the elicitation arrives on tasks/result's way,
            # tagged with the task; the result follows the answer.
            confirm = await x.call_tool_as_task("confirm_delete", {"filename": "a.txt"})
            tid = confirm.task.taskId
            await input_required(x, tid)
            result = await x.get_task_result(tid, types.CallToolResult)
            assert result.content[0].text == "Deleted a.txt", result
            assert asked == [("Delete the file?", tid)], asked
            print("ok input during a task: elicitation/create tagged with the task, then the result")

            asked.clear()
            multi = await x.call_tool_as_task("multi_input", {})
            await input_required(x, multi.task.taskId)
            result = await x.get_task_result(multi.task.taskId, types.CallToolResult)
            assert result.content[0].text == "Received both inputs", result
            assert sorted(asked) == [("Do you confirm?", multi.task.taskId),
                                     ("Your name?", multi.task.taskId)], asked
            print("ok two requests of one task, each answered, then the result")

            plain = await session.call_tool("greet", {"name": "py"})
            assert plain.content[0].text == "Hello, py!"
            print("ok an ordinary call beside the tasks")


if __name__ == "__main__":
    args = sys.argv[1:]
    http = args[:1] == ["--http"]
    asyncio.run(main(args[-1], http))
