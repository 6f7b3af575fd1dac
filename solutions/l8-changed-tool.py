# EXERCISE l8-changed-tool
def changed_tools(pinned, listed):
    def definition(tool):
        # Compared as data: a schema with its keys in another order is the same schema.
        return (tool.description, tool.input_schema, tool.annotations)

    return {tool.name for tool in listed
            if tool.name in pinned and definition(tool) != definition(pinned[tool.name])}
