# EXERCISE l9-secret-question
import re

SECRET = re.compile(r"\b(password|passphrase|pin|secret|api key|token|card number|cvv)\b", re.IGNORECASE)


def asks_for_secret(message, schema):
    texts = [message]
    for name, prop in schema.get("properties", {}).items():
        texts += [name.replace("_", " "), prop.get("title", ""), prop.get("description", "")]
    for text in texts:
        found = SECRET.search(text)
        if found:
            return found.group(0)
    return None
