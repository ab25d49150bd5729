"""The C sensor board's tasks build (docs/board.md, "The tasks build"), driven by the
Python MCP SDK 1.29.0's 2025-11-25 tasks client (`session.experimental`) over stdio.

    V/bin/python tests/interop/python-tasks/c_board_2025.py target/c-sensor-board-tasks/c-sensor-board

Exits 0 when every check holds (prints one line per check)."""

import asyncio
import sys
import time

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client


async def main(board: str) -> None:
    params = StdioServerParameters(command=board[0], args=board[1:])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            assert init.protocolVersion == "2025-11-25", init.protocolVersion
            assert init.capabilities.tasks is not None, init.capabilities
            print("ok initialize: capabilities.tasks",
                  init.capabilities.tasks.model_dump(exclude_none=True))

            tools = {t.name: t for t in (await session.list_tools()).tools}
            assert list(tools) == ["read_sensor", "set_led", "move_servo", "calibrate"], list(tools)
            assert tools["calibrate"].execution.taskSupport == "required"
            assert tools["move_servo"].execution.taskSupport == "optional"
            assert tools["read_sensor"].execution is None and tools["set_led"].execution is None
            print("ok tools/list: calibrate required, move_servo optional")

            x = session.experimental
            t0 = time.monotonic()
            created = await x.call_tool_as_task("calibrate", {"sensor": "humidity"})
            task_id = created.task.taskId
            assert created.task.status == "working", created
            print("ok tools/call calibrate as a task:", task_id)

            statuses = [s.status async for s in x.poll_task(task_id)]
            took = time.monotonic() - t0
            assert statuses[0] == "working" and statuses[-1] == "completed", statuses
            assert took >= 1.9, took
            print(f"ok tasks/get until terminal ({took:.1f} s):", statuses)

            result = await x.get_task_result(task_id, types.CallToolResult)
            assert [c.text for c in result.content] == ["calibrated: humidity"], result
            assert not result.isError
            print("ok tasks/result:", result.content[0].text)

            servo = await x.call_tool_as_task("move_servo", {"angle": 45})
            result = await x.get_task_result(servo.task.taskId, types.CallToolResult)
            assert [c.text for c in result.content] == ["servo: 45.0 deg"], result
            print("ok move_servo as a task:", result.content[0].text)

            plain = await session.call_tool("move_servo", {"angle": 30})
            assert [c.text for c in plain.content] == ["servo: 30.0 deg"], plain
            print("ok move_servo as a plain call")

            long = await x.call_tool_as_task("calibrate", {"sensor": "pressure"})
            cancelled = await x.cancel_task(long.task.taskId)
            assert cancelled.status == "cancelled", cancelled
            got = await x.get_task(long.task.taskId)
            assert got.status == "cancelled", got
            print("ok tasks/cancel")

            listed = await x.list_tasks()
            ids = [t.taskId for t in listed.tasks]
            assert ids == [task_id, servo.task.taskId, long.task.taskId], ids
            print("ok tasks/list:", len(ids), "tasks")

            try:
                await session.call_tool("calibrate", {"sensor": "humidity"})
            except Exception as e:  # McpError: -32601 for a task-required tool
                assert getattr(getattr(e, "error", None), "code", None) == -32601, e
                print("ok calibrate without a task: -32601")
            else:
                raise AssertionError("calibrate ran without a task")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
