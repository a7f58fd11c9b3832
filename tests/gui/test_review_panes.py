"""Plan viewer, contradiction review and journal, driven as a person would."""

from __future__ import annotations

import sqlite3

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

from engine import Memory, Settings
from gui.models.plan_items import TEXT_COLUMN

from tests.gui.conftest import WAIT_MS, open_file, settle


def _statuses(path, ids) -> dict[int, str]:
    with Memory(path, Settings(), create=False) as memory:
        return {i: f.status for i, f in memory.facts(ids).items()}


def _run_gc(qtbot, window):
    pane = window.plans
    window.show_pane(window.pane_names.index("plans"))
    pane.pass_buttons["gc"].click()
    qtbot.waitUntil(lambda: pane.plan is not None and pane.plan.kind == "gc", timeout=WAIT_MS)
    return pane


def test_approving_a_subset_of_a_gc_plan_applies_exactly_those_items(qtbot, window, demo_copy) -> None:
    open_file(qtbot, window, demo_copy)
    pane = _run_gc(qtbot, window)
    plan = pane.plan
    assert plan.status == "draft" and len(pane.items.checked) == len(plan.items) > 3
    assert "drafted" in pane.message.text()
    pane.items.set_checked(set())
    assert not pane.apply_button.isEnabled()
    chosen = [plan.items[0], plan.items[-1]]
    for item in chosen:
        row = plan.items.index(item)
        pane.items.setData(pane.items.index(row, 0), Qt.CheckState.Checked.value, Qt.ItemDataRole.CheckStateRole)
    assert pane.chosen_label.text().startswith("2 selected")
    pane.apply_button.click()
    with qtbot.waitSignal(window.session.store_changed, timeout=WAIT_MS):
        pane.prompt.button(pane.prompt.StandardButton.Ok).click()
    qtbot.waitUntil(lambda: pane.plan is not None and pane.plan.status == "applied", timeout=WAIT_MS)
    assert sorted(pane.plan.applied_indexes) == sorted(it.index for it in chosen)
    statuses = _statuses(demo_copy, [it.target_id for it in plan.items])
    changed = {it.target_id for it in chosen}
    assert all(statuses[i] != "active" for i in changed)
    assert all(statuses[it.target_id] == "active" for it in plan.items if it.target_id not in changed)


def test_select_by_outcome_and_discard(qtbot, window, demo_copy) -> None:
    open_file(qtbot, window, demo_copy)
    pane = _run_gc(qtbot, window)
    pane._fill_select_menu()
    only_expire = next(a for a in pane.select_menu.actions() if a.text() == "Only expire")
    only_expire.trigger()
    assert {pane.plan.item(i).outcome for i in pane.items.checked} == {"expire"}
    plan_id = pane.plan.id
    pane.discard_button.click()
    qtbot.waitUntil(lambda: pane.plan is not None and pane.plan.status == "discarded", timeout=WAIT_MS)
    assert pane.plan.id == plan_id and not pane.apply_button.isEnabled()
    assert all(s == "active" for s in _statuses(demo_copy, [it.target_id for it in pane.plan.items]).values())


def test_absorb_dry_run_from_pasted_text_and_the_side_by_side_diff(qtbot, window, demo_copy) -> None:
    open_file(qtbot, window, demo_copy)
    pane = window.plans
    pane.start_pass("absorb")
    dialog = pane.prompt
    dialog.text.setPlainText("Maya's preferred editor is now Helix: she likes that it needs almost no setup "
                             "and has built-in rust-analyzer support.\nThe Ferrite team meets on Tuesdays at 10:00 "
                             "Kazan time to review the ingest backlog.")
    dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    qtbot.waitUntil(lambda: pane.plan is not None and pane.plan.kind == "absorb" and pane.plan.status == "draft",
                    timeout=WAIT_MS)
    matched_row = next(r for r, it in enumerate(pane.plan.items) if it.target_id is not None)
    pane.table.selectRow(matched_row)
    qtbot.waitUntil(lambda: "Helix" in pane.matched.toPlainText(), timeout=WAIT_MS)
    assert pane.incoming.toPlainText()
    settle(qtbot, window)


