# EXERCISE l8-assemble (nothing to write: your pieces are the exercise cells above;
# graded, this cell runs after them, and the next cell runs them together)
# ruff: noqa: E402, F811 - each piece is a cell, with its own imports


# the reference piece of l8-injection-rule
import re


def customer_orders_only(question):
    named = set(re.findall(r"\bA\d{4}\b", question))

    def rule(tool, arguments):
        order = arguments.get("order_id")
        if order is not None and order not in named:
            return "deny"  # whatever the text the model read says, not an order the customer wrote about
        return None  # the usual policy decides: reads run, writes ask a human

    return rule


# the reference piece of l8-changed-tool
def changed_tools(pinned, listed):
    def definition(tool):
        # Compared as data: a schema with its keys in another order is the same schema.
        return (tool.description, tool.input_schema, tool.annotations)

    return {tool.name for tool in listed
            if tool.name in pinned and definition(tool) != definition(pinned[tool.name])}
