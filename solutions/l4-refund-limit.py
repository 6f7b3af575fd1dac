# EXERCISE l4-refund-limit
def refund_limit(name, arguments):
    if name != "issue_refund":
        return None  # not about refunds: leave it to the next rule or the risk
    amount = arguments.get("amount")
    if isinstance(amount, (int, float)) and not isinstance(amount, bool) and amount <= 50:
        return "allow"
    return "ask"
