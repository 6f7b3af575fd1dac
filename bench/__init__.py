"""Benchmarks: `make bench` runs every module in this folder whose `main()` returns its `Figure`s (see `_figures.py`)."""
