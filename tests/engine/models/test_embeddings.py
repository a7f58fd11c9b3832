"""Embedding in token-bounded batches, and long texts embedded window by window into one vector."""

from __future__ import annotations

import random

import numpy as np
import pytest

from engine.models.embeddings import FastEmbedder, combine_windows
from engine.models.token_batches import plan
from engine.models.token_windows import spans, windows

TOPICS = {
    "garden": ["The tomato beds by the south fence get watered at dawn before the heat sets in.",
               "Compost from the kitchen goes into the third bin and is turned every Sunday.",
               "Slugs ate most of the lettuce, so copper tape now runs along the raised beds.",
               "The apple tree was pruned in February and the cuttings were chipped for mulch."],
    "cat": ["Biscuit the grey Maine Coon is allergic to chicken and eats only salmon kibble.",
            "The vet said Biscuit's chicken allergy explains the itching behind his ears.",
            "Biscuit sleeps on the radiator shelf and refuses any food that contains poultry."],
}


def _prose(topic: str, sentences: int, seed: int) -> str:
    rng = random.Random(seed)
    return " ".join(rng.choice(TOPICS[topic]) for _ in range(sentences))


@pytest.fixture(scope="module")
def model() -> FastEmbedder:
    return FastEmbedder()


def _tokens(model: FastEmbedder, text: str) -> int:
    return len(model._counter.encode(text, add_special_tokens=False).ids)


# -- windows --------------------------------------------------------------------

