"""Curation acts through the facade: each a plan, journaled, with a change record; bad input
changes nothing; a revert undoes by new records; the timeline replays recorded times."""

from __future__ import annotations

import threading

import pytest

from engine import InvalidInput, Memory, NotFound, PlanError, SecretRejected

IVAN = {"text": "Ivan Petrov works at Northwind Robotics as a robotics engineer in the Kazan office.",
        "entities": [{"name": "Ivan Petrov", "type": "person"}, {"name": "Northwind Robotics", "type": "company"}],
        "relations": [["Ivan Petrov", "works_at", "Northwind Robotics"]], "tags": ["team"], "source": "chat:7"}
THREE = "The staging cluster runs 3 replicas of the Ferrite ingest service behind nginx."
FIVE = "The staging cluster runs 5 replicas of the Ferrite ingest service behind nginx."


@pytest.fixture
def ids(memory: Memory, clock) -> dict[str, int]:
    ivan, three = (it.fact_id for it in memory.absorb([IVAN, THREE]).items)
    clock.advance(1)
    five = memory.absorb([FIVE]).items[0]
    assert five.outcome == "contradict" and five.target_id == three
    return {"ivan": ivan, "three": three, "five": five.fact_id}


def _journal_size(memory: Memory) -> int:
    return len(memory.journal(limit=100_000))


def test_a_new_version_keeps_entities_relations_source_and_tags(memory: Memory, ids) -> None:
    before = memory.fact_relations(ids["ivan"])
    plan = memory.version_fact(ids["ivan"], "Ivan Petrov works at Northwind Robotics as a lead robotics engineer "
                                            "in the Kazan office since May.")
    new = plan.changes.facts_added[0]
    assert plan.changes.facts_status_changed == [ids["ivan"]] and plan.changes.edges_added
    fact = memory.facts([new])[new]
    assert fact.tags == ["team"] and fact.source == "chat:7"
    assert [(r.type, r.active) for r in memory.fact_relations(new)] == [(r.type, True) for r in before]
    # The graph edge the old version justified is still justified, by the new one.
    assert any(r.active for r in memory.graph_relations(include_inactive=False) if r.type == "works_at")


def test_archive_tag_and_link_are_plans_with_change_records(memory: Memory, ids) -> None:
    dry = memory.archive_fact(ids["ivan"], reason="left the company", dry_run=True)
    assert dry.status == "draft" and dry.changes is None and memory.facts([ids["ivan"]])[ids["ivan"]].status == "active"
    done = memory.apply_plan(dry.id)
    assert done.changes.facts_status_changed == [ids["ivan"]]
    tagged = memory.tag_fact(ids["three"], add=["Infra", "staging"], remove=["nothing"])
    assert memory.facts([ids["three"]])[ids["three"]].tags == ["infra", "staging"]
    assert tagged.changes.facts_touched == [ids["three"]]
    memory.tag_fact(ids["three"], remove=["INFRA"])
    assert memory.facts([ids["three"]])[ids["three"]].tags == ["staging"]


@pytest.mark.parametrize("act, error", [
    (lambda m, i: m.link_facts(i["three"], i["three"], "related"), InvalidInput),
    (lambda m, i: m.link_facts(i["three"], i["five"], "contradicts"), InvalidInput),  # already linked
    (lambda m, i: m.link_facts(i["three"], i["five"], "supersedes"), InvalidInput),
    (lambda m, i: m.archive_fact(999), NotFound),
    (lambda m, i: m.archive_fact(2 ** 64), InvalidInput),
    (lambda m, i: m.archive_fact(-3), InvalidInput),
    (lambda m, i: m.version_fact(i["three"], "   "), InvalidInput),
    (lambda m, i: m.version_fact(i["three"], THREE), InvalidInput),  # the same text
    (lambda m, i: m.version_fact(i["ivan"], "Ivan's deploy token is ghp_R8vKq2LmXw9TzY4bNc6Hd1Jf5Gs3Ap0EuQiO"),
     SecretRejected),
    (lambda m, i: m.tag_fact(i["ivan"]), InvalidInput),
    (lambda m, i: m.tag_fact(i["ivan"], add="single-string"), InvalidInput),
    (lambda m, i: m.resolve_contradiction(i["three"], i["ivan"], i["three"]), InvalidInput),  # not a pair
    (lambda m, i: m.resolve_contradiction(i["three"], i["five"], i["ivan"]), InvalidInput),  # keep neither
    (lambda m, i: m.revert_plan(999), NotFound),
])
def test_bad_input_is_one_line_and_changes_nothing(memory: Memory, ids, act, error) -> None:
    journal, plans = _journal_size(memory), len(memory.plans())
    with pytest.raises(error) as raised:
        act(memory, ids)
    assert "\n" not in str(raised.value) and "ghp_" not in str(raised.value)
    assert _journal_size(memory) == journal and len(memory.plans()) == plans


