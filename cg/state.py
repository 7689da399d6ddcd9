"""CampaignState: everything the rules need to decide the next command, folded from the log.

The state is a plain attrs value. Replay folds tens of thousands of events into one instance in
place (cg/evolve.py) because copying it per event would cost more than reading the log; `decide`
never mutates it. `copy()` gives an independent state (used before folding a command's events).
"""
from __future__ import annotations

import copy as _copy
import enum
import itertools
import operator
import re
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Callable, ClassVar, NamedTuple, cast

import attrs

from events import records, stored
from cg.units import IN_PLAY, Kind, Status
from cg.sequence import StepId, step_id
from cg import caches
from cg.rules.revisions import rules_for  # cg.rules.questions takes this module, as a module, while it loads
from cg.items import Kept  # a hex's kept item (Ground.terrain); 1.4: what grows Strategic Terrain

if TYPE_CHECKING:  # the card is read and built by cg/card_schema; the state only holds it
    from cg.card import Card

SIDES = ("axis", "allied")


def other(side: str) -> str:
    return "allied" if side == "axis" else "axis"


@records.define(slots=True)
class SideState:
    cp: int = 0
    elr: int = 3
    san: int = 2
    five_lost: bool = False  # 3.47: once reduced from 5, never back (ruling R13)
    attack: bool = False  # bought the Attack Option for the current firefight
    patrols: int = 0  # bought for the current firefight
    fp: int = 0  # unspent Fortification Points
    platoons: int = 0  # infantry platoons bought in this purchase step (ruling R12)
    tvp_total: int = 0  # CG TVP total (3.33)
    leaders_taken: dict = attrs.Factory(dict)  # 2.362: column -> {leader type: count} at Initial start


@records.define(slots=True)
class FirefightRecord:
    n: int
    date: str
    time: str
    initial: bool
    type: str | None = None
    attacker: str | None = None
    setup_first: str | None = None
    move_first: str | None = None
    weather: str | None = None
    night: str | None = None
    commenced: bool = False
    turn: int | None = None
    winner: str | None = None
    winner_rule: str | None = None  # "1.31" / "R5" / "2.421" (recomputed with RePh losses) or "--winner" (kept)
    cp_gained: BySide = attrs.Factory(lambda: BySide(0, 0))
    cp_spent: BySide = attrs.Factory(lambda: BySide(0, 0))
    cp_left: BySide = attrs.Factory(lambda: BySide(0, 0))
    attack: BySide = attrs.Factory(lambda: BySide(False, False))
    # infantry platoons bought for this firefight by quality (3.47): axis {"elite": 1}
    platoons: BySide = attrs.Factory(lambda: BySide({}, {}))
    cvp_lost: BySide = attrs.Factory(lambda: BySide(0, 0))
    tvp: BySide = attrs.Factory(lambda: BySide(0, 0))
    tvp_total: BySide = attrs.Factory(lambda: BySide(0, 0))
    elr: dict = attrs.Factory(dict)  # side -> the ELR at 2.2, once recorded (a side at a time)
    san: dict = attrs.Factory(dict)
    oba_used: BySide = attrs.Factory(lambda: BySide(0, 0))
    lost: list = attrs.Factory(list)  # [[side, unit]] casualties by unit
    patrol_cvp: BySide = attrs.Factory(lambda: BySide(0, 0))  # 2.756: CVP lost by patrols (ruling R39)

    @classmethod
    def of_row(cls, row) -> "FirefightRecord":
        """A record from its stored values, in field order (the snapshot's tuple): the per-side values are
        stored as the dicts {"axis": ..., "allied": ...} they replaced (BySide.data)."""
        values: list[Any] = [BySide.of_data(v) if k in _FF_BY_SIDE else v for k, v in zip(_FF_FIELDS, row)]
        return cls(*values)


@records.define(slots=True)
class Purchase:
    id: str
    side: str
    rg: str
    firefight: int
    mode: str
    cost: int
    kind: str
    leader_owed: int = 0
    oba_owed: bool = False
    oba: str | None = None  # ammunition: plentiful | normal | scarce
    leaders: list = attrs.Factory(list)
    fp: int = 0
    units: list = attrs.Factory(list)
    revealed: bool = False
    lost_idle: bool = False  # patrols/air lost to an Idle Firefight (2.41)


@records.define(slots=True)
class Unit:
    id: str
    side: str
    name: str
    kind: str  # a Kind (a str enum) or its word: leader | squad | hs | crew | sw | gun | vehicle | other (stored as its word)
    purchase: str | None
    status: Status = Status.AVAILABLE  # on_map | reserve | eliminated | captured | evacuated | recalled... (its word)
    hex: str | None = None
    hip: bool = False
    isolated: bool = False
    encircled: bool = False
    wounded: bool = False
    shocked: bool = False
    recalled: bool = False
    hardened: int = 0
    redeployed: bool = False  # this RePh (3.211: once per RePh)
    eliminated_in: int | None = None
    # added with `plcg position` / `end --hero ...` (new fields go last: a unit is stored as a row)
    concealed: bool = False  # 2.9 end position concealed (3.218)
    hero: bool = False  # a heroic leader, or a Hero SMC (3.43; `end --hero`)
    fanatic: bool = False  # an Elite MMC Battle Hardened (3.43/3.44 EXC, ruling R34): the counter stays
    exited: bool = False  # CG8: exited off a friendly edge, kept for the next firefight
    abandoned: bool = False  # 3.17: an Immobile vehicle whose inherent crew failed its 1TC (revision 3)


class What(enum.StrEnum):
    """What a `Done` record says was done: its word, as the snapshot and the replay digest store it."""

    CP = "cp"  # 2.1
    WEATHER = "weather"  # 2.2
    OBA_ROLL = "oba-roll"  # 2.351, ruling R14: `of` = (final DR, purchase)
    DETERMINE = "determine"  # 2.41
    NIGHT = "night"  # 2.42
    REDEPLOY_MLR = "redeploy-2.5"  # 2.5 Option A (ruling R85)
    REDEPLOY_MLR_DONE = "redeploy-2.5-done"  # 2.5 Option A (ruling R85)
    SETUP = "setup"  # 2.6
    SET = "set"  # 2.6, `of`: the unit
    END = "end"  # 2.9
    ENCIRCLED = "encircled"  # 3.17, `of`: the unit
    EVACUATE = "evacuate"  # 3.19, no side; `of`: the leader
    DISEASE = "disease"  # 3.41
    DISEASE_OWED = "disease-owed"  # 3.41, `of`: the HS equivalents still owed
    DISEASE_REPLACED = "disease-replaced"  # 3.41
    PROMOTE = "promote"  # 3.44
    LEADERS = "leaders"  # 3.45
    REPAIR = "repair"  # 3.46, `of`: the item
    ELR = "elr"  # 3.47
    CR_OWED = "cr-owed"  # 3.52 dagger, `of`: the hex


