"""The folded state as bytes and back: derived data kept in the campaign file for speed.

JSON, never pickle: campaign files travel between players, and loading one must not run code.
The card is not repeated: it is parsed again from the campaign's first event.
"""
from __future__ import annotations

import hashlib
from contextlib import contextmanager
from operator import attrgetter
from pathlib import Path
from types import MappingProxyType
from typing import Any, Callable

import attrs
import orjson

from cg import caches, items, state as _state
from cg.bulk import gc_paused
from cg.items import Kept
from cg.state import (_POSITION, SETTLED, BySide, CampaignState, Done, FirefightRecord, Fortification,  # noqa: F401
                      Ground, PatrolTeam, Pbem, Position, Purchase, Reph, SideState, Unit, settled)
from cg.units import Kind, Status
from events.errors import UNFOLDABLE, WriteConflict

SNAPSHOT_VERSION = 3  # 2: the hot part holds purchases and firefight records as tuples; 3: sealed by a digest
_SEAL = b"plcg-snap-sha256:"  # the hot blob is _SEAL + 32 hex digits of sha256(body) + ":" + body


class SnapshotDamaged(Exception):
    """A stored snapshot part whose digest does not match: it is ignored and the log folded."""


def seal(body: bytes) -> bytes:
    """A snapshot part the ledger wrote carries its digest: a hand edit (CP 11 -> 99) is ignored on
    load. No defence against someone who recomputes the digest: a head witness is (README)."""
    return _SEAL + hashlib.sha256(body).hexdigest()[:32].encode() + b":" + body


def unseal(blob: bytes) -> bytes | None:
    """The body of a sealed blob, or None when the seal is missing or does not match."""
    n = len(_SEAL)
    if not blob.startswith(_SEAL) or blob[n + 32:n + 33] != b":":
        return None
    body = blob[n + 33:]
    if hashlib.sha256(body).hexdigest()[:32].encode() != blob[n:n + 32]:
        return None
    return body


# the fold code, the files a snapshot's fingerprint is made of: items.py, a kept item's parse (Kept) and the mines
# that clear as one; the steps' modules, each event's fold beside the step that writes it (`@on`) and what
# leaving and entering a step does to the state (`on_left`, `on_enter`), with the folds' shared pieces (changes.py)
FOLD_CODE = ("state.py", "evolve.py", "snapshot.py", "card.py", "rules/revisions.py", "items.py",
             "steps/purchase.py", "steps/before.py", "steps/end.py", "steps/reph.py", "steps/anywhere.py",
             "steps/changes.py")


def _fingerprint() -> str:
    h = hashlib.sha256(str(SNAPSHOT_VERSION).encode())
    here = Path(__file__).parent
    for name in FOLD_CODE:
        h.update((here / name).read_bytes())
    return h.hexdigest()[:16]


FINGERPRINT = _fingerprint()  # of the code as imported: computed once, at import (every command reads it)


def fingerprint() -> str:
    """The fold code a snapshot was built by: a snapshot of other code is not trusted (refolded)."""
    return FINGERPRINT




# The records as attrs.astuple / attrs.asdict (retain_collection_types=False) give them, made without
# their generic recursion: a field holding a plain value (nine in ten) is taken as it is, a container
# is converted as attrs converts it (tuples and sets as lists, dicts copied, attrs values as dicts).
# (a unit's Kind and Status are str enums: orjson writes each as its word, as attrs would)
_SCALARS = frozenset((str, int, bool, float, type(None), Kind, Status))
# a stored word -> its member (read-only)
_KIND_OF, _STATUS_OF = MappingProxyType(Kind._value2member_map_), MappingProxyType(Status._value2member_map_)


def _unit(row: list) -> Unit:
    """A unit from its stored row, its kind and status read as their members (a word no release knows kept)."""
    row[3] = _KIND_OF.get(row[3], row[3])
    row[5] = _STATUS_OF.get(row[5], row[5])
    return Unit(*row)


def _plain(v):
    """A value as attrs.asdict converts it (its `_asdict_anything`)."""
    t = type(v)
    if t in _SCALARS:
        return v
    if t is list or t is tuple:  # most often of plain values ([side, unit], a purchase's units)
        return [x if type(x) in _SCALARS else _plain(x) for x in v]
    if t is dict:
        return {k if type(k) in _SCALARS else _plain(k): x if type(x) in _SCALARS else _plain(x)
                for k, x in v.items()}
    if attrs.has(t):
        return _as_dict(v)
    if isinstance(v, (tuple, list, set, frozenset)):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {_plain(k): _plain(x) for k, x in v.items()}
    return v


def _getter(names: tuple) -> Callable:
    return attrgetter(*names) if len(names) > 1 else lambda x: (getattr(x, names[0]),)


