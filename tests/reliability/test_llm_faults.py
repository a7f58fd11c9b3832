"""An LLM endpoint misbehaving with huge, endless or trickling answers (slow, 500s and garbage
are covered in tests/engine/test_llm.py): bounded memory, bounded time, no corruption."""

from __future__ import annotations

import json
import sqlite3
import tracemalloc
from dataclasses import replace
from pathlib import Path
from typing import Iterator

import pytest

from engine import Memory, Settings
from engine.config import LLMSettings
from engine.models.llm import MAX_ANSWER_BYTES, LLMClient, LLMError
from tests.llm_server import ScriptedLLM

EDITOR = "Maya uses Vim as her main editor for all of her backend work at Northwind."
# A wording the heuristic stays unsure of (the frame reading finds no subject), so the LLM is asked; "Maya now uses
# Helix as her main editor …" is read without it as a newer value of the same frame.
EDITOR_NEW = "All of the backend work Maya does at Northwind happens in Helix."
HUGE = 64 * MAX_ANSWER_BYTES  # a 64 MB answer


@pytest.fixture
def llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[ScriptedLLM]:
    monkeypatch.setenv("MEMLENS_TEST_KEY", "k")
    server = ScriptedLLM()
    yield server
    server.close()


def _llm_settings(llm: ScriptedLLM) -> LLMSettings:
    return LLMSettings(base_url=llm.base_url, model="test-model", api_key_env="MEMLENS_TEST_KEY", timeout=0.5)


def _huge_completion() -> bytes:
    return json.dumps({"choices": [{"message": {"role": "assistant", "content": "x" * HUGE}}]}).encode()


def _peak_while(call) -> tuple[int, BaseException | None]:
    """Peak Python heap above the start (bytes) while ``call`` runs, and what it raised."""
    tracemalloc.start()
    try:
        try:
            call()
            raised = None
        except BaseException as err:  # noqa: BLE001 - returned to the test
            raised = err
        return tracemalloc.get_traced_memory()[1], raised
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("answer", [("raw", "huge completion"), ("stream", (b"y" * 65536, 0))],
                         ids=["huge-completion", "endless-stream"])
def test_huge_answer_is_refused_with_bounded_memory(llm: ScriptedLLM, answer, report: dict) -> None:
    kind, value = answer
    llm.answer((kind, _huge_completion() if value == "huge completion" else value))  # built before tracing
    client = LLMClient(_llm_settings(llm))
    peak, raised = _peak_while(lambda: client.chat("system", "user"))
    assert isinstance(raised, LLMError) and raised.kind == "bad_response", raised
    assert "larger than" in str(raised)
    assert peak < 4 * MAX_ANSWER_BYTES, f"{peak:,} bytes held for an answer of {HUGE:,}"
    report["faults"].append((f"LLM {kind} answer: cut off at {MAX_ANSWER_BYTES:,} B", "ok"))


def test_trickling_answer_times_out(llm: ScriptedLLM, report: dict) -> None:
    """A server sending a byte now and then never trips the socket timeout; the whole answer has a deadline."""
    llm.answer(("stream", (b"z", 0.02)))
    with pytest.raises(LLMError) as err:
        LLMClient(_llm_settings(llm)).chat("system", "user")
    assert err.value.kind == "timeout"
    report["faults"].append(("LLM trickling answer: timeout", "ok"))


def test_absorb_with_a_huge_answer_falls_back_and_writes_sane_rows(llm: ScriptedLLM, db_path: Path, clock,
                                                                   embedder, report: dict) -> None:
    settings = replace(Settings(), llm=_llm_settings(llm))
    with Memory(db_path, settings, clock=clock, actor="test", embedder=embedder) as smart:
        smart.absorb([EDITOR])
        llm.answer(("raw", _huge_completion()))
        item = smart.absorb([EDITOR_NEW]).items[0]
        assert item.decided_by == "heuristic" and item.reason.endswith("(LLM not used: bad_response)")
        assert smart.llm_stats()["bad_response"] == 1
    db = sqlite3.connect(db_path)
    assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    assert db.execute("SELECT max(length(text)), max(length(details)) FROM facts, journal").fetchone()[0] < 200
    assert db.execute("SELECT max(length(details)) FROM journal").fetchone()[0] < 10_000
    db.close()
    report["faults"].append(("LLM huge answer during absorb: heuristic, no corruption", "ok"))
