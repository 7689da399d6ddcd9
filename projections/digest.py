"""The replay digest: a hash of the canonical folded state plus the headline figures.

Same log, same digest, on every run and every machine: the state is dumped as canonical JSON
(sorted keys) without anything time- or machine-dependent.
"""
from __future__ import annotations

import hashlib

import orjson

from cg import snapshot


def canonical_state(st) -> bytes:
    # one canonical dump of the state's data: the same bytes as dumping it, parsing it back and
    # dumping that with sorted keys (orjson writes a tuple as a list, and parses what it wrote back
    # to equal values), without the first dump and the parse of a long campaign's state
    data = snapshot.state_data(st)
    # log positions and audit notes, not campaign state; leaders_made is derived from the units
    for key in ("reverts", "seq", "last_batch", "leaders_made"):
        data.pop(key, None)
    if data.get("pbem", 1) is None:  # an ordinary campaign: its digest as before play by email
        del data["pbem"]
    if data.get("conventions", 1) is None:  # a campaign started before the ledger's conventions: as before
        del data["conventions"]
    return orjson.dumps(data, option=orjson.OPT_SORT_KEYS)


def digest(st) -> dict:
    st.load_all()
    h = hashlib.sha256(canonical_state(st)).hexdigest()
    headline = {
        "firefight": st.firefight,
        "step": st.step,
        "ended": st.ended,
        "seq": st.seq,
        **{f"{side}_{k}": getattr(s, k) for side, s in st.sides.items() for k in ("cp", "elr", "san", "tvp_total")},
        "units": len(st.units),
        "purchases": len(st.purchases),
    }
    return {"digest": h, "headline": headline}


def headline_lines(d: dict) -> list[str]:
    """`plcg replay`'s headline, each value as a player reads it: never a Python word (True, False, None)."""
    return [f"  {k}: {_words(v)}" for k, v in d["headline"].items()]


def _words(v) -> str:
    if v is True or v is False:
        return "yes" if v else "no"
    return "none" if v is None else str(v)
