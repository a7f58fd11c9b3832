"""The fact inspector: fields, edge links, journal, and curation through a confirmed plan."""

from __future__ import annotations

from PySide6.QtWidgets import QDialogButtonBox

from engine import Memory, Settings

from tests.gui.conftest import WAIT_MS, open_file, settle

HELIX, NEOVIM = 41, 18  # the demo's current and previous "preferred editor" versions


def _inspect(qtbot, window, fact_id: int) -> None:
    window.inspector.show_fact(fact_id)
    qtbot.waitUntil(lambda: window.inspector.details is not None and window.inspector.details.fact.id == fact_id,
                    timeout=WAIT_MS)


def _prompt_review(qtbot, window, action: str, answer: str) -> object:
    """Press an action button, answer its one-line prompt, and return the plan review it opens."""
    window.inspector.buttons[action].click()
    prompt = window.inspector.prompt
    prompt.setTextValue(answer)
    return _review(qtbot, window, prompt.accept)


def _review(qtbot, window, click) -> object:
    with qtbot.waitSignal(window.inspector.review_opened, timeout=WAIT_MS) as opened:
        click()
    return opened.args[0]


def test_inspector_shows_fields_edges_journal_and_curve(qtbot, window, demo_copy) -> None:
    open_file(qtbot, window, demo_copy)
    _inspect(qtbot, window, HELIX)
    inspector = window.inspector
    assert inspector.title.text() == f"Fact {HELIX} · active"
    assert "Helix" in inspector.text.text()
    assert f"fact:{NEOVIM}" in inspector.edges.text() and "supersedes" in inspector.edges.text()
    assert inspector.journal.rowCount() >= 1 and inspector.journal.item(0, 2).text() == "absorb"
    assert len(inspector.details.curve.times) == 200
    assert all(b.isEnabled() for b in inspector.buttons.values())


def test_following_an_edge_link_shows_the_other_fact(qtbot, window, demo_copy) -> None:
    open_file(qtbot, window, demo_copy)
    _inspect(qtbot, window, HELIX)
    window.inspector.edges.linkActivated.emit(f"fact:{NEOVIM}")
    qtbot.waitUntil(lambda: window.inspector.details.fact.id == NEOVIM, timeout=WAIT_MS)
    assert window.inspector.title.text() == f"Fact {NEOVIM} · superseded"
    assert not window.inspector.buttons["version"].isEnabled()  # only active facts are curated


def test_new_version_goes_through_a_plan_and_supersedes(qtbot, window, demo_copy) -> None:
    open_file(qtbot, window, demo_copy)
    _inspect(qtbot, window, HELIX)
    window.inspector.buttons["version"].click()
    editor = window.inspector.prompt
    editor.editor.setPlainText("Maya's preferred editor is now Zed; she moved to it for its built-in collaboration.")
    review = _review(qtbot, window, editor.buttons.button(QDialogButtonBox.StandardButton.Ok).click)
    assert [it.outcome for it in review.plan.items] == ["supersede"]
    assert review.table.item(0, 3).text() == f"#{HELIX}"
    with qtbot.waitSignal(window.session.store_changed, timeout=WAIT_MS):
        review.apply_button.click()
    settle(qtbot, window)
    assert window.inspector.title.text() == f"Fact {HELIX} · superseded"
    with Memory(demo_copy, Settings(), create=False) as memory:
        newest = memory.get(HELIX, "latest").facts[0]
        assert "Zed" in newest.text
        assert [e.action for e in memory.journal(fact_id=newest.id)][:1] == ["absorb"]


def test_archive_and_discard_leave_the_fact_as_it_was(qtbot, window, demo_copy) -> None:
    open_file(qtbot, window, demo_copy)
    _inspect(qtbot, window, HELIX)
    review = _prompt_review(qtbot, window, "archive", "testing the discard path")
    assert [it.outcome for it in review.plan.items] == ["archive"]
    review.discard_button.click()
    settle(qtbot, window)
    with Memory(demo_copy, Settings(), create=False) as memory:
        assert memory.facts([HELIX])[HELIX].status == "active"
        assert memory.plan(review.plan.id).status == "discarded"


def test_tags_change_is_applied_and_journaled(qtbot, window, demo_copy) -> None:
    open_file(qtbot, window, demo_copy)
    _inspect(qtbot, window, HELIX)
    review = _prompt_review(qtbot, window, "tags", "editor, favourite")
    with qtbot.waitSignal(window.session.store_changed, timeout=WAIT_MS):
        review.apply_button.click()
    qtbot.waitUntil(lambda: window.inspector.details.fact.tags == ["editor", "favourite"], timeout=WAIT_MS)
    assert "retag" in [window.inspector.journal.item(r, 2).text() for r in range(window.inspector.journal.rowCount())]


