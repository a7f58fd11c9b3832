"""The heuristic classifier on pairs made for the purpose, and the LLM asked only when it is unsure."""

from __future__ import annotations

from typing import Iterator

import pytest

from engine.absorb.classify import Candidate, classify
from engine.absorb.classify_llm import LLMClassifier
from engine.config import LLMSettings, Settings
from engine.models.llm import LLMClient
from engine.absorb.validation import Incoming
from tests.llm_server import ScriptedLLM

LIMITS = Settings().memory


def _outcome(stored: str, incoming: str, cosine: float = 0.9) -> tuple[str, str]:
    decision = classify(Incoming(text=incoming, scope="agent", kind="explicit"),
                        [Candidate(stored, "agent", cosine, fact_id=1)], LIMITS)
    return decision.outcome, decision.reason


@pytest.mark.parametrize("stored, incoming, outcome, cue", [
    ("Maya likes working from the Lisbon office on Fridays.",
     "Maya dislikes working from the Lisbon office on Fridays.", "contradict", "antonym: dislike/like"),
    ("The nightly backup job is enabled on the staging database.",
     "There is no nightly backup job enabled on the staging database.", "contradict", "negation"),
    ("The staging cluster runs 3 replicas of the ingest service.",
     "The staging cluster runs 5 replicas of the ingest service.", "contradict", "number: 5 vs 3"),
    # A number that changed along with other words is another report, not a new value.
    ("The staging cluster runs 3 replicas of the ingest service.",
     "The production cluster in Frankfurt runs 5 replicas of the billing service.", "related", ""),
    # Describing words pick another thing; they do not deny the first.
    ("A big dog is running across the lawn.", "A small dog is running across the lawn.", "related", ""),
    ("A dog is licking a baby.", "A baby is licking a dog.", "related", ""),
    ("A man with no shirt is holding a football.", "A man with a shirt is holding a football.", "related", ""),
    # A number in the opening name picks another thing of the same kind: its other values are its own.
    ("Shelf 0 holds spare fuses.", "Shelf 1 holds spare fuses.", "related", "another subject: shelf 1 / shelf 0"),
    ("Pallet 0 is parked at dock 4.", "Pallet 1 is parked at dock 5.", "related", "pallet 1 / pallet 0"),
    ("The build #41 is not green.", "The build #42 is green.", "related", "build 42 / build 41"),
    # seen in the real-window walk: a log of numbered notes put each one in the contradiction queue
    ("Note 1 about the build queue.", "Note 2 about the build queue.", "related", "note 2 / note 1"),
    # ... while the same name with another value is still a disagreement, and a later number is a value.
    ("Pallet 7 is parked at dock 4.", "Pallet 7 is parked at dock 5.", "contradict", "number: 5 vs 4"),
    ("Roadside bomb kills 10 civilians.", "Roadside bomb kills 5 civilians.", "contradict", "number: 5 vs 10"),
    # A number after the opening word that is a value, not a name: still a disagreement.
    ("Age 34.", "Age 35.", "contradict", "number: 35 vs 34"),
    ("Sleeps 8 hours a night.", "Sleeps 6 hours a night.", "contradict", "number: 6 vs 8"),
    ("Drinks 3 coffees a day.", "Drinks 5 coffees a day.", "contradict", "number: 5 vs 3"),
    ("Owns 2 cars.", "Owns 3 cars.", "contradict", "number: 3 vs 2"),
    ("Height 180 cm.", "Height 175 cm.", "contradict", "number: 175 vs 180"),
    ("Deadline 2026 for the launch.", "Deadline 2027 for the launch.", "contradict", "number: 2027 vs 2026"),
    ("Age 34 years.", "Age 35 years.", "contradict", "number: 35 vs 34"),
])
def test_cues_decide_between_contradict_and_related(stored: str, incoming: str, outcome: str, cue: str) -> None:
    got, reason = _outcome(stored, incoming)
    assert got == outcome and cue in reason


def test_a_near_copy_is_a_duplicate_even_in_the_passive() -> None:
    assert _outcome("A woman is frying some food.", "Some food is being fried by a woman.", 0.97)[0] == "duplicate"
    # The same cosine without the same words is only related.
    assert _outcome("A woman is frying some food.", "A woman is frying some fish.", 0.97)[0] == "related"
    assert _outcome("Deploys go out from branch feature/alpha.", "Deploys go out from branch feature/beta.",
                    0.99)[0] == "related"


@pytest.fixture
def classifier(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[LLMClassifier, ScriptedLLM]]:
    server = ScriptedLLM()
    monkeypatch.setenv("MEMLENS_TEST_KEY", "test-key-123")
    client = LLMClient(LLMSettings(base_url=server.base_url, model="m", api_key_env="MEMLENS_TEST_KEY", timeout=2))
    yield LLMClassifier(client), server
    server.close()


def test_the_llm_is_not_asked_when_the_heuristic_is_certain(classifier) -> None:
    llm, server = classifier
    item = Incoming(text="There is no nightly backup job enabled on the staging database.", scope="agent",
                    kind="explicit")
    decision = llm(item, [Candidate("The nightly backup job is enabled on the staging database.", "agent", 0.9,
                                    fact_id=1)], LIMITS)
    assert (decision.outcome, decision.decided_by) == ("contradict", "heuristic") and server.requests == []


def test_the_llm_decides_the_uncertain_band(classifier) -> None:
    llm, server = classifier
    server.answer(("content", '{"outcome": "supersede", "candidate": 1, "reason": "switched editors"}'))
    # "Maya now uses Helix as her main editor" is no longer uncertain: the heuristic reads it as a
    # newer value of the same frame (see test_frames), nor is "For Northwind work Maya edits in Helix"
    # (a fronted phrase without its comma, test_frame_shapes). This wording leaves the subject unclear to it.
    item = Incoming(text="Helix is what Maya reaches for at Northwind.", scope="agent", kind="explicit")
    decision = llm(item, [Candidate("Maya uses Vim as her main editor at Northwind.", "agent", 0.9, fact_id=1)],
                   LIMITS)
    assert (decision.outcome, decision.decided_by) == ("supersede", "llm") and len(server.requests) == 1


def test_a_newer_value_of_the_same_frame_is_certain_without_the_llm(classifier) -> None:
    llm, server = classifier
    item = Incoming(text="Maya now uses Helix as her main editor at Northwind.", scope="agent", kind="explicit")
    decision = llm(item, [Candidate("Maya uses Vim as her main editor at Northwind.", "agent", 0.9, fact_id=1)],
                   LIMITS)
    assert (decision.outcome, decision.decided_by) == ("supersede", "heuristic") and server.requests == []
