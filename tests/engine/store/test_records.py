"""Content hashes must never change for a stored text: the fast normalisation equals the original one."""

from __future__ import annotations

import re
import unicodedata

from hypothesis import given, strategies as st

from engine.store.records import content_hash, normalise_text

_SPACES = re.compile(r"\s+")


def _original(text: str) -> str:
    return _SPACES.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


@given(st.text(alphabet=st.sampled_from(" \t\n\r\x0b\x0c\x1c\x85\u00a0\u2003\u2028\u3000\u200bAbßΣς\ufb01é1"),
               max_size=30) | st.text(max_size=60))
def test_normalisation_is_the_original_regex_one(text: str) -> None:
    assert normalise_text(text) == _original(text)


def test_hash_ignores_case_and_spacing_only() -> None:
    assert content_hash("  The  Staging\tcluster ") == content_hash("the staging cluster")
    assert content_hash("the staging cluster") != content_hash("the staging clusters")
