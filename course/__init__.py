"""Companion code for the course "From LLM tool calling to MCP".

Each module says which lesson builds it; the notebooks in `notebooks/` show this code
and run it, so what you read is what runs.
"""

import sys

# jsonschema (the MCP client checks tool results with it) would import rfc3987_syntax, which builds a
# parser for about a second, only for the "iri" format that nothing here checks. None in sys.modules makes
# its import fail (as documented for the import system); typeshed's sys.modules type does not allow None.
sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]