def test_windows_cover_every_token_within_size_and_overlap() -> None:
    word_ids = [i // 3 for i in range(1000)]  # words of three pieces each
    found = spans(word_ids, size=100, overlap=20)
    assert found[0][0] == 0 and found[-1][1] == 1000
    assert all(0 < end - start <= 100 for start, end in found)
    for (s1, e1), (s2, e2) in zip(found, found[1:]):
        assert s1 < s2 <= e1 - 20 + 2, "consecutive windows share about the overlap and move forward"
    assert all(start % 3 == 0 for start, _ in found), "windows start on word boundaries"
    assert all(end % 3 == 0 or end == 1000 for _, end in found), "and end on them"
    assert found[-1][1] - found[-1][0] >= 97, "the last window is full, not a short tail"


def test_a_word_longer_than_half_a_window_is_cut_inside() -> None:
    word_ids = [0] * 30 + [1] * 300 + [2] * 30
    found = spans(word_ids, size=64, overlap=8)
    assert found[-1][1] == 360 and all(end - start <= 64 for start, end in found)


def test_short_and_empty_texts_are_one_window() -> None:
    assert spans([0, 1, 2], size=8, overlap=2) == [(0, 3)]
    assert [(w.start, w.end) for w in windows([], [], 8, 2)] == [(0, 0)]


def test_bad_window_settings_are_refused() -> None:
    with pytest.raises(ValueError):
        spans([0] * 10, size=8, overlap=4)


# -- batches --------------------------------------------------------------------

def test_batches_stay_within_the_token_budget_and_cover_each_index_once() -> None:
    rng = random.Random(3)
    lengths = [rng.randint(3, 256) for _ in range(500)]
    batches = plan(lengths, token_budget=2048, max_count=64)
    assert sorted(i for batch in batches for i in batch) == list(range(500))
    assert all(len(b) * max(lengths[i] for i in b) <= 2048 and len(b) <= 64 for b in batches)
    longest = [max(lengths[i] for i in b) for b in batches]
    assert longest == sorted(longest), "sorted by length, so each batch pads little"


def test_a_sequence_over_the_budget_runs_alone() -> None:
    assert plan([10, 5000, 10], token_budget=100, max_count=8) == [[0, 2], [1]]


def test_long_sequences_are_also_bounded_by_attention_cells() -> None:
    rng = random.Random(4)
    lengths = [rng.randint(3, 256) for _ in range(500)]
    cells = 8 * 256 * 256
    batches = plan(lengths, token_budget=4096, max_count=64, attention_budget=cells)
    assert sorted(i for batch in batches for i in batch) == list(range(500))
    assert all(len(b) * max(lengths[i] for i in b) ** 2 <= cells for b in batches)
    assert max(len(b) for b in batches if max(lengths[i] for i in b) > 250) == 8, "full windows: 8 a run"
    short = [b for b in batches if max(lengths[i] for i in b) <= 64]
    assert max(map(len, short)) == 64, "short sequences keep batches as large as the token budget allows"
    with pytest.raises(ValueError):
        plan(lengths, token_budget=4096, max_count=64, attention_budget=0)


# -- the real model ---------------------------------------------------------------

def _mixed_texts() -> list[str]:
    return ["likes a dark theme", _prose("garden", 40, 1) + " " + _prose("cat", 6, 2), "",
            _prose("cat", 3, 4), _prose("garden", 60, 5), "prefers tea over coffee", _prose("garden", 12, 6)]


def test_batched_vectors_match_one_at_a_time_in_input_order(model: FastEmbedder) -> None:
    texts = _mixed_texts()
    assert max(_tokens(model, t) for t in texts) > 3 * model.window, "the mix has multi-window texts"
    together = model.embed(texts)
    alone = np.vstack([model.embed([t]) for t in texts])
    assert together.shape == (len(texts), 384) and together.dtype == np.float32
    np.testing.assert_allclose(together, alone, atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
    np.testing.assert_allclose(model.embed(texts[::-1]), together[::-1], atol=1e-5)


def test_texts_within_the_window_get_the_models_own_vector(model: FastEmbedder) -> None:
    texts = ["prefers dark mode", _prose("garden", 8, 9)]
    assert _tokens(model, texts[1]) < model.window
    plain = np.asarray(list(model._model.embed(texts)), dtype=np.float32)
    np.testing.assert_allclose(model.embed(texts), plain, atol=1e-5)


def test_the_tail_of_a_long_text_counts(model: FastEmbedder) -> None:
    text = _prose("garden", 30, 7) + " " + _prose("cat", 5, 8)
    assert _tokens(model, text) > model.window
    content = model.window - model._specials
    encoding = model._counter.encode(text, add_special_tokens=False)
    first = windows(encoding.word_ids, encoding.offsets, content, model.overlap)[0]
    truncated = model.embed([text[first.char_start:first.char_end]])[0]
    assert "Biscuit" not in text[first.char_start:first.char_end], "the cat is past the first window"
    whole = model.embed([text])[0]
    assert float(whole @ truncated) < 0.99
    query = model.embed(["what food is the cat allergic to"])[0]
    assert float(whole @ query) > float(truncated @ query) + 0.05


def test_a_small_token_budget_makes_more_smaller_model_runs(model: FastEmbedder,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    texts = [_prose("garden", random.Random(i).randint(2, 12), i) for i in range(24)]
    session = model._model.model.model
    run = session.run
    shapes: list[tuple[int, int]] = []

    def counting_run(names, feed, *rest, **options):
        shapes.append(tuple(feed["input_ids"].shape))
        return run(names, feed, *rest, **options)

    monkeypatch.setattr(session, "run", counting_run)
    budget = model.token_budget
    expected = model.embed(texts)
    default_shapes, shapes[:] = list(shapes), []
    monkeypatch.setattr(model, "token_budget", 1024)
    np.testing.assert_allclose(model.embed(texts), expected, atol=1e-5)
    assert len(shapes) > len(default_shapes) >= 2
    assert all(rows * width <= 1024 for rows, width in shapes)
    assert all(rows * width <= budget and width <= model.window for rows, width in default_shapes)


def test_combine_weighs_windows_as_named() -> None:
    vectors = np.array([[1, 0], [0, 1], [0, 1], [1, 0]], dtype=np.float32)
    owners = np.array([0, 0, 0, 1])
    mean = combine_windows(vectors, owners, 2, "mean")
    np.testing.assert_allclose(mean[0], np.array([1, 2]) / np.sqrt(5), atol=1e-6)
    np.testing.assert_allclose(combine_windows(vectors, owners, 2, "first")[0], [1, 0], atol=1e-6)
    np.testing.assert_allclose(combine_windows(vectors, owners, 2, "first+mean")[0], np.array([4, 2]) / np.sqrt(20),
                               atol=1e-6)
    np.testing.assert_allclose(mean[1], [1, 0], atol=1e-6)
