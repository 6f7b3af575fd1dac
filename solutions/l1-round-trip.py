# EXERCISE l1-round-trip
def ask(client, model, question, toolbox):
    messages = [{"role": "user", "content": question}]
    response = client.chat.completions.create(model=model, messages=messages, tools=toolbox.definitions())
    message = response.choices[0].message
    if not message.tool_calls:
        return message.content
    messages.append(message.model_dump(exclude_none=True))
    for call in message.tool_calls:
        result = toolbox.execute(call.function.name, call.function.arguments)
        messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
    response = client.chat.completions.create(model=model, messages=messages, tools=toolbox.definitions())
    return response.choices[0].message.content
