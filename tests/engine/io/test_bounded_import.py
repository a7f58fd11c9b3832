"""A large import stays bounded (issue 18): the file is read a chunk at a time, each chunk is its
own plan, and the model never runs a batch over its token or attention budget."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Iterator

import numpy as np

from engine import Memory
from engine.absorb.planner import RawItem
from engine.io.stream import Chunker
from engine.models.embeddings import FastEmbedder

LINES = 2000
CHUNK = 200
TOKEN_BUDGET = 256
ATTENTION_BUDGET = 4 * 64 * 64
BAYS = ("north", "south", "east", "west", "upper", "lower")


class RecordingModel(FastEmbedder):
    """The real model, noting what each ``embed`` call was handed and the shape of every model run."""

    def __init__(self) -> None:
        self.calls: list[int] = []
        self.runs: list[tuple[int, int]] = []  # (texts, longest in tokens) as the model got them
        super().__init__(batch_size=64, token_budget=TOKEN_BUDGET, attention_budget=ATTENTION_BUDGET)

    def embed(self, texts):  # type: ignore[no-untyped-def]
        self.calls.append(len(texts))
        return super().embed(texts)

    def _infer(self, texts: list[str]) -> np.ndarray:
        encodings = self._model.model.tokenizer.encode_batch(texts)  # the model's own tokenizer: what it runs on
        self.runs.append((len(texts), max(sum(e.attention_mask) for e in encodings)))
        return super()._infer(texts)


def text(n: int) -> str:
    return f"Crate {n:05d} waits in the {BAYS[n % len(BAYS)]} bay, row {n * 7 % 113}."


def test_a_large_input_is_planned_chunk_by_chunk_within_the_model_budgets(tmp_path: Path) -> None:
    path = tmp_path / "large.jsonl"
    path.write_text("".join(json.dumps({"text": text(n)}) + "\n" for n in range(LINES)), encoding="utf-8")
    model = RecordingModel()
    model.calls.clear()
    model.runs.clear()  # the dimension probe
    with Memory(tmp_path / "memory.sqlite", embedder=model) as memory:
        run = memory.import_file(path, chunk_items=CHUNK)
        plans = [memory.plan(c.plan_id) for c in run.chunks]
    assert [c.items for c in run.chunks] == [CHUNK] * (LINES // CHUNK)
    assert all(c.status == "applied" for c in run.chunks) and run.written == LINES
    assert [(c.first_line, c.last_line) for c in run.chunks] == [(k + 1, k + CHUNK) for k in range(0, LINES, CHUNK)]
    assert all(len(p.items) <= CHUNK for p in plans), "no plan holds more than one chunk's items"
    assert len({p.id for p in plans}) == len(plans)
    assert max(model.calls) <= CHUNK and sum(model.calls) == LINES, "every text embedded once, a chunk at most"
    assert all(count * longest <= TOKEN_BUDGET for count, longest in model.runs), model.runs
    assert all(count * longest * longest <= ATTENTION_BUDGET for count, longest in model.runs)
    assert sum(count for count, _ in model.runs) == LINES
    rows = sqlite3.connect(tmp_path / "memory.sqlite").execute(
        "SELECT text, count(*) FROM facts GROUP BY text").fetchall()
    assert dict(rows) == {text(n): 1 for n in range(LINES)}


def test_the_chunker_reads_no_further_than_the_chunk_it_hands_out() -> None:
    read = [0]

    def records() -> Iterator[tuple[int, RawItem]]:
        for n in range(1, 1001):
            read[0] += 1
            yield n, RawItem({"text": text(n)})
    held = []
    chunker = Chunker(records(), [(101, 300)], chunk_items=150)
    for k, chunk in enumerate(chunker, start=1):
        # Only the record that closed the chunk is read past it (and the 200 skipped lines).
        assert read[0] <= 200 + k * 150 + 1
        held.append(len(chunk.items))
        assert not any(101 <= line <= 300 for line in chunk.lines)
    # The first chunk closes where the applied range starts: a chunk's line range holds only its own lines.
    assert held == [100, 150, 150, 150, 150, 100] and read[0] == 1000 and chunker.skipped == 200
