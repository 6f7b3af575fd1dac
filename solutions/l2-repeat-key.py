# EXERCISE l2-repeat-key
import json


def normalize(value):
    """Strings lose case and surrounding spaces; dicts and lists are normalized inside; the rest stays."""
    if isinstance(value, str):
        return value.strip().casefold()
    if isinstance(value, dict):
        return {k: normalize(v) for k, v in value.items()}
    if isinstance(value, list):
        return [normalize(v) for v in value]
    return value


def repeat_key(name, arguments):
    try:
        data = json.loads(arguments)
    except json.JSONDecodeError:
        return name, arguments  # not JSON: only the very same text is a repeat
    return name, json.dumps(normalize(data), sort_keys=True)
