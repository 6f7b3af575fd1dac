# EXERCISE l9-answer-problems
def problems(schema, answer):
    props, required = schema.get("properties", {}), schema.get("required", [])
    found = [f"{name}: the form has no such field." for name in answer if name not in props]
    for name, prop in props.items():
        label = prop.get("title", name)
        if name not in answer or answer[name] is None:
            if name in required:
                found.append(f"{label}: required.")
            continue
        value = answer[name]
        if "enum" in prop:
            if value not in prop["enum"]:
                found.append(f"{label}: one of {', '.join(map(str, prop['enum']))}.")
        elif prop["type"] in ("number", "integer"):
            whole = prop["type"] == "integer"
            if isinstance(value, bool) or not isinstance(value, (int, float)) or (whole and value != int(value)):
                found.append(f"{label}: {'a whole number' if whole else 'a number'}.")
            elif value < prop.get("minimum", value) or value > prop.get("maximum", value):
                found.append(f"{label}: between {prop.get('minimum', '-')} and {prop.get('maximum', '-')}.")
        elif prop["type"] == "boolean" and not isinstance(value, bool):
            found.append(f"{label}: yes or no.")
        elif prop["type"] == "string" and not isinstance(value, str):
            found.append(f"{label}: text.")
    return found
