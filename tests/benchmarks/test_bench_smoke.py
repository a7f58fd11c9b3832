"""The speed benchmark end to end on a 200-fact store: every figure present, engine equal to the reference.

No time value is asserted: timings depend on the machine. What must hold
everywhere is that the benchmark runs, records every figure and size, and
that the engine's top-10 equals the plain reference implementation's.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import report, speed
from benchmarks.__main__ import run

SIZE = 200
PERCENTILES = {"p50", "p95", "n"}


@pytest.fixture(scope="module")
def result(tmp_path_factory: pytest.TempPathFactory, embedder) -> dict:
    bench_dir = tmp_path_factory.mktemp("bench")
    found = run([SIZE], speed.SMOKE, embedder, bench_dir, log=lambda _: None, query_count=40)
    # Round-trip through JSON, as __main__ writes it.
    return json.loads(json.dumps(found, default=str))


@pytest.mark.slow
def test_every_figure_is_recorded(result: dict) -> None:
    for key, _label in report.ROWS:
        value = result["figures"][key][str(SIZE)]
        if key.endswith(("_us", "_ms")):
            assert set(value) == PERCENTILES and value["n"] > 0
            assert 0 <= value["p50"] <= value["p95"]
        else:
            assert value is not None
    assert result["stores"][str(SIZE)]["facts"] > 0
    assert {"cores", "cpu", "python", "date", "commit"} <= set(result["machine"])


@pytest.mark.slow
def test_engine_agrees_with_the_reference(result: dict) -> None:
    check = result["correctness"]
    assert check["size"] == SIZE and check["queries"] == speed.SMOKE.correctness
    assert check["agree"] == check["queries"], check["differences"]


@pytest.mark.slow
def test_table_names_every_figure(result: dict) -> None:
    printed = report.table(result)
    for _key, label in report.ROWS:
        assert label in printed
    assert f"{speed.SMOKE.correctness}/{speed.SMOKE.correctness}" in printed


def test_stores_are_cached_by_size_and_version(tmp_path: Path) -> None:
    from benchmarks.synthetic import GENERATOR_VERSION, Generator, store_path

    assert store_path(10_000, tmp_path).name == f"store-10000-v{GENERATOR_VERSION}.sqlite"
    assert Generator(7).facts(50) == Generator(7).facts(50)
    texts = [it["text"] for it in Generator(7).facts(300)]
    assert all(50 <= len(t) <= 500 for t in texts)
