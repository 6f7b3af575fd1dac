# EXERCISE l6-to-openai
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
