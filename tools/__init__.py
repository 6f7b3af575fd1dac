"""Tools for the course's authors (not imported by the course): `python -m tools.refresh` re-executes notebooks."""