# The record classes of the state, their field names and the getter of their values as a tuple: constants,
# computed at import; a record class of another module (none today) is kept in the caches when first met.
_RECORD_CLASSES = [v for m in (_state, items) for v in vars(m).values() if isinstance(v, type) and attrs.has(v)]
_NAMES: dict[type, tuple] = {cls: tuple(a.name for a in attrs.fields(cls)) for cls in _RECORD_CLASSES}
_GETTERS: dict[type, Callable] = {cls: _getter(names) for cls, names in _NAMES.items()}


def _names(cls) -> tuple:
    names = _NAMES.get(cls)
    if names is None:
        memo = caches.current().names
        names = memo.get(cls)
        if names is None:
            names = memo[cls] = tuple(a.name for a in attrs.fields(cls))
    return names


@contextmanager
def shared():
    """Each record's dict and tuple built once for every dump made meanwhile: replay dumps the same
    state for the snapshot and again for the digest. Only while the state does not change. The table
    (id(record) -> its dict or tuple) is the caches', while this is open."""
    c = caches.current()
    c.shared = {}
    try:
        yield
    finally:
        c.shared = None


def _as_dict(o) -> dict:
    """attrs.asdict(o) (the same dict for the same record while `shared()` is open: not to be changed)."""
    memo = caches.current().shared
    if memo is not None:
        out = memo.get(id(o))
        if out is None:
            out = memo[id(o)] = _new_dict(o)
        return out
    return _new_dict(o)


def _new_dict(o) -> dict:
    out = {}
    for k in _names(type(o)):
        v = getattr(o, k)
        out[k] = v if type(v) in _SCALARS else _plain(v)
    return out


def _as_tuple(o) -> tuple:
    """attrs.astuple(o) for a record of plain values (a Unit); any other through attrs.astuple."""
    get = _GETTERS.get(type(o))
    if get is None:
        getters = caches.current().getters
        get = getters.get(type(o))
        if get is None:
            get = getters[type(o)] = _getter(_names(type(o)))
    memo = caches.current().shared
    if memo is not None:
        out = memo.get(~id(o))
        if out is None:
            out = memo[~id(o)] = _new_tuple(o, get)
        return out
    return _new_tuple(o, get)


def _new_tuple(o, get) -> tuple:
    values = get(o)
    if _SCALARS.issuperset(map(type, values)):
        return values
    return attrs.astuple(o)


def settled_purchase(st: CampaignState, p: Purchase) -> bool:
    """A purchase of an earlier firefight whose units are all settled (a unit not in `units` is one
    of the cold part's, or none at all: settled either way)."""
    if p.firefight >= st.firefight:
        return False
    units = st.units
    side = p.side
    return all((side, uid) not in units or settled(units[(side, uid)], st.firefight) for uid in p.units)


def _body(st: CampaignState, units, purchases=None, cold_ff=None, compact: bool = False) -> dict:
    """The state as JSON-ready data. `compact` (the hot part, which every command loads): purchases
    and firefight records as field tuples, like units, which parse and construct about twice as fast
    as dicts; the digest and the whole-state dump keep them as dicts."""
    d = {}
    for a in attrs.fields(CampaignState):
        if a.name in ("card", "view", "_tail", "_cold", "_cold_token", "_cold_n", "_cold_ff", "_active",
                      "_strategic", "_grown", "reph"):
            continue
        if a.name == "position":  # the frozen part's fields as the top-level keys they always were
            pos = st.position
            for k in _POSITION:
                d[k] = getattr(pos, k)
            continue
        if a.name == "ground":  # the typed part's values as the top-level keys they always were
            g = st.ground
            d["control"], d["terrain"] = g.control, _terrain_text(g.terrain)
            d["fortifications"] = [f.data() for f in g.fortifications]
            continue
        d[a.name] = getattr(st, a.name)
    d["purchase_count"] = {f"{s}:{rg}": n for (s, rg), n in st.purchase_count.items()}  # key()'s stored text
    if st.pbem is not None:
        d["pbem"] = st.pbem.data()
    r = st.reph
    return {
        **{k: v for k, v in d.items() if k not in ("commencements", "sides", "firefights", "purchases", "units",
                                                   "reverts")},
        **{k: getattr(r, k).data() for k in _REPH_BY_SIDE},  # the dicts they replaced
        # the typed records in the form the snapshot and the digest always kept: "cp:axis", "hex:item", "side:n"
        "done": sorted(map(str, r.done)),
        "cleared": sorted(f"{h}:{i}" for h, i in r.cleared),
        "ap_failed": sorted(r.ap_failed, key=str),
        "commencements": sorted(st.commencements, key=str),
        "patrol_units": {f"{s}:{n}": v.data() for (s, n), v in r.patrol_units.items()},
        "sides": {k: _as_dict(v) for k, v in st.sides.items()},
        "firefights": _firefights(st.firefights, cold_ff, compact),
        "purchases": [tuple(_as_dict(p).values()) if compact else _as_dict(p)
                      for p in (st.purchases.values() if purchases is None else purchases)],
        "units": [_as_tuple(u) for u in units],
        "patrols_done": {k: sorted(v) for k, v in r.patrols_done.items()},
        "patrols_to_return": {k: sorted(v) for k, v in r.patrols_to_return.items()},
        "repairs_owed": [[s, i, k] for (s, i), k in r.repairs_owed.items()],
        "reverts": [[a, list(b), c, e] for a, b, c, e in st.reverts],
    }


