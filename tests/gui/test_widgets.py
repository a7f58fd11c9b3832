"""Small pieces: the word diff and the score explanation."""

from __future__ import annotations

from engine import Memory
from gui.models.results import explain
from gui.widgets.word_diff import word_diff_html


def test_word_diff_marks_removed_and_added_words_and_escapes_html() -> None:
    html = word_diff_html("Maya uses <b>VS Code</b> daily", "Maya uses Helix daily")
    assert "line-through" in html and "&lt;b&gt;VS" in html
    assert ">Helix<" in html and "Maya uses " in html and "<b>" not in html.replace("&lt;b&gt;", "")
    assert word_diff_html("same text", "same text") == "same text"


def test_explanation_adds_up_to_the_score(memory: Memory) -> None:
    memory.absorb(["Maya prefers dark mode in every editor and terminal she uses."])
    hit = memory.search("dark theme", top_k=1)[0]
    weight = memory.settings.memory.context_weight
    line = explain(hit, 1, 0.7, 0.3, weight)
    assert f"score {hit.score:.3f}" in line and f"cosine {hit.cosine:.3f}" in line
    assert abs((0.7 * hit.cosine + 0.3 * hit.bm25) * hit.freshness + weight * hit.context - hit.score) < 1e-6


def test_a_plan_drafted_message_is_not_painted_like_an_error(qtbot, window, demo_copy) -> None:
    """Issue 27: "GC: plan N drafted…" was red like a refusal. One small widget, four kinds."""
    from PySide6.QtGui import QPalette
    from PySide6.QtWidgets import QApplication

    from gui.resources import style_sheet
    from tests.gui.conftest import open_file
    from tests.gui.test_review_panes import _run_gc

    QApplication.instance().setStyleSheet(style_sheet())  # what the app runs with
    try:
        open_file(qtbot, window, demo_copy)
        pane = _run_gc(qtbot, window)
        qtbot.waitUntil(lambda: "drafted" in pane.message.text(), timeout=20_000)
        assert pane.message.kind == "success"
        drafted = pane.message.palette().color(QPalette.ColorRole.WindowText)
        pane._failed("plan 1 is applied; only a draft can be applied")  # a refusal, as the engine says it
        assert pane.message.kind == "error" and pane.message.text().startswith("⚠")
        refused = pane.message.palette().color(QPalette.ColorRole.WindowText)
        assert refused.red() > 150 and refused.green() < 80  # red
        assert drafted != refused and drafted.green() > drafted.red()  # green, not red
    finally:
        QApplication.instance().setStyleSheet("")


def test_explanation_names_the_voice_factor_when_it_applies(memory: Memory) -> None:
    memory.absorb(["I adopted a beagle puppy and named her Luna."])
    hit = memory.search("puppy", top_k=1)[0]
    assert "voice" not in explain(hit, 1, 0.7, 0.3)  # a factor of 1 is not shown
    hit.voice = 1.25
    assert "× voice 1.25" in explain(hit, 1, 0.7, 0.3)
    assert "answer kind" not in explain(hit, 1, 0.7, 0.3)
    hit.answer_kind = 1.25
    assert "× voice 1.25 × answer kind 1.25" in explain(hit, 1, 0.7, 0.3)


def test_explanation_and_timing_say_when_the_cross_encoder_reread_a_hit(memory: Memory) -> None:
    from gui.panes.search import _timing_text
    from engine.search.service import Timing

    memory.absorb(["I adopted a beagle puppy and named her Luna."])
    hit = memory.search("puppy", top_k=1)[0]
    assert hit.cross_encoder is None and "re-read" not in explain(hit, 1, 0.7, 0.3)  # a hit the pass did not read
    hit.cross_encoder = 4.5
    assert explain(hit, 1, 0.7, 0.3).endswith("re-read with the question: +4.50")
    assert "re-reading" not in _timing_text(Timing(5.0, 2.0, 8.0), 0)
    assert _timing_text(Timing(5.0, 2.0, 130.0, rerank_ms=120.0), 20).endswith("re-ordering the best 20 by re-reading them 120")
