# EXERCISE l6-assemble (nothing to write: your pieces are the exercise cells above;
# graded, this cell runs after them, and the next cell runs them together)
# ruff: noqa: E402, F811 - each piece is a cell, with its own imports


# the reference piece of l6-list-tools
async def list_tools(client, allow):
    """Every tool the server lists whose name is on `allow`, from every page, in the server's order."""
    tools, cursor = [], None
    while True:
        page = await client.list_tools(cursor=cursor)
        tools += [tool for tool in page.tools if tool.name in allow]
        cursor = page.next_cursor
        if cursor is None:  # the last page: an empty page with a cursor is not the end
            return tools


# the reference piece of l6-to-openai
import re
from collections import Counter

NOT_ALLOWED = re.compile(r"[^a-zA-Z0-9_-]")  # the API's function names: ^[a-zA-Z0-9_-]{1,64}$


def api_name(name):
    """A name the Chat Completions API accepts (MCP also allows dots, slashes and 128 characters)."""
    return NOT_ALLOWED.sub("_", name)[:64] or "tool"


def parameters(schema):
    """The tool's schema as the model sees it: the API refuses one whose top level is not an object."""
    return schema if schema.get("type") == "object" else {**schema, "type": "object"}


def to_openai(servers):
    """{server: [Tool, ...]} -> (the Chat Completions definitions, {name the model sees: (server, tool name)})."""
    tools = [(server, tool) for server, listed in servers.items() for tool in listed]
    names = [api_name(tool.name) for _, tool in tools]
    counts = Counter(names)
    # A name two tools share: both get their server's name in front.
    names = [api_name(f"{server}__{tool.name}") if counts[name] > 1 else name
             for (server, tool), name in zip(tools, names, strict=True)]
    used = set()
    for i, name in enumerate(names):  # still the same (cut at 64 characters, say): a number tells them apart
        number = 2
        while names[i] in used:
            names[i] = f"{name[:60]}_{number}"
            number += 1
        used.add(names[i])
    definitions = [{"type": "function",
                    "function": {"name": name, "description": tool.description or "",
                                 "parameters": parameters(tool.input_schema)}}
                   for (_, tool), name in zip(tools, names, strict=True)]
    routes = {name: (server, tool.name) for (server, tool), name in zip(tools, names, strict=True)}
    return definitions, routes


# the reference piece of l6-execute
import json

from mcp import MCPError
from mcp.types import REQUEST_TIMEOUT

from course.host import result_text


def make_execute(client, tools, approve, timeout):
    """Lesson 2's `execute(name, arguments)` for the allowlisted `tools` of one MCP client."""

    async def execute(name, arguments):
        tool = tools.get(name)
        if tool is None:
            return f"Error: there is no tool {name!r} here. Use one of: {', '.join(tools)}."
        try:
            args = json.loads(arguments or "{}")
        except json.JSONDecodeError:
            args = None
        if not isinstance(args, dict):
            return f"Error: the arguments for {name} are not one JSON object. Send an object and call again."
        # Only a tool that says it only reads runs at once; without the hint, MCP assumes it may write.
        read_only = tool.annotations is not None and tool.annotations.read_only_hint is True
        if not read_only and not await approve(name, args):
            return f"{name} was not run: the user rejected it. Do not retry without a new request."
        try:
            result = await client.call_tool(name, args, read_timeout_seconds=timeout)
        except MCPError as e:
            if e.code == REQUEST_TIMEOUT:  # the connection is still fine
                return f"Error: {name} did not answer within {timeout:g} s. Tell the user it is not available now."
            return f"Error: the server refused the call to {name}: {e.message}"
        return result_text(result)

    return execute


# the reference piece of l6-agent
async def agent(llm, model, question, tools, execute, max_steps=6):
    """Ask, run the model's calls through `execute`, ask again: at most `max_steps` requests."""
    messages = [{"role": "user", "content": question}]
    for _ in range(max_steps):
        response = await llm.chat.completions.create(model=model, messages=messages, tools=tools)
        message = response.choices[0].message
        if not message.tool_calls:
            return message.content
        messages.append(message.model_dump(exclude_none=True))
        for call in message.tool_calls:
            text = await execute(call.function.name, call.function.arguments)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": text})
    return f"I stopped after {max_steps} steps without an answer; please ask again, more narrowly."
