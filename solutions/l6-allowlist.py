# EXERCISE l6-allowlist
from course.host import in_memory


async def connect_support(host, server):
    # Name the tools the agent needs; anything the server adds later stays hidden.
    await host.connect("docs", in_memory(server), allow={"search_docs", "read_section", "create_ticket"})
