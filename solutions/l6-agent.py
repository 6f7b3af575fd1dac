# EXERCISE l6-agent
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
