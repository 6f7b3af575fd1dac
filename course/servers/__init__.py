"""The course's MCP servers (lesson 5) and what they share: bearer-token auth and the command line.

    python -m course.servers.docs    [--transport stdio|streamable-http] [--port N] [--docs DIR]
    python -m course.servers.webapi  [--transport stdio|streamable-http] [--port N] [--api URL]
    python -m course.servers.stub_api [--port 8765]        # the REST API that webapi wraps

Over stdio the client starts the server as its own child process, so no one else can talk to
it. Over HTTP any program on this machine can (the servers listen on 127.0.0.1 only), so set
`COURSE_MCP_TOKEN`: then every request needs `Authorization: Bearer <token>` (401 otherwise).
Without it the server accepts everyone, and says so on stderr when it starts.

What every server shares, by job: `auth` (`StaticToken`, `bearer_auth`, `TOKEN_ENV`), `serving`
(`command_line`, `serve`: a server's own start), `launch` (`http_server`: start one as a child
process and stop it), `descriptions` (`described`: tool descriptions without indentation).
"""

# Process helpers live in course.processes (the host uses them too); named here for lesson 5's imports.
from course.offline import MODEL_VARIABLES
from course.processes import HOST, child_env, free_port, running
from course.servers.auth import TOKEN_ENV, StaticToken, bearer_auth
from course.servers.descriptions import described
from course.servers.launch import CHILD_ENV, http_server
from course.servers.serving import DEFAULT_PORT, PATH, command_line, serve

__all__ = ["CHILD_ENV", "DEFAULT_PORT", "HOST", "MODEL_VARIABLES", "PATH", "TOKEN_ENV", "StaticToken", "bearer_auth",
           "child_env", "command_line", "described", "free_port", "http_server", "running", "serve"]
