"""Measurement scripts for MemLens (run with ``python -m benchmarks.<name>``)."""