_WHAT = MappingProxyType(What._value2member_map_)  # a word -> its member, without Enum's __call__


class _DoneFields(NamedTuple):
    what: What
    side: str | None = None
    of: object = None


class Done(_DoneFields):
    """One record of what the current step has done, read against what the step owes (cg/steps/
    `pending`) and by the commands that may be given once only. Immutable; emptied when the step is left.

    `what`: a `What` (a word given is read as its member; a word no release knows is kept as it is);
    `side`; `of`, what it was done to or how (`What` says which). Its text (`str`, "cp:axis") is the form
    the snapshot and the replay digest keep, as they did when the records were strings."""

    __slots__ = ()

    def __new__(cls, what, side: str | None = None, of: object = None) -> "Done":
        return tuple.__new__(cls, (_WHAT.get(what, what), side, of))

    def __str__(self) -> str:
        out = f"{self.what}" if self.side is None else f"{self.what}:{self.side}"
        if self.of is None:
            return out
        of = ":".join(map(str, self.of)) if type(self.of) is tuple else self.of
        return f"{out}:{of}"

    @classmethod
    def parse(cls, text: str) -> "Done":
        """The record a stored text stands for (the inverse of str)."""
        what, _, rest = text.partition(":")
        if not rest:
            return cls(what)
        if what == "evacuate":
            return cls(what, None, rest)
        side, _, of = rest.partition(":")
        if not of:
            return cls(what, side)
        if what == "disease-owed":
            return cls(what, side, int(of))
        if what == "oba-roll":
            final, _, pid = of.partition(":")
            return cls(what, side, (int(final), pid))
        return cls(what, side, of)


class _Stored:
    """A record the snapshot and the digest keep as the dict it replaced: its fields, in order (`data()`), and
    back (`of_data()`, which refuses a key it does not declare, or one missing: TypeError)."""

    __slots__ = ()
    if TYPE_CHECKING:  # every subclass is an attrs class (records.frozen): attrs.fields takes it
        __attrs_attrs__: ClassVar[tuple[attrs.Attribute, ...]]

    def data(self) -> dict:
        return {a.name: getattr(self, a.name) for a in attrs.fields(type(self))}

    @classmethod
    def of_data(cls, d: dict):
        return cls(**d)


@records.define(slots=True)
class Fortification(_Stored):
    """What a side bought with Fortification Points (Ground.fortifications; 2.38): written by the fold of
    fortified (`side`, `kind` of the 2.38 table, `hex` or None, `cost` in FP, `detail` (a mine's `factors`...),
    the `unit` a HIP was bought for, the `firefight` it was bought for) and of fortification_placed (`hex`,
    given at setup, 2.6: revision switch fortify_placed_at_setup). Stored (`data()`) as the dict it
    replaced, every key present."""

    side: str
    kind: str
    hex: str | None
    cost: int
    detail: dict
    unit: str | None
    firefight: int


@records.frozen(slots=True)
class PatrolTeam(_Stored):
    """Who went on a patrol that owes its Return, and where (Reph.patrol_units; 2.72, 2.74, ruling R29,
    revision 2 switch patrol_rules): written by the fold of patrol_resolved: the `team` (its leader first,
    then its units' ids), the patrol's `kind` and its mission `hex`, and the DRM flags `typed` at Detection
    that the Return roll takes too (ruling R26, revision switch patrol_return_typed). Frozen (a copy shares
    it). Stored (`data()`) as the dict it replaced, `typed` only when there is one."""

    team: list
    kind: str
    hex: str | None
    typed: dict | None = None

    def data(self) -> dict:
        d: dict[str, Any] = {"team": self.team, "kind": self.kind, "hex": self.hex}
        if self.typed:
            d["typed"] = self.typed
        return d


@records.define(slots=True)
class BySide:
    """One value for each side (the sides' states, a firefight record's and play by email's per-side values, the
    RePh's counts, lists and sets), read and written as `x[side]`;
    the snapshot and the digest keep it as the dict {"axis": ..., "allied": ...} it replaced, key for key
    and in order (`data()`, `of_data()`)."""

    axis: object
    allied: object

    def __getitem__(self, side: str):
        if side == "axis":
            return self.axis
        if side == "allied":
            return self.allied
        raise KeyError(side)

    def __setitem__(self, side: str, value) -> None:
        if side == "axis":
            self.axis = value
        elif side == "allied":
            self.allied = value
        else:
            raise KeyError(side)

    def get(self, side: str, default=None):
        return self[side] if side in SIDES else default

    def items(self) -> tuple:
        return ("axis", self.axis), ("allied", self.allied)

    def values(self) -> tuple:
        return self.axis, self.allied

    def keys(self) -> tuple:
        return SIDES

    def __iter__(self):
        return iter(SIDES)

    def data(self) -> dict:
        return {"axis": self.axis, "allied": self.allied}

    @classmethod
    def of_data(cls, d: dict) -> "BySide":
        return cls(**d)  # a key that is no side, or a side missing: TypeError


def _by_side(value):
    return attrs.Factory(lambda: BySide(_copy.copy(value), _copy.copy(value)))


_FF_FIELDS = tuple(a.name for a in attrs.fields(FirefightRecord))
_FF_BY_SIDE = frozenset(a.name for a in attrs.fields(FirefightRecord) if str(a.type) == "BySide")  # stored as dicts


