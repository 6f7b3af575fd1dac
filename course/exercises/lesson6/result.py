"""The check of `l6-result-text`: an MCP tool result as the text the model reads."""

from __future__ import annotations

import json
import random
from typing import Any

from course.exercises import NotYet, exercise
from course.exercises.hints import trying
from course.exercises.lesson6.given import GIVEN_RESULT
from course.exercises.seeds import draws


# -- l6-result-text -------------------------------------------------------------------------------------
def results(rng: random.Random) -> list[tuple[Any, str, list[str]]]:
    """(result, what it is, texts that must appear in order) for results of every shape."""
    import mcp.types as types

    def text(t: str) -> Any:
        return types.TextContent(type="text", text=t)

    def words(n: int = 4) -> str:
        return " ".join(rng.choice(["kettle", "mug", "refund", "A1002", "ready", "3 left"]) for _ in range(n))

    parts = [words() for _ in range(rng.randint(2, 4))]
    failure = f"no {rng.choice(['kettle', 'mug', 'lamp'])} left in stock ({rng.randint(2, 99)} ordered)"
    image = types.ImageContent(type="image", data="iVBORw0KGgo" + "A" * rng.randint(40, 80), mime_type="image/png")
    data = {"count": rng.randint(1, 99), "items": [words(1), words(1)]}
    said = f"Error executing tool check_stock: {words()}"
    return [
        (types.CallToolResult(content=[text(parts[0])]), "a result with one text part", parts[:1]),
        (types.CallToolResult(content=[text(p) for p in parts]), "a result with several text parts", parts),
        (types.CallToolResult(content=[text(parts[0]), image, text(parts[1])]), "a result with an image between two "
         + "text parts", parts[:2]),
        (types.CallToolResult(content=[], structured_content=data), "a result with only structured content", []),
        (types.CallToolResult(content=[]), "a result with nothing in it", []),
        (types.CallToolResult(content=[text(failure)], is_error=True), "a failed result (is_error)", [failure]),
        (types.CallToolResult(content=[text(said)], is_error=True), "a failed result whose text starts with Error",
         [said.removeprefix("Error")]),
    ]


@exercise("l6-result-text", lesson=6, given=GIVEN_RESULT)
def check_result_text(result_to_text):
    rng = draws()
    for result, what, texts in results(rng):
        try:
            with trying(what):
                got = result_to_text(result)
        except AttributeError as e:
            if "text" in str(e):
                raise NotYet(f"for {what}, your code asked a part that is not text for its .text.",
                             "check isinstance(part, TextContent) first, and describe other parts in a short "
                             "note.") from None
            raise
        if not isinstance(got, str):
            raise NotYet(f"for {what}, result_to_text returned a {type(got).__name__}.",
                     "return one str: the parts' texts joined, on every path.")
        if not got.strip():
            raise NotYet(f"for {what} the model would get an empty text.",
                         "say that the tool returned nothing (or give the structured content as JSON).")
        position = 0
        for part in texts:
            found = got.find(part, position)
            if found < 0:
                raise NotYet(f"for {what}, the text of a part is missing or out of order.",
                             "keep every text part of result.content, in order (not only the first).")
            position = found + len(part)
        if result.is_error and not got.startswith("Error"):
            raise NotYet(f"for {what} the text reads like an answer.",
                         "the model cannot tell the call failed. When result.is_error, start the text with "
                         "'Error' (add 'Error: ' if the server's text does not start with it).")
        if not result.is_error and got.startswith("Error"):
            raise NotYet(f"{what} succeeded, yet the text starts with 'Error'.",
                         "add it only when result.is_error.")
        if any(p.type == "image" for p in result.content):
            image = next(p for p in result.content if p.type == "image")
            if image.data[:20] in got:
                raise NotYet("the image's data (base64) reached the text.",
                             "the model cannot use it and it costs tokens. Put a short note such as '[image]' in "
                             "its place.")
            if "image" not in got.lower():
                raise NotYet("a part that is not text vanished without a trace.",
                             "put a short note that names its kind, such as '[image]', in its place.")
        if result.structured_content is not None and not result.content:
            try:
                same = json.loads(got) == result.structured_content
            except json.JSONDecodeError:
                same = False
            if not same:
                raise NotYet(f"for {what}, the text is not its structured_content.",
                             "with no content parts, return json.dumps(result.structured_content).")
    return "Every part reaches the model as text, and a failure stays a failure."
