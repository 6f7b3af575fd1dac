"""Lesson 8's demonstrations of MCP architecture and its attacks, beside the lesson that runs them.

    from course.architecture import Gateway, Backend, Tenant, served, weather_server

`local_http.py` sends raw Streamable HTTP requests to a server's app in this process;
`gateway.py` is one endpoint in front of several servers, routing each tenant by its token;
`attacks.py` holds the poisoned page, document, tool description and rug pull the host must stop.
The documents as resources and the support prompts are part of the docs server
(`course/servers/policy_resources.py`), which lesson 5's server serves.
"""

from course.architecture.attacks import (
    EVIL_PAGE,
    STOLEN_REFUND,
    PoisonedWeb,
    poisoned_docs,
    rug_pull_server,
    weather_server,
)
from course.architecture.gateway import Backend, Gateway, Tenant
from course.architecture.local_http import (
    ACCEPT,
    BASE_URL,
    initialize,
    mcp_client,
    modern,
    modern_headers,
    served,
    summary,
)

__all__ = ["ACCEPT", "BASE_URL", "EVIL_PAGE", "STOLEN_REFUND", "Backend", "Gateway", "PoisonedWeb", "Tenant",
           "initialize", "mcp_client", "modern", "modern_headers", "poisoned_docs", "rug_pull_server", "served",
           "summary", "weather_server"]
