"""The hub's look at the class server at its start: is COURSE_MCP_URL a class server that knows the tokens?

    problem = class_server_problem(url, a_learners_token)   # None, or what the teacher reads at `make hub`

Learners' servers get `COURSE_MCP_URL` and their own token; a URL that is wrong, or a class server
started with another tokens file, showed only in lesson 6, as each learner's own confusing failure.
Two requests, as the hub sees the server (learners' servers run on the same machine):

1. without a token: a class server answers 401 and asks for a bearer token. No answer, 404, 421
   or anything else is a wrong URL, a server not started, a name not allowed (`--allow-host`), or
   lesson 5's own server;
2. with a learner's token, a notification (2026-07-28, no session): 202. A 401 is a class server
   that does not know the hub's tokens. A notification is never logged nor served from a workspace,
   so the check leaves no trace in `make class-status`.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from course.servers.serving import PATH

TIMEOUT = 5.0  # seconds: a class server on this machine answers in milliseconds, even while it indexes
PROTOCOL = "2026-07-28"
NOTE = {"jsonrpc": "2.0", "method": "notifications/initialized"}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
           "MCP-Protocol-Version": PROTOCOL}


def class_server_problem(url: str, token: str, timeout: float = TIMEOUT) -> str | None:
    """None when `url` is a class server that accepts `token`; else what is wrong and what to do."""
    import httpx2

    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"COURSE_MCP_URL={url!r} is not a web address: give the class server's, e.g. http://127.0.0.1:8000{PATH}"
    start = "start it first (`make class-server DATA=class`, WORKSHOP.md) or correct COURSE_MCP_URL"
    try:
        with httpx2.Client(timeout=timeout, headers=HEADERS) as h:
            bare = h.post(url, json=NOTE)
            if bare.status_code != 401 or "bearer" not in bare.headers.get("www-authenticate", "").lower():
                return what_answered(url, bare.status_code, start)
            known = h.post(url, json=NOTE, headers={"Authorization": f"Bearer {token}"})
    except httpx2.HTTPError as e:
        return f"No class server answers at COURSE_MCP_URL={url} ({type(e).__name__}): {start}."
    if known.status_code == 401:
        return (f"The class server at {url} does not know the learners' tokens in COURSE_CLASS_TOKENS: it was started "
                "with another tokens file. Start it with the same one (`make class-server TOKENS=...`).")
    if known.status_code >= 400:
        return f"The class server at {url} refused a learner's first message ({known.status_code}): {known.text[:200]}"
    return None


def what_answered(url: str, status: int, start: str) -> str:
    """The message for a first answer that is not a class server's 401."""
    if status == 404:
        return f"Nothing is served at {url} (404): the class server's path is {PATH}; {start}."
    if status == 421:
        return (f"The class server at {url} refuses the name {urlsplit(url).netloc!r} (421): start it with "
                f"--allow-host {urlsplit(url).hostname} (make class-server ALLOW_HOST=...), or use a name it allows.")
    if status < 400:
        return (f"The server at {url} asks for no token: it is not the class server (lesson 5's own server, or "
                f"another program on that port). {start[0].upper()}{start[1:]}.")
    return f"The server at {url} answered {status}, not as the class server does (401 without a token): {start}."
