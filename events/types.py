"""One frozen attrs class per campaign event, each with a type name and a schema version.

Payloads are what `log --json` and the JSON Lines export show. Every roll is a `Roll`
(events/roll.py) with the dice as rolled, each DRM with its rule, the final, the table row and
the result. Old versions are upgraded on read by the upcasters in events/upcasters.py.
"""
from __future__ import annotations

import re
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, ClassVar, dataclass_transform

import attrs

from events import records
from events.roll import Drm, Roll  # noqa: F401  (re-exported: one roll type)

# type name -> its current schema version, as its class declares it (`@event(name, version=N)`): read by the
# store and the upcasters (events/upcasters.py, through events/versions.py) without any class being built
VERSIONS: dict[str, int] = {}
# type name -> the rule the audit names when a stored event of the type is not the one the rules give (cg/app/audit.py;
# "rules" where its class names none): declared with the class, `@event(name, rule="2.12")`
AUDIT_RULE: dict[str, str] = {}
_DECLARED: dict[str, type[Event]] = {}  # type name -> its class as declared, not yet made an attrs class
_BUILT: dict[str, type[Event]] = {}  # type name -> its attrs class
_LOCK = threading.Lock()
_VALUES: dict[str, type] = {}  # class name -> a value class of the events' fields (a UnitRef...), as declared
_VALUES_BUILT: dict[str, type] = {}  # class name -> its attrs class


if TYPE_CHECKING:  # to the type checker they are attrs' frozen classes, which they become (_built_values)
    from attrs import frozen as value
else:
    def value(cls):
        """A value class of the events' fields (a UnitRef, a SideHex...), made a frozen attrs class with the
        first event class built whose fields name it, or when asked for by name (`types.UnitRef`), not at
        import: reading the state from a snapshot builds none (issue 36 item 2)."""
        _VALUES[cls.__name__] = cls
        return cls


def _built_values(names) -> None:
    """The value classes of `names` made attrs classes, each once (the caller holds _LOCK): an event class's
    fields name them, and attrs resolves a field's type in this module's namespace."""
    for name in names:
        if name in _VALUES and name not in _VALUES_BUILT:
            globals()[name] = _VALUES_BUILT[name] = records.frozen(_VALUES[name])


@dataclass_transform(frozen_default=True, field_specifiers=(attrs.field,))
def event(name: str, version: int = 1, rule: str | None = None):
    """Register an event class under its type name (the `type` column of the log), its schema
    version (1 until an upcaster in events/upcasters.py brings older payloads to a later one) and the
    rule the audit names for it (AUDIT_RULE). The class is made an attrs class when it is first asked
    for (`REGISTRY[name]`, `types.ClassName`, `from events.types import ClassName`), not at import: a
    command builds the classes of the events it writes or folds, not all ~100 (issue 36 item 2)."""

    def wrap(cls):
        cls.TYPE = name
        cls.VERSION = VERSIONS[name] = version
        if rule is not None:
            AUDIT_RULE[name] = rule
        _DECLARED[name] = cls
        return cls

    return wrap


def _built(name: str) -> type[Event]:
    cls = _BUILT.get(name)
    if cls is None:
        with _LOCK:
            cls = _BUILT.get(name)
            if cls is None:
                # the value classes its fields name (their annotations are text: `tuple[SideUnit, ...]`)
                _built_values({w for k in _DECLARED[name].__mro__ for a in vars(k).get("__annotations__", {}).values()
                               for w in re.findall(r"\w+", str(a))})
                # a __dict__: the fold builds it from its payload (events/stored.py). The repr is
                # events/records.py's, not one attrs writes and compiles per class. Not slotted, attrs
                # makes the declared class itself an attrs class: one class object before and after
                cls = records.frozen(_DECLARED[name], slots=False)
                globals()[cls.__name__] = cls
                _BUILT[name] = cls
    return cls


