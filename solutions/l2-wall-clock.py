# EXERCISE l2-wall-clock
def ask_until(client, model, question, toolbox, max_seconds):
    start = time.perf_counter()
    messages = [{"role": "user", "content": question}]
    while time.perf_counter() - start < max_seconds:
        response = client.chat.completions.create(model=model, messages=messages, tools=toolbox.definitions())
        message = response.choices[0].message
        if not message.tool_calls:
            return message.content, "done"
        messages.append(message.model_dump(exclude_none=True))
        messages += toolbox.tool_messages(message)
    return None, "max_seconds"
