# EXERCISE l9-structured-result
import json

import jsonschema


def for_model(tool, output_schema, structured, text):
    if output_schema is None:
        return text
    if structured is None:
        raise ValueError(f"{tool} has an outputSchema but sent no structuredContent; the host refused it.")
    try:
        jsonschema.validate(structured, output_schema)
    except jsonschema.ValidationError as e:
        raise ValueError(f"{tool} broke its own outputSchema ({e.message}); the host refused it.") from None
    return json.dumps(structured) + "\n" + text
