"""Runner scripts for ``benchmarks.peers``: one per system, each run by its own interpreter.

Each is started as ``python <runner>.py JOB.json RESULT.json`` (see ``runner_common``) and
imports only the standard library, ``runner_common`` beside it and the system it measures, so
the peers' runners work inside scratch environments that have nothing of MemLens installed.
"""