def test_abstract_is_disabled_without_an_llm_and_says_why(qtbot, window, demo_copy) -> None:
    open_file(qtbot, window, demo_copy)
    button = window.plans.pass_buttons["abstract"]
    assert not button.isEnabled() and "Needs an LLM" in button.toolTip()


def _resolve(qtbot, window, key: str) -> None:
    pane = window.contradictions
    with qtbot.waitSignal(pane.review_opened, timeout=WAIT_MS) as opened:
        pane.buttons[key].click()
    with qtbot.waitSignal(window.session.store_changed, timeout=WAIT_MS):
        opened.args[0].apply_button.click()
    settle(qtbot, window)


def test_resolving_contradictions_updates_the_queue_and_the_tab(qtbot, window, demo_copy) -> None:
    open_file(qtbot, window, demo_copy)
    settle(qtbot, window)
    pane = window.contradictions
    tab = window.pane_names.index("contradictions")
    assert window.tabs.tabText(tab) == "Contradictions (3)"
    left, right = pane.current.left.id, pane.current.right.id
    _resolve(qtbot, window, "right")
    assert window.tabs.tabText(tab) == "Contradictions (2)"
    assert _statuses(demo_copy, [left, right]) == {left: "superseded", right: "active"}
    both = (pane.current.left.id, pane.current.right.id)
    _resolve(qtbot, window, "both")
    assert window.tabs.tabText(tab) == "Contradictions (1)"
    assert set(_statuses(demo_copy, list(both)).values()) == {"active"}
    pane.buttons["skip"].click()
    assert pane.current is not None


def test_journal_filters_and_links(qtbot, window, demo_copy) -> None:
    open_file(qtbot, window, demo_copy)
    settle(qtbot, window)
    pane = window.journal
    total = len(pane.entries)
    assert total >= 75
    pane.fact.setText("40")
    pane.refresh()
    settle(qtbot, window)
    assert pane.entries and {e.fact_id for e in pane.entries} == {40}
    pane.fact.setText("forty")
    pane.refresh()
    assert "whole number" in pane.status.text()
    pane.fact.setText("")
    pane.action.setCurrentText("supersede")
    settle(qtbot, window)
    assert pane.entries and {e.action for e in pane.entries} == {"supersede"}
    with qtbot.waitSignal(pane.plan_selected, timeout=WAIT_MS):
        pane._open(0, 5)
    qtbot.waitUntil(lambda: window.plans.plan is not None, timeout=WAIT_MS)
    assert window.tabs.currentIndex() == window.pane_names.index("plans")


def _two_item_draft(path) -> int:
    with Memory(path, Settings(), actor="mcp", create=False) as memory:
        return memory.propose([{"action": "archive", "fact_id": 41, "reason": "stale"},
                               {"action": "retag", "fact_id": 1, "tags": ["company", "robots"]}], note="two acts").id


def test_a_partly_applied_plan_says_which_items_went_in_and_can_be_reverted(qtbot, window, demo_copy) -> None:
    plan_id = _two_item_draft(demo_copy)
    open_file(qtbot, window, demo_copy)
    window._open_plan(plan_id)
    pane = window.plans
    qtbot.waitUntil(lambda: pane.plan is not None and pane.plan.id == plan_id, timeout=WAIT_MS)
    pane.items.setData(pane.items.index(1, 0), Qt.CheckState.Unchecked.value, Qt.ItemDataRole.CheckStateRole)
    pane.apply_button.click()
    pane.prompt.accept()
    qtbot.waitUntil(lambda: pane.plan is not None and pane.plan.status == "applied", timeout=WAIT_MS)
    assert "partly applied (1 of 2 items went in)" in pane.heading.text()
    assert [pane.items.data(pane.items.index(r, 0)) for r in range(2)] == ["✓", "✗"]
    assert pane.items.data(pane.items.index(1, 0), Qt.ItemDataRole.ToolTipRole).startswith("not applied")
    assert _statuses(demo_copy, [41]) == {41: "archived"}

    def listed_status() -> str:
        rows = [r for r in range(pane.list.rowCount()) if pane.list.item(r, 0).text() == str(plan_id)]
        return pane.list.item(rows[0], 3).text() if rows else ""

    qtbot.waitUntil(lambda: listed_status() != "draft", timeout=WAIT_MS)
    assert listed_status() == "partly applied (1 of 2)"  # the list, too, does not say "applied"

    assert pane.revert_button.isEnabled()
    with qtbot.waitSignal(pane.review_opened, timeout=WAIT_MS) as opened:
        pane.revert_button.click()
    review = opened.args[0]
    assert review.plan.status == "draft" and review.plan.kind != "absorb"
    assert "Helix" in review.table.item(0, 2).text()  # the fact's words, not only its number
    with qtbot.waitSignal(window.session.store_changed, timeout=WAIT_MS):
        review.apply_button.click()
    settle(qtbot, window)
    assert _statuses(demo_copy, [41]) == {41: "active"}
    undone_by = review.plan.id
    qtbot.waitUntil(lambda: listed_status() == f"reverted by plan {undone_by}", timeout=WAIT_MS)  # not "partly applied"
    pane.list.selectRow(next(r for r in range(pane.list.rowCount()) if pane.list.item(r, 0).text() == str(plan_id)))
    qtbot.waitUntil(lambda: pane.plan is not None and pane.plan.id == plan_id
                    and f"reverted by plan {undone_by}" in pane.heading.text(), timeout=WAIT_MS)
    assert not pane.revert_button.isEnabled() and str(undone_by) in pane.revert_button.toolTip()


