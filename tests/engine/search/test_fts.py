"""Query construction for FTS5: safe quoting, and the match budget that drops common words first."""

from __future__ import annotations

from dataclasses import replace

from engine import Memory, Settings
from engine.search.fts import TermCounts, match_expression, within_budget
from engine.search.hybrid import match_budget


def test_rarest_parts_are_kept_within_the_budget_in_query_order() -> None:
    counts = {"leads": 900, "ember": 300, "portal": 100, "leads ember": 2, "ember portal": 50}
    assert within_budget(list(counts), counts.get, 500) == ["ember", "portal", "leads ember", "ember portal"]
    # Nothing fits a budget of 1: the rarest part alone is kept, being within RAREST_STRETCH budgets...
    assert within_budget(list(counts), counts.get, 1) == ["leads ember"]
    # ... unless even it is that common (a stop word in a big store): then nothing.
    assert within_budget(["leads", "ember"], counts.get, 10) == []


def test_a_rare_phrase_of_common_words_survives() -> None:
    counts = {"leads": 900, "ember": 600, "portal": 700, "leads ember": 20, "ember portal": 5}
    assert match_expression("Who leads Ember Portal?", counts.get, 10) == '"ember portal"'
    assert match_expression("Who leads Ember Portal?", counts.get, 1) == '"ember portal"'  # the rarest, alone
    assert match_expression("Who leads?", counts.get, 10) is None  # even the rarest is 90 budgets
    assert match_expression("Who leads Ember Portal?") == \
        '"leads" OR "ember" OR "portal" OR "leads ember" OR "ember portal"'


def test_term_counts_are_capped_and_follow_new_facts(memory: Memory) -> None:
    memory.absorb([f"Zephyr gateway note number {k} about the staging rollout." for k in range(5)])
    counts = TermCounts(cap=3)
    with memory.store.guard():
        frequency = counts.bind(memory.store.db)
        assert frequency("zephyr") == 3 and frequency("rollout") == 3 and frequency("absent") == 0
        assert frequency("number 2") == 1
    memory.absorb(["Absent friends were toasted at the Zephyr gateway launch party in Lisbon."])
    with memory.store.guard():
        assert counts.bind(memory.store.db)("absent") == 1  # a new fact clears the cache


def test_common_words_are_left_to_the_cosine_part(db_path, clock, embedder) -> None:
    settings = replace(Settings(), memory=replace(Settings().memory, text_match_budget=3))
    facts = [f"The Kestrel service restarted cleanly after patch {k} on the Tuesday shift." for k in range(6)]
    facts.append("Ravi keeps the quartz-telemetry runbook pinned in the on-call channel.")
    with Memory(db_path, settings, clock=clock, embedder=embedder) as memory:
        memory.absorb(facts)
        hits = memory.search("kestrel quartz telemetry runbook", top_k=7)
        by_text = {h.fact.text: h for h in hits}
        assert by_text[facts[-1]].bm25 == 1.0
        assert all(by_text[t].bm25 == 0.0 for t in facts[:-1] if t in by_text)  # "kestrel" is in 6 > 3 facts


def test_a_stemmed_query_finds_other_forms_of_its_words(memory: Memory) -> None:
    """The full-text index stems (porter): "replica" finds "replicas", "deploying" finds "deployed"."""
    memory.absorb(["The orders database runs three read replicas in Frankfurt.",
                   "Ravi deployed the billing worker on Friday evening."])
    replica = {h.fact.text: h.bm25 for h in memory.search("replica", top_k=2)}
    assert replica["The orders database runs three read replicas in Frankfurt."] == 1.0
    assert replica.get("Ravi deployed the billing worker on Friday evening.", 0.0) == 0.0
    deploying = {h.fact.text: h.bm25 for h in memory.search("deploying", top_k=2)}
    assert deploying["Ravi deployed the billing worker on Friday evening."] == 1.0


def test_a_one_word_query_over_the_budget_still_has_a_text_part(memory: Memory) -> None:
    """On a big store a single keyword often matches more facts than the budget; its hits must still
    show a real BM25 part (it used to be 0.000 on every hit)."""
    memory.settings = replace(memory.settings, memory=replace(memory.settings.memory, text_match_budget=3))
    memory.absorb([f"Replica set {k} of the billing database lags behind its primary by {k} seconds."
                   for k in range(8)] + ["The canteen opens at noon on weekdays."])
    hits = memory.search("replicas", top_k=5)
    assert hits and max(h.bm25 for h in hits) == 1.0 and all(h.bm25 > 0 for h in hits[:3])


def test_the_match_budget_follows_the_memorys_size() -> None:
    limits = replace(Settings().memory, text_match_budget=100, text_match_share=0.15, text_match_ceiling=1000)
    assert match_budget(limits, 600) == 100  # a small memory keeps the floor
    assert match_budget(limits, 5000) == 750
    assert match_budget(limits, 1_000_000) == 1000  # the ceiling bounds what a search reads
    assert match_budget(replace(limits, text_match_share=0.0), 5000) == 100
    assert match_budget(replace(limits, text_match_budget=0), 5000) == 0  # 0: no budget, every word


def test_a_larger_memory_keeps_more_of_a_questions_words(db_path, clock, embedder) -> None:
    """The same question over the same few facts: its common word is dropped while the memory is small
    and kept once the memory holds enough other facts that the word is rare in it."""
    settings = replace(Settings(), memory=replace(Settings().memory, text_match_budget=2, text_match_share=0.5,
                                                  text_match_ceiling=100))
    topic = [f"The Kestrel pipeline ran batch {k} overnight without errors." for k in range(3)]
    answer = "Ravi keeps the quartz runbook pinned in the on-call channel."
    question = "kestrel quartz"
    with Memory(db_path, settings, clock=clock, embedder=embedder) as memory:
        memory.absorb([*topic, answer])
        small = {h.fact.text: h.bm25 for h in memory.search(question, top_k=4)}
        assert small[answer] == 1.0 and all(small.get(t, 0.0) == 0.0 for t in topic)  # 3 > a budget of 2
        memory.absorb([f"Lunch order {k}: {food} for the {team} team." for k, (food, team) in enumerate(
            (f, t) for f in ("soup", "noodles", "salad", "tacos") for t in ("design", "sales", "infra"))])
        large = {h.fact.text: h.bm25 for h in memory.search(question, top_k=4)}
        assert all(large[t] > 0.0 for t in topic)  # 16 facts: a budget of 8 holds "kestrel" too
