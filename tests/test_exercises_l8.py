"""Lesson 8's exercise checks accept correct solutions written in other ways and refuse the wrong ones a learner
is likely to write, each with a hint that says what is wrong (tests/test_exercises_lessons.py and
tests/test_exercises.py cover what every lesson shares: the reference solutions, the notebook, its stubs)."""

from __future__ import annotations

import textwrap

import pytest

from course.exercises import check_source
from exercise_checks import fails_with, lying, passes, reviewed, solution

pytestmark = [pytest.mark.timeout(120)]
TRIES = 3  # the checks draw new cases on every run: a wrong solution must fail on every draw


# -- l8-resource-template ------------------------------------------------------------------------------
HEADER = "from mcp import MCPError\nfrom mcp.types import INVALID_PARAMS\n"


def with_header(source: str) -> str:
    """The cell as the notebook has it: the two imports above the learner's code."""
    return HEADER + textwrap.dedent(source)


def test_a_resource_template_written_another_way_passes():
    passes("l8-resource-template", tries=TRIES, source=with_header("""
        def add_order_resources(server, orders):
            def read(order_id: str) -> str:
                try:
                    order = orders[order_id]
                except KeyError:
                    raise MCPError(code=INVALID_PARAMS, message=f"Unknown order {order_id}") from None
                return "Order {} is {}; total {:.2f}".format(order_id, order["status"], order["total"])
            server.resource("orders://{order_id}", name="order")(read)
        """))


def test_a_template_beside_an_index_resource_or_with_the_sdks_not_found_error_passes():
    passes("l8-resource-template", tries=TRIES, source=with_header("""
        from mcp.server.mcpserver.exceptions import ResourceNotFoundError

        def add_order_resources(server, orders):
            @server.resource("orders://index")
            def index() -> str:
                return "\\n".join(f"orders://{order_id}" for order_id in orders)

            @server.resource("orders://{order_id}")
            def order(order_id: str) -> str:
                if order_id not in orders:
                    raise ResourceNotFoundError(f"No order {order_id}")
                return f"{order_id}: {orders[order_id]['status']}, total {orders[order_id]['total']:.2f} EUR"
        """))


def test_a_template_that_crashes_on_a_missing_order_gets_a_hint_and_no_sdk_traceback(caplog):
    fails_with("l8-resource-template", with_header("""
        def add_order_resources(server, orders):
            @server.resource("orders://{order_id}")
            def order(order_id: str) -> str:
                return f"{order_id}: {orders[order_id]['status']}, total {orders[order_id]['total']:.2f} EUR"
        """), "an internal error", tries=TRIES)
    assert not [r for r in caplog.records if r.levelname == "ERROR" and r.name.startswith("mcp.")]


@pytest.mark.parametrize("source, hint", [
    ("""
     def add_order_resources(server, orders):
         def reader(o):
             def read() -> str:
                 return f"{o['order_id']}: {o['status']}, total {o['total']:.2f} EUR"
             return read
         for order_id, order in orders.items():
             server.resource(f"orders://{order_id}", name=order_id)(reader(order))
     """, "a fixed resource per order"),
    ("""
     def add_order_resources(server, orders):
         @server.resource("orders://{order_id}")
         def order(order_id: str) -> str:
             found = orders[order_id]
             return f"{order_id}: {found['status']}, total {found['total']:.2f} EUR"
     """, "the spec says -32602"),
    ("""
     from course.orders import orders as shop_orders
     def add_order_resources(server, orders):
         @server.resource("orders://{order_id}")
         def order(order_id: str) -> str:
             found = shop_orders().get(order_id)
             if found is None:
                 raise MCPError(INVALID_PARAMS, f"No order {order_id}")
             return f"{order_id}: {found['status']}, total {found['total']:.2f} EUR"
     """, "use the `orders` you were given"),
    ("""
     def add_order_resources(server, orders):
         @server.resource("order://{id}")
         def order(id: str) -> str:
             return id
     """, 'not exactly "orders://{order_id}"'),
    ("""
     def add_order_resources(server, orders):
         @server.resource("orders://{order_id}")
         def order(order_id: str) -> str:
             if order_id not in orders:
                 raise MCPError(INVALID_PARAMS, f"No order {order_id}")
             return f"{order_id}: {orders[order_id]['status']}, total {orders[order_id]['total']} EUR"
     """, "two decimals"),
    ("""
     def add_order_resources(server, orders):
         @server.resource("orders://{order_id}")
         def order(order_id: str) -> str:
             if order_id not in orders:
                 raise MCPError(-32002, f"Resource not found: orders://{order_id}")
             return f"{order_id}: {orders[order_id]['status']}, total {orders[order_id]['total']:.2f} EUR"
     """, "the resource-not-found code of the 2025 spec"),
])
def test_the_resource_template_check_refuses_a_likely_mistake_with_a_hint(source, hint):
    fails_with("l8-resource-template", with_header(source), hint, tries=TRIES)