def _terrain_text(terrain: dict) -> dict:
    """The kept terrain in the form the snapshot and the digest always kept: hex -> [text] (cg/items.Kept)."""
    return {h: list(map(str, items)) for h, items in terrain.items()}


# the RePh record's fields kept as they are (the others are converted to their stored form above)
_REPH_BY_SIDE = ("hardened_now", "promotions", "leader_result", "generated", "may_generate")
_REPH = frozenset(a.name for a in attrs.fields(Reph))
_GROUND = frozenset(a.name for a in attrs.fields(Ground))


def _firefights(records, cold_ff, compact: bool) -> list:
    """Each FirefightRecord; those before `cold_ff` without their casualty list (in the cold part)."""
    out = []
    for f in records:
        d = _as_dict(f)
        if cold_ff is not None and f.n < cold_ff:
            d = {**d, "lost": []}
        out.append(tuple(d.values()) if compact else d)
    return out


def dump(st: CampaignState) -> bytes:
    """The whole state as one blob (the digest's canonical form; every unit loaded first)."""
    return orjson.dumps({"v": fingerprint(), "state": state_data(st)})


def state_data(st: CampaignState) -> dict:
    """The whole state as JSON-ready data, as dump() writes it under "state" (every unit loaded
    first): a new dict at the top, the nested values as they are."""
    st.load_all()
    return _body(st, st.units.values())


def dump_split(st: CampaignState, stored_token: str | None) -> tuple[bytes, tuple[str, bytes] | None]:
    """(hot blob, (token, cold blob) or None): the cold blob holds the settled units and is only
    rebuilt when the settled set grew (a new firefight) or is not known to match the stored one.
    Settled: the units out of play since an earlier firefight, and earlier purchases of only those."""
    ff = st.firefight
    if st._cold is not None:  # the settled part was never loaded: unchanged unless a hot item settled
        if st._cold_token == stored_token and not any(settled(u, ff) for u in st.units.values()) \
                and not any(settled_purchase(st, p) for p in st.purchases.values()):
            return _hot(st, st.units.values(), st.purchases.values()), None
        st.load_all()
    cold = [u for u in st.units.values() if settled(u, ff)]
    hot = [u for u in st.units.values() if not settled(u, ff)]
    cold_p = [p for p in st.purchases.values() if settled_purchase(st, p)]
    hot_p = [p for p in st.purchases.values() if not settled_purchase(st, p)]
    n = len(cold) + len(cold_p)
    if st._cold_token is not None and st._cold_token == stored_token and st._cold_n == n:
        return _hot(st, hot, hot_p), None
    blob = orjson.dumps({"v": fingerprint(), "order": list(st.units), "units": [_as_tuple(u) for u in cold],
                         "porder": list(st.purchases), "purchases": [_as_dict(p) for p in cold_p],
                         "lost": [f.lost for f in st.firefights if f.n < ff]})
    token = hashlib.sha256(blob).hexdigest()[:16]
    st._cold_token, st._cold_n, st._cold_ff = token, n, ff
    return _hot(st, hot, hot_p), (None if token == stored_token else (token, blob))


def _hot(st, units, purchases) -> bytes:
    """The hot part; the casualty lists of the firefights before the cold part's are in the cold part."""
    return seal(orjson.dumps({"v": fingerprint(), "cold": st._cold_token, "cold_n": st._cold_n,
                              "cold_ff": st._cold_ff,
                              "state": _body(st, units, purchases, st._cold_ff, compact=True)}))


def load(blob: bytes, card, cold=None, view=None) -> CampaignState | None:
    """The state, or None if the blob was built by other fold code (then the log is folded).

    A hot blob names its cold part by token: `cold(token)` gives the cold blob's bytes (None if the
    stored one is another: then this returns None too) and is called lazily, the first time a
    settled unit is needed (`CampaignState.unit`, `load_all`)."""
    with gc_paused():
        try:
            st = _load(blob, card, cold)
        except UNFOLDABLE:  # digest recomputed over a body this code did not write (a record given a key it does
            st = None  # not declare, a row of another length): not trusted, the log is folded
    if st is not None:
        st.view = view  # which seals its reader opens (not stored: a reader's, not the campaign's)
    return st


