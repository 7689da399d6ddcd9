"""The folded state as bytes and back: derived data kept in the campaign file for speed.

JSON, never pickle: campaign files travel between players, and loading one must not run code.
The card is not repeated: it is parsed again from the campaign's first event.
"""
from __future__ import annotations

import attrs
import orjson

from cg.state import CampaignState, FirefightRecord, Purchase, SideState, Unit

SNAPSHOT_VERSION = 1
_FINGERPRINT: str | None = None


def fingerprint() -> str:
    """The fold code a snapshot was built by: a snapshot of other code is not trusted (refolded)."""
    global _FINGERPRINT
    if _FINGERPRINT is None:
        import hashlib
        from pathlib import Path

        h = hashlib.sha256(str(SNAPSHOT_VERSION).encode())
        here = Path(__file__).parent
        for name in ("state.py", "evolve.py", "snapshot.py", "card.py"):
            h.update((here / name).read_bytes())
        _FINGERPRINT = h.hexdigest()[:16]
    return _FINGERPRINT
_SETS = ("done", "cleared", "ap_failed", "commencements")


def dump(st: CampaignState) -> bytes:
    d = {}
    for a in attrs.fields(CampaignState):
        if a.name in ("card", "_tail"):
            continue
        d[a.name] = getattr(st, a.name)
    out = {
        "v": fingerprint(),
        "state": {
            **{k: v for k, v in d.items() if k not in _SETS + ("sides", "firefights", "purchases", "units",
                                                                 "patrols_done", "patrols_to_return",
                                                                 "repairs_owed", "reverts")},
            **{k: sorted(d[k], key=str) for k in _SETS},
            "sides": {k: attrs.asdict(v) for k, v in st.sides.items()},
            "firefights": [attrs.asdict(f) for f in st.firefights],
            "purchases": [attrs.asdict(p) for p in st.purchases.values()],
            "units": [attrs.astuple(u) for u in st.units.values()],
            "patrols_done": {k: sorted(v) for k, v in st.patrols_done.items()},
            "patrols_to_return": {k: sorted(v) for k, v in st.patrols_to_return.items()},
            "repairs_owed": [[s, i, k] for (s, i), k in st.repairs_owed.items()],
            "reverts": [[a, list(b), c, e] for a, b, c, e in st.reverts],
        },
    }
    return orjson.dumps(out)


def load(blob: bytes, card) -> CampaignState | None:
    """The state, or None if the blob was built by other fold code (then the log is folded)."""
    data = orjson.loads(blob)
    if data.get("v") != fingerprint():
        return None
    d = data["state"]
    st = CampaignState(card=card, seed=d["seed"])
    for k, v in d.items():
        if k in _SETS:
            setattr(st, k, set(v))
        elif k == "sides":
            st.sides = {s: SideState(**x) for s, x in v.items()}
        elif k == "firefights":
            st.firefights = [FirefightRecord(**x) for x in v]
        elif k == "purchases":
            st.purchases = {x["id"]: Purchase(**x) for x in v}
        elif k == "units":
            st.units = {x[0]: Unit(*x) for x in v}
        elif k in ("patrols_done", "patrols_to_return"):
            setattr(st, k, {s: set(x) for s, x in v.items()})
        elif k == "repairs_owed":
            st.repairs_owed = {(s, i): kind for s, i, kind in v}
        elif k == "reverts":
            st.reverts = [(a, tuple(b), c, e) for a, b, c, e in v]
        else:
            setattr(st, k, v)
    return st