class _Registry(Mapping):
    """Type name -> event class: every declared type is in it; a class is built when it is looked up."""

    def __getitem__(self, name: str) -> type[Event]:
        if name not in _DECLARED:
            raise KeyError(name)
        return _built(name)

    def __iter__(self):
        return iter(_DECLARED)

    def __len__(self) -> int:
        return len(_DECLARED)

    def __contains__(self, name) -> bool:
        return name in _DECLARED


REGISTRY: Mapping[str, type[Event]] = _Registry()


class Event:
    TYPE: ClassVar[str]
    VERSION: ClassVar[int]
    if TYPE_CHECKING:  # every event class is an attrs class once built (_built): attrs.fields takes it
        __attrs_attrs__: ClassVar[tuple[attrs.Attribute, ...]]


@value
class UnitRef:
    id: str  # "I1-2.3": RG I1, its 2nd purchase in the CG, 3rd counter
    name: str  # "4-6-7", "LMG", "9-2"


@value
class SideHex:
    side: str
    hex: str


@value
class SideUnit:
    side: str
    unit: str


@value
class UnitChange:
    side: str
    unit: str
    to: str  # the new counter ("2-4-7"), or "eliminated" where the change removes the unit


@value
class SelectionDr:  # A.9 Random Selection: one dr per unit, ties roll again among the tied (ruling R29)
    unit: str
    dr: int
    round: int = 1


@value
class HexItem:
    hex: str
    item: str


@value
class VaslLog:
    """A VASL log the firefight was played in (`end --vasl-log FILE`): its file name and SHA-256, the evidence."""
    name: str
    sha256: str


@value
class TerrainChange:
    hex: str
    change: str  # "add" | "remove"
    item: str


# --- campaign ---------------------------------------------------------------------------------

@event("campaign_started", version=2)  # 2: rules_revision (ruling R32); a v1 payload is upcast
class CampaignStarted(Event):
    product: str
    product_version: str = attrs.field(default="", kw_only=True)  # "" where the first release's log left it out
    rules: str  # the rules edition the ledger implements
    seed: str  # the seeded roller's key: every ledger roll is re-derivable from it
    card_ref: str = attrs.field(default="", kw_only=True)  # "" where the first release's log left it out
    card: dict  # the whole CG Card, so the log replays without the card file
    redeployment: str | None = attrs.field(default=None, kw_only=True)  # "A" | "B" | None (chosen at 3.2)
    # ruling R32: the ledger's rules revision the campaign is decided under (v1 logs: 1, events/upcasters.py)
    rules_revision: int = attrs.field(default=1, kw_only=True)
    # ruling R31: "ledger" (OS dice, recorded with each command; the seed is unused) or "seeded"
    # (--seed: predictable); None in a campaign started before this was recorded (seeded)
    dice: str | None = None
    dice_policy: str | None = None  # "any" | "no-typed"
    # play by email (cg/pbem.py): {"keys": {"axis": PUB, "allied": PUB}, "dice_policy": ...}; a
    # campaign without it stores no such key (events/convert.py leaves a None out), as before
    pbem: dict | None = None
    # the ledger's conventions the campaign was started under (docs/revisions.md, issue 38): 1, its leaders
    # numbered within their RG and `end` checks the CVP of the units it lists lost; None, a campaign
    # started before, decided as it always was
    conventions: int | None = None


@event("rules_upgraded")
class RulesUpgraded(Event):  # ruling R32: `plcg rules-upgrade`
    revision: int  # the revision the campaign moves to
    from_firefight: int  # in force from this firefight's 2.1 on


@event("step_left", rule="step order")
class StepLeft(Event):
    step: str
    to: str  # the next step id, or "end"
    firefight: int  # the firefight the next step belongs to


@event("conceded")
class Conceded(Event):
    side: str


@event("cg_ended")
class CgEnded(Event):
    reason: str  # "last firefight" | "concession" | "CG Objectives" (ruling R74)
    winner: str | None  # axis | allied | draw (ruling R74) | None
    tvp: dict[str, int]


@event("reverted")
class Reverted(Event):
    seqs: tuple[int, ...]
    reason: str
    force: bool = False  # crossed a firefight commencement (2.8)
    restores: bool = False  # an undo of an undo


# --- 2.x New CG Firefight ---------------------------------------------------------------------