@records.define(slots=True)
class Reph:
    """What the current step and this firefight's patrols and Reorganization Phase have recorded: what a
    step owes is read against it (cg/steps/) and the RePh limits are counted from it. Written by the
    fold alone (cg/evolve.py): `done` is emptied whenever a step is left, the rest (but `repairs_owed`)
    when the next firefight's 2.1 begins.

    done: Done records of the current step (2.1-2.9, 3.17-3.52; see Done).
    cleared: (hex, item) a 3.52 clearance was tried on this RePh. ap_failed: 3.52 Locations where an
    A-P mine attempt failed (ruling R23).
    patrols_done / patrols_to_return: side -> 2.7 patrol numbers resolved or given up / that must roll
    on the 2.75 Return table. patrol_units: (side, patrol) -> PatrolTeam (ruling R29, revision 2).
    hardened_now: side -> units Battle Hardened this RePh (3.43-3.45). promotions: side -> the 3.44
    result (MMC that may harden). leader_result: side -> the 3.45 result (leaders that may harden or be
    generated). generated / may_generate: side -> leaders generated this RePh / that may be (3.45).
    repairs_owed: (side, item) -> what was recorded at 2.9 (malfunction, immobilized...) until 3.46
    repairs it (kept across RePhs while a repair fails)."""

    done: set = attrs.Factory(set)
    cleared: set = attrs.Factory(set)
    ap_failed: set = attrs.Factory(set)
    patrols_done: BySide = _by_side(set())
    patrols_to_return: BySide = _by_side(set())
    patrol_units: dict = attrs.Factory(dict)
    hardened_now: BySide = _by_side([])
    promotions: BySide = _by_side(0)
    leader_result: BySide = _by_side(0)
    generated: BySide = _by_side(0)
    repairs_owed: dict = attrs.Factory(dict)
    may_generate: BySide = _by_side(0)


def _provisional_set(inst, _attribute, value):
    object.__setattr__(inst, "has_provisional", True)  # the stored form keeps the key once it was ever set
    return value


@records.define(slots=True)
class DiceRequest(_Stored):
    """Two-party dice not yet revealed (Pbem.requests: commitment -> this). Written by the fold of
    dice_committed (ruling R44: `side` commits to `command`'s dice, `nonce` public; ruling R83: `value`
    shown with the commitment and `chain`, the place of the other side's chain `anchor` that decides it),
    step_left from 2.3 (`sealed_at`: ruling R119, a sealed roll of 2.3 revealed at 2.6, decided as of 2.3),
    dice_answered (`answer`, ruling R44), head_signed (`withheld`: signed over its answer unrevealed,
    ruling R67) and sealed (a seal this view cannot open asks for dice: `command` {"name": "sealed",
    "what"}, `nonce` None, ruling R47); dice_revealed removes it. Mutable: answer and withheld change.

    Stored (`data()`) as the dict it replaced: "value", "chain", "anchor" only for a roll from a chain (all
    three or none), "withheld" only once true, "sealed_at" only once set."""

    side: str
    command: dict
    nonce: str | None
    answer: str | None = None
    value: str | None = None
    chain: int | None = None
    anchor: str | None = None
    withheld: bool = False
    sealed_at: str | None = None  # ruling R119: 2.3, for a sealed roll of it still open when 2.3 was left

    def data(self) -> dict:
        out: dict[str, Any] = {"side": self.side, "command": self.command, "nonce": self.nonce, "answer": self.answer}
        if self.chain is not None:
            out["value"], out["chain"], out["anchor"] = self.value, self.chain, self.anchor
        if self.withheld:
            out["withheld"] = True
        if self.sealed_at is not None:
            out["sealed_at"] = self.sealed_at
        return out


@records.define(slots=True, frozen=True)
class Seal(_Stored):
    """A sealed secret not yet revealed (Pbem.seals: commitment -> this; ruling R47). Written by the fold
    of sealed: `side`'s command of a secret step (`what`: cp, purchase, attack, promote, harden) made at
    firefight `ff`, step `step`, row `seq`, its box (`nonce`, `box`), whether this view opened it
    (`opened`), the two-party dice request it `opens` or `closes` (or None), the `hex` of a concealed setup
    (ruling R112); seals_revealed removes it. Frozen: the fold never changes one (a copy shares it). Stored
    (`data()`) as the dict it replaced, every key present but `hex`, kept only when set."""

    side: str
    what: str
    ff: int
    step: str
    seq: int
    nonce: str
    box: str
    opened: bool
    opens: str | None
    closes: str | None
    hex: str | None = None  # ruling R112: a concealed setup's public hex (its "?" stack); kept only when set

    def data(self) -> dict:
        out = {a.name: getattr(self, a.name) for a in attrs.fields(Seal)}
        if out["hex"] is None:
            del out["hex"]
        return out


@records.define(slots=True)
class AnswerChain(_Stored):
    """A side's chain of answers to the other side's two-party dice (Pbem.anchors: anchor -> this; ruling
    R83). Written by the fold of dice_chain (`side`, `anchor`, `nonce`, `length`; `reverts`: the undos
    before it, an undo after it retires the chain), dice_committed (`next`: the place the next roll names)
    and dice_answered (`last`: [place, value], the furthest answer shown). Mutable: next and last change.
    Stored (`data()`) as the dict it replaced, every key present."""

    side: str
    anchor: str
    nonce: str
    length: int
    next: int
    last: list
    reverts: int


@records.define(slots=True, frozen=True)
class Proposal(_Stored):
    """A shared fact one side proposed and the other has yet to answer (Pbem.proposal; rulings R45, R71),
    or a step it left provisionally (Pbem.provisional; ruling R71, R73): `side` and the `command` (its
    dict, as fact_proposed carries it; a provisional one names the row it was given at, `provisional`).
    Written by the fold of fact_proposed, emptied by fact_confirmed / fact_rejected. Frozen (a copy shares
    it). Stored (`data()`) as the dict it replaced."""

    side: str
    command: dict

    @classmethod
    def of_data(cls, d: dict | None) -> "Proposal | None":
        """The inverse of data() (None stays None); a key it does not declare is refused (TypeError)."""
        return None if d is None else cls(**d)


class RevealPoint(NamedTuple):
    """A reveal point a side has made (Pbem.points; ruling R47): at `point` (2.4, 2.6, 3.44) of CG Firefight
    `firefight`, or at the CG's end ("end", no firefight). Written by the fold of seals_revealed; stored as
    its text, "3:2.4:axis" or "end:axis", as the list of strings it replaced was."""

    firefight: int | None
    point: str
    side: str

    def __str__(self) -> str:
        return f"end:{self.side}" if self.firefight is None else f"{self.firefight}:{self.point}:{self.side}"

    @classmethod
    def parse(cls, text: str) -> "RevealPoint":
        """The point a stored text stands for (the inverse of str)."""
        first, _, rest = text.partition(":")
        if first == "end":
            return cls(None, "end", rest)
        point, _, side = rest.rpartition(":")
        return cls(int(first), point, side)