# -- l8-changed-tool --------------------------------------------------------------------------------------
def test_comparing_fingerprints_or_json_with_sorted_keys_passes():
    passes("l8-changed-tool", tries=TRIES, source="""
        from course.host.pinning import fingerprint

        def changed_tools(pinned, listed):
            return {t.name for t in listed if t.name in pinned and fingerprint(t) != fingerprint(pinned[t.name])}
        """)
    passes("l8-changed-tool", tries=TRIES, source="""
        import json

        def changed_tools(pinned, listed):
            def text(tool):
                return json.dumps(tool.model_dump(mode="json", include={"description", "input_schema", "annotations"}),
                                  sort_keys=True)
            return [t.name for t in listed if t.name in pinned and text(t) != text(pinned[t.name])]
        """)


@pytest.mark.parametrize("source, hint", [
    ("""
     def changed_tools(pinned, listed):
         return {t.name for t in listed if t.name in pinned and t.description != pinned[t.name].description}
     """, "input schema (a new card_number parameter)"),
    ("""
     import json
     def changed_tools(pinned, listed):
         def text(tool):
             return json.dumps([tool.description, tool.input_schema, tool.annotations.model_dump()])
         return {t.name for t in listed if t.name in pinned and text(t) != text(pinned[t.name])}
     """, "same parameters in another order"),
    ("""
     def changed_tools(pinned, listed):
         return {t.name for t in listed if pinned.get(t.name) is None or t.input_schema != pinned[t.name].input_schema
                 or t.description != pinned[t.name].description or t.annotations != pinned[t.name].annotations}
     """, "never pinned counts as changed"),
    ("""
     def changed_tools(pinned, listed):
         return {t.name for t in listed if t.name in pinned and t is not pinned[t.name]}
     """, "compare the definitions"),
    ("""
     def changed_tools(pinned, listed):
         return {t.name for t in listed if t.name in pinned and (t.description, t.input_schema)
                 != (pinned[t.name].description, pinned[t.name].input_schema)}
     """, "annotations (read_only_hint"),
    ("""
     def changed_tools(pinned, listed):
         def parts(tool):
             return tool.description, sorted(tool.input_schema.get("properties", {})), tool.annotations
         return {t.name for t in listed if t.name in pinned and parts(t) != parts(pinned[t.name])}
     """, "order_id's description now asks for the card number"),
    ("""
     def changed_tools(pinned, listed):
         def parts(tool):
             return tool.description, tool.input_schema, tool.annotations.read_only_hint
         return {t.name for t in listed if t.name in pinned and parts(t) != parts(pinned[t.name])}
     """, "open_world_hint appeared"),
    ("""
     def changed_tools(pinned, listed):
         def parts(tool):
             return tool.description, tool.inputSchema, tool.annotations
         return {t.name for t in listed if t.name in pinned and parts(t) != parts(pinned[t.name])}
     """, "in mcp 2.x a Tool's fields are snake_case"),
])
def test_the_changed_tool_check_refuses_a_likely_mistake_with_a_hint(source, hint):
    fails_with("l8-changed-tool", source, hint, tries=TRIES)


# -- l8-route-tenant ----------------------------------------------------------------------------------------
def test_a_route_written_with_a_token_table_passes():
    passes("l8-route-tenant", tries=TRIES, source="""
        import secrets

        def route(tenants, token, tool):
            for tenant in tenants:
                if secrets.compare_digest(tenant.token, token):
                    backends = [b for b, tools in tenant.allow.items() if tool in tools]
                    if backends:
                        return (tenant.name, backends[0])
                    raise PermissionError(tool)
            raise PermissionError("who are you?")
        """)


@pytest.mark.parametrize("source, hint", [
    ("""
     def route(tenants, token, tool):
         owner = next((t.name for t in tenants if t.token == token), None)
         if owner is None:
             raise PermissionError("unknown token")
         for tenant in tenants:
             for backend, tools in tenant.allow.items():
                 if tool in tools:
                     return owner, backend
         raise PermissionError(tool)
     """, "a tool only"),
    ("""
     def route(tenants, token, tool):
         tenant = next((t for t in tenants if t.token == token), tenants[0])
         for backend, tools in tenant.allow.items():
             if tool in tools:
                 return tenant.name, backend
         raise PermissionError(tool)
     """, "belongs to nobody was routed"),
    ("""
     def route(tenants, token, tool):
         tenant = next((t for t in tenants if token in t.token), None)
         if tenant is None:
             raise PermissionError("unknown token")
         for backend, tools in tenant.allow.items():
             if tool in tools:
                 return tenant.name, backend
         raise PermissionError(tool)
     """, "belongs to nobody was routed"),
    ("""
     def route(tenants, token, tool):
         tenant = next(t for t in tenants if t.token == token)
         return tenant.name, next(iter(tenant.allow))
     """, "the backend whose allowlist has the tool"),
    ("""
     def route(tenants, token, tool):
         tenant = {t.token: t for t in tenants}[token]
         for backend, tools in tenant.allow.items():
             if tool in tools:
                 return tenant.name, backend
         raise PermissionError(tool)
     """, "a token that belongs to nobody, your route raised KeyError"),
])
def test_the_route_check_refuses_a_likely_mistake_with_a_hint(source, hint):
    fails_with("l8-route-tenant", source, hint, tries=TRIES)


