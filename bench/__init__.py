"""Benchmarks: `make bench` runs every module in this folder that has a `main()`."""
