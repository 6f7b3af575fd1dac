# EXERCISE l2-agent-loop
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
