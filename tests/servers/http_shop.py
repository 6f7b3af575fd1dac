"""The shopfront server over Streamable HTTP, the way lesson 5 serves the course's servers.

    COURSE_MCP_TOKEN=... python -m tests.servers.http_shop --transport streamable-http --port N

With a token set, requests without `Authorization: Bearer <token>` get 401.
"""

from course.servers import bearer_auth, command_line, serve

from .shopfront import build


def build_for(token: str | None = None, **options):
    return build(**options, **bearer_auth(token))


if __name__ == "__main__":
    serve(build_for, command_line(__doc__.splitlines()[0]).parse_args())