@event("cp_replenished", rule="2.12")
class CpReplenished(Event):
    side: str
    roll: Roll | None  # None where the card provides the CP (2.1 EXC)
    gained: int
    total: int | None = None  # ruling R47: None in a sealed opening, which holds no balance (cg/seal.BALANCES)


@event("weather_set")
class WeatherSet(Event):
    text: str


@event("rg_bought", rule="2.34")
class RgBought(Event):
    side: str
    rg: str
    purchase: str  # "I1-2": the 2nd purchase of RG I1 in this CG
    mode: str  # "on-map" | "reserve" | "entry"
    base_cost: int
    delta: int  # 2.34
    cost: int
    # ruling R47: None in a sealed opening, which holds no balance (cg/seal.BALANCES)
    cp_left: int | None = attrs.field(default=None, kw_only=True)
    platoons: int  # counted against the 2.3 limit (ruling R12)
    units: tuple[UnitRef, ...]
    fp: int = 0  # Fortification Points gained (2.38)


@event("patrols_bought", rule="2.31")
class PatrolsBought(Event):
    side: str
    count: int
    cost: int
    cp_left: int | None = None  # ruling R47: None in a sealed opening, which holds no balance (cg/seal.BALANCES)


@event("attack_bought", rule="2.4")
class AttackBought(Event):
    side: str
    cost: int
    cp_left: int | None = None  # ruling R47: None in a sealed opening, which holds no balance (cg/seal.BALANCES)


@event("attack_announced")
class AttackAnnounced(Event):
    """Ruling R109: SIDE's Attack Option choice of this firefight, sealed as it leaves 2.3 and opened at 2.4;
    the purchase itself (`attack_bought`, its CP) is a sealed purchase like any other, revealed at 2.6."""
    side: str
    attack: bool


@event("oba_rolled", rule="2.351")
class ObaRolled(Event):
    side: str
    purchase: str
    roll: Roll


@event("leader_rolled", rule="2.361")
class LeaderRolled(Event):
    side: str
    purchase: str | None  # None for a 3.45 generated leader
    roll: Roll
    unit: UnitRef | None  # the leader counter received (None: no leader)
    generated: bool = False
    hex: str | None = None  # 3.45: where a generated leader is placed (None: it enters as a reinforcement)


@event("fortified", rule="2.38")
class Fortified(Event):
    side: str
    kind: str
    hex: str | None
    cost: int
    fp_left: int
    detail: dict[str, int]  # capacity / factors / hexsides / locations / ca / nca, as given
    unit: str | None = None  # HIP: the unit it hides


@event("fortification_placed", rule="2.38")
class FortificationPlaced(Event):
    """2.38: a fortification bought without a hex, placed when its side sets up (2.6; rules revision 3)."""
    side: str
    kind: str
    index: int  # its place in the campaign's list of fortifications bought (the order of the `fortified` rows)
    hex: str


@event("firefight_determined", rule="2.41")
class FirefightDetermined(Event):
    type: str  # "axis_assault" | "allied_assault" | "dual" | "idle"
    attacker: str | None
    setup_first: str | None
    move_first: str | None
    rolls: tuple[Roll, ...] = ()  # the two drs of a Dual Attack (2.41)
    lost: tuple[str, ...] = ()  # what an Idle Firefight loses (2.41, ruling R11)


@event("moves_first_rolled")
class MovesFirstRolled(Event):  # 2.41 Dual Attack: the moves-first dr after all setup (revision 2)
    roll: Roll
    move_first: str


@event("night_set")
class NightSet(Event):
    text: str


@event("redeployment_option")
class RedeploymentOption(Event):
    option: str  # "A" | "B" (3.2)


@event("redeployed", rule="3.21")
class Redeployed(Event):
    side: str
    unit: str
    frm: str | None
    to: str
    situation: str  # 3.212
    roll: Roll | None  # Option B in friendly MLR: no roll
    result: str
    change: str | None = None  # revision 2: the unit's new counter (Replaced/Reduced), "eliminated", "wounded"
    reduced: bool = False  # the change is a Casualty Reduction (a squad's new counter is its HS)


