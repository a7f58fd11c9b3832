"""The timeline: versions on a time axis, word diffs, and the "as of" replay."""

from __future__ import annotations

import json
import time

import pyqtgraph as pg

from PySide6.QtCore import QPointF, Qt

from engine import Memory, Settings, format_time
from engine.faces.cli.main import main as memlens

from tests.gui.conftest import WAIT_MS, open_file, settle

HELIX, NEOVIM, VSCODE = 41, 18, 4  # one "preferred editor" chain, oldest is VSCODE
CONTRADICTED, CONTRADICTING = 16, 40


def _timeline(qtbot, window, fact_id: int):
    pane = window.timeline
    pane.show_fact(fact_id)
    qtbot.waitUntil(lambda: pane.replay is not None and pane.replay.fact_id == fact_id, timeout=WAIT_MS)
    settle(qtbot, window)
    return pane


def _as_of(qtbot, pane, when: float):
    """Move the slider to ``when`` and wait for the replay the label and the list show."""
    with qtbot.waitSignal(pane.replayed, timeout=WAIT_MS) as replayed:
        pane.set_as_of(when)
    return replayed.args[0]


def _listed(pane) -> list[int]:
    return [pane.versions.item(i).data(Qt.ItemDataRole.UserRole) for i in range(pane.versions.count())]


def test_versions_are_listed_with_a_word_diff(qtbot, window, demo_copy) -> None:
    open_file(qtbot, window, demo_copy)
    pane = _timeline(qtbot, window, HELIX)
    assert pane.heading.text().startswith(f"Fact {HELIX}: 3 versions")
    assert [pane.versions.item(i).text().split(" · ")[1] for i in range(3)] == [f"#{VSCODE}", f"#{NEOVIM}",
                                                                                 f"#{HELIX}"]
    pane.versions.setCurrentRow(1)
    diff = pane.diff.toHtml()
    assert "line-through" in diff and "Neovim" in diff
    qtbot.waitUntil(lambda: window.inspector.details is not None and window.inspector.details.fact.id == NEOVIM,
                    timeout=WAIT_MS)


def test_as_of_slider_replays_which_version_was_current(qtbot, window, demo_copy) -> None:
    open_file(qtbot, window, demo_copy)
    pane = _timeline(qtbot, window, HELIX)
    assert pane.state.text().startswith(f"current version #{HELIX}")
    versions = {v.fact.id: v.fact.created_at for v in pane.line.versions}
    _as_of(qtbot, pane, (versions[VSCODE] + versions[NEOVIM]) / 2)
    assert pane.state.text().startswith(f"current version #{VSCODE}")
    assert pane.as_of_label.text().startswith("as of 20")
    _as_of(qtbot, pane, versions[VSCODE] - 86400 * 3)
    assert pane.state.text().startswith("no version yet") and _listed(pane) == []
    with qtbot.waitSignal(pane.replayed, timeout=WAIT_MS):
        qtbot.keyClick(pane.slider, Qt.Key.Key_End)
    assert pane.as_of_label.text() == "as of now"


def test_contradiction_is_open_only_once_both_sides_exist(qtbot, window, demo_copy) -> None:
    open_file(qtbot, window, demo_copy)
    pane = _timeline(qtbot, window, CONTRADICTED)
    assert "1 contradiction" in pane.heading.text()
    assert f"#{CONTRADICTED} ↔ #{CONTRADICTING}" in pane.state.text()
    later = pane.line.others[CONTRADICTING][0].fact.created_at
    _as_of(qtbot, pane, later - 86400)
    assert pane.state.text().endswith("open contradictions: none")


def test_clicking_a_marker_selects_that_fact(qtbot, window, demo_copy) -> None:
    open_file(qtbot, window, demo_copy)
    window.tabs.setCurrentIndex(1)
    pane = _timeline(qtbot, window, CONTRADICTED)
    other = pane.line.others[CONTRADICTING][0]
    box = pane.plot.getPlotItem().getViewBox()
    scene = box.mapViewToScene(QPointF(other.fact.created_at, -1))
    at = pane.plot.mapFromScene(scene)
    with qtbot.waitSignal(pane.fact_selected, timeout=WAIT_MS) as clicked:
        qtbot.mouseClick(pane.plot.viewport(), Qt.MouseButton.LeftButton, pos=at)
    assert clicked.args == [CONTRADICTING]
    qtbot.waitUntil(lambda: window.inspector.details is not None
                    and window.inspector.details.fact.id == CONTRADICTING, timeout=WAIT_MS)


