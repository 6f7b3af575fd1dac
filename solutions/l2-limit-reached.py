# EXERCISE l2-limit-reached
def limit_reached(limits, *, tool_steps, tokens, elapsed, next_cost):
    if tool_steps >= limits.max_steps:
        return "max_steps"
    if tokens + 2 * next_cost > limits.max_tokens:  # this step, and room for a final request as big
        return "max_tokens"
    if limits.max_seconds is not None and elapsed >= limits.max_seconds:
        return "max_seconds"
    return None
