"""JSON for the ledger: canonical bytes for hashing, and the hash chain.

Canonical form: orjson with sorted keys and no whitespace, UTF-8. It is a fixed point:
canonical(loads(canonical(x))) == canonical(x), so a hash can be recomputed from stored text.
Tuples come back as lists; dict keys must be str (orjson refuses others rather than guess).

(The cattrs converter for the event classes is events/convert.py; the upcasters by version,
events/upcasters.py.)
"""
from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from typing import Any

import orjson

_OPTS = orjson.OPT_SORT_KEYS

GENESIS = "0" * 64  # the hash "before" the first event


# canonical(obj): canonical JSON bytes of obj (sorted keys, no spaces, UTF-8). A partial rather
# than a function, and loads orjson's own: the audit calls them for every row of the log.
canonical: Callable[[Any], bytes] = functools.partial(orjson.dumps, option=_OPTS)
loads: Callable[[str | bytes], Any] = orjson.loads


def dumps(obj: Any) -> str:
    """canonical(obj) as str (what the store keeps in its TEXT columns)."""
    return orjson.dumps(obj, option=_OPTS).decode()


def chain_record(seq: int, batch: int, type: str, version: int, firefight: int, step: str, payload: Any,
                 recorded: str, command: Any) -> dict:
    """What a row's hash covers: every column but the hashes, with payload and command as parsed JSON."""
    return {"seq": seq, "batch": batch, "type": type, "version": version, "firefight": firefight, "step": step,
            "payload": payload, "recorded": recorded, "command": command}


def chain_hash(prev_hash: str, record: dict) -> str:
    """sha256 hex of the previous hash, a newline, and the canonical record."""
    return hashlib.sha256(prev_hash.encode() + b"\n" + canonical(record)).hexdigest()


MAX_DEPTH = 64  # nesting of a JSON value plcg ever writes: a CG Card in campaign_started is under 10


def too_deep(obj: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether obj nests lists and objects deeper than `limit` (walked without recursion): hostile
    input (an import, a bundle), refused as bad input before anything dumps or folds it (issue 25)."""
    stack = [(obj, 1)]
    while stack:
        x, d = stack.pop()
        if isinstance(x, dict):
            x = x.values()
        elif not isinstance(x, list):
            continue
        if d > limit:
            return True
        stack.extend((y, d + 1) for y in x if isinstance(y, (dict, list)))
    return False