@event("redeployment_done")
class RedeploymentDone(Event):  # 2.5 Option A: the Defender has done with its redeployment (ruling R85)
    side: str


@event("unit_set_up")
class UnitSetUp(Event):
    side: str
    unit: str
    hex: str
    hip: bool


@event("patrol_resolved", rule="2.74")
class PatrolResolved(Event):
    side: str
    patrol: int  # 1-based among the side's patrols this firefight
    kind: str  # recon | ambush | raid | anti-vehicle
    units: tuple[str, ...]
    leader: str
    mission_hex: str
    roll: Roll
    returns: bool  # it must roll on the Return table
    # revision 2 (ruling R29): the units the result strikes, and the Random Selection drs that chose them
    selection: tuple[SelectionDr, ...] = ()
    losses: tuple[UnitChange, ...] = ()  # to: the HS counter, "eliminated" or "captured"
    # revision 3 (ruling R26): the DRM flags typed at Detection, which the Return roll takes too; stored only
    # when given (events/convert.py)
    typed: dict | None = None


@event("patrol_returned", rule="2.74")
class PatrolReturned(Event):
    side: str
    patrol: int
    roll: Roll
    selection: tuple[SelectionDr, ...] = ()  # revision 2 (ruling R29)
    losses: tuple[UnitChange, ...] = ()


@event("patrol_given_up")
class PatrolGivenUp(Event):
    side: str
    patrol: int
    reason: str


@event("firefight_ended", rule="1.31")
class FirefightEnded(Event):
    turn: int
    cvp_lost: dict[str, int]
    winner: str
    winner_rule: str | None = attrs.field(default=None, kw_only=True)  # "1.31" | "R5" | "--winner"; None: an older log
    control: tuple[SideHex, ...]
    lost: tuple[SideUnit, ...]
    terrain: tuple[HexItem, ...]
    encircled: tuple[SideUnit, ...] = ()
    wounded: tuple[SideUnit, ...] = ()
    shocked: tuple[SideUnit, ...] = ()
    recalled: tuple[SideUnit, ...] = ()
    repairs: tuple[HexItem, ...] = ()  # hex=side:item id, item=kind (3.46)
    oba_used: tuple[SideUnit, ...] = ()  # OBA modules used (CG4: two at most; CG7: a used module is spent)
    # what happened to units in play (contract, second round); absent in older logs
    hero: tuple[SideUnit, ...] = ()  # a leader turned heroic, or an MMC that created a Hero (3.43)
    reduced: tuple[UnitChange, ...] = ()  # Casualty Reduction: squad -> its HS, HS/SMC eliminated
    replaced: tuple[UnitChange, ...] = ()  # ELR replacement (A19.13)
    captured: tuple[SideUnit, ...] = ()
    exited: tuple[SideUnit, ...] = ()  # CG8
    vasl_logs: tuple[VaslLog, ...] = ()  # issue 37 item 11: the firefight's VASL logs; absent when none (old logs)


@event("unit_positioned")
class UnitPositioned(Event):  # 2.9: where a unit stands at the firefight's end (3.212 reads it)
    side: str
    unit: str
    hex: str
    hip: bool = False
    concealed: bool = False


# --- 3.x Reorganization Phase -----------------------------------------------------------------

@event("casualties_added")
class CasualtiesAdded(Event):  # 3.11: RePh losses count for the firefight just played (ruling R4)
    side: str
    cvp: int
    units: tuple[str, ...]


@event("casualty_reduced", rule="3.52")
class CasualtyReduced(Event):
    """3.52 dagger (rules revision 3): the Casualty Reduction of one MMC a clearance attempt owed."""
    side: str
    hex: str  # the Location whose clearance owed it
    change: UnitChange  # the MMC and its new counter ("eliminated" for a HS)


