# EXERCISE l4-allowlist
def only(allowed):
    allowed = set(allowed)  # a copy: changing the caller's set later changes nothing

    def allowlist(name, arguments):
        return None if name in allowed else "deny"

    return allowlist