@records.define(slots=True)
class Pbem:
    """A campaign played by email (cg/pbem.py, cg/seal.py): begun from campaign_started's `pbem`,
    written by the fold of head_signed (ruling R45), dice_committed / dice_answered / dice_revealed (two-
    party dice, ruling R67), sealed / seals_revealed (sealed secrets, ruling R47) and fact_proposed /
    fact_confirmed / fact_rejected (shared facts, rulings R45, R71).

    keys: side -> public key. dice_policy. signed: side -> its last signed head [seq, hash].
    proposal / provisional: the shared fact (a step left provisionally: ruling R71) proposed by one side,
    a Proposal, or None. requests: commitment -> DiceRequest: two-party dice not yet revealed.
    sealing: seals are used. seals: commitment -> Seal, a seal not yet revealed; points: the reveal
    points made (RevealPoint, stored as "FF:POINT:SIDE" / "end:SIDE"); cp_sealed: sides whose CP this view does not know;
    leaders_made: leaders numbered per side (sealed apart); revealed_n: seals each side has revealed;
    stale: a reveal of a seal this view had not opened (the ledger folds again). The stored form (the
    snapshot, the digest) is the dict it replaced: `data()`."""

    keys: dict
    dice_policy: str = "any"
    signed: BySide = _by_side(None)
    proposal: Proposal | None = None
    requests: dict = attrs.Factory(dict)
    sealing: bool = False
    seals: dict = attrs.Factory(dict)
    points: list = attrs.Factory(list)
    cp_sealed: BySide = _by_side(False)
    leaders_made: BySide = _by_side(0)
    revealed_n: BySide = _by_side(0)
    provisional: Proposal | None = attrs.field(default=None, on_setattr=_provisional_set)
    has_provisional: bool = False  # (after `provisional`: a copy sets it last)
    stale: bool = False
    # ruling R83 (two-party dice from a chain): anchors: anchor -> the chain committed to (AnswerChain);
    # chain_at: side -> its live chain's anchor. In the stored dict only once a chain was committed to (a
    # campaign before it keeps its digest)
    anchors: dict = attrs.Factory(dict)
    chain_at: dict = attrs.Factory(dict)
    # derived, never stored nor copied nor compared: the seals not revealed yet indexed by side and kind
    # (cg/seal._unrevealed), with the dict and size it was built from; emptied by the fold of sealed and
    # seals_revealed, and built again on the next ask
    _by_kind: object = attrs.field(default=None, eq=False, repr=False)

    def data(self) -> dict:
        """The dict this state was kept as before it was typed: the same keys, `provisional` once it was
        ever set, `stale` once true (so a campaign's digest is what it was)."""
        out = {a.name: getattr(self, a.name) for a in attrs.fields(Pbem) if a.name not in _PBEM_SOMETIMES}
        for k in _PBEM_BY_SIDE:
            out[k] = out[k].data()
        out["requests"] = {c: r.data() for c, r in self.requests.items()}
        out["seals"] = {c: r.data() for c, r in self.seals.items()}
        out["proposal"] = None if self.proposal is None else self.proposal.data()
        out["points"] = [str(p) for p in self.points]
        if self.has_provisional:
            out["provisional"] = None if self.provisional is None else self.provisional.data()
        if self.stale:
            out["stale"] = True
        if self.anchors or self.chain_at:
            out["anchors"] = {a: r.data() for a, r in self.anchors.items()}
            out["chain_at"] = self.chain_at
        return out

    @classmethod
    def of_data(cls, d: dict) -> "Pbem":
        """The inverse of data(). A key no field holds is refused (TypeError): a new key of the play by
        email state is a new field here, with its default; so is a key no record declares."""
        typed = {"requests": {c: DiceRequest.of_data(r) for c, r in d.get("requests", {}).items()},
                 "seals": {c: Seal.of_data(r) for c, r in d.get("seals", {}).items()},
                 "proposal": Proposal.of_data(d.get("proposal")),
                 "points": [RevealPoint.parse(p) for p in d.get("points", [])],
                 **{k: BySide.of_data(d[k]) for k in _PBEM_BY_SIDE if k in d}}
        if "provisional" in d:
            typed["provisional"] = Proposal.of_data(d["provisional"])
        if "anchors" in d:
            typed["anchors"] = {a: AnswerChain.of_data(r) for a, r in d["anchors"].items()}
        return cls(**{**d, **typed}, has_provisional="provisional" in d)


_PBEM_BY_SIDE = ("signed", "cp_sealed", "leaders_made", "revealed_n")  # BySide, stored as the dicts they replaced
_PBEM_SOMETIMES = ("provisional", "has_provisional", "stale", "anchors", "chain_at",  # in the stored dict only once set
                   "_by_kind")  # ... and never: derived


@records.define(slots=True, frozen=True)
class Ground:
    """The map as the campaign has made it: who controls what, the terrain kept between firefights and the
    fortifications bought. Written by the fold alone (cg/evolve.py); the part is frozen (its three values
    are never replaced, only changed in place by the fold), and the snapshot and the digest keep the three
    as the top-level keys they always were (cg/snapshot.py).

    control: strategic hex -> side: the CG card's initial control (1.4, campaign_started), then the
    control recorded at each firefight's end (2.9, firefight_ended).
    terrain: hex -> [items] kept between firefights (CG5): the end's rubble, wrecks, Flames... (2.9,
    firefight_ended), Blazes spread and burnt out (3.31, terrain_changed), clearance (3.52, clearance_rolled),
    and the fortifications placed on the map (foxhole:axis[:factors], 2.38 fortified /
    fortification_placed); each item a cg/items.Kept value, stored as its text. The folds (cg/steps/) call
    terrain_changed(st) whenever it changes it.
    fortifications: [Fortification] (side, kind, hex, cost, detail, unit, firefight) bought with Fortification Points
    (2.38, fortified), a hex given when placed at setup (2.6, fortification_placed)."""

    control: dict = attrs.Factory(dict)
    terrain: dict[str, list[Kept]] = attrs.Factory(dict)
    fortifications: list = attrs.Factory(list)

@records.frozen(slots=True)
class Position:
    """Where the campaign stands in the PL sequence (docs/pl25-sequence.md: 2.1-2.9, 3.11-3.52), the one
    value the step machine (cg/machine.py) reads to know which command comes next; what the step owes is
    read against it and the step's Done records (Reph.done) by the step's `owes` (cg/steps/). Frozen: the fold
    (cg/evolve.py) replaces it whole through `to`, and the state reads its fields as `st.step`,
    `st.firefight`... which no one can assign. The snapshot and the digest keep the six as the top-level
    keys they always were (cg/snapshot.py).

    firefight: the CG Firefight (1.1, its record `st.ff`), a new one at 2.1 (firefight_started).
    step: the step, a StepId (step_left: 2.1-3.52; END once the CG ended, 1.5), equal to its stored id.
    option: the Redeployment Option of this RePh (3.2, redeployment_option; a card's given one,
    campaign_started). ended / end_reason / conceded_by: the CG's end (1.5, cg_ended; conceded, ruling
    R74)."""

    firefight: int = 1
    step: StepId = attrs.field(default=StepId.WEATHER, converter=step_id)  # a stored id read as its member
    option: str | None = None
    ended: bool = False
    end_reason: str | None = None
    conceded_by: str | None = None

    def to(self, **changes) -> "Position":
        """The position with `changes` (field=value) made."""
        return attrs.evolve(self, **changes)


