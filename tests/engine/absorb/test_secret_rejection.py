"""Secrets never enter the memory: not as a fact, a plan item, a journal row or an error message."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import pytest

from engine import Memory

# Built by concatenation so the fixtures are visibly synthetic.
GITHUB_TOKEN = "ghp_" + "Zq8Lm3Xv7Rt2Np5Kd9Wb4Yc6Hf1Gj0Ss3AeQ"
PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEow" + "IBAAKCAQEA7x" * 6 + "\n-----END RSA PRIVATE KEY-----"


@pytest.mark.parametrize("field, text", [
    ("text", f"The CI bot authenticates with {GITHUB_TOKEN} when it pushes tags."),
    ("text", f"Deploy key for the robots:\n{PEM}"),
    ("source", "The CI bot pushes release tags every Friday afternoon."),
])
def test_secret_is_refused_everywhere(memory: Memory, db_path: Path, caplog: pytest.LogCaptureFixture,
                                      field: str, text: str) -> None:
    caplog.set_level(logging.DEBUG)
    item = {"text": text} if field == "text" else {"text": text, "source": f"token {GITHUB_TOKEN}"}
    plan = memory.absorb([item, "Sofia Marques designs the fleet map screens of Atlas Console."])
    rejected = plan.items[0]
    assert rejected.outcome == "rejected" and rejected.decided_by == "secrets"
    assert "looks like a secret" in rejected.reason and "characters" in rejected.reason
    assert plan.items[1].outcome == "new"
    dump = "\n".join(sqlite3.connect(db_path).iterdump())
    for fragment in (GITHUB_TOKEN, "MIIEowIBAAKCAQEA7x"):
        assert fragment not in dump
        assert fragment not in rejected.reason
        assert fragment not in caplog.text
    assert "fleet map" in dump


def test_lookalikes_are_accepted(memory: Memory) -> None:
    plan = memory.absorb([
        "The release commit is 3f786850e387550fdab836ed7e6dc881de23001b on the main branch.",
        "Each robot has the id 123e4567-e89b-12d3-a456-426614174000 printed on its base.",
        "Maya forgot her password again and asked the agent where the API key is kept.",
        "The docs live at https://docs.example.org/ferrite/v1.4.2/setup?page=2 for now.",
        "The primary region of mica-auth is sa-east-1. Nadia owns its failover runbook.",
    ])
    assert [it.outcome for it in plan.items] == ["new"] * 5


def test_metadata_values_judged_clean_are_remembered_but_secrets_never(monkeypatch: pytest.MonkeyPatch) -> None:
    """``secret_in`` keeps the short values it found clean (tags and names repeat), never a secret,
    and a detector swapped in judges every value afresh."""
    from engine.absorb import secrets as detector
    from engine.absorb import validation

    calls: list[str] = []
    real = detector.first_secret

    def counting(text: str) -> detector.SecretFinding | None:
        calls.append(text)
        return real(text)

    monkeypatch.setattr(detector, "first_secret", counting)
    assert validation.secret_in("bouldering") is None
    assert validation.secret_in("bouldering") is None
    assert calls == ["bouldering"]
    for _ in range(2):
        assert validation.secret_in(f"token {GITHUB_TOKEN}") is not None
    assert calls.count(f"token {GITHUB_TOKEN}") == 2
    assert all(GITHUB_TOKEN not in value for value in validation._CLEAN)

    def learned(text: str) -> detector.SecretFinding | None:
        return detector.SecretFinding("a-new-format", 0, 6) if text.startswith("boulder") else None

    monkeypatch.setattr(detector, "first_secret", learned)
    assert validation.secret_in("bouldering") == detector.SecretFinding("a-new-format", 0, 6)
