"""Scripted model: overhead per completion through the real openai SDK (goal <= 2 ms median)."""

from bench._figures import Figure, at_most
from bench._timing import median_ms
from course.orders import shop_toolbox
from course.scripted import ScriptedModel, call

MESSAGES = [{"role": "user", "content": "Where is my order A1001?"}]


def main() -> list[Figure]:
    tools = shop_toolbox().definitions()
    text = ScriptedModel(lambda body: "Your order has shipped.").client()
    calls = ScriptedModel(lambda body: call("get_order_status", order_id="A1001")).client()
    figures = []
    for label, client in [("text answer", text), ("tool call", calls)]:
        ms = median_ms(lambda c=client: c.chat.completions.create(model="gpt-4.1-mini", messages=MESSAGES,
                                                                  tools=tools))
        figures.append(Figure(f"{label}: per completion (median)", ms, "ms", at_most(2)))
    return figures
