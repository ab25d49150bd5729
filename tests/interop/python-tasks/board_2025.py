"""A sensor board's tasks build (docs/board.md, "The tasks build": the Rust board's
`--features tasks`, the C board's `BOARD_TASKS=1`, the firmware's tasks image) driven by the Python MCP SDK 1.29.0's experimental
tasks client (2025-11-25) over stdio.

    V/bin/python tests/interop/python-tasks/board_2025.py 'BOARD [ARG...]'

`BOARD [ARG...]` is a shell-quoted command line: the board itself, or the board behind
`emcp-bridge exec --`, or `env EMCP_FW_VARIANT=tasks examples/firmware/run.sh m3`. Exits 0 when every check holds (prints one line per check)."""

import asyncio
import shlex
import sys
import time

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client


async def main(command: str) -> None:
    argv = shlex.split(command)
    params = StdioServerParameters(command=argv[0], args=argv[1:])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            assert init.protocolVersion == "2025-11-25", init.protocolVersion
            caps = init.capabilities.tasks
            assert caps is not None and caps.list is not None and caps.cancel is not None, caps
            print("ok initialize: capabilities.tasks", caps.model_dump(exclude_none=True))

            tools = {t.name: t for t in (await session.list_tools()).tools}
            assert list(tools) == ["read_sensor", "set_led", "move_servo", "calibrate"], list(tools)
            assert tools["calibrate"].execution.taskSupport == "required", tools["calibrate"]
            assert tools["move_servo"].execution.taskSupport == "optional", tools["move_servo"]
            assert tools["read_sensor"].execution is None and tools["set_led"].execution is None
            print("ok tools/list: calibrate required, move_servo optional, the others no execution")

            x = session.experimental
            start = time.monotonic()
            created = await x.call_tool_as_task("calibrate", {"sensor": "humidity"})
            task_id = created.task.taskId
            assert created.task.status == "working", created
            statuses = [s.status async for s in x.poll_task(task_id)]
            took = time.monotonic() - start
            assert statuses[0] == "working" and statuses[-1] == "completed", statuses
            assert took >= 1.9, took
            result = await x.get_task_result(task_id, types.CallToolResult)
            assert [c.text for c in result.content] == ["calibrated: humidity"], result
            print(f"ok calibrate as a task: {statuses[0]} .. {statuses[-1]} in {took:.1f} s, '{result.content[0].text}'")

            early = await x.call_tool_as_task("calibrate", {"sensor": "pressure"})
            result = await x.get_task_result(early.task.taskId, types.CallToolResult)
            assert result.content[0].text == "calibrated: pressure", result
            print("ok tasks/result before the end waits for it: 'calibrated: pressure'")

            doomed = await x.call_tool_as_task("calibrate", {"sensor": "temperature"})
            cancelled = await x.cancel_task(doomed.task.taskId)
            assert cancelled.status == "cancelled", cancelled
            await asyncio.sleep(2.1)
            again = await x.get_task(doomed.task.taskId)
            assert again.status == "cancelled", again
            print("ok tasks/cancel: cancelled, and still after 2 s")

            servo = await x.call_tool_as_task("move_servo", {"angle": 45})
            statuses = [s.status async for s in x.poll_task(servo.task.taskId)]
            assert statuses[-1] == "completed", statuses
            result = await x.get_task_result(servo.task.taskId, types.CallToolResult)
            assert result.content[0].text == "servo: 45.0 deg", result
            plain = await session.call_tool("move_servo", {"angle": -30})
            assert plain.content[0].text == "servo: -30.0 deg", plain
            print("ok move_servo as a task: 'servo: 45.0 deg'; as a plain call: 'servo: -30.0 deg'")

            listed = await x.list_tasks()
            ids = [t.taskId for t in listed.tasks]
            want = [task_id, early.task.taskId, doomed.task.taskId, servo.task.taskId]
            assert sorted(ids) == sorted(want), (ids, want)
            print("ok tasks/list: the 4 tasks", sorted(t.status for t in listed.tasks))

            # The table is full (4 slots; tasks live 60 s): a 5th task is refused with
            # the core's error.
            try:
                await x.call_tool_as_task("calibrate", {"sensor": "humidity"})
                raise AssertionError("a 5th task was accepted")
            except Exception as e:  # McpError
                error = getattr(e, "error", None)
                assert getattr(error, "code", None) == -32603, e
                assert error.message == "Task table full", error
            print("ok a 5th task: -32603 'Task table full'")

            try:
                await session.send_request(
                    types.ClientRequest(
                        types.CallToolRequest(
                            params=types.CallToolRequestParams(name="calibrate", arguments={"sensor": "humidity"})
                        )
                    ),
                    types.CallToolResult,
                )
                raise AssertionError("calibrate without a task was served")
            except Exception as e:  # McpError
                assert getattr(getattr(e, "error", None), "code", None) == -32601, e
            print("ok calibrate without a task: -32601")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
