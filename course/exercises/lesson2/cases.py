"""Cases lesson 2's checks make up as they run: tools, models that call them, and a loop to compare with.

Tool names and arguments are drawn at random when a check runs, so a learner's code can only
pass by doing the job in general; the hints say what kind of case failed, never its values.
"""

from __future__ import annotations

import json
import random
from typing import Any

from course.exercises.lesson1.cases import tool_call, tool_name

NAMES = ["mia", "leo", "ana", "tom", "sam", "eva", "noor", "jan"]
DOMAINS = ["example.com", "northwind.test", "mail.example.org"]


def made_up_tools(rng: random.Random, count: int = 2) -> list[dict]:
    """Tool definitions the learner has never seen; each takes one text argument `q`."""
    names: set[str] = set()
    for _ in range(count):
        names.add(tool_name(rng, names))
    return [{"type": "function", "function": {
        "name": name, "description": "A tool the check made up.",
        "parameters": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}}}
        for name in sorted(names)]


def names_of(tools: list[dict]) -> list[str]:
    return [t["function"]["name"] for t in tools]


class Recorder:
    """An `execute(name, arguments)` whose answer depends only on the call, and which remembers every call."""

    def __init__(self, salt: str):
        self.salt = salt
        self.calls: list[tuple[str, str]] = []

    def __call__(self, name: str, arguments: str) -> str:
        self.calls.append((name, arguments))
        return f"{name} found {len(arguments) * 7 % 97} results for {self.salt}"


def tool_steps(body: dict) -> int:
    """How many assistant messages with tool calls the request carries."""
    return sum(1 for m in body.get("messages", []) if m.get("role") == "assistant" and m.get("tool_calls"))


def stepper(tools: list[dict], steps: int | None, answer: str, nonce: str, parallel: bool | str = False):
    """A model rule: `steps` tool steps (None: never stops by itself), then `answer`.

    `parallel`: the first step asks for two calls at once ("every": each step does, so a loop that counts calls
    instead of steps stops at half the steps). Every call has new arguments, so no call repeats."""
    from course.scripted import call

    names = names_of(tools)

    def rule(body: dict):
        done = tool_steps(body)
        if body.get("tool_choice") == "none" or not body.get("tools") or (steps is not None and done >= steps):
            return answer
        first = call(names[done % len(names)], q=f"{nonce}-{done}")
        if parallel == "every" or (parallel and done == 0):
            return [first, call(names[(done + 1) % len(names)], q=f"{nonce}-{done}b")]
        return first

    return rule


def reference_run(client, model: str, messages: list[dict], tools: list[dict], execute, limits) -> tuple:
    """The loop the checks compare with: what a correct solution sends, step by step.

    Returns (answer, stop_reason, tokens, the estimated cost of the request it did not send)."""
    import time

    from course.agent import limit_reached, prompt_estimate

    messages, tokens, steps, start = list(messages), 0, 0, time.perf_counter()
    while True:
        cost = prompt_estimate(messages, tools) + limits.reply_tokens
        stop = limit_reached(limits, tool_steps=steps, tokens=tokens, elapsed=time.perf_counter() - start,
                             next_cost=cost)
        if stop:
            return None, stop, tokens, cost
        response = client.chat.completions.create(model=model, messages=messages, tools=tools)
        tokens += response.usage.total_tokens
        message = response.choices[0].message
        if not message.tool_calls:
            return message.content, "done", tokens, None
        messages.append(message.model_dump(exclude_none=True))
        messages += [{"role": "tool", "tool_call_id": c.id, "content": execute(c.function.name, c.function.arguments)}
                     for c in message.tool_calls]
        steps += 1




def conversation(rng: random.Random, tools: list[dict], nonce: str) -> list[dict]:
    """A conversation that has used a tool: system, user, an assistant tool call and its result."""
    name = rng.choice(names_of(tools))
    call_id = f"call_{rng.getrandbits(32):x}"
    return [
        {"role": "system", "content": "You are the support assistant of a small shop."},
        {"role": "user", "content": f"Please look up {nonce} for me."},
        {"role": "assistant", "tool_calls": [{"id": call_id, "type": "function",
                                              "function": {"name": name, "arguments": json.dumps({"q": nonce})}}]},
        {"role": "tool", "tool_call_id": call_id, "content": f"{name}: nothing yet for {nonce}"},
    ]


def email_variants(rng: random.Random) -> tuple[str, str, str]:
    """An email, the same one with other letter case and spaces around it, and another customer's."""
    name, other = rng.sample(NAMES, 2)
    domain = rng.choice(DOMAINS)
    email = f"{name}{rng.randint(1, 99)}@{domain}"
    shouted = "".join(ch.upper() if rng.random() < 0.5 else ch for ch in email)
    if shouted == email:
        shouted = email.upper()
    return email, f"{' ' * rng.randint(1, 3)}{shouted}{' ' * rng.randint(0, 2)}", f"{other}@{domain}"


def calls_for(rng: random.Random, specs: list[tuple[str, str]]) -> list[Any]:
    """SDK tool-call objects, with new random ids, for (name, arguments) pairs."""
    return [tool_call(name, arguments, rng) for name, arguments in specs]
