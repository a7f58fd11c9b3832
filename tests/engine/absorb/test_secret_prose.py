"""Issue 26's second round of secret forms: the named misses caught, other phrasings of them caught
(written before tuning, see secret_forms_round2.py), and the look-alikes passed."""

from __future__ import annotations

import pytest

from engine.absorb.secrets import find_secrets, first_secret
from tests.engine.absorb.secret_forms_round2 import (DEV, FULL_WIDTH_GITHUB, GITHUB, HELD_OUT, LOOK_ALIKES_DEV,
                                                     LOOK_ALIKES_HELD_OUT, SEED_12)


@pytest.mark.parametrize("text", DEV + HELD_OUT)
def test_each_form_is_refused(text: str) -> None:
    assert first_secret(text) is not None


@pytest.mark.parametrize("text", LOOK_ALIKES_DEV + LOOK_ALIKES_HELD_OUT)
def test_each_look_alike_passes(text: str) -> None:
    assert first_secret(text) is None, [(f.rule, text[f.start:f.end][:12]) for f in find_secrets(text)]


def test_a_full_width_key_is_found_where_it_is() -> None:
    text = f"token {FULL_WIDTH_GITHUB} end"
    found = first_secret(text)
    assert found is not None and text[found.start:found.end] == FULL_WIDTH_GITHUB
    assert first_secret(f"token {GITHUB} end") is not None


def test_a_seed_phrase_needs_its_checksum_or_a_label() -> None:
    words = SEED_12.split()
    shuffled = " ".join(words[1:] + words[:1])  # the same words, the checksum broken
    assert first_secret(f"My recovery phrase: {shuffled}") is not None
    assert first_secret(f"We bought {shuffled} today") is None


@pytest.mark.parametrize("body", ["x" * 40, "X" * 40, "*" * 40, "your-key-here-0000000000"])
def test_a_provider_prefix_with_a_placeholder_body_passes(body: str) -> None:
    assert first_secret(f"set ANTHROPIC to sk-ant-api03-{body} in the config") is None
