"""Scripted model: overhead per completion through the real openai SDK (goal <= 2 ms median)."""

from bench._timing import median_ms
from course.scripted import ScriptedModel, call
from course.orders import shop_toolbox

MESSAGES = [{"role": "user", "content": "Where is my order A1001?"}]


def main() -> None:
    tools = shop_toolbox().definitions()
    text = ScriptedModel(lambda body: "Your order has shipped.").client()
    calls = ScriptedModel(lambda body: call("get_order_status", order_id="A1001")).client()
    for label, client in [("text answer", text), ("tool call", calls)]:
        ms = median_ms(lambda: client.chat.completions.create(model="gpt-5.5", messages=MESSAGES, tools=tools))
        print(f"   {label:<12} {ms:6.2f} ms median per completion (goal <= 2 ms)")
