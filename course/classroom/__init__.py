"""The classroom: one class MCP server for a room of learners, a workspace each (WORKSHOP.md).

    python -m course.classroom --new-tokens 30 --tokens tokens.txt     # once: a token per learner
    python -m course.classroom --tokens tokens.txt [--port 8000]        # the class server

| module | holds |
|---|---|
| `server` | the class server: lesson 5's servers once for the class, over Streamable HTTP |
| `learners` | the tokens file, the token check, a workspace per learner (`LearnerMiddleware`) |
| `roster` | `make class-add NAME=zoe`: a late learner, with nothing restarted |
| `rehearsal` | `make class-rehearsal N=20`: simulated learners run lesson 6's calls at once |
| `limits` | a fair share per learner: requests in flight, the store's tools in a thread lane each |
| `sessions` | handshake-era sessions: a cap per learner, a short idle timeout |
| `class_data` | what each learner's folder holds |
| `status` | `make class-status`: the class at a glance, a line per learner |
| `class_cache` | `make class-cache`: the teacher embeds lesson 3's documents once for a hub's learners |
| `endpoint` | lesson 6's document server: the class's when given one, else its own |
| `workspaces` | lesson 8's small shared server: the same design, a workspace per tenant |
| `hub` | the hub's pieces: a system user per learner, their own password, limits (needs JupyterHub) |
"""

from course.classroom.class_data import DEFAULT_DATA, LearnerData, class_data
from course.classroom.endpoint import URL_ENV, class_server, docs_endpoint
from course.classroom.learners import (
    LearnerMiddleware,
    LearnerTokens,
    TokensFileError,
    Workspace,
    Workspaces,
    new_tokens,
    read_tokens,
    token_auth,
)

__all__ = ["DEFAULT_DATA", "URL_ENV", "LearnerData", "LearnerMiddleware", "LearnerTokens", "TokensFileError",
           "Workspace", "Workspaces", "class_data", "class_server", "docs_endpoint", "new_tokens", "read_tokens",
           "token_auth"]