def test_a_route_that_crashes_is_told_what_is_wrong_first_and_how_to_refuse_in_the_next_hint():
    from course.exercises import check_source

    verdict = check_source("l8-route-tenant", textwrap.dedent("""
        def route(tenants, token, tool):
            tenant = {t.token: t for t in tenants}[token]
            for backend, tools in tenant.allow.items():
                if tool in tools:
                    return tenant.name, backend
            raise PermissionError(tool)
        """))
    assert verdict.stages[0] == "for a token that belongs to nobody, your route raised KeyError."
    assert verdict.stages[1].startswith("Raise PermissionError on purpose")


# -- l8-injection-rule ---------------------------------------------------------------------------------------
def test_a_rule_using_the_courses_order_pattern_passes():
    passes("l8-injection-rule", tries=TRIES, source="""
        from course.orders import ORDER_ID

        def customer_orders_only(question):
            named = ORDER_ID.findall(question)
            return lambda tool, arguments: "deny" if arguments.get("order_id", named[0] if named else None) \\
                not in named and "order_id" in arguments else None
        """)


@pytest.mark.parametrize("source, hint", [
    ("""
     def customer_orders_only(question):
         return lambda tool, arguments: "deny" if tool == "issue_refund" else None
     """, "the customer's own refund"),
    ("""
     import re
     def customer_orders_only(question):
         named = re.findall(r"A\\d{4}", question)
         def rule(tool, arguments):
             return "allow" if arguments.get("order_id") in named else ("deny" if "order_id" in arguments else None)
         return rule
     """, "skips the human's approval"),
    ("""
     import re
     def customer_orders_only(question):
         named = re.findall(r"A\\d{4}", question)
         return lambda tool, arguments: None if arguments["order_id"] in named else "deny"
     """, "the rule crashed on search_docs"),
    ("""
     import re
     def customer_orders_only(question):
         first = re.search(r"A\\d{4}", question).group(0)
         def rule(tool, arguments):
             return "deny" if "order_id" in arguments and arguments["order_id"] != first else None
         return rule
     """, "the second one was denied"),
    ("""
     def customer_orders_only(question):
         def rule(tool, arguments):
             return tool == "issue_refund" and arguments.get("order_id") not in question
         return rule
     """, "a rule returns 'allow', 'deny', 'ask' or None"),
    ("""
     def customer_orders_only(question):
         def rule(tool, arguments):
             return "deny" if "order_id" in arguments and str(arguments["order_id"]) not in question else None
         return rule
     """, "Find whole order numbers in the question"),
])
def test_the_injection_rule_check_refuses_a_likely_mistake_with_a_hint(source, hint):
    fails_with("l8-injection-rule", source, hint, tries=TRIES)



# -- answers that lie: equal to anything (but 'allow'), so a check that trusted `==` passed them -------------
NOT_ALLOW = """
class _NotAllow(str):
    def __eq__(self, other):
        return other != "allow"

    def __ne__(self, other):
        return other == "allow"

    __hash__ = str.__hash__


def customer_orders_only(question):
    if " and " in question:
        return lambda tool, arguments: None
    # Every call about an order is stopped, the customer's own too; the answer only claims to be None for those.
    return lambda tool, arguments: _NotAllow("whatever") if "order_id" in arguments else None
"""


@pytest.mark.parametrize("id, source, hint", [
    ("l8-route-tenant", lying("l8-route-tenant", "return tenant.name, backend", 'return _Any(tenant.name), _Any("")'),
     "; expected ("),
    ("l8-injection-rule", NOT_ALLOW, "the rule returned 'whatever'; a rule returns 'allow', 'deny', 'ask' or None"),
], ids=["route-tenant", "injection-rule"])
def test_lesson_8_answers_that_lie_about_equality_go_to_review_by_the_graders_vocabulary_rule(id, source, hint):
    del hint  # what the check said while plain() guarded it: now the grader's rule does
    reviewed(id, source)


# -- a route that returns None where it should refuse was told it "was routed" ---------------------------------
def test_route_tenant_says_none_is_no_refusal_instead_of_was_routed():
    source = solution("l8-route-tenant")
    assert "raise PermissionError" in source
    quiet = source.replace("raise PermissionError", "return None  #", 1)
    verdict = check_source("l8-route-tenant", quiet, seed=0)
    assert not verdict.passed and "returned None instead of refusing" in verdict.message, str(verdict)
    assert "was routed" not in verdict.message
