# EXERCISE l8-route-tenant
import hmac


def route(tenants, token, tool):
    # Compare every token in constant time: how long a guess takes says nothing about how close it was.
    owners = [t for t in tenants if hmac.compare_digest(t.token.encode(), token.encode())]
    if not owners:
        raise PermissionError("unknown token")
    tenant = owners[0]
    for backend, allowed in tenant.allow.items():
        if tool in allowed:
            return tenant.name, backend
    raise PermissionError(f"{tool} is not on {tenant.name}'s allowlist")
