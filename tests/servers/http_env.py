"""course.servers.env_names over HTTP, the way lesson 5 serves the course's servers.

    COURSE_MCP_TOKEN=... python -m tests.servers.http_env --transport streamable-http --port N
"""

from course.servers import bearer_auth, command_line, serve
from course.servers.env_names import build


def build_for(token: str | None = None):
    return build(**bearer_auth(token))


if __name__ == "__main__":
    serve(build_for, command_line(__doc__.splitlines()[0]).parse_args())