_POSITION = tuple(a.name for a in attrs.fields(Position))


def classify_map(grid, strategic, control: dict, friendly_edge: dict):
    """The 1.4 control picture (cg.control.classify): only a rule, a check or a view that reads map control
    classifies the map; status, log, replay and most step commands never do."""
    from cg.control import classify  # lazy: cg.control with cg.hexgrid (~12 ms, -X importtime) only where map control is asked

    return classify(grid, strategic, control, friendly_edge)


@records.define(slots=True)
class CampaignState:
    """Everything the rules need to decide the next command, folded from the log (cg/evolve.py alone
    writes it), in parts (docs/architecture.md draws them):

    - the campaign: card, seed, rules revision and upgrades (ruling R32), dice source (R31);
    - where it stands in the sequence (Position, frozen): firefight, step, option (3.2), ended /
      end_reason / conceded_by (1.5, R74), read as `st.step`...; and commencements (2.8, the undo guard);
    - sides: SideState per side (2.1 CP, 2.3 purchases, 2.38 FP, 3.33 TVP, 3.47 ELR, 3.51 SAN);
    - firefights: FirefightRecord per firefight reached (2.2 weather to 2.9 result, 3.11 losses);
    - purchases and units: Purchase (2.3, 2.351, 2.36), Unit (2.3 to 3.52), keyed by side (`key`);
    - ground: the map as the campaign made it (Ground): control (1.4, 2.9), terrain kept between
      firefights (CG5, 3.31, 3.52), fortifications (2.38);
    - reph: what this step and this RePh have recorded (Reph, Done);
    - pbem: play by email (Pbem), None for a campaign on one copy;
    - log positions: seq, last_batch, reverts (the audit's notes); and what is not campaign data: the
      reader's view of seals (`view`), the snapshot's cold part and derived memos (underscored).
    Slots: no attribute is set that is not declared here."""

    card: Card  # cg.card.Card
    seed: str
    card_ref: str = ""
    product_version: str = ""
    dice_mode: str | None = None  # "ledger" | "seeded"; None: started before sources were recorded (R31)
    dice_policy: str = "any"  # "any" | "no-typed" (new --dice-policy)
    rules_revision: int = 1  # ruling R32: the revision the campaign started under (cg/rules/revisions.py)
    rules_upgrades: list = attrs.Factory(list)  # [[from firefight, revision]] by `plcg rules-upgrade`
    conventions: int | None = None  # the ledger's conventions of the first event (issue 38; None: before)
    seq: int = 0
    position: Position = Position()  # firefight, step, option, ended... (Position): replaced, never changed
    sides: BySide = attrs.Factory(lambda: BySide(SideState(), SideState()))
    firefights: list = attrs.Factory(list)  # FirefightRecord per firefight reached
    purchases: dict = attrs.Factory(dict)
    purchase_count: dict = attrs.Factory(dict)  # ("axis", "I1") -> times bought in the CG (`key`)
    units: dict = attrs.Factory(dict)
    ground: Ground = attrs.Factory(lambda: Ground())  # control, kept terrain, fortifications (Ground)
    last_batch: int = 0
    reverts: list = attrs.Factory(list)  # [(seq, seqs, reason, force)] for the audit's notes
    commencements: set = attrs.Factory(set)  # seqs of the step_left events leaving 2.8 (undo guard)
    reph: Reph = attrs.Factory(lambda: Reph())  # what this step and this RePh have recorded (Reph)
    pbem: Pbem | None = None  # play by email: keys, signed heads, open two-party dice, seals (Pbem, cg/pbem.py)
    leaders_made: int = 0  # leader units ever created (numbers new leaders; derived, not in the digest)
    view: object = None  # which sealed secrets this state's reader opens (cg/seal.Opener): given to the fold
    # by whoever folds (the Ledger: its key and the log's reveals; the audit and the AAR: the reveals), never
    # read from a module global; not campaign data (left out of the snapshot, the digest and copies' data)
    _tail: int | None = None  # events folded after the stored snapshot (None: folded from the log)
    _cold: Callable[[], Any] | None = None  # loads the settled units not yet in `units` (cg/snapshot.py); None: all loaded
    _cold_token: object = None  # the stored cold snapshot part this state's settled units match
    _cold_n: int = 0  # how many settled units and purchases that part holds
    _cold_ff: int = 0  # it holds the casualty lists (`lost`) of the firefights before this one
    # derived, never stored nor copied nor compared (cg/snapshot.py _body, _copy_state): the units not
    # settled, in the order of `units`, with the Guns among them (active_units); strategic()'s memo
    _active: tuple | None = attrs.field(default=None, eq=False, repr=False)
    _strategic: tuple | None = attrs.field(default=None, eq=False, repr=False)  # strategic()'s last answer and its key
    # (the terrain dict, the hexes its items make Strategic Terrain): emptied by terrain_changed(st)
    _grown: tuple | None = attrs.field(default=None, eq=False, repr=False)

    # ---- units and purchases kept out of a hot-loaded state ----
    # Units and purchases are keyed by side (`key(side, id)`): under rules revision 2 purchase numbers
    # count per side, so both sides hold an "I1-1.1" (cg/rules/revisions.py).
    def unit(self, uid, side: str | None = None):
        """`side`'s unit `uid` (None if there is none), loading the settled units first if need be.
        Without `side`: the one unit of that id (a revision-1 log's ids are unique), axis first."""
        return _find(self, False, uid, side)

    def purchase(self, pid, side: str | None = None):
        """`side`'s purchase `pid` (None if there is none), loading the settled ones first if need be."""
        return _find(self, True, pid, side)

    def load_all(self) -> "CampaignState":
        """Every unit and purchase loaded (a state loaded from the hot snapshot part lacks the settled
        ones: units out of play since an earlier firefight, earlier purchases of only those)."""
        if self._cold is not None:
            merge = self._cold()
            merge(self)
            self._cold = None
        return self

    # ---- where the campaign stands (Position): read here, replaced whole by the fold (attrgetter: C) ----
    firefight = property(operator.attrgetter("position.firefight"), doc="Position.firefight")
    step = property(operator.attrgetter("position.step"), doc="Position.step")
    option = property(operator.attrgetter("position.option"), doc="Position.option")
    ended = property(operator.attrgetter("position.ended"), doc="Position.ended")
    end_reason = property(operator.attrgetter("position.end_reason"), doc="Position.end_reason")
    conceded_by = property(operator.attrgetter("position.conceded_by"), doc="Position.conceded_by")

    # ---- derived views ----
    @property
    def ff(self) -> FirefightRecord:
        return self.firefights[self.firefight - 1]

    @property
    def initial(self) -> bool:
        return self.firefight == 1

    @property
    def idle(self) -> bool:
        return self.ff.type == "idle"

    @property
    def last_firefight(self) -> bool:
        return self.firefight >= len(self.card.firefights)

    def previous(self) -> FirefightRecord | None:
        """The 'previous CG Firefight' of ruling R7: in a RePh it is the one just played; at 2.1 still N."""
        if self.step == StepId.CP:
            return self.firefights[self.firefight - 2] if self.firefight >= 2 else None
        return self.ff

    def copy(self, share=None) -> "CampaignState":
        """An independent state: mutating one never changes the other (the card, immutable, is shared).
        Field by field rather than deepcopy: the audit copies a long campaign's state (thousands of
        units) at every undo checkpoint, where deepcopy cost ~80 ms a copy; see _copy_state.
        `share(unit)`: True for a unit that is shared rather than cloned, one that never changes
        again (the audit's checkpoints share the units out of play since an earlier firefight, and
        with them the records of the firefights before this one, which the fold no longer touches;
        share="settled" says so, and the units to clone are found through active_units, no walk)."""
        return _copy_state(self, share)

    def strategic(self) -> frozenset:
        """1.4 Strategic Terrain: the card's, and (rules revision 2, switch strategic_grows) every hex the
        campaign has since given rubble, a pillbox, an entrenchment or an emplaced Gun."""
        m = self.card.map
        known = caches.current().base
        base = known[1] if known[0] is m else _base(m, known)
        return rules_for(self).strategic_terrain(base, lambda: self._strategic_grown(m, base))

    def _strategic_grown(self, m, base: frozenset) -> frozenset:
        """1.4: the card's Strategic Terrain `base` of the map `m`, and every hex the campaign has since made one."""
        # asked by every command that reads map control: the terrain's verdict kept until terrain
        # changes, the Guns through the index of the units in play, and the last answer kept on the
        # state while the map, the terrain and the hexes of the Guns on the map are the same
        on_map = Status.ON_MAP
        guns = tuple([u.hex for u in active_units(self)[1] if u.hex and u.status == on_map])
        terrain, memo = self.ground.terrain, self._strategic
        if memo is not None and memo[0] is m and memo[1] is terrain and memo[2] == guns:
            return memo[3]
        out = base | _grown_terrain(self) | frozenset(guns)
        self._strategic = (m, terrain, guns, out)
        return out

    def controlled(self, strategic: frozenset | None = None) -> dict:
        """hex -> side of the hexes controlled (1.32), as map control reads them: ruling R116, a hex's control
        lapses while it is no Strategic Terrain (1.4: the emplaced Gun or the rubble that made it one gone);
        the record keeps it."""
        control = self.ground.control
        strategic = self.strategic() if strategic is None else strategic
        if all(h in strategic for h in control):
            return control
        grid = self.grid()
        canon = {grid.canonical(h) for h in strategic}
        return {h: s for h, s in control.items() if grid.canonical(h) in canon}

    def map_control(self):
        """The 1.4 control picture of the current control (memoised per map, Strategic Terrain and control)."""
        m = self.card.map
        strategic = self.strategic()
        c = caches.current()  # map control is a pure function of the map and who controls what
        last_map, last_control, last_mc = c.last_control  # a run of commands asks for one picture
        if last_map is m and last_control == (strategic, self.ground.control):
            return last_mc
        control = self.controlled(strategic)
        key = (m.columns, m.rows, m.boards, tuple(sorted(strategic)), tuple(sorted(m.friendly_edge.items())),
               tuple(sorted(control.items())))
        mc = c.control.get(key)
        if mc is None:
            mc = classify_map(self.grid(), strategic, dict(control), dict(m.friendly_edge))
            if len(c.control) > 64:
                c.control.clear()
            c.control[key] = mc
        c.last_control[:] = (m, (strategic, dict(self.ground.control)), mc)
        return mc

    def grid(self):
        """The card's map (cg.hexgrid), the same object while the map is."""
        m = self.card.map
        last = caches.current().last_grid
        last_map, grid = last
        if last_map is not m:
            grid = m.grid()
            last[:] = (m, grid)
        return grid

    def side_units(self, side: str, alive: bool = True):
        # alive: only a unit not settled can be (cg/snapshot.settled), so the walk is over those alone
        for u in (active_units(self)[0] if alive else self.units.values()):
            if u.side == side and (not alive or u.status in IN_PLAY):
                yield u

    def __deepcopy__(self, memo):
        new = self.copy()
        memo[id(self)] = new
        return new