@event("disease_replaced", rule="3.41")
class DiseaseReplaced(Event):
    """3.41 (rules revision 3): one of the squads/equivalents the Disease & Starvation dr struck, ELR Replaced,
    or Disrupted instead where it has no lower-quality counter (A19.12; its counter stays)."""
    side: str
    change: UnitChange  # the MMC and its replacement counter (A19.13); its own counter when disrupted
    disrupted: bool = False  # A19.12 (issue 39 defect 7); stored only when true


@event("half_squads_recombined", rule="3.42")
class HalfSquadsRecombined(Event):
    """3.42 (rules revision 3): two same-type half-squads in one Friendly MLR recombine into their squad."""
    side: str
    keep: str  # the HS that becomes the squad
    gone: str  # the HS that leaves play with it
    to: str  # the squad's counter


@event("heroes_removed", rule="3.43")
class HeroesRemoved(Event):
    """3.43 (rules revision 3): the Heroes that could not combine, removed until the side has one at most."""
    side: str
    units: tuple[str, ...]


@event("encircled_tested")
class EncircledTested(Event):
    side: str
    unit: str
    morale: int
    roll: Roll


@event("shock_resolved")
class ShockResolved(Event):
    side: str
    unit: str
    roll: Roll


@event("isolated_marked")
class IsolatedMarked(Event):  # 3.25: units ending in an Isolated Location (Ammunition Shortage)
    units: tuple[SideUnit, ...]


@event("units_stranded")
class UnitsStranded(Event):  # 3.214 / 3.23: units that could not redeploy, eliminated (a vehicle: its wreck; R48)
    units: tuple[SideUnit, ...]
    rule: str
    counted: bool = False  # 3.11 / ruling R95: their CVP count for the firefight (R58's values); stored only when true


@event("terrain_changed", rule="CG5")
class TerrainChanged(Event):  # 3.31 / CG5 (rubble, flame) and 3.52 clearance
    rule: str
    changes: tuple[TerrainChange, ...]
    rolls: tuple[Roll, ...] = ()
    note: str = ""


@event("evacuation_rolled")
class EvacuationRolled(Event):
    side: str
    leader: str
    roll: Roll


@event("tvp_awarded", rule="3.33")
class TvpAwarded(Event):
    tvp: dict[str, int]  # this firefight, by control of the card's TVP hexes (3.33)
    total: dict[str, int]  # CG TVP total


@event("disease_rolled")
class DiseaseRolled(Event):
    side: str
    roll: Roll


@event("promotion_rolled")
class PromotionRolled(Event):
    side: str
    roll: Roll


@event("unit_hardened")
class UnitHardened(Event):  # 3.43 heroes, 3.44 MMC, 3.45 leaders: Battle Hardened one class
    side: str
    unit: str
    by: str  # "3.43" | "3.44" | "3.45"
    to: str | None = None  # the new counter, when the player names it (e.g. "4-6-8")
    # revision 2 (ruling R34): the counter comes from the table; an Elite MMC turns Fanatic (the counter stays)
    fanatic: bool = False
    hero: str | None = None  # 3.43: the Hero (or heroic leader) whose marker the hardening uses up


@event("leaders_rolled")
class LeadersRolled(Event):  # 3.45
    side: str
    roll: Roll
    may_generate: int  # min(result, leaders lost - 1, MMC on board)


@event("repair_rolled")
class RepairRolled(Event):
    side: str
    item: str
    kind: str
    roll: Roll


@event("recall_rolled")
class RecallRolled(Event):
    side: str
    unit: str
    roll: Roll


@event("elr_rolled", rule="3.47")
class ElrRolled(Event):
    side: str
    roll: Roll
    before: int
    after: int


@event("san_adjusted", rule="3.51")
class SanAdjusted(Event):
    side: str
    before: int
    after: int


@event("clearance_rolled", rule="3.52")
class ClearanceRolled(Event):
    side: str
    hex: str
    item: str
    roll: Roll
    casualty_reduction: bool = False  # 3.52 dagger: original 6 vs known minefield/Panji


# --- play by email (cg/pbem.py) ---------------------------------------------------------------

@event("head_signed")
class HeadSigned(Event):
    """A side's Ed25519 signature over the chain head (seq, hash) it ends a bundle at: it covers the
    whole history up to that row. `ack`: the last signature of the other side it holds, [seq, hash]."""

    side: str
    seq: int
    hash: str
    sig: str
    ack: tuple[int, str] | None = None


