# EXERCISE l6-list-tools
async def list_tools(client, allow):
    """Every tool the server lists whose name is on `allow`, from every page, in the server's order."""
    tools, cursor = [], None
    while True:
        page = await client.list_tools(cursor=cursor)
        tools += [tool for tool in page.tools if tool.name in allow]
        cursor = page.next_cursor
        if cursor is None:  # the last page: an empty page with a cursor is not the end
            return tools
