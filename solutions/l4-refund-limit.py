# EXERCISE l4-refund-limit
import math


def refund_limit(name, arguments):
    if name != "issue_refund":
        return None  # not about refunds: leave it to the next rule or the risk
    amount = arguments.get("amount")
    number = isinstance(amount, (int, float)) and not isinstance(amount, bool) and not math.isnan(amount)
    return "allow" if number and amount <= 50 else "ask"
