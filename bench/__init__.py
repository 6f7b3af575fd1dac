"""Benchmarks: `make bench` runs every module here whose `main()` returns its `Figure`s (see `_figures.py`)."""
