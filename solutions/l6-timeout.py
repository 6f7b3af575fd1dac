# EXERCISE l6-timeout
from course.host import McpHost, in_memory


async def ask_inventory(server):
    async with McpHost(timeout=0.5, quiet=True) as host:
        await host.connect("warehouse", in_memory(server), allow={"inventory_report"})
        return await host.execute("inventory_report", "{}")