@event("sealed")
class Sealed(Event):
    """Play by email, a sealed secret (cg/seal.py, ruling R47): `side`'s command of a secret step (its
    2.1 CP DR, its 2.3 purchases, its 3.44 promotion dr and hardening) as a salted hash (`commitment`)
    of its opening, and the opening encrypted to its own key (`box`): the other copy holds it but
    cannot read it. `what` is public (cp, purchase, promote, harden, reveal); `opens`/`closes`: the
    two-party dice request it makes or resolves without showing the command; `hex`: where a concealed
    unit set up (kind `concealed`, ruling R112), the "?" stack the other side sees."""

    side: str
    what: str
    at: int  # its own seq: where its command is decided when it is opened
    commitment: str
    nonce: str
    box: str
    opens: str | None = None
    closes: str | None = None
    hex: str | None = None  # ruling R112: a concealed setup's hex, public (its "?" stack, A12.1); absent otherwise


@event("seals_revealed")
class SealsRevealed(Event):
    """`side` reveals what the rules reveal at `point` (2.4: its Attack Option; 2.6: its purchases;
    3.44: its promotion dr and hardening; end: everything left, its CP DRs and CP left): each opening
    (the command and its salt) is checked against its commitment."""

    side: str
    point: str
    openings: tuple[dict, ...] = ()


@event("dice_committed")
class DiceCommitted(Event):
    """Two-party dice, first half: `side` commits to a secret value (sha256 hex `commit`) for the
    rolls of `command`, which is decided once the other side has answered and the value is revealed."""

    side: str
    command: dict
    commit: str
    nonce: str  # public: the value is HMAC(the side's private key, nonce)
    # ruling R83 (rules revision 3, switch dice_chain): the value itself, shown with the commitment, and
    # the place in the other side's chain of answers (`chain`) whose value decides the roll; stored only
    # when given, so a commitment of ruling R44 is stored as before
    value: str | None = None
    chain: int | None = None


@event("dice_chain")
class DiceChain(Event):
    """Ruling R83: `side`'s chain of answers to the other side's two-party dice: `anchor` is sha256
    applied `length` times to a secret seed (HMAC(the side's private key, nonce)); the answer at place n
    is sha256 applied length - n times, shown in order, each checked by hashing it back to the anchor."""

    side: str
    anchor: str
    nonce: str
    length: int


@event("dice_answered")
class DiceAnswered(Event):
    """Two-party dice, second half: the other side's value for the commitment at seq `request`."""

    side: str
    request: str  # the commitment answered (or revealed)
    value: str


@event("dice_revealed")
class DiceRevealed(Event):
    """The committing side's value, checked against its commitment; the command's events follow,
    or `refused` says why the rules refuse it now (the dice are spent all the same)."""

    side: str
    request: str  # the commitment revealed
    value: str
    refused: str | None = None


@event("fact_proposed")
class FactProposed(Event):
    """A shared fact (the firefight's end, 2.41, leaving a step both act in, an undo of what the other
    side has seen) proposed by `side`: it takes effect when the other side confirms it (ruling R45)."""

    side: str
    command: dict


@event("fact_confirmed")
class FactConfirmed(Event):
    """The other side agrees: the proposed command's events follow in the same batch."""

    side: str
    command: dict


@event("fact_rejected")
class FactRejected(Event):
    side: str
    command: dict
    reason: str


# The event and value classes leave the module's namespace until built: `types.ClassName` builds one (PEP 562).
_NAMED = {cls.__name__: name for name, cls in _DECLARED.items()}
for _name in (*_NAMED, *_VALUES):
    del globals()[_name]


def __getattr__(attr: str):
    if attr in _VALUES:
        with _LOCK:
            _built_values((attr,))
        return _VALUES_BUILT[attr]
    name = _NAMED.get(attr)
    if name is None:
        raise AttributeError(f"module {__name__!r} has no attribute {attr!r}")
    return _built(name)
