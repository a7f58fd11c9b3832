"""The cross-encoder's second pass: it reads question and fact together, so a fact that answers rises
above one that only repeats the question's words; it can be off, it says what it cost, and a model
that cannot load leaves search in its own order."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from engine import Memory, Settings
from engine.search.cross_rerank import CrossReranker, reordered
from engine.search.hybrid import Hit

STUFFED = "Lyon train, Lyon train, Lyon train: the Lyon train is the train we talk about when the train to Lyon comes up."
ANSWER = "Our early departure for Lyon is at 8:15 from platform 2."
OTHERS = ["Maya prefers window seats on long train journeys to Lyon.",
          "The Lyon office orders coffee beans from a roaster in Marseille.",
          "Bikes on the Lyon train must be folded."]
QUESTION = "what time does the train to Lyon leave?"


def _settings(depth: int, tokens: int = 256) -> Settings:
    base = Settings()
    return replace(base, memory=replace(base.memory, cross_encoder_depth=depth, cross_encoder_tokens=tokens))


def _open(path: Path, clock, embedder, depth: int, tokens: int = 256) -> Memory:
    return Memory(path, _settings(depth, tokens), clock=clock, actor="test", embedder=embedder)


def _texts(hits: list[Hit]) -> list[str]:
    return [h.fact.text for h in hits]


def test_the_answer_rises_above_a_fact_that_only_repeats_the_question(db_path, clock, embedder) -> None:
    with _open(db_path, clock, embedder, depth=0) as memory:
        memory.absorb([{"text": t} for t in [STUFFED, ANSWER, *OTHERS]])
        plain, timing = memory.search_timed(QUESTION, top_k=5)
    assert _texts(plain)[0] == STUFFED  # the words win without the second pass
    assert all(h.cross_encoder is None for h in plain) and "rerank_ms" not in timing.to_dict()
    with _open(db_path, clock, embedder, depth=10) as memory:
        hits, timing = memory.search_timed(QUESTION, top_k=5)
    assert _texts(hits)[0] == ANSWER
    assert sorted(_texts(hits)) == sorted(_texts(plain))  # re-ordered, nothing lost or added
    assert hits[0].cross_encoder > hits[1].cross_encoder
    assert timing.rerank_ms is not None and timing.rerank_ms > 0
    assert "rerank_ms" in timing.to_dict() and "cross_encoder" in hits[0].to_dict()


def test_only_the_first_hits_move_and_top_k_is_kept(db_path, clock, embedder) -> None:
    with _open(db_path, clock, embedder, depth=2) as memory:
        memory.absorb([{"text": t} for t in [STUFFED, ANSWER, *OTHERS]])
        hits = memory.search(QUESTION, top_k=4)
        one = memory.search(QUESTION, top_k=1)
    assert len(hits) == 4 and _texts(hits)[:2] == [ANSWER, STUFFED]
    assert all(h.cross_encoder is None for h in hits[2:])  # past the depth: the engine's order, unread
    assert _texts(one) == [ANSWER]  # the pool is the depth even when fewer hits are asked for


def test_a_model_that_cannot_load_leaves_search_in_its_own_order(db_path, clock, embedder, tmp_path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "model.onnx").write_bytes(b"not a model")
    monkeypatch.setenv("MEMLENS_RERANKER_DIR", str(tmp_path / "broken"))
    # A length no other test loads, so no model already loaded in this process is reused.
    with _open(db_path, clock, embedder, depth=10, tokens=77) as memory:
        memory.absorb([{"text": t} for t in [STUFFED, ANSWER, *OTHERS]])
        hits, timing = memory.search_timed(QUESTION, top_k=5)
        assert "damaged" in (memory.finder.cross.unavailable or "")
    assert _texts(hits)[0] == STUFFED and all(h.cross_encoder is None for h in hits)
    assert timing.rerank_ms is None  # the pass did not run, so it has no time of its own


def test_a_question_longer_than_the_model_reads_is_cut_not_refused(db_path, clock, embedder) -> None:
    pasted = "I was thinking about our trip to Lyon and what time the early train leaves. " * 40  # ~3,000 chars
    with _open(db_path, clock, embedder, depth=10) as memory:
        memory.absorb([{"text": t} for t in [STUFFED, ANSWER, *OTHERS]])
        hits, timing = memory.search_timed(pasted, top_k=5)
    assert len(hits) == 5 and all(h.cross_encoder is not None for h in hits) and timing.rerank_ms > 0


def test_scores_come_back_in_the_order_given_across_several_model_runs() -> None:
    from engine.models.cross_encoder import PAIRS_PER_RUN, shared_cross_encoder

    fillers = [f"Note {k}: the {'quarterly ' * (k % 7)}planning review for team {k} is in room {k + 100}."
               for k in range(40)]
    assert len(fillers) > 2 * PAIRS_PER_RUN  # three runs, the last one short
    model = shared_cross_encoder()
    for at in (0, 21, 39):
        texts = [*fillers[:at], ANSWER, *fillers[at + 1:]]
        found = model.scores(QUESTION, texts)
        assert len(found) == 40 and int(np.argmax(found)) == at
        assert np.array_equal(found, model.scores(QUESTION, texts))  # the same hits, the same logits


def _hit(fact_id: int, score: float) -> Hit:
    return Hit(SimpleNamespace(id=fact_id, text=f"fact {fact_id}"), score, 0.5, 0.0, 1.0, 0.9)  # the mix reads scores only


def test_the_mix_weighs_the_engine_score_against_the_logit() -> None:
    hits = [_hit(1, 1.0), _hit(2, 0.9), _hit(3, 0.2)]
    logits = np.array([-2.0, 3.0])
    assert [h.fact.id for h in reordered(hits, logits, 0.0)] == [1, 2, 3]  # weight 0: the engine's order
    assert [h.fact.id for h in reordered(hits, logits, 1.0)] == [2, 1, 3]
    # 0.5 x (0.9 / 1.0) + 0.5 x sigmoid(3) = 0.93 against 0.5 + 0.5 x sigmoid(-2) = 0.56
    mixed = reordered(hits, logits, 0.5)
    assert [h.fact.id for h in mixed] == [2, 1, 3] and mixed[0].cross_encoder == 3.0 and mixed[2].cross_encoder is None
    assert reordered(hits, np.array([]), 0.5) == hits
    # Fact 1's pair was cut: its own 1.0 stands in for the -2 its opening alone got, so it stays first
    # (1.0 against 0.5 x 0.9 + 0.5 x sigmoid(3) = 0.93); its logit is still shown.
    kept = reordered(hits, logits, 0.5, [True, False])
    assert [h.fact.id for h in kept] == [1, 2, 3] and kept[0].cross_encoder == -2.0


def test_the_model_says_which_pairs_it_read_only_in_part() -> None:
    from engine.models.cross_encoder import shared_cross_encoder

    long_note = "Notes from the travel planning call. " + "We went over hotels, budgets and who books what. " * 30
    assert shared_cross_encoder().cut(QUESTION, [ANSWER, long_note, *OTHERS]) == [False, True, False, False, False]


def test_off_means_the_model_is_never_loaded() -> None:
    reranker = CrossReranker()
    off = replace(Settings().memory, cross_encoder_depth=0)
    reranker.preload(off)
    hits = [_hit(1, 1.0), _hit(2, 0.5)]
    assert reranker.rerank(off, "anything", hits) is hits
    assert reranker._model is None and reranker.unavailable is None
