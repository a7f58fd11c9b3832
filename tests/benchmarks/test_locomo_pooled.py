"""LoCoMo's pooled shape (``benchmarks.locomo --pooled``): every conversation in one memory, every question
asked of it, folds still by conversation."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from benchmarks.locomo import DAY, POOLED, Prepared, _build_all, _session_time
from engine import Settings

TURNS = [
    {"conv_id": "conv-a", "session": 1, "session_date_time": "1:56 pm on 8 May, 2023", "fact_id": "conv-a:D1:1",
     "text": "Caroline: I adopted a grey rescue cat named Pixel from the shelter on Elm Street."},
    {"conv_id": "conv-a", "session": 2, "session_date_time": "10:00 am on 20 May, 2023", "fact_id": "conv-a:D2:1",
     "text": "Caroline: The pottery class at the community centre starts next Tuesday evening."},
    {"conv_id": "conv-b", "session": 1, "session_date_time": "9:15 am on 2 June, 2023", "fact_id": "conv-b:D1:1",
     "text": "Melanie: We drove to the coast and camped near the lighthouse with the kids."},
]
QUESTIONS = [{"qid": "conv-a:q1", "conv_id": "conv-a", "question": "What is the name of Caroline's cat?"},
             {"qid": "conv-b:q1", "conv_id": "conv-b", "question": "Where did Melanie camp with the kids?"}]


def test_pooled_conversations_share_one_memory_asked_after_the_last_session(tmp_path: Path, embedder) -> None:
    built, asked_at = _build_all(TURNS, tmp_path, defaultdict(list), embedder, pooled=True)
    assert list(built) == [POOLED] and list(asked_at) == [POOLED]
    assert asked_at[POOLED] == _session_time("9:15 am on 2 June, 2023") + DAY
    prepared = Prepared(TURNS, QUESTIONS, tmp_path / "unused.jsonl", built, asked_at, {}, tmp_path)
    ranked = prepared.run(Settings(), 3, embedder)
    assert set(ranked) == {"conv-a:q1", "conv-b:q1"}  # both conversations' questions asked of the one memory
    assert ranked["conv-a:q1"][0] == "conv-a:D1:1" and ranked["conv-b:q1"][0] == "conv-b:D1:1"
    assert set(ranked["conv-a:q1"]) == {t["fact_id"] for t in TURNS}  # the other conversation's turns are there too
