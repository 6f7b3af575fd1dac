# EXERCISE l9-token-check
def token_problem(token, resource, needed, now):
    audience = token.get("aud")
    audiences = [audience] if isinstance(audience, str) else list(audience or [])
    if resource not in audiences or token.get("exp", 0) <= now:
        return "invalid_token"
    granted = set(token.get("scope", "").split())
    if not set(needed) <= granted:
        return "insufficient_scope"
    return None
