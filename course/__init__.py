"""Companion code for the course "From LLM tool calling to MCP".

Each module says which lesson builds it; the notebooks in `notebooks/` show this code
and run it, so what you read is what runs.
"""