def test_a_review_applies_only_the_ticked_items(qtbot, window, demo_copy) -> None:
    plan_id = _two_item_draft(demo_copy)
    open_file(qtbot, window, demo_copy)
    with Memory(demo_copy, Settings(), create=False) as memory:
        plan = memory.plan(plan_id)
    from gui.dialogs.plan_review import PlanReview
    review = PlanReview(window.session, plan, "Two acts", window, facts={})
    qtbot.addWidget(review)
    review.open()
    review.table.item(0, 0).setCheckState(Qt.CheckState.Unchecked)
    assert review.ticked == [1] and review.apply_button.text() == "Apply 1 of 2"
    with qtbot.waitSignal(review.applied, timeout=WAIT_MS) as applied:
        review.apply_button.click()
        assert review.error.text() == "Applying…" and review.error.kind == "info"  # news, not red like an error
    assert applied.args[0].applied_indexes == [1] and applied.args[0].partly_applied
    assert _statuses(demo_copy, [41]) == {41: "active"}


def test_reverting_from_a_journal_row_opens_a_review(qtbot, window, demo_copy) -> None:
    plan_id = _two_item_draft(demo_copy)
    with Memory(demo_copy, Settings(), actor="mcp", create=False) as memory:
        memory.apply_plan(plan_id)
    open_file(qtbot, window, demo_copy)
    window.show_pane(window.pane_names.index("journal"))
    journal = window.journal
    qtbot.waitUntil(lambda: any(e.plan_id == plan_id for e in journal.entries), timeout=WAIT_MS)
    row = next(r for r, e in enumerate(journal.entries) if e.plan_id == plan_id)
    revert = [a for a in journal.plan_menu(row).actions() if a.text().startswith("Revert")][0]
    with qtbot.waitSignal(window.plans.review_opened, timeout=WAIT_MS) as opened:
        revert.trigger()
    assert opened.args[0].windowTitle() == f"Revert plan {plan_id}"
    opened.args[0].reject()
    settle(qtbot, window)


def test_distill_offers_the_sessions_it_can_take(qtbot, window, demo_copy) -> None:
    open_file(qtbot, window, demo_copy)
    settle(qtbot, window)
    pane = window.plans
    window.show_pane(window.pane_names.index("plans"))
    with Memory(demo_copy, Settings(), create=False) as memory:
        sessions = memory.run_sessions()
    assert sessions and any(finished for _, _, finished in sessions)
    pane.pass_buttons["distill"].click()
    qtbot.waitUntil(lambda: pane.prompt is not None and pane.prompt.isVisible() and
                    bool(pane.prompt.comboBoxItems()), timeout=WAIT_MS)
    offered = pane.prompt.comboBoxItems()
    assert offered[0] == "Every finished session"
    assert {s for s, _, _ in sessions} == {label.split("  ·  ")[0] for label in offered[1:]}
    chosen = offered[1]
    pane.prompt.setTextValue(chosen)
    pane.prompt.accept()
    qtbot.waitUntil(lambda: pane.plan is not None and pane.plan.kind == "distill", timeout=WAIT_MS)
    session = chosen.split("  ·  ")[0]
    assert pane.plan.items and session in (pane.plan.note or "")


