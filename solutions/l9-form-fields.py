# EXERCISE l9-form-fields
KINDS = {"string": "text", "number": "number", "integer": "integer", "boolean": "boolean"}


def form_fields(schema):
    required = set(schema.get("required", []))
    fields = []
    for name, prop in schema.get("properties", {}).items():
        choices = list(prop.get("enum", []))
        fields.append({
            "name": name,
            "kind": "choice" if choices else KINDS[prop["type"]],
            "label": prop.get("title") or name,
            "required": name in required,
            "choices": choices,
        })
    return fields