def new_firefight(st: CampaignState, n: int) -> None:
    """The CG Firefight `n` begun: its record (1.1), the sides' CP, ELR and SAN as they stand (2.1, 2.4)."""
    spec = st.card.firefights[n - 1]
    ff = FirefightRecord(n=n, date=spec.date, time=spec.time, initial=(n == 1))
    for side in SIDES:
        s = st.sides[side]
        ff.cp_left[side] = s.cp
        ff.elr[side], ff.san[side] = s.elr, s.san  # as announced at 2.4; 3.47 / 3.51 update them
        if n == 1:
            ff.cp_gained[side] = s.cp  # the Initial Firefight's CP come from the card (2.3)
    st.firefights.append(ff)
    st.position = st.position.to(firefight=n)


def key(side: str, uid: str) -> tuple[str, str]:
    """The key of a unit or purchase in the state's dicts, and of an RG in `purchase_count`: (side, id),
    as ids repeat across sides (revision 2). The stored forms (the snapshot, the digest) keep the text
    "side:id" they always kept (cg/snapshot.py converts at that boundary)."""
    return (side, uid)


def _find(st, purchase: bool, ident, side):
    """A unit (or purchase) by id and side; the settled part is loaded only when the hot one lacks it."""
    for attempt in (0, 1):
        table = st.purchases if purchase else st.units
        for s in SIDES if side is None else (side,):
            x = table.get((s, ident))
            if x is not None:
                return x
        if attempt or st._cold is None:
            return None
        st.load_all()


