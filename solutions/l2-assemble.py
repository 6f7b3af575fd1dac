# EXERCISE l2-assemble (nothing to write: your pieces are the exercise cells above;
# graded, this cell runs after them, and the next cell runs them together)
# ruff: noqa: E402, F811 - each piece is a cell, with its own imports


# the reference piece of l2-agent-loop
import time

from course.agent import limit_reached, prompt_estimate


def run_loop(client, model, messages, tools, execute, limits):
    messages = list(messages)  # the caller's conversation stays as it was
    tokens, tool_steps, start = 0, 0, time.perf_counter()
    while True:
        next_cost = prompt_estimate(messages, tools) + limits.reply_tokens
        stop = limit_reached(limits, tool_steps=tool_steps, tokens=tokens,
                             elapsed=time.perf_counter() - start, next_cost=next_cost)
        if stop:
            return None, stop, tokens
        response = client.chat.completions.create(model=model, messages=messages, tools=tools)
        tokens += response.usage.total_tokens
        message = response.choices[0].message
        if not message.tool_calls:
            return message.content, "done", tokens
        messages.append(message.model_dump(exclude_none=True))
        for call in message.tool_calls:
            result = execute(call.function.name, call.function.arguments)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
        tool_steps += 1


# the reference piece of l2-repeat-key
import json


def normalize(value):
    """Strings lose case and surrounding spaces; dicts and lists are normalized inside; the rest stays."""
    if isinstance(value, str):
        return value.strip().casefold()
    if isinstance(value, dict):
        return {k: normalize(v) for k, v in value.items()}
    if isinstance(value, list):
        return [normalize(v) for v in value]
    return value


def repeat_key(name, arguments):
    try:
        data = json.loads(arguments)
    except json.JSONDecodeError:
        return name, arguments  # not JSON: only the very same text is a repeat
    return name, json.dumps(normalize(data), sort_keys=True)


# the reference piece of l2-skip-repeats
from course.agent import REPEAT_NOTE


def answer_calls(calls, execute, seen, repeat_key):
    messages = []
    for call in calls:
        name, arguments = call.function.name, call.function.arguments
        key = repeat_key(name, arguments)
        if key in seen:
            content = REPEAT_NOTE.format(name=name)  # not run: the result is already in the conversation
        else:
            seen.add(key)
            content = execute(name, arguments)
        messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
    return messages


# the reference piece of l2-finish
from course.agent import FINISH_NOTE


def final_answer(client, model, messages, tools, why):
    messages.append({"role": "user", "content": FINISH_NOTE.format(why=why)})
    response = client.chat.completions.create(model=model, messages=messages, tools=tools, tool_choice="none")
    answer = response.choices[0].message.content
    if not answer:  # nothing for the customer: say why the run stopped instead
        answer = f"I had to stop before I could answer: {why}."
    messages.append({"role": "assistant", "content": answer})
    return answer
