"""JSON text for stored columns, with the encoder built once.

``json.JSONEncoder(...).encode`` sets up a new C encoder on every call: about half the cost of
encoding a journal row's details or a fact's tags. ``encoder(...)`` builds it once and returns a
function giving the same text for the same (non-circular) values.
"""

from __future__ import annotations

import json
import json.encoder
from typing import Any, Callable


def encoder(*, ensure_ascii: bool = True, sort_keys: bool = False,
            separators: tuple[str, str] | None = None) -> Callable[[Any], str]:
    """``json.JSONEncoder(ensure_ascii=..., sort_keys=..., separators=...).encode``, set up once.

    Stored values are never circular, so the circular-reference bookkeeping is left out (it only
    changes which error a circular value raises); everything else is the standard encoder's.
    """
    plain = json.JSONEncoder(ensure_ascii=ensure_ascii, sort_keys=sort_keys, separators=separators)
    make = json.encoder.c_make_encoder
    if make is None:  # a Python without the C accelerator
        return plain.encode
    strings = json.encoder.encode_basestring_ascii if ensure_ascii else json.encoder.encode_basestring
    chunks = make(None, plain.default, strings, None, plain.key_separator, plain.item_separator, sort_keys,
                  False, True)

    def encode(value: Any) -> str:
        return "".join(chunks(value, 0))
    return encode