def _base(m, known: list) -> frozenset:
    """The card map's Strategic Terrain, kept in `known` (the caches' last map asked about)."""
    known[:] = (m, frozenset(m.strategic))
    return known[1]


def terrain_changed(st: "CampaignState") -> None:
    """Called by every fold handler that changes `st`'s kept terrain: the verdicts derived from it (the
    hexes it makes Strategic Terrain, strategic()'s last answer) are dropped, to be asked again. They live
    on the state (never stored, copied or compared), so the fold reads and writes no module-level state."""
    st._grown = None
    st._strategic = None


def _grown_terrain(st: "CampaignState") -> frozenset:
    """The hexes `st`'s kept terrain makes Strategic Terrain (1.4, revision 2), kept on the state until its
    terrain changes (terrain_changed) or is replaced by a new dict (a loaded snapshot)."""
    terrain, hit = st.ground.terrain, st._grown
    if hit is not None and hit[0] is terrain:
        return hit[1]
    grown = frozenset(h for h, items in terrain.items() if any(i.grows for i in items))
    st._grown = (terrain, grown)
    return grown


_LIVE = ("available", "on_map", "reserve")


def active_units(st) -> tuple:
    """(the units of `st` that are not settled, in the order of `st.units`; the Guns among them).

    A settled unit (out of play since an earlier firefight, cg/snapshot.settled) never changes again,
    so every live unit, every unit on the map and every Gun that can stand on it is here, and a walk
    over them costs the units in play, not every unit ever bought. Kept on the state (`_active`, never
    stored, copied or compared) and brought up to date when asked: units are only ever added to
    `units`, at its end (a new dict, from a snapshot or `load_all`, is walked again whole), and the
    settled ones are dropped once per firefight. A unit's kind never becomes "gun" (only a squad turns
    HS: the folds' unit_change, cg/steps/changes.py)."""
    units = st.units
    n = len(units)
    ff = st.firefight
    idx = st._active
    if idx is None or idx[0] is not units or idx[1] > n:
        live = {k: u for k, u in units.items() if not settled(u, ff)}
    else:
        live = idx[3]
        if idx[1] == n and idx[2] == ff:
            return idx[4]
        if n > idx[1]:  # the units added since, in their order
            new = list(itertools.islice(reversed(units), n - idx[1]))
            for k in reversed(new):
                live[k] = units[k]
        if idx[2] != ff:
            live = {k: u for k, u in live.items() if not settled(u, ff)}
    vals = list(live.values())
    out = (vals, [u for u in vals if u.kind == Kind.GUN])
    st._active = (units, n, ff, live, out)
    return out


SETTLED = frozenset({Status.ELIMINATED, Status.EVACUATED, Status.CAPTURED})


def settled(u, firefight: int) -> bool:
    """A unit out of play since an earlier firefight: it never changes again (the snapshot's cold part,
    cg/snapshot.py; the units active_units walks). One that still bears its 3.2 redeployment mark is not
    settled yet: leaving the next 2.5 takes the mark off (ruling R28) in every fold, a command's lazily
    loaded state included, so it stays in the hot part until then (explorer finding 1). So does one that
    still bears its Isolated mark: the next firefight's end takes it off (3.211, Ammunition Shortage), and a
    cold part kept from before would bring the mark back on the next load (explorer, issue 23: sosnovka)."""
    return u.status in SETTLED and u.eliminated_in is not None and u.eliminated_in < firefight and not u.redeployed \
        and not u.isolated


LEADER_RE = re.compile(r"^\d{1,2}[-+]\d$")
MMC_RE = re.compile(r"^(\d+)-(\d+)-(\d+)(\s*hs)?$", re.I)


def unit_kind(name: str, rg_kind: str) -> Kind:
    """What a counter of an RG is, from its name: leaders (9-2, 8+1), MMC (4-6-7: squad; ruling R18: a
    half-squad when the card names it so, "3-3-7 HS", or its firepower is below 3; a crew in a Gun/vehicle RG),
    otherwise by the RG's kind (gun, vehicle) or a support weapon. A `Kind`, a str enum: the snapshot and the
    digest store its word, as they always did."""
    if LEADER_RE.match(name):
        return Kind.LEADER
    if "crew" in name.lower():
        return Kind.CREW
    m = MMC_RE.match(name)
    if m:
        if rg_kind in ("gun", "afv", "vehicle"):
            return Kind.CREW
        return Kind.HALF_SQUAD if m.group(4) or int(m.group(1)) < 3 else Kind.SQUAD
    if rg_kind in ("afv", "vehicle"):
        return Kind.VEHICLE
    if rg_kind == "gun":
        return Kind.GUN
    if rg_kind in ("infantry", "heavy_weapons"):
        return Kind.SW
    return Kind.OTHER


def loss_cvp(u, to: str) -> int:
    """Ruling R39 (A26.2 as the ledger counts it): a squad 2 CVP, a HS or crew 1, a leader 1 plus its
    leadership (a 9-2: 3), a hero 1; a squad reduced to its HS loses 1; anything else 0."""
    if to not in ("eliminated", "captured"):
        return 1 if u.kind == Kind.SQUAD else 0  # a squad reduced to its HS
    if u.kind == Kind.SQUAD:
        return 2
    if u.kind in (Kind.HALF_SQUAD, Kind.CREW):
        return 1
    if u.kind == Kind.LEADER:
        m = re.match(r"^\d{1,2}([-+])(\d)$", u.name)
        return 1 + (int(m.group(2)) if m and m.group(1) == "-" else 0)
    return 0


def counter_morale(name: str) -> int | None:
    """The morale printed on a counter: an MMC's third number (4-6-7: 7), a leader's first (8-1: 8);
    None for anything else (the player gives --morale)."""
    m = MMC_RE.match(name)
    if m:
        return int(m.group(3))
    if LEADER_RE.match(name):
        return int(cast(re.Match[str], re.match(r"\d+", name)).group(0))  # LEADER_RE: it starts with digits
    return None


