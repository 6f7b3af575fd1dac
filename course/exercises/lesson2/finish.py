"""The check of `l2-finish`: one last request with the tools off, so a stopped run still answers."""


from __future__ import annotations

import copy

import openai

from course.exercises import NotYet, exercise
from course.exercises.api_hints import rejected
from course.exercises.lesson2.cases import conversation, made_up_tools
from course.exercises.lesson2.given import GIVEN_FINISH
from course.exercises.seeds import draws


def first_difference(sent: list, given: list) -> str:
    """Which message of the conversation the request changed, left out or moved, in words."""
    for i, (mine, theirs) in enumerate(zip(sent, given, strict=False)):
        if mine != theirs:
            return f"[{i}] ({theirs.get('role')!r} in the conversation)"
    return f"[{len(sent)}] (missing: the request has {len(sent)} of the {len(given)} messages)"


@exercise("l2-finish", lesson=2, given=GIVEN_FINISH)
def check_finish(final_answer):
    from course.backend import MODEL
    from course.scripted import ScriptedModel, call

    rng = draws()
    nonce = f"N{rng.getrandbits(24):x}"
    tools = made_up_tools(rng, 2)
    why = rng.choice(["the assistant has used all {n} tool steps it is allowed",
                      "the token budget ({n}00 tokens) does not allow another step",
                      "the time limit of {n} seconds is reached"]).format(n=rng.randint(2, 9))

    for reply in (f"I found part of it for {nonce}; the rest I could not check.", ""):
        def model(body: dict, reply=reply):
            if body.get("tool_choice") != "none" and body.get("tools"):
                return call(tools[0]["function"]["name"], q=nonce)  # tools are on: a model goes on calling them
            return reply

        fake = ScriptedModel(model)
        messages = conversation(rng, tools, nonce)
        given = copy.deepcopy(messages)
        try:
            answer = final_answer(fake.client(max_retries=0), MODEL, messages, copy.deepcopy(tools), why)
        except openai.BadRequestError as e:
            raise rejected(e) from None
        if len(fake.requests) != 1:
            raise NotYet(f"final_answer should send exactly one request; it sent {len(fake.requests)}.",
                         "the finish is a single call of client.chat.completions.create: no loop, no retry, no second "
                         "request for an empty reply.")
        sent = fake.requests[0]
        if sent.get("tool_choice") != "none":
            raise NotYet(f"the last request sent tool_choice={sent.get('tool_choice')!r}, so the model can call "
                         "another tool instead of answering.",
                         "switch the tools off with tool_choice='none' in that request.")
        if sent.get("tools") != tools:
            raise NotYet("keep the tools listed in the last request (tools=tools).",
                         "the conversation has tool calls, and tool_choice='none' switches them off without "
                         "hiding them.")
        if sent["messages"][:len(given)] != given:
            raise NotYet("the last request should send the whole conversation, as it was, and then your note: its "
                         f"message {first_difference(sent['messages'], given)} differs from the conversation you were "
                         "given.",
                         "send the messages you were given, unchanged and in order (a copy of `messages`), with your "
                         "note after them, not instead of one.")
        notes = [m for m in sent["messages"][len(given):] if why in str(m.get("content"))]
        if not notes:
            raise NotYet("add a note after the conversation that tells the model why it must answer now.",
                         "put the `why` text in it (FINISH_NOTE.format(why=why) does).")
        if reply:
            if answer != reply:
                raise NotYet(f"return the model's text (message.content): expected {reply!r:.80}, got {answer!r:.80}.",
                             "the text is response.choices[0].message.content; return it as it is, without adding to "
                             "it.")
        elif not (isinstance(answer, str) and answer.strip() and why in answer):
            raise NotYet("when the model sends empty text, return an answer of your own that says why the run "
                         f"stopped (put `why` in it), so the customer is not left with nothing; got {answer!r:.80}.",
                         "test the model's text: when it is empty (or only spaces), build a sentence that contains "
                         "`why` and return that instead.")
        if messages[:len(sent["messages"])] != sent["messages"] or \
                messages[len(sent["messages"]):] != [{"role": "assistant", "content": answer}]:
            raise NotYet("append the note and then the answer ({'role': 'assistant', 'content': answer}) to "
                         "`messages`, so the conversation can go on after the finish.",
                         f"after the call, `messages` ends with {messages[len(given):]!r:.160}; print it after your "
                         "function returns and compare.")
    return "Tools off, a note that says why, and an answer, even when the model sends none."