def test_contradicts_picks_another_fact_by_search(qtbot, window, demo_copy) -> None:
    open_file(qtbot, window, demo_copy)
    _inspect(qtbot, window, HELIX)
    window.inspector.buttons["contradicts"].click()
    picker = window.inspector.prompt
    qtbot.keyClicks(picker.query, "warehouse robotics company headquartered")
    qtbot.waitUntil(lambda: picker.results.count() > 0, timeout=WAIT_MS)
    other = picker.chosen_id
    assert other is not None and other != HELIX
    review = _review(qtbot, window, picker.buttons.button(QDialogButtonBox.StandardButton.Ok).click)
    with qtbot.waitSignal(window.session.store_changed, timeout=WAIT_MS):
        review.apply_button.click()
    qtbot.waitUntil(lambda: f"contradicts <a href='fact:{other}'>" in window.inspector.edges.text(), timeout=WAIT_MS)


def test_linking_an_already_related_fact_is_explained(qtbot, window, demo_copy) -> None:
    open_file(qtbot, window, demo_copy)
    _inspect(qtbot, window, HELIX)
    window.inspector.buttons["related"].click()
    picker = window.inspector.prompt
    picker.query.setText("48")
    qtbot.waitUntil(lambda: picker.chosen_id == 48, timeout=WAIT_MS)
    picker.accept()
    qtbot.waitUntil(lambda: "already" in window.inspector.message.text(), timeout=WAIT_MS)


def test_a_secret_in_a_new_version_is_refused_and_not_echoed(qtbot, window, demo_copy) -> None:
    open_file(qtbot, window, demo_copy)
    _inspect(qtbot, window, HELIX)
    window.inspector.buttons["version"].click()
    editor = window.inspector.prompt
    secret = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    typed = f"Maya's preferred editor is Helix and her GitHub token is {secret} for CI."
    editor.editor.setPlainText(typed)
    editor.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    qtbot.waitUntil(lambda: "secret" in editor.error.text(), timeout=WAIT_MS)
    assert secret not in editor.error.text() and secret not in window.inspector.message.text()
    # The editor stays open with what was typed, to fix and propose again.
    assert editor.isVisible() and editor.editor.toPlainText() == typed
    assert editor.buttons.button(QDialogButtonBox.StandardButton.Ok).isEnabled()
    editor.editor.setPlainText("Maya's preferred editor is Helix; her CI token lives in the team's vault.")
    review = _review(qtbot, window, editor.buttons.button(QDialogButtonBox.StandardButton.Ok).click)
    assert [it.outcome for it in review.plan.items] == ["supersede"] and not editor.isVisible()
    review.discard_button.click()
    with Memory(demo_copy, Settings(), create=False) as memory:
        assert memory.get(HELIX, "latest").facts[0].id == HELIX
    # The next action starts without the last one's message.
    window.inspector.message.setText("⚠ an earlier problem")
    window.inspector.buttons["version"].click()
    assert window.inspector.message.text() == ""
    window.inspector.prompt.reject()


def test_entities_and_the_relations_a_fact_justifies_are_listed(qtbot, window, demo_copy) -> None:
    open_file(qtbot, window, demo_copy)
    _inspect(qtbot, window, 1)
    text = window.inspector.entities.text()
    assert "Northwind Robotics" in text and "(company)" in text and "Kazan" in text
    assert "located_in" in text or "headquartered_in" in text


def _accesses(path, ids) -> dict[int, int]:
    with Memory(path, Settings(), create=False) as memory:
        return {i: f.access_count for i, f in memory.facts(ids).items()}


def test_browsing_in_the_app_is_not_an_agents_access(qtbot, window, demo_copy) -> None:
    open_file(qtbot, window, demo_copy)
    settle(qtbot, window)
    before = _accesses(demo_copy, [HELIX, NEOVIM])
    window.search.query.setText("preferred editor")
    window.search.run_search()
    qtbot.waitUntil(lambda: window.search.model.row_of(HELIX) is not None, timeout=WAIT_MS)
    window.search.select_fact(HELIX)
    qtbot.waitUntil(lambda: window.inspector.details is not None, timeout=WAIT_MS)
    _inspect(qtbot, window, NEOVIM)
    window.session.close()  # pending access counts are written when the file closes
    settle(qtbot, window)
    assert _accesses(demo_copy, [HELIX, NEOVIM]) == before


def test_a_new_version_keeps_the_facts_entities(qtbot, window, demo_copy) -> None:
    northwind = 1  # mentions Northwind Robotics, Kazan and the NW-7 Courier
    open_file(qtbot, window, demo_copy)
    _inspect(qtbot, window, northwind)
    window.inspector.buttons["version"].click()
    window.inspector.prompt.editor.setPlainText("Northwind Robotics, based in Kazan, makes the NW-7 Courier v2.")
    review = _review(qtbot, window,
                     window.inspector.prompt.buttons.button(QDialogButtonBox.StandardButton.Ok).click)
    with qtbot.waitSignal(window.session.store_changed, timeout=WAIT_MS) as changed:
        review.apply_button.click()
    settle(qtbot, window)
    newest = changed.args[0].facts_added[0]
    with Memory(demo_copy, Settings(), create=False) as memory:
        assert {e.name for e in memory.fact_entities(newest)} >= {"Northwind Robotics", "Kazan"}
        assert memory.fact_relations(newest)