def test_a_superseded_fact_cannot_be_versioned_or_archived(memory: Memory, ids) -> None:
    memory.version_fact(ids["three"], "The staging cluster runs 4 replicas of the Ferrite ingest service now.")
    for act in (lambda: memory.archive_fact(ids["three"]), lambda: memory.version_fact(ids["three"], FIVE + " Yes.")):
        with pytest.raises(InvalidInput, match="superseded, not active"):
            act()


def test_resolving_keeps_one_or_both_and_yesterday_still_shows_it_open(memory: Memory, ids, clock) -> None:
    assert [(c.left.id, c.right.id) for c in memory.contradictions()] == [(ids["three"], ids["five"])]
    yesterday = clock()
    clock.advance(1)
    plan = memory.resolve_contradiction(ids["three"], ids["five"], keep=ids["three"])
    assert plan.changes.facts_status_changed == [ids["five"]] and memory.contradictions() == []
    now = memory.timeline_as_of(ids["three"])
    assert now.current == ids["three"] and now.open_contradictions == []
    before = memory.timeline_as_of(ids["three"], yesterday)
    # History as recorded: the pair was open and #5 current-and-active until the resolution.
    assert before.open_contradictions == [(ids["three"], ids["five"])]
    assert before.statuses[ids["five"]] == "active" and before.versions == [ids["three"]]
    drawn = {v.fact.id: v.status_at(yesterday) for v in memory.timeline(ids["three"]).all_versions()}
    assert drawn == {i: before.statuses[i] for i in drawn}  # what the Timeline pane draws agrees


def test_keep_both_settles_the_pair_as_related(memory: Memory, ids) -> None:
    plan = memory.resolve_contradiction(ids["five"], ids["three"], keep="both")
    assert plan.items[0].outcome == "link" and memory.contradictions() == []
    assert {memory.facts([i])[i].status for i in (ids["three"], ids["five"])} == {"active"}


def test_revert_undoes_by_new_records_and_only_once(memory: Memory, ids) -> None:
    version = memory.version_fact(ids["ivan"], "Ivan Petrov now leads the robotics team at Northwind Robotics "
                                               "in the Kazan office.")
    new = version.changes.facts_added[0]
    dry = memory.revert_plan(version.id, dry_run=True)
    assert dry.kind == "revert" and dry.note.startswith(f"reverts plan {version.id}")
    assert sorted((it.outcome, it.target_id) for it in dry.items) == [("archive", new), ("reactivate", ids["ivan"])]
    with pytest.raises(PlanError, match="only an applied plan"):
        memory.revert_plan(dry.id)  # a draft cannot be reverted
    undone = memory.apply_plan(dry.id)
    facts = memory.facts([new, ids["ivan"]])
    assert facts[new].status == "archived" and facts[ids["ivan"]].status == "active"
    assert set(undone.changes.facts_status_changed) == {new, ids["ivan"]}
    with pytest.raises(PlanError, match="already reverted"):
        memory.revert_plan(version.id)
    assert memory.stats()["facts"] == 4  # nothing deleted


