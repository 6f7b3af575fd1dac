# EXERCISE l8-injection-rule
import re


def customer_orders_only(question):
    named = set(re.findall(r"\bA\d{4}\b", question))

    def rule(tool, arguments):
        order = arguments.get("order_id")
        if order is not None and order not in named:
            return "deny"  # whatever the text the model read says, not an order the customer wrote about
        return None  # the usual policy decides: reads run, writes ask a human

    return rule
