"""The checks of `l8-resource-template` and `l8-route-tenant`: the pieces the lesson builds, a server's resources
and a gateway's routing."""

from __future__ import annotations

import inspect

from course.exercises import NotYet, exercise, run_async
from course.exercises.lesson8.cases import order_id, word
from course.exercises.lesson8.given import GIVEN_RESOURCES, GIVEN_TENANTS
from course.exercises.seeds import draws

# What an unknown order's error code tells about the learner's code.
WRONG_CODES = {
    -32603: " (an internal error: what the SDK makes of a plain exception, a KeyError or a ResourceError)",
    -32002: " (the resource-not-found code of the 2025 spec, which older tutorials use)",
}


# -- l8-resource-template --------------------------------------------------------------------------------
@exercise("l8-resource-template", lesson=8, given=GIVEN_RESOURCES)
def check_resource_template(add_order_resources):
    from mcp import MCPError
    from mcp.server.mcpserver import MCPServer

    from course.exercises.lesson6.cases import in_memory

    rng = draws()
    orders = {}
    for i in range(3):
        oid = order_id(rng)
        total = float(rng.randrange(5, 300)) if i == 0 else round(rng.uniform(5, 300), 2)  # 49.0 shows as 49.00
        orders[oid] = {"order_id": oid, "status": rng.choice(["shipped", "delivered", "processing"]), "total": total}
    missing = order_id(rng)
    while missing in orders:
        missing = order_id(rng)

    async def attempt():
        server = MCPServer("orders-check", log_level="WARNING")
        result = add_order_resources(server, orders)
        if inspect.isawaitable(result):
            await result
        return await in_memory(server, read_them)  # the SDK's traceback for a crash in the template is silenced

    async def read_them(client):
        fixed = [str(r.uri) for r in (await client.list_resources()).resources]
        templates = [t.uri_template for t in (await client.list_resource_templates()).resource_templates]
        texts = {}
        for oid in orders:
            try:
                texts[oid] = (await client.read_resource(f"orders://{oid}")).contents[0].text
            except MCPError as e:
                texts[oid] = e
        try:
            await client.read_resource(f"orders://{missing}")
            unknown = None
        except MCPError as e:
            unknown = e
        return fixed, templates, texts, unknown

    fixed, templates, texts, unknown = run_async(attempt)
    per_order = [uri for uri in fixed if uri.removeprefix("orders://") in orders]  # an index beside it is fine
    if per_order:
        raise NotYet(f"the server lists a fixed resource per order ({per_order[0]}, ...).",
                     'that does not scale and misses orders added later. Register one template: '
                     '@server.resource("orders://{order_id}").')
    if "orders://{order_id}" not in templates:
        raise NotYet(f"the server lists the templates {templates or 'none'}, not exactly \"orders://{{order_id}}\".",
                     "register @mcp.resource(\"orders://{order_id}\") on a function whose parameter is called "
                     "order_id.")
    for oid, text in texts.items():
        if isinstance(text, Exception):
            raise NotYet(f"reading orders://{oid} failed ({text.message}).",
                         "use the `orders` you were given (the check makes up its own), not course.orders.")
        order = orders[oid]
        if oid not in text or order["status"] not in text or f"{order['total']:.2f}" not in text:
            raise NotYet(f"orders://{oid} reads {text!r}.",
                         f"it should name the order, its status ({order['status']}) and its total with two "
                         f"decimals ({order['total']:.2f}).")
    if unknown is None:
        raise NotYet(f"orders://{missing} (an order that does not exist) was read without an error.",
                     "raise MCPError(INVALID_PARAMS, ...) so the client learns it asked for something that is "
                     "not there.")
    if unknown.code != -32602:
        why = WRONG_CODES.get(unknown.code, "")
        raise NotYet(f"an unknown order gives error {unknown.code}{why}; the spec says -32602 (invalid params) "
                     "for a resource that does not exist.",
                     'raise MCPError(INVALID_PARAMS, "No order ...") (or the SDK\'s ResourceNotFoundError).')
    if missing not in str(unknown.message):
        raise NotYet(f"the error for {missing} says {unknown.message!r}.",
                     "name the order that was not found.")
    return "One template serves every order, and a missing one is the client's mistake (-32602), not yours."


# -- l8-route-tenant -------------------------------------------------------------------------------------
@exercise("l8-route-tenant", lesson=8, given=GIVEN_TENANTS)
def check_route_tenant(route):
    from course.architecture.gateway import Tenant

    rng = draws()
    a, b = word(rng), word(rng)
    shared, only_a, only_b = word(rng), word(rng), word(rng)
    tenants = [Tenant(a, "tok-" + word(rng, 12), {"docs": {shared, only_a}, "notes": {"read_notes"}}),
               Tenant(b, "tok-" + word(rng, 12), {"docs": {shared}, "billing": {only_b}})]
    rng.shuffle(tenants)
    by = {t.name: t for t in tenants}
    expect = [(by[a].token, shared, (a, "docs")), (by[a].token, "read_notes", (a, "notes")),
              (by[b].token, only_b, (b, "billing")), (by[b].token, shared, (b, "docs"))]
    for token, tool, wanted in expect:
        got = route(tenants, token, tool)
        if (tuple(got) if isinstance(got, list | tuple) else got) != wanted:
            raise NotYet(f"route(tenants, <{wanted[0]}'s token>, {tool!r}) returned {got!r}; expected {wanted!r}.",
                         "return the tenant the token belongs to and the backend whose allowlist has the tool.")
    refusals = [(by[b].token, only_a, f"{only_a} (a tool only {a} may use) for {b}'s token",
                 ": look in the allowlist of the token's own tenant, not in every tenant's"),
                (by[a].token + "x", shared, "a token that belongs to nobody", ": compare the whole token"),
                (by[a].token[:-3], shared, "a token that belongs to nobody", ": compare the whole token"),
                ("", shared, "an empty token", ""),
                (by[a].token, "drop_tables", "a tool nobody may use", "")]
    for token, tool, case, advice in refusals:
        try:
            got = route(tenants, token, tool)
        except PermissionError:
            continue
        except Exception as e:  # noqa: BLE001 - a lookup that failed by accident (KeyError, StopIteration)
            raise NotYet(f"for {case}, your route raised {type(e).__name__}.",
                         "Raise PermissionError on purpose, so that the gateway answers 'not allowed' instead of "
                         "crashing.") from None
        if got is None:
            raise NotYet(f"for {case}, your route returned None instead of refusing.",
                         "raise PermissionError, so that the gateway answers 'not allowed' (None routes nowhere, "
                         "and says nothing)" + advice + ".")
        raise NotYet(f"{case} was routed{advice} (it returned {got!r}).",
                     "raise PermissionError instead, so the gateway answers 'not allowed'.")
    return "The token picks the tenant; only that tenant's allowlist picks the backend."

