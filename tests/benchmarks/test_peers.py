"""benchmarks.peers: the runner protocol end to end on a two-conversation sample made here, and the
figures, ratios and table built from runner results.

The peers' own runners need their scratch venvs (installed by ``make bench-peers`` from the
package registry, minutes and a network): their test runs only where those venvs exist.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from benchmarks import peers
from engine.models.embeddings import default_model_dir

SESSION_1, SESSION_2 = "1:56 pm on 8 May, 2023", "10:37 am on 27 June, 2023"
TURNS = [
    ("conv-a", 1, SESSION_1, "Maya adopted a grey kitten and named it Pixel."),
    ("conv-a", 1, SESSION_1, "Tom said he is repainting his kitchen a pale yellow."),
    ("conv-a", 1, SESSION_1, "Thanks, see you soon!"),
    ("conv-a", 2, SESSION_2, "Maya started violin lessons every Tuesday evening."),
    ("conv-a", 2, SESSION_2, "Tom ran his first half marathon in Lisbon."),
    ("conv-a", 2, SESSION_2, "Thanks, see you soon!"),
    ("conv-b", 1, SESSION_1, "Ravi is planting tomatoes and basil on his balcony."),
    ("conv-b", 1, SESSION_1, "Lena moved to Oslo for a job at a shipping company."),
    ("conv-b", 2, SESSION_2, "Ravi's sourdough starter is called Bubbles."),
    ("conv-b", 2, SESSION_2, "Lena is learning to ski on weekends."),
]
QUESTIONS = [
    ("conv-a", "What is the name of Maya's kitten?", "conv-a:D1:1"),
    ("conv-a", "Where did Tom run his half marathon?", "conv-a:D2:2"),
    ("conv-b", "What is Ravi growing on the balcony?", "conv-b:D1:1"),
    ("conv-b", "Which city did Lena move to?", "conv-b:D1:2"),
]


def _sample() -> tuple[list[dict], list[dict]]:
    turns, position = [], {}
    for conv, session, when, text in TURNS:
        position[(conv, session)] = position.get((conv, session), 0) + 1
        turns.append({"conv_id": conv, "session": session, "session_date_time": when, "text": text,
                      "fact_id": f"{conv}:D{session}:{position[(conv, session)]}"})
    questions = [{"qid": f"{conv}:q{n}", "conv_id": conv, "question": text, "expected": [expected]}
                 for n, (conv, text, expected) in enumerate(QUESTIONS)]
    return turns, questions


def _recall_at_5(questions: list[dict]):
    """A stand-in for the data set's scorer (not part of the project's tests): recall@k over the sample."""
    def score(ranked: dict[str, list[str]]) -> dict:
        def recall(k: int) -> float:
            return sum(len(set(q["expected"]) & set(ranked.get(q["qid"], [])[:k])) / len(q["expected"])
                       for q in questions) / len(questions)
        return {"ALL": {"recall@5": recall(5), "recall@10": recall(10), "mrr": 0.0}}
    return score


def _run(name: str, python: str, tmp_path: Path) -> dict:
    turns, questions = _sample()
    peer = peers.peers()[name]
    parts = []
    for conv in ("conv-a", "conv-b"):  # one job per conversation, as main() schedules them
        job = peers.job_for(name, [t for t in turns if t["conv_id"] == conv],
                            [q for q in questions if q["conv_id"] == conv], tmp_path / "stores",
                            default_model_dir(), top_k=3, warmup=("warm up",))
        parts.append(peers.run_runner(python, peer, job, tmp_path / "run", timeout=600))
    return peers.merge(parts)


def _check_protocol(result: dict, labels: set[str]) -> None:
    turns, questions = _sample()
    assert set(result["runs"]) == labels
    assert result["facts_given"] == len(turns)
    for run in result["runs"].values():
        assert len(run["search_ms"]) == len(questions) and all(ms > 0 for ms in run["search_ms"])
        for question in questions:
            ranked = run["ranked"][question["qid"]]
            assert ranked and all(turn.startswith(question["conv_id"] + ":") for turn in ranked)
            assert ranked[0] == question["expected"][0], (question["question"], ranked)


@pytest.mark.slow
def test_memlens_runner_speaks_the_protocol(tmp_path: Path) -> None:
    result = _run("memlens", sys.executable, tmp_path)
    _check_protocol(result, {"engine only", "end to end"})
    assert result["system"] == "memlens" and result["version"]
    assert result["ingest_s"] is not None  # built here, not reused
    rows = peers.ratios(peers.rows({"memlens": result}, _recall_at_5(_sample()[1])))
    assert [r["recall@5"] for r in rows] == [1.0, 1.0]
    assert "| memlens" in peers.table(rows)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["agentrecall-db", "mcp-memory-service-lite"])
def test_peer_runner_speaks_the_protocol(name: str, tmp_path: Path) -> None:
    python = peers.BENCH_DIR / "peers" / name / "bin" / "python"
    if not (python.parent.parent / ".installed").is_file():
        pytest.skip(f"{name} is not installed (make bench-peers installs it)")
    result = _run(name, str(python), tmp_path)
    _check_protocol(result, set(result["runs"]))
    # The repeated "Thanks, see you soon!" is stored once or twice, never lost.
    assert result["facts_stored"] in (len(TURNS) - 1, len(TURNS))


def _row(system: str, run: str, recall: float, p50: float, p95: float) -> dict:
    return {"system": system, "run": run, "version": "1.0", "recall@5": recall, "recall@10": recall, "mrr": 0.5,
            "search_ms": {"p50": p50, "p95": p95, "n": 10}}


def test_ratios_are_peer_over_memlens_end_to_end() -> None:
    rows = peers.ratios([_row("memlens", "engine only", 0.6, 2.0, 3.0), _row("memlens", "end to end", 0.6, 5.0, 8.0),
                         _row("slow-peer", "semantic", 0.4, 20.0, 40.0), _row("fast-peer", "default", 0.75, 4.0, 4.0)])
    memlens, slow, fast = rows[0], rows[2], rows[3]
    assert "speedup_p50" not in memlens and "recall_ratio" not in rows[1]
    assert (slow["speedup_p50"], slow["speedup_p95"], slow["recall_ratio"]) == (4.0, 5.0, 1.5)
    assert (fast["speedup_p50"], fast["speedup_p95"], fast["recall_ratio"]) == (0.8, 0.5, 0.8)
    printed = peers.table(rows)
    assert "| slow-peer 1.0, semantic | 0.4000 | 0.4000 | 0.5000 | 20.00 / 40.00 | 4.00× / 5.00× | 1.500 |" in printed
    assert "| memlens 1.0, end to end | 0.6000 | 0.6000 | 0.5000 | 5.00 / 8.00 |  |  |" in printed


def test_percentiles_match_locomo() -> None:
    assert peers.percentiles([5.0, 1.0, 3.0, 2.0, 4.0]) == {"p50": 3.0, "p95": 4.0, "n": 5}
    assert peers.percentiles([float(v) for v in range(1, 101)]) == {"p50": 50.5, "p95": 95.0, "n": 100}


def test_schedule_rotates_the_systems_each_conversation() -> None:
    order = peers.schedule(["m", "a", "b"], ["c1", "c2", "c3", "c4"])
    assert order == [("m", 0), ("a", 0), ("b", 0), ("a", 1), ("b", 1), ("m", 1),
                     ("b", 2), ("m", 2), ("a", 2), ("m", 3), ("a", 3), ("b", 3)]


def test_merge_joins_runs_and_sums_counts() -> None:
    part = lambda q, ms, ingest: {"system": "x", "version": "1", "ingest_s": ingest, "facts_given": 2,
                                  "facts_stored": 2, "wall_s": 1.0,
                                  "runs": {"r": {"ranked": {q: ["t"]}, "search_ms": ms}}}
    merged = peers.merge([part("q1", [1.0, 2.0], 0.5), part("q2", [3.0], 0.25)])
    assert merged["runs"]["r"] == {"ranked": {"q1": ["t"], "q2": ["t"]}, "search_ms": [1.0, 2.0, 3.0]}
    assert (merged["ingest_s"], merged["facts_given"], merged["version"]) == (0.75, 4, "1")
    assert peers.merge([part("q1", [1.0], None), part("q2", [1.0], 0.5)])["ingest_s"] is None