def test_bad_ids_in_the_jump_box_are_explained(qtbot, window, demo_copy) -> None:
    open_file(qtbot, window, demo_copy)
    pane = window.timeline
    qtbot.keyClicks(pane.jump, "abc")
    qtbot.keyClick(pane.jump, Qt.Key.Key_Return)
    assert "whole number" in pane.heading.text()
    pane.jump.setText("99999")
    qtbot.keyClick(pane.jump, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "no fact 99999" in pane.heading.text(), timeout=WAIT_MS)


def test_after_resolving_the_past_still_shows_the_pair_open(qtbot, window, demo_copy) -> None:
    """Keep the left side of a contradiction, then look at a moment before that decision."""
    open_file(qtbot, window, demo_copy)
    settle(qtbot, window)
    window.show_pane(window.pane_names.index("contradictions"))
    pane = window.contradictions
    assert (pane.current.left.id, pane.current.right.id) == (12, 30)
    both_written = max(pane.current.left.created_at, pane.current.right.created_at)
    decided = time.time()
    with qtbot.waitSignal(pane.review_opened, timeout=WAIT_MS) as opened:
        pane.buttons["left"].click()
    with qtbot.waitSignal(window.session.store_changed, timeout=WAIT_MS):
        opened.args[0].apply_button.click()
    settle(qtbot, window)

    timeline = _timeline(qtbot, window, 12)
    assert _listed(timeline) == [30, 12]  # as of now, 30 is 12's superseded older version
    x = {spot.data(): spot.pos().x() for spot in timeline.plot.markers.points()}
    assert x[30] < x[12]  # 12 became the newer version when the person decided, after 30 was written
    # Halfway: the slider has 1,000 steps from the oldest version to now, so a moment just after both were
    # written could round to before the newer one (a step is hours long, and grows as the demo ages).
    then = _as_of(qtbot, timeline, (both_written + decided) / 2)
    assert then.versions == [12] and _listed(timeline) == [12]
    assert timeline.state.text() == "current version #12 · open contradictions: #12 ↔ #30"
    assert then.statuses[12] == then.statuses[30] == "active"
    with qtbot.waitSignal(timeline.replayed, timeout=WAIT_MS):
        timeline.slider.setValue(timeline.slider.maximum())
    assert _listed(timeline) == [30, 12]
    # the heading no longer counts the resolved pair as waiting (seen in the real-window walk)
    assert "1 contradiction (0 open)" in timeline.heading.text()
    assert timeline.jump.text() == "12"  # the id box says which fact is shown, even when chosen elsewhere
    # the resolved pair now lies in one lane; its contradiction is drawn across the lane, not as a line
    # of no height
    [tick] = [item for item in timeline.plot.listDataItems() if item.property("link") == ("contradicts", 30, 12)
              or item.property("link") == ("contradicts", 12, 30)]
    _xs, ys = tick.getData()
    assert ys[1] - ys[0] > 0.5


