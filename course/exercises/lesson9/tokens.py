"""The check of `l9-token-check`: what a protected server decides about a bearer token's claims."""

from __future__ import annotations

from course.exercises import NotYet, exercise
from course.exercises.lesson9.cases import word
from course.exercises.lesson9.given import GIVEN
from course.exercises.seeds import draws

NOW = 1_900_000_000


@exercise("l9-token-check", lesson=9, given=GIVEN)
def check_token_check(token_problem):
    rng = draws()
    port = rng.randrange(8000, 9000)
    me = f"http://127.0.0.1:{port}/mcp"
    read, write = f"{word(rng, 4)}:read", f"{word(rng, 4)}:write"
    good = {"aud": me, "scope": f"{read} {write}", "exp": NOW + rng.randrange(60, 3600)}
    cases = [
        (good, [read], None, "a token for this server with the scope"),
        ({**good, "aud": [f"http://127.0.0.1:{port + 1}/mcp", me]}, [read, write], None,
         "a token whose audience list names this server"),
        ({**good, "scope": write}, [write], None, "a token with exactly the scope needed"),
        ({**good, "aud": f"http://127.0.0.1:{port + 1}/mcp"}, [read], "invalid_token",
         "a token for another server (RFC 8707: its audience is not this server)"),
        ({**good, "aud": me + "-admin"}, [read], "invalid_token",
         "a token for a server whose URL only starts like this one's"),
        ({**good, "aud": [f"http://127.0.0.1:{port + 1}/mcp"]}, [read], "invalid_token",
         "a token whose audience list does not name this server"),
        ({**good, "exp": NOW - 1}, [read], "invalid_token", "an expired token"),
        ({k: v for k, v in good.items() if k != "aud"}, [read], "invalid_token", "a token with no audience"),
        ({**good, "scope": read}, [read, write], "insufficient_scope", "a token without the write scope"),
        ({**good, "scope": read + "only " + write.replace(":write", ":writer")}, [read], "insufficient_scope",
         "a token whose scopes only contain the needed one as part of a longer word"),
    ]
    rng.shuffle(cases)
    for token, needed, want, case in cases:
        got = token_problem(dict(token), me, list(needed), NOW)
        if got != want:
            advice = {None: "it should pass", "invalid_token": "answer \"invalid_token\" (HTTP 401)",
                      "insufficient_scope": "answer \"insufficient_scope\" (HTTP 403)"}[want]
            raise NotYet(f"for {case}, token_problem returned {got!r}; {advice}.",
                         "Compare the audience with the whole URL (a string or a list of them), check exp "
                         "against now, and split the scope string on spaces before you look for each needed "
                         "scope.")
    return "Only a live token for this server, with every scope needed, gets through; the rest get the right error."