def test_two_drafted_reverts_of_one_plan_apply_once(memory: Memory, ids) -> None:
    plan = memory.tag_fact(ids["ivan"], add=["kazan"])
    first, second = (memory.revert_plan(plan.id, dry_run=True) for _ in range(2))
    memory.apply_plan(first.id)
    with pytest.raises(PlanError, match="out of date|already reverted"):
        memory.apply_plan(second.id)
    assert memory.facts([ids["ivan"]])[ids["ivan"]].tags == ["team"]


def test_concurrent_reverts_from_two_threads_undo_once(memory: Memory, ids, db_path, embedder) -> None:
    plan = memory.archive_fact(ids["ivan"])
    drafts = [memory.revert_plan(plan.id, dry_run=True).id for _ in range(2)]
    outcomes: list[str] = []

    def apply(plan_id: int) -> None:
        with Memory(db_path, memory.settings, embedder=embedder) as other:
            try:
                outcomes.append(other.apply_plan(plan_id).status)
            except PlanError:
                outcomes.append("refused")

    threads = [threading.Thread(target=apply, args=(d,)) for d in drafts]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["applied", "refused"]
    assert len([e for e in memory.journal(ids["ivan"]) if e.action == "reactivate"]) == 1


def test_reverting_an_absorb_archives_what_it_added_and_settles_its_contradiction(memory: Memory, ids) -> None:
    newest = memory.plans(status="applied")[0]  # the absorb that added FIVE, contradicting THREE
    assert newest.kind == "absorb"
    undo = memory.revert_plan(newest.id)
    assert undo.status == "applied" and undo.note == f"reverts plan {newest.id}"
    assert memory.facts([ids["five"]])[ids["five"]].status == "archived"
    assert memory.contradictions() == []


def test_changes_since_gives_another_process_the_same_record(memory: Memory, ids, db_path, embedder) -> None:
    mark = memory.journal(limit=100_000)[-1].id
    with Memory(db_path, memory.settings, embedder=embedder, actor="mcp") as agent:
        written = agent.archive_fact(ids["three"]).changes
    seen = memory.changes_since(mark)
    assert seen == written and seen.actors == ["mcp"]


NGINX = "The staging cluster runs the Ferrite ingest service behind nginx."
NGINX_PORT = "The staging cluster runs the Ferrite ingest service behind nginx on port 8080."


def test_a_pair_absorb_linked_related_can_still_be_found_contradicting(memory: Memory, clock) -> None:
    """Absorb's ``related`` link (made before) only says the facts are close; only one made after the
    contradiction ("both hold") settles it."""
    first = memory.absorb([NGINX]).items[0].fact_id
    clock.advance(1)
    second = memory.absorb([NGINX_PORT]).items[0]
    assert second.outcome == "related" and second.target_id == first
    clock.advance(1)
    memory.link_facts(first, second.fact_id, "contradicts")
    assert [(c.left.id, c.right.id) for c in memory.contradictions()] == [(first, second.fact_id)]
    assert memory.timeline_as_of(first, clock()).open_contradictions == [(first, second.fact_id)]
    clock.advance(1)
    plan = memory.resolve_contradiction(first, second.fact_id, keep="both")
    assert plan.status == "applied" and memory.contradictions() == []
    assert memory.timeline_as_of(first, clock()).open_contradictions == []
    edges = [(e.type, e.from_id, e.to_id) for e in memory.edges(first)]
    assert edges.count(("related", second.fact_id, first)) == 1 and edges.count(("related", first, second.fact_id)) == 1


def test_a_link_item_names_the_fact_it_starts_from_and_the_one_it_points_at(memory: Memory, ids) -> None:
    plan = memory.link_facts(ids["ivan"], ids["three"], "related", dry_run=True)
    item = plan.items[0].to_dict()
    assert (item["fact_id"], item["target_id"]) == (ids["ivan"], ids["three"])
    applied = memory.apply_plan(plan.id).items[0].to_dict()
    assert (applied["fact_id"], applied["target_id"]) == (ids["ivan"], ids["three"])
    assert ("related", ids["ivan"], ids["three"]) in [(e.type, e.from_id, e.to_id) for e in memory.edges(ids["ivan"])]