def _load(blob: bytes, card, cold) -> CampaignState | None:
    body = unseal(blob)
    if body is None:  # not sealed (older code: its fingerprint differs anyway), or edited by hand
        return None
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError:
        return None
    if data.get("v") != fingerprint():
        return None
    token = data.get("cold")
    if token is not None and (cold is None or not cold(token, probe=True)):
        return None
    d = data["state"]
    st = CampaignState(card=card, seed=d["seed"])
    r = st.reph
    ground: dict[str, Any] = {}
    position: dict[str, Any] = {}
    for k, v in d.items():
        if k == "done":
            r.done = set(map(Done.parse, v))
        elif k == "cleared":
            r.cleared = {tuple(x.split(":", 1)) for x in v}
        elif k == "ap_failed":
            r.ap_failed = set(v)
        elif k == "commencements":
            st.commencements = set(v)
        elif k == "sides":
            st.sides = BySide.of_data({s: SideState(**x) for s, x in v.items()})
        elif k == "firefights":
            st.firefights = [FirefightRecord.of_row(x) for x in v]
        elif k == "purchases":
            st.purchases = {(x[1], x[0]): Purchase(*x) for x in v}
        elif k == "units":
            st.units = {(x[1], x[0]): _unit(x) for x in v}
        elif k in ("patrols_done", "patrols_to_return"):
            setattr(r, k, BySide.of_data({s: set(x) for s, x in v.items()}))
        elif k == "patrol_units":
            for text, x in v.items():  # "side:n"
                side, _, n = text.partition(":")
                r.patrol_units[(side, int(n))] = PatrolTeam.of_data(x)
        elif k == "purchase_count":  # "side:rg" (the stored text of key())
            st.purchase_count = {tuple(text.split(":", 1)): n for text, n in v.items()}
        elif k == "repairs_owed":
            r.repairs_owed = {(s, i): kind for s, i, kind in v}
        elif k == "reverts":
            st.reverts = [(a, tuple(b), c, e) for a, b, c, e in v]
        elif k == "pbem":
            st.pbem = None if v is None else Pbem.of_data(v)
        elif k in _REPH_BY_SIDE:
            setattr(r, k, BySide.of_data(v))
        elif k in _REPH:
            setattr(r, k, v)
        elif k == "fortifications":
            ground[k] = [Fortification.of_data(x) for x in v]
        elif k == "terrain":
            ground[k] = {h: list(map(Kept.parse, items)) for h, items in v.items()}  # the text form read back
        elif k in _GROUND:
            ground[k] = v
        elif k in _POSITION:
            position[k] = v
        else:
            setattr(st, k, v)
    st.ground = Ground(**ground)
    st.position = Position(**position)
    if token is not None:
        st._cold_token, st._cold_n, st._cold_ff = token, data["cold_n"], data["cold_ff"]
        st._cold = lambda: _merge_cold(cold(token), token)
    return st


def _merge_cold(blob: bytes | None, token: str):
    """A function merging the cold part into a state's units, in the full fold's order."""
    if blob is None:
        raise WriteConflict("the campaign file's snapshot changed meanwhile; run the command again")

    if hashlib.sha256(blob).hexdigest()[:16] != token:  # the cold part is named by its digest
        raise SnapshotDamaged(token)
    with gc_paused():
        try:
            data = orjson.loads(blob)
            cold_u = {(x[1], x[0]): _unit(x) for x in data["units"]}
            cold_p = {(x["side"], x["id"]): Purchase(**x) for x in data["purchases"]}
            order, porder, lost = list(data["order"]), list(data["porder"]), list(data["lost"])
        except (*UNFOLDABLE, orjson.JSONDecodeError):  # its digest matched: recomputed over an edited body
            raise SnapshotDamaged(token) from None

    def merge1(hot: dict, cold: dict, order: list) -> dict:
        out = {}
        for k in map(tuple, order):  # each key stored as [side, id]
            v = hot.get(k) or cold.get(k)
            if v is not None:
                out[k] = v
        for k, v in hot.items():  # created since the cold part was written
            if k not in out:
                out[k] = v
        return out

    def merge(st: CampaignState) -> None:
        try:
            units, purchases = merge1(st.units, cold_u, order), merge1(st.purchases, cold_p, porder)
        except UNFOLDABLE:
            raise SnapshotDamaged(token) from None
        st.units, st.purchases = units, purchases
        for f, got in zip(st.firefights, lost):
            f.lost = got
    return merge