def ob_deal(group) -> list[tuple[str, str, str | None]]:
    """1.2 OB given (ruling R94): (counter, kind, hex) of each of its units, in the card's order (each `Nx`
    counted out, the `leaders` after the `units`), the n-th set up in `hexes[(n - 1) mod len(hexes)]`, the
    hexes in the card's order too (a campaign started before keeps them in map order: its stored card holds
    them sorted); None where the group enters or gives no hex."""
    names: list[tuple[str, str]] = [(n, unit_kind(n, group.kind)) for n in expand_units(group.units)]
    names += [(n, Kind.LEADER.value) for n in group.leaders]
    hexes = group.hexes
    return [(n, k, hexes[i % len(hexes)] if hexes else None) for i, (n, k) in enumerate(names)]


def expand_units(spec: tuple[str, ...]) -> list[str]:
    """Card `units = ["3x 4-6-7", "1x LMG"]` -> ["4-6-7", "4-6-7", "4-6-7", "LMG"]."""
    out = []
    for item in spec:
        m = re.match(r"^\s*(\d+)\s*x\s*(.+?)\s*$", item)
        if m:
            out.extend([m.group(2)] * int(m.group(1)))
        else:
            out.append(item.strip())
    return out


# ---- copying the state ----------------------------------------------------------------------------
# Copies are taken per undo checkpoint by the audit (and per firefight by the AAR export), of states
# holding thousands of units: each slots class gets a generated field-by-field clone (a tenth of
# copy.copy's cost, which goes through __reduce_ex__ and attrs' __getstate__/__setstate__).
# The fold never keeps one mutable container in two places of the state, so the copies need no
# deepcopy memo to keep such sharing.

# kept as they are, shared by the copy and its original: scalars, and the values no one changes in place (the
# frozen records, the step's Done records, the reveal points, the kept terrain items)
_ATOMIC = frozenset({str, int, float, bool, type(None), Position, Seal, Proposal, PatrolTeam, Done, RevealPoint, Kept})


def _data(x):
    """A deep copy of a value the fold keeps: scalars as they are, dicts, lists, sets and tuples of
    them copied through, the state's own classes by their clone, anything else by copy.deepcopy."""
    t = type(x)
    if t in _ATOMIC:
        return x
    if t is dict:
        return {k: v if type(v) in _ATOMIC else _data(v) for k, v in x.items()}
    if t is list:
        return [v if type(v) in _ATOMIC else _data(v) for v in x]
    if t is set:
        return set(x)  # the elements are hashable: scalars, or tuples of scalars
    if t is tuple:
        return x if all(type(v) in _ATOMIC for v in x) else tuple(_data(v) for v in x)
    clone = _CLONES.get(t) or _clone_of(t)
    return clone(x) if clone is not None else _copy.deepcopy(x)


# A unit holds only scalars, and evolve only ever assigns its fields: a shallow clone is a copy.
# Lists of ids and names, and `lost`'s [side, unit] pairs (6,000 in a 100-firefight campaign):
# evolve appends to the list and never changes an element, so the list is copied, its elements shared.
# class -> the fields its clone copies by its own expression (the others: kept if _ATOMIC, else _data)
_CLONED: MappingProxyType = MappingProxyType({
    Unit: {a.name: f"x.{a.name}" for a in attrs.fields(Unit)},
    Purchase: {"leaders": "list(x.leaders)", "units": "list(x.units)"},
    SideState: {}, FirefightRecord: {"lost": "list(x.lost)"}, Reph: {}, BySide: {}, Fortification: {},
    Pbem: {"_by_kind": "None"},  # derived: the copy builds its own when asked
    DiceRequest: {},  # its command copied: a mutable dict
    AnswerChain: {},  # its `last` copied
})


def _clone_of(cls):
    """The function copying one `cls` instance field by field (events/stored.cloner), generated when a copy
    first meets the class (not at import: each is compiled, ~0.15x `python -c pass` for the ten, which a
    read never copies); None for a class copied otherwise."""
    clone = _CLONES.get(cls)
    if clone is None and cls in _CLONED:
        clone = _CLONES[cls] = stored.cloner(cls, _ATOMIC, _data, _CLONED[cls])
    return clone


def _clone_ground(x: Ground) -> Ground:
    return Ground(_data(x.control), _data(x.terrain), _data(x.fortifications))


_CLONES: dict = {Ground: _clone_ground}  # class -> its clone, each generated when first needed (_clone_of)


def _copy_purchases(st: CampaignState, purchases: dict) -> dict:
    """The purchases for a copy sharing the settled units: one of an earlier firefight that no unit in
    play belongs to is shared, the others cloned. Every unit of a purchase names it (`purchase`, each
    place evolve makes a unit), so its units are all settled or gone: it is cg/snapshot.settled_purchase,
    the snapshot's cold part, which no fold handler changes again (those that change a purchase change
    one of this firefight, or the purchase of a unit in play: 2.6 reveals it)."""
    ff = st.firefight
    live = {(u.side, u.purchase) for u in active_units(st)[0]}
    clone = _clone_of(Purchase)
    return {k: p if p.firefight < ff and k not in live else clone(p) for k, p in purchases.items()}


def _copy_state(st: CampaignState, share=None) -> CampaignState:
    """CampaignState.copy: every field copied by _data (a new field too), units and purchases by
    their clones, the card shared."""
    new = object.__new__(CampaignState)
    active = None
    clone_unit, clone_purchase = _clone_of(Unit), _clone_of(Purchase)
    for a in attrs.fields(CampaignState):
        v = getattr(st, a.name)
        if a.name == "units":
            if share is None:
                v = {k: clone_unit(u) for k, u in v.items()}
            elif share == "settled":  # the settled units shared, the others (the index's) cloned
                active_units(st)
                v = dict(v)
                live = {}
                for k, u in cast(tuple, st._active)[3].items():  # active_units(st) filled it
                    v[k] = live[k] = clone_unit(u)
                vals = list(live.values())
                active = (v, len(v), st.firefight, live, (vals, [u for u in vals if u.kind == Kind.GUN]))
            else:
                v = {k: u if share(u) else clone_unit(u) for k, u in v.items()}
        elif a.name == "firefights" and share is not None:
            v = [r if r.n < st.firefight else _data(r) for r in v]
        elif a.name == "purchases":
            v = _copy_purchases(st, v) if share == "settled" else {k: clone_purchase(p) for k, p in v.items()}
        elif a.name == "_active":  # derived from `units`: the copy builds its own when asked
            v = active
        elif a.name in ("_strategic", "_grown"):  # derived: asked again, the copy computes it
            v = None
        elif a.name not in ("card", "view"):  # the card is immutable, the view a reader's: shared
            v = _data(v)
        object.__setattr__(new, a.name, v)
    return new
