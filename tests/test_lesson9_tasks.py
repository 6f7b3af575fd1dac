"""Lesson 9's tasks: the course host runs a task-only tool of the shop as an MCP task (2025-11-25) — started,
polled with each status shown, its result handed to the model; after the deadline the model hears "still
running" and the task goes on; a task the human cancels is cancelled on the server, and the host's log, the
server's log and the model's reply agree. On 2026-07-28 the same tool is an ordinary call."""

from __future__ import annotations

import anyio
import pytest
from mcp import Client, MCPError

from course.approval import ScriptedApprover
from course.beyond.shop import build_server
from course.host import McpHost, in_memory
from course.host.tasks import HostTasks

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]
RECOUNT = '{"warehouse": "north"}'


def host_for(statuses: list[tuple[str, str | None]], *, wait: float = 30.0) -> McpHost:
    tasks = HostTasks(wait=wait, on_status=lambda tool, task: statuses.append((task.status, task.status_message)))
    return McpHost(approver=ScriptedApprover([True] * 3), quiet=True, tasks=tasks)


async def test_the_host_runs_a_task_only_tool_as_a_task_and_the_model_gets_its_result():
    server, statuses = build_server(step=0.02), []
    async with host_for(statuses) as host:
        await host.connect("shop", in_memory(server, mode="legacy"), allow={"recount_warehouse"})
        assert "recount_warehouse" in host.offered  # before lesson 9 it was left out ("only runs as MCP tasks")
        reply = await host.execute("recount_warehouse", RECOUNT)
    assert reply == "Recounted north: KETTLE-2 14, LAMP-1 7."
    assert server.log[0] == "recount_warehouse: started as task-1" and server.log[-1].endswith("task-1 completed")
    assert statuses[0] == ("working", None) and statuses[-1] == ("completed", "10/10 (100%) done")
    assert any(message and "north aisle" in message for _, message in statuses[1:-1])  # progress, as it went
    assert host.log.entries[-1].outcome == "ran" and not host.tasks.running


async def test_the_server_refuses_the_same_tool_called_the_ordinary_way():
    async with Client(build_server(), mode="legacy") as client:
        with pytest.raises(MCPError, match="runs only as a task"):
            await client.call_tool("recount_warehouse", {"warehouse": "north"})


async def test_after_the_deadline_the_model_hears_still_running_and_the_task_goes_on():
    server, statuses = build_server(step=0.05), []
    async with host_for(statuses, wait=0.15) as host:
        await host.connect("shop", in_memory(server, mode="legacy"), allow={"recount_warehouse"})
        reply = await host.execute("recount_warehouse", RECOUNT)
        (task_id,) = host.tasks.running
        assert host.log.entries[-1].outcome == "still running (a task)"
        later = await host.tasks.wait_for(task_id, 20)
    assert reply.startswith("Still running: recount_warehouse is running on the server as task task-1")
    assert "was not cancelled" in reply
    assert later.content[0].text == "Recounted north: KETTLE-2 14, LAMP-1 7."
    assert "cancelled" not in " ".join(server.log)


async def test_a_task_the_human_cancels_is_cancelled_on_the_server_and_everyone_says_so():
    server, statuses = build_server(step=0.05), []
    async with host_for(statuses) as host:
        await host.connect("shop", in_memory(server, mode="legacy"), allow={"recount_warehouse"})
        replies: list[str] = []

        async def ask() -> None:
            replies.append(await host.execute("recount_warehouse", RECOUNT))

        async with anyio.create_task_group() as group:
            group.start_soon(ask)
            with anyio.fail_after(10):
                while not host.tasks.running:  # the human presses Cancel once the task is there
                    await anyio.sleep(0.02)
            await anyio.sleep(0.15)
            (task_id,) = host.tasks.running
            cancelled = await host.tasks.cancel(task_id)
        with anyio.fail_after(5):
            while not any("cancelled after" in line for line in server.log):
                await anyio.sleep(0.02)
        after = await host.execute("recount_warehouse", '{"warehouse": "south"}')  # the connection still works
    assert cancelled.status == "cancelled"
    assert replies == ["Cancelled: recount_warehouse (task task-1) was cancelled before it finished. "
                       "Do not say it was done."]
    assert any(line.startswith("recount_warehouse: cancelled after") and "of 10 aisles" in line for line in server.log)
    assert "recount_warehouse: task task-1 cancelled" in host.tasks.log
    assert [e.outcome for e in host.log.entries] == ["cancelled (a task)", "ran"]
    assert after.startswith("Recounted south")


async def test_on_2026_07_28_the_same_tool_is_an_ordinary_call_with_progress():
    server = build_server(step=0.01)
    async with host_for([]) as host:
        await host.connect("shop", in_memory(server), allow={"recount_warehouse"})
        assert host.offered["recount_warehouse"].tool.execution is None
        reply = await host.execute("recount_warehouse", RECOUNT)
    assert reply.startswith("Recounted north") and not any("started as task" in line for line in server.log)


async def test_asking_about_a_task_the_host_did_not_start_names_the_running_ones():
    async with host_for([]) as host:
        with pytest.raises(KeyError, match="no running task 'task-9' .running: none"):
            await host.tasks.cancel("task-9")


async def test_the_shops_task_protocol_answers_get_list_cancel_and_its_errors():
    from mcp import types

    server, statuses = build_server(step=0.01), []
    async with host_for(statuses) as host:
        await host.connect("shop", in_memory(server, mode="legacy"), allow={"recount_warehouse"})
        await host.execute("recount_warehouse", RECOUNT)
        session = host.connections["shop"].client.session
        listed = await session.send_request(types.ListTasksRequest(), types.ListTasksResult)
        assert [(t.task_id, t.status) for t in listed.tasks] == [("task-1", "completed")]
        with pytest.raises(MCPError, match="no task 'task-7'"):
            await session.send_request(types.GetTaskRequest(params=types.GetTaskRequestParams(task_id="task-7")),
                                       types.GetTaskResult)
        with pytest.raises(MCPError, match="Cannot cancel task-1: it is already completed"):
            await session.send_request(types.CancelTaskRequest(params=types.CancelTaskRequestParams(task_id="task-1")),
                                       types.CancelTaskResult)
        payload = types.GetTaskPayloadRequest(params=types.GetTaskPayloadRequestParams(task_id="task-1"))
        again = await session.send_request(payload, types.CallToolResult)
    assert again.meta == {"io.modelcontextprotocol/related-task": {"taskId": "task-1"}}


async def test_a_task_whose_tool_fails_ends_failed_and_the_model_reads_an_error():
    server = build_server(step=0.01)
    server.tasks.tools["stock_level"] = "required"  # any tool can be made task-only: the runner lists it so
    async with host_for([]) as host:
        await host.connect("shop", in_memory(server, mode="legacy"), allow={"stock_level"})
        reply = await host.execute("stock_level", '{"sku": "NOPE-1"}')
    assert reply.startswith("Error executing tool stock_level: No product NOPE-1")
    assert server.tasks.tasks["task-1"].status == "failed" and "recount_warehouse" not in host.offered
    assert host.log.entries[-1].outcome == "ran, the tool reported an error"