def test_the_contradictions_tab_counts_every_open_pair(qtbot, window, demo_copy) -> None:
    with Memory(demo_copy, Settings(), create=False) as memory:
        total = memory.contradiction_count()
        assert total == len(memory.contradictions()) and memory.contradiction_count() == len(
            memory.contradictions(limit=1_000_000))
        assert len(memory.contradictions(limit=1)) == 1 < total  # the list is capped; the count is not
    open_file(qtbot, window, demo_copy)
    settle(qtbot, window)
    assert window.tabs.tabText(window.pane_names.index("contradictions")) == f"Contradictions ({total})"


def test_the_plan_table_quotes_the_facts_its_items_name(qtbot, window, demo_copy) -> None:
    open_file(qtbot, window, demo_copy)
    pane = _run_gc(qtbot, window)
    column = TEXT_COLUMN
    first = pane.plan.items[0]
    with Memory(demo_copy, Settings(), create=False) as memory:
        said = memory.facts([first.target_id])[first.target_id].text
    qtbot.waitUntil(lambda: pane.items.index(0, column).data().startswith(f"#{first.target_id}: "),
                    timeout=WAIT_MS)
    assert " ".join(said.split())[:40] in pane.items.index(0, column).data()


def _distill_draft(qtbot, window, demo_copy):
    open_file(qtbot, window, demo_copy)
    settle(qtbot, window)
    pane = window.plans
    window.show_pane(window.pane_names.index("plans"))
    pane.pass_buttons["distill"].click()
    qtbot.waitUntil(lambda: pane.prompt is not None and pane.prompt.isVisible() and
                    bool(pane.prompt.comboBoxItems()), timeout=WAIT_MS)
    pane.prompt.setTextValue(pane.prompt.comboBoxItems()[1])
    pane.prompt.accept()
    qtbot.waitUntil(lambda: pane.plan is not None and pane.plan.kind == "distill", timeout=WAIT_MS)
    return pane


def _untick(pane, index: int) -> None:
    row = [it.index for it in pane.plan.items].index(index)
    pane.items.setData(pane.items.index(row, 0), Qt.CheckState.Unchecked.value, Qt.ItemDataRole.CheckStateRole)


def test_clearing_an_item_of_a_distill_clears_what_builds_on_it_before_apply(qtbot, window, demo_copy) -> None:
    pane = _distill_draft(qtbot, window, demo_copy)
    builds_on = {it.index: it.target_index for it in pane.plan.items if it.target_index is not None}
    first = next(iter(sorted(set(builds_on.values()))))
    dependents = {i for i, needed in builds_on.items() if needed == first}
    _untick(pane, first)
    assert first not in pane.items.checked and not dependents & pane.items.checked
    assert "also cleared item" in pane.message.text().lower()  # said before anything is confirmed
    kept = set(pane.items.checked)
    assert kept
    pane.apply_button.click()
    pane.prompt.accept()
    qtbot.waitUntil(lambda: pane.plan is not None and pane.plan.status != "draft", timeout=WAIT_MS)
    assert set(pane.plan.applied_indexes) == kept and "⚠" not in pane.message.text()


def test_a_refused_apply_keeps_the_selection(qtbot, window, demo_copy) -> None:
    """An agent holds the file's write lock past the wait: the apply is refused, nothing is written,
    and the plan comes back with the person's boxes as they left them (not every box ticked again)."""
    pane = _distill_draft(qtbot, window, demo_copy)
    _untick(pane, pane.plan.items[-1].index)
    kept = set(pane.items.checked)
    agent = sqlite3.connect(demo_copy, isolation_level=None)
    agent.execute("BEGIN IMMEDIATE")
    try:
        pane.apply_button.click()
        pane.prompt.accept()
        qtbot.waitUntil(lambda: "⚠" in pane.message.text(), timeout=WAIT_MS)
    finally:
        agent.execute("ROLLBACK")
        agent.close()
    assert "locked" in pane.message.text()
    settle(qtbot, window)
    assert pane.plan.status == "draft" and pane.items.checked == kept