def _cli_says(capsys, path, fact_id: int, when: float) -> dict:
    capsys.readouterr()
    assert memlens(["--db", str(path), "timeline", str(fact_id), "--as-of", format_time(when), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _pane_says(pane) -> dict:
    state = pane.state.text()
    current = int(state.split("#", 1)[1].split(" ", 1)[0]) if state.startswith("current version #") else None
    opened = state.split("open contradictions: ", 1)[1]
    pairs = [] if opened == "none" else [[int(n.strip(" #")) for n in pair.split("↔")] for pair in opened.split(", ")]
    return {"current": current, "versions": _listed(pane), "open_contradictions": pairs}


def test_the_pane_says_what_memlens_timeline_says(qtbot, window, demo_copy, capsys) -> None:
    """Before a fact existed, between versions, before and after a resolution: label and list agree."""
    open_file(qtbot, window, demo_copy)
    pane = _timeline(qtbot, window, HELIX)
    made = {v.fact.id: v.fact.created_at for v in pane.line.versions}
    moments = {HELIX: [made[VSCODE] - 86400, (made[VSCODE] + made[NEOVIM]) / 2, (made[NEOVIM] + made[HELIX]) / 2,
                       made[HELIX] + 86400]}
    window.show_pane(window.pane_names.index("contradictions"))
    settle(qtbot, window)
    with qtbot.waitSignal(window.contradictions.review_opened, timeout=WAIT_MS) as opened:
        window.contradictions.buttons["left"].click()
    with qtbot.waitSignal(window.session.store_changed, timeout=WAIT_MS):
        opened.args[0].apply_button.click()
    settle(qtbot, window)
    moments[30] = moments[12] = [made[VSCODE], made[HELIX]]  # before 30 was written, and while the pair was open
    for fact_id, times in moments.items():
        pane = _timeline(qtbot, window, fact_id)
        for when in [*times, None]:
            replay = _as_of(qtbot, pane, when) if when is not None else pane.replay
            cli = _cli_says(capsys, demo_copy, fact_id, replay.when)
            shown = _pane_says(pane)
            assert shown == {"current": cli["current"], "versions": [v["id"] for v in cli["versions"]],
                             "open_contradictions": cli["open_contradictions"]}, (fact_id, format_time(replay.when))
            xs = {spot.data(): spot.pos().x() for spot in pane.plot.markers.points()}
            chain = [v.fact.id for v in pane.line.versions]
            assert [xs[i] for i in chain] == sorted(xs[i] for i in chain)  # v1, v2, … left to right


def test_versions_written_a_minute_apart_get_labels_that_do_not_overlap(qtbot, window, demo_copy, capsys) -> None:
    """On an axis months long, versions a minute apart sit at one pixel: two take two rows; five share one
    label until the person zooms in."""
    newest = time.time() - 3600
    written = [HELIX]

    def new_version(minute: int, keymap: str) -> None:
        text = f"Priya's preferred editor is now Zed, with the {keymap} keymap, for every repository she owns."
        assert memlens(["--db", str(demo_copy), "--now", format_time(newest + 60 * minute),
                        "fact", "version", str(written[-1]), text, "--json"]) == 0
        written.append(json.loads(capsys.readouterr().out)["items"][0]["fact_id"])

    def shown_labels(pane) -> list:
        return [item for item in pane.plot._extra if isinstance(item, pg.TextItem) and item.isVisible()]

    def overlapping(labels: list) -> list:
        boxes = [label.mapRectToScene(label.boundingRect()) for label in labels]
        return [(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:] if a.intersects(b)]

    new_version(0, "Vim")
    new_version(1, "Helix")
    open_file(qtbot, window, demo_copy)
    window.resize(1024, 700)
    window.show_pane(window.pane_names.index("timeline"))
    pane = _timeline(qtbot, window, written[-1])
    qtbot.waitUntil(lambda: pane.plot.isVisible(), timeout=WAIT_MS)
    labels = shown_labels(pane)
    assert [label.toPlainText() for label in labels] == [f"v{n} #{fid}" for n, fid in
                                                          enumerate([VSCODE, NEOVIM, *written], 1)]
    assert not overlapping(labels)

    for minute, keymap in enumerate(["Emacs", "Kakoune", "default"], 2):
        new_version(minute, keymap)
    pane = _timeline(qtbot, window, written[-1])  # v4-v8 within five minutes
    assert pane.heading.text().startswith(f"Fact {written[-1]}: 8 versions")
    labels = shown_labels(pane)
    assert [label.toPlainText() for label in labels][-1] == "v4–v8 (5 close together)"
    assert len(labels) == 4 and not overlapping(labels)


def test_another_fact_opens_at_now_not_at_the_moment_the_last_one_was_left(qtbot, window, demo_copy) -> None:
    """Seen in the real-window walk: the slider kept its place, so the next fact showed an old
    current version under a heading that counted today's versions."""
    open_file(qtbot, window, demo_copy)
    pane = _timeline(qtbot, window, HELIX)
    first = pane.line.versions[0].fact.created_at
    _as_of(qtbot, pane, first + 1)
    assert pane.slider.value() < pane.slider.maximum()
    pane = _timeline(qtbot, window, CONTRADICTED)
    assert pane.slider.value() == pane.slider.maximum() and pane.as_of_label.text() == "as of now"
    assert pane.replay.current == pane.line.versions[-1].fact.id


def test_another_file_opens_the_timeline_empty_and_at_now(qtbot, window, demo_copy, tmp_path, embedder) -> None:
    """Seen in the real-window walk: after File > Open the slider was back at its end, but its caption
    and the chart's line still named the moment left in the other file."""
    open_file(qtbot, window, demo_copy)
    pane = _timeline(qtbot, window, HELIX)
    _as_of(qtbot, pane, pane.line.versions[0].fact.created_at + 1)
    assert pane.as_of_label.text() != "as of now" and pane.plot.as_of_line.isVisible()
    second = tmp_path / "second.sqlite"
    with Memory(second, Settings(), embedder=embedder) as other:
        other.absorb(["The staging cluster runs 3 replicas of the ingest service behind nginx."])
    open_file(qtbot, window, second)
    assert pane.fact_id is None and pane.slider.value() == pane.slider.maximum()
    assert pane.as_of_label.text() == "as of now" and not pane.plot.as_of_line.isVisible()
