"""Folding events into the campaign state: one small function per event type.

Each handler takes its event class (events/types.py, one schema per event), built from the stored
payload by a constructor made for the type (events/stored.py): no validation, no cattrs, so replay
pays little for it (docs/performance.md).
`fold` first learns which seqs are reverted (a revert of a revert restores them), then folds the rest.
"""
from __future__ import annotations

from collections.abc import Set as AbstractSet
from itertools import islice
from typing import TYPE_CHECKING, Callable, Iterable, cast

from events.errors import UNFOLDABLE, BadInput, UnreadableRow, unknown_row
from cg import caches, pbem
from cg.pbem import state_of
from cg.rules import rules_for
from cg import tables
from cg.card_schema import parse_card
from cg.items import Kept  # a hex's kept item; Kept.mine: all mines are one item at 3.52
from cg.rules import CVP_RULES, carried_by
from cg.state import (SIDES, CampaignState, Purchase, Unit, loss_cvp, new_firefight, ob_deal,
                      terrain_changed, unit_kind)
from cg.units import IN_PLAY, PRESENT, Kind, Status
from cg.seal import apply_revealed, apply_sealed, defer_sealed_rolls, deferred
from cg.sequence import StepId, step_id
from cg.steps import BY_ID
from cg.state import Done, Fortification, PatrolTeam
from cg.state import AnswerChain, DiceRequest, Proposal  # play by email's records (rulings R44, R45, R67, R71, R83)
from events.stored import build, folder
from events import types as ev  # the module: an event class is built when first used (status builds none)

if TYPE_CHECKING:  # the handlers' event classes (imported when the first fold is made: _built)
    from events.types import (AttackAnnounced, AttackBought, CasualtiesAdded, CasualtyReduced, CgEnded, ClearanceRolled,  # lazy: events.types (~25 ms of class creation), only a fold that meets the type
                              Conceded, CpReplenished, DiceAnswered, DiceChain, DiceCommitted, DiceRevealed,
                              DiseaseReplaced, DiseaseRolled, ElrRolled, EncircledTested, EvacuationRolled,
                              FactConfirmed, FactProposed, FactRejected, FirefightDetermined, FirefightEnded,
                              FortificationPlaced, Fortified, HalfSquadsRecombined, HeadSigned, HeroesRemoved,
                              IsolatedMarked, LeaderRolled, LeadersRolled, MovesFirstRolled, NightSet,
                              ObaRolled, PatrolGivenUp, PatrolResolved, PatrolReturned, PatrolsBought,
                              PromotionRolled, RecallRolled, Redeployed, RedeploymentDone, RedeploymentOption,
                              RepairRolled, RgBought, RulesUpgraded, SanAdjusted, Sealed, SealsRevealed, ShockResolved,
                              StepLeft, TerrainChanged, TvpAwarded, UnitHardened, UnitPositioned,
                              UnitSetUp, UnitsStranded, WeatherSet)

# the members a handler sets a unit's status (_W) and kind (_K) to, and compares them with (str enums: the
# snapshot and the digest store their words, cg/snapshot.py _SCALARS; module constants: `Status.RESERVE` is
# a lookup through the enum's class, ~70 ns on 3.11, paid per event and per unit in _ended's walk of every unit)
_ON_MAP_W, _AVAILABLE_W, _RESERVE_W = Status.ON_MAP, Status.AVAILABLE, Status.RESERVE
_ELIMINATED_W, _CAPTURED_W, _EVACUATED_W = Status.ELIMINATED, Status.CAPTURED, Status.EVACUATED
_EXPENDED_W, _RECOMBINED_W, _RECALLED_W = Status.EXPENDED, Status.RECOMBINED, Status.RECALLED
_LEADER_K, _SQUAD_K = Kind.LEADER, Kind.SQUAD

# type name -> fold(state, stored payload dict): the handler of the type's event class, given the
# instance built from the payload in the same call (events/stored.folder). Replay, a command's own
# events and a seal's opened events (cg/seal.py) all fold through it. Each fold is made the first
# time its type is met (_built): a command that folds nothing (status on a fresh snapshot) never
# imports the event classes (events.types: ~25 ms of class creation, -X importtime), and one that
# folds a short tail makes the folds of the few types in it (all 55: ~9 ms).
HANDLERS: dict[str, Callable] = {}
_TYPED: dict[str, Callable] = {}  # type name -> fn(state, event of that type's class)


def on(name: str):
    """The fold of the event class registered as `name` in events/types.py: fn(state, event)."""
    def wrap(fn):
        _TYPED[name] = fn
        return fn

    return wrap


def _built(etype: str) -> Callable | None:
    """The fold of `etype`, made now (None: a type the fold does nothing with)."""
    fn = _TYPED.get(etype)
    if fn is None:
        return None

    h = HANDLERS[etype] = folder(ev.REGISTRY[etype], fn)
    return h


def handler_table() -> dict[str, Callable]:
    """Every fold (HANDLERS with all of them made)."""
    for etype in _TYPED:
        if etype not in HANDLERS:
            _built(etype)
    return HANDLERS


def start(payload: dict, view=None) -> CampaignState:
    """The state a stored `campaign_started` payload begins (as its class, CampaignStarted); `view`:
    which seals its reader opens (cg/seal.Opener)."""
    p = build(ev.CampaignStarted, payload)
    card = parse_card(p.card, source="campaign_started")
    # the first release's campaign_started may lack what later ones hold: the schema's defaults
    st = CampaignState(card=card, seed=p.seed, card_ref=p.card_ref, product_version=p.product_version,
                       dice_mode=p.dice, dice_policy=p.dice_policy or "any", view=view)
    st.position = st.position.to(option=p.redeployment)
    st.rules_revision = p.rules_revision  # ruling R32
    st.conventions = p.conventions  # issue 38: an older campaign decides as it always did
    if p.pbem:
        st.pbem = state_of(p.pbem)
    for side in SIDES:
        spec = card.sides[side]
        s = st.sides[side]
        s.elr, s.san, s.cp = spec.elr, spec.san, spec.initial_cp
    for side in SIDES:
        for hx in card.sides[side].control:
            st.ground.control[hx] = side
    new_firefight(st, 1)
    for side in SIDES:
        for group in card.sides[side].ob:
            _ob_given(st, side, group)
    st.position = st.position.to(step="2.2")  # the Initial Firefight starts at 2.2 (1.1)
    return st


def _ob_given(st: CampaignState, side: str, group) -> None:
    """1.2 OB given: its units are the side's from the start at no CP, set up in its hexes (one after
    another, in turn, in the card's order: ruling R94) or entering; its leaders given count for 2.362 like leaders rolled; it owes the
    2.36 leader DRs the card says."""
    pid = f"{group.id}-{side}"
    pur = Purchase(id=pid, side=side, rg=group.id, firefight=1, mode=group.setup, cost=0, kind=group.kind,
                   leader_owed=group.leader_drs, revealed=False)
    st.purchases[(side, pid)] = pur
    column = tables.leader_column(st.card.sides[side].nationality, group.armor_leader)
    for i, (name, kind, hx) in enumerate(ob_deal(group), 1):  # ruling R94: the card's order
        uid = f"{pid}.{i}"
        st.units[(side, uid)] = Unit(id=uid, side=side, name=name, kind=kind, purchase=pid,
                             status=_ON_MAP_W if hx else _AVAILABLE_W, hex=hx)
        pur.units.append(uid)
        if kind == Kind.LEADER:
            pur.leaders.append(name)
            taken = st.sides[side].leaders_taken.setdefault(column, {})
            taken[name] = taken.get(name, 0) + 1


def evolve(st: CampaignState, etype: str, p: dict, seq: int = 0, batch: int = 0) -> CampaignState:
    """One event folded (a command's own, as it is written): the one loop (fold_stored) given one row. Its
    errors are raised as they are: the callers name them (the audit, the ledger's refold)."""
    st = cast(CampaignState, fold_stored((((seq,), (etype,), (p,), None),), 0, _NONE, None, None, st,
                                         named=False))
    st.last_batch = batch
    return st


def fold(records: Iterable[tuple], state: CampaignState | None = None,
         reverted: set[int] | None = None, view=None) -> CampaignState:
    """records: (seq, batch, type, payload dict) in seq order; reverted seqs are skipped. The one loop
    (fold_stored) given the records in chunks.

    Give `reverted` (the seqs the log's reverts take back, see reverted_seqs) to fold a stream in
    one pass; without it the records are read once first to find the reverts.
    """
    if reverted is None:
        records = list(records)
        reverted = reverted_seqs(records)
    last: list = [None]  # the batch of the last record
    st = fold_stored(_chunked(records, last), 0, reverted, None, None, state, view)
    if st is not None and last[0] is not None:
        st.last_batch = last[0]  # read with seq
    return cast(CampaignState, st)  # None for a log without campaign_started, which no caller folds


_CHUNK = 1024  # the records a chunk of `fold`'s holds: a stream is never held whole (a row's payload dict each)


def _chunked(records: Iterable[tuple], last: list):
    """(seq, batch, type, payload) records as fold_stored's chunks (seqs, types, payloads, nothing stale);
    last[0]: the batch of the last record given."""
    it = iter(records)
    while True:
        block = list(islice(it, _CHUNK))
        if not block:
            return
        seqs, batches, types, payloads = zip(*block)
        last[0] = batches[-1]
        yield seqs, types, payloads, None


def _opened(st: CampaignState, events: list) -> None:
    """A seal's opened events folded where it stands (cg/seal.apply_sealed): the one loop, given them as a
    chunk at the state's seq (it is left as it is), named as the sealed row's by the loop that folds it."""
    if events:
        types, payloads = zip(*events)
        fold_stored((((st.seq,) * len(types), types, payloads, None),), 0, _NONE, None, None, st, named=False)


_NONE: frozenset[int] = frozenset()


def _unreadable(e: Exception, seq, etype) -> Exception:  # e: what fold's callers catch
    """A row that cannot be folded, named: edited against its schema, or of a type or version this
    release does not know (upcast): never a crash."""
    if isinstance(e, UNFOLDABLE):
        return UnreadableRow(seq, f"{type(e).__name__}: {e}")
    if isinstance(e, UnreadableRow):
        return e
    return unknown_row(seq, etype, cast(BadInput, e))  # the rest of what is caught: BadInput


def fold_stored(chunks: Iterable[tuple], common: int, reverted: AbstractSet[int], current: dict[str, int] | None,
                upcast: Callable | None, state: CampaignState | None = None, view=None,
                named: bool = True) -> CampaignState | None:
    """The fold loop, the one: the replay's hot loop (events/store.fold_chunks), `fold`'s records, one event
    (`evolve`) and a seal's opened events (`_opened`) all pass through it.

    chunks: (seqs, types, payload dicts, {seq: stored version} of the rows to upcast, or None) in seq order,
    every other row being stored at version `common`; reverted: every seq the log's reverts take
    back (reverted_seqs); upcast(type, version, payload) refuses a type or version this release
    does not know (None: rows already upcast, `current` unread). A row that is neither reverted nor stale
    costs one set lookup before its handler. st.last_batch is left to the caller, which reads it once
    instead of with every row. named: an error is raised naming its row (UnreadableRow), else as it is.
    """
    # None until campaign_started: a row before it fails on it, an AttributeError named as its row (UNFOLDABLE)
    st = cast(CampaignState, state)
    handlers, typed = HANDLERS, _TYPED
    seq = etype = None
    try:  # a row edited against its schema: bad input naming the row, never a crash
        for seqs, types, payloads, stale in chunks:
            marked = reverted | stale.keys() if stale else reverted
            for seq, etype, payload in zip(seqs, types, payloads):
                if seq in marked:
                    if seq in reverted and etype != "reverted":
                        continue
                    if stale and seq in stale:
                        payload = upcast(etype, stale[seq], payload)  # type: ignore[misc]  # stale: upcast given
                handler = handlers.get(etype)
                if handler is None and etype in typed:
                    handler = _built(etype)  # the first of its type
                if handler is not None:
                    if etype == "step_left" and st.step == StepId.COMMENCEMENT:
                        st.commencements.add(seq)  # 2.8: the firefight commenced here (the undo guard)
                    handler(st, payload)
                elif etype == "campaign_started":
                    st = start(payload, view)
                elif etype == "reverted":
                    _reverted(st, seq, payload)
                elif upcast is not None and etype not in current:  # type: ignore[operator]  # upcast: current given
                    upcast(etype, stale.get(seq, common) if stale else common, payload)  # a type unknown: refused
    except (*UNFOLDABLE, UnreadableRow, BadInput) as e:
        if not named:
            raise
        raise _unreadable(e, seq, etype) from None
    if st is not None and seq is not None:
        st.seq = seq
    return st


def _reverted(st: CampaignState, seq: int, payload: dict) -> None:
    """A `reverted` row (as its class, Reverted), kept for the audit's notes; what it takes back is
    known before the fold (reverted_seqs)."""
    r = build(ev.Reverted, payload)
    st.reverts.append((seq, tuple(r.seqs), r.reason, r.force))


def reverted_seqs(records) -> set[int]:
    """Seqs taken back by reverts; a revert that is itself reverted takes nothing back."""
    reverts = [(seq, payload["seqs"]) for seq, _b, etype, payload in records if etype == "reverted"]
    if not reverts:
        return set()
    undone: set[int] = set()
    # later reverts decide about earlier ones: walk from the newest
    for seq, seqs in reversed(reverts):
        if seq in undone:
            continue
        undone.update(seqs)
    return undone


# ---- campaign and step -------------------------------------------------------------------------

@on("step_left")
def _step_left(st, p: StepLeft):
    """A step left by `next` (or for the CG's end): what leaving it does to the state (its `on_left`),
    then what entering the next one does (its `on_enter`), both on the steps (cg/steps/)."""
    to = step_id(p.to)
    if st.pbem is not None and st.pbem.requests:
        defer_sealed_rolls(st)  # ruling R119: 2.3 left with sealed rolls answered, revealed at 2.6
    left = BY_ID.get(st.step)  # None: a step no release knows (cg/sequence.step_id)
    if left is not None and left.on_left is not None:
        left.on_left(st, to)
    if to == StepId.END:
        st.position = st.position.to(step=to, ended=True)
        return
    entered = BY_ID.get(to)
    if entered is not None and entered.on_enter is not None:
        entered.on_enter(st, p)
    st.position = st.position.to(step=to)
    st.reph.done = set()


@on("conceded")
def _conceded(st, p: Conceded):
    st.position = st.position.to(conceded_by=p.side)


@on("cg_ended")
def _cg_ended(st, p: CgEnded):
    st.position = st.position.to(ended=True, step="end", end_reason=p.reason)


# ---- 2.x ---------------------------------------------------------------------------------------

@on("cp_replenished")
def _cp(st, p: CpReplenished):
    side = p.side
    total = p.total
    if total is None:  # ruling R47: an opening holds no balance; it is derived
        total = st.sides[side].cp + p.gained
    st.sides[side].cp = total
    st.ff.cp_gained[side] = p.gained
    st.ff.cp_left[side] = total
    st.reph.done.add(Done("cp", side))


@on("weather_set")
def _weather(st, p: WeatherSet):
    st.ff.weather = p.text
    st.reph.done.add(Done("weather"))


def _spend(st, side, cost, left):
    if left is None:  # a sealed purchase revealed before its side's CP (ruling R47): the balance is derived
        left = st.sides[side].cp - cost
    st.sides[side].cp = left
    st.ff.cp_spent[side] += cost
    st.ff.cp_left[side] = left


@on("rules_upgraded")
def _rules_upgraded(st, p: RulesUpgraded):
    st.rules_upgrades.append([p.from_firefight, p.revision])  # ruling R32


@on("rg_bought")
def _rg_bought(st, p: RgBought):
    side = p.side
    _spend(st, side, p.cost, p.cp_left)
    rg = st.card.sides[side].rg_by_id(p.rg)
    key = (side, rg.id)
    st.purchase_count[key] = st.purchase_count.get(key, 0) + 1
    pur = Purchase(id=p.purchase, side=side, rg=rg.id, firefight=st.firefight, mode=p.mode,
                   cost=p.cost, kind=rg.kind, leader_owed=rg.leader_drs, oba_owed=(rg.kind == "oba"),
                   fp=p.fp, revealed=False)
    st.purchases[(side, pur.id)] = pur
    # unit_kind by (counter name, RG kind): a memo of a pure function (unit_kind reads only its two
    # arguments), so no fold's result depends on another's (issue 22)
    kinds = caches.current().kinds
    for u in p.units:
        kind = kinds.get((u.name, rg.kind))
        if kind is None:
            kind = kinds[(u.name, rg.kind)] = unit_kind(u.name, rg.kind)
        st.units[(side, u.id)] = Unit(id=u.id, side=side, name=u.name, kind=kind, purchase=pur.id,
                                 status=_RESERVE_W if p.mode == "reserve" else _AVAILABLE_W)
        if kind == Kind.LEADER:
            _leader_made(st, side)
        pur.units.append(u.id)
    if p.platoons:
        st.sides[side].platoons += p.platoons
        q = rg.quality or "other"
        bought = st.ff.platoons[side]
        bought[q] = bought.get(q, 0) + p.platoons
    if p.fp:
        st.sides[side].fp += p.fp


def _leader_made(st, side: str) -> None:
    st.leaders_made += 1
    if st.pbem is not None and st.pbem.sealing:  # ruling R47: numbered per side (sealed apart)
        st.pbem.leaders_made[side] += 1


@on("patrols_bought")
def _patrols(st, p: PatrolsBought):
    _spend(st, p.side, p.cost, p.cp_left)
    st.sides[p.side].patrols += p.count


@on("attack_bought")
def _attack(st, p: AttackBought):
    _spend(st, p.side, p.cost, p.cp_left)
    st.sides[p.side].attack = True
    st.ff.attack[p.side] = True
    for key in [k for k in st.reph.done if k.what == "oba-roll" and k.side == p.side]:
        # ruling R14 (rules revision 3): the -1 of 2.351 goes with the Attack Option bought in this 2.3, not
        # with the order of the commands: an OBA DR made before it is read again, its final DR less 1
        side, (final, pid) = key.side, key.of
        st.purchase(pid, side).oba = tables.oba_strength(int(final) - 1).result
        st.reph.done.discard(key)


@on("attack_announced")
def _attack_announced(st, p: AttackAnnounced):
    """Ruling R109: the Attack Option as 2.4 announces it (the sealed choice opened); its CP go with the
    purchase (`attack_bought`), sealed apart and revealed at 2.6."""
    if p.attack:
        st.sides[p.side].attack = True
        st.ff.attack[p.side] = True


@on("oba_rolled")
def _oba(st, p: ObaRolled):
    pur = st.purchase(p.purchase, p.side)
    pur.oba = p.roll.outcome
    pur.oba_owed = False
    if rules_for(st).oba_read_again_if_attack_bought(st.sides[p.side].attack):
        # ruling R14: read again with the -1 should the side buy the Attack Option in this 2.3
        st.reph.done.add(Done("oba-roll", p.side, (p.roll.final, p.purchase)))


@on("leader_rolled")
def _leader(st, p: LeaderRolled):
    side = p.side
    if p.purchase is not None:
        pur = st.purchase(p.purchase, side)
        pur.leader_owed -= 1
    else:
        pur = None
        st.reph.generated[side] += 1
    u = p.unit
    if u:
        hx = p.hex  # 3.45: placed with an MMC on map; else it enters as a reinforcement
        st.units[(side, u.id)] = Unit(id=u.id, side=side, name=u.name, kind=_LEADER_K,
                                 purchase=p.purchase, status=_ON_MAP_W if hx else _AVAILABLE_W, hex=hx)
        _leader_made(st, side)
        if pur is not None:
            pur.leaders.append(u.name)
            pur.units.append(u.id)
        if st.initial:
            col = _column(st, side, pur)
            taken = st.sides[side].leaders_taken.setdefault(col, {})
            taken[u.name] = taken.get(u.name, 0) + 1


def _column(st, side, pur):

    armor = False
    if pur is not None:
        rg = st.card.sides[side].group_by_id(pur.rg)
        armor = bool(rg and rg.armor_leader)
    return tables.leader_column(st.card.sides[side].nationality, armor)


@on("fortified")
def _fortified(st, p: Fortified):
    side = p.side
    st.sides[side].fp = p.fp_left
    st.ground.fortifications.append(Fortification(side, p.kind, p.hex, p.cost, dict(p.detail or {}), p.unit,
                                                  st.firefight))
    if p.hex:
        _in_hex(st, side, p.kind, p.hex, p.detail)
    if p.unit and st.unit(p.unit, side) is not None:
        st.unit(p.unit, side).hip = True


def _in_hex(st, side: str, kind: str, hx: str, detail) -> None:
    strength = (detail or {}).get("factors")
    st.ground.terrain.setdefault(hx, []).append(Kept(kind, side, str(strength) if strength else None))
    terrain_changed(st)


@on("fortification_placed")
def _fortification_placed(st, p: FortificationPlaced):
    f = st.ground.fortifications[p.index]
    f.hex = p.hex
    _in_hex(st, p.side, p.kind, p.hex, f.detail)


@on("firefight_determined")
def _determined(st, p: FirefightDetermined):
    ff = st.ff
    ff.type, ff.attacker = p.type, p.attacker
    ff.setup_first, ff.move_first = p.setup_first, p.move_first
    st.reph.done.add(Done("determine"))
    if p.type == "idle":  # 2.41: patrols and Air Support bought for it are lost (ruling R11)
        for side in SIDES:
            st.sides[side].patrols = 0
        for pur in st.purchases.values():
            if pur.firefight == st.firefight and pur.kind == "air":
                pur.lost_idle = True
                for uid in pur.units:
                    st.unit(uid, pur.side).status = _ELIMINATED_W
                    st.unit(uid, pur.side).eliminated_in = st.firefight


@on("moves_first_rolled")
def _moves_first(st, p: MovesFirstRolled):
    st.ff.move_first = p.move_first


@on("night_set")
def _night(st, p: NightSet):
    st.ff.night = p.text
    st.reph.done.add(Done("night"))


@on("redeployment_option")
def _option(st, p: RedeploymentOption):
    st.position = st.position.to(option=p.option)


@on("redeployment_done")
def _redeployment_done(st, p: RedeploymentDone):  # ruling R85: 2.5 Option A, the Defender has done
    st.reph.done.add(_REDEPLOY_25[p.side])
    st.reph.done.add(Done("redeploy-2.5-done", p.side))


@on("redeployed")
def _redeployed(st, p: Redeployed):
    u = st.units[(p.side, p.unit)]  # a unit in play (decide checked it): never in the settled part
    carried = carried_by(st, u) if p.result.startswith("redeploys") else ()  # ruling R86: its SWs go with it
    _redeploy_unit(st, p, u)
    _follow(u, carried)


def _follow(u, carried) -> None:
    """Ruling R86: the SWs a unit possessed stand where it now stands, hidden as it is (a unit eliminated
    drops them where they were)."""
    if u.status not in PRESENT:
        return
    for w in carried:
        w.hex, w.hip, w.concealed = u.hex, u.hip, u.concealed


def _redeploy_unit(st, p: Redeployed, u) -> None:
    u.redeployed = True
    if rules_for(st).redeployment_marks_side_begun(st.step):
        st.reph.done.add(_REDEPLOY_25[p.side])  # 2.5 Option A: the Defender goes first
    r = p.result
    hip_lost, concealment_lost = rules_for(st).hiding_lost_in_redeployment(p.situation)
    if hip_lost:
        u.hip = False
    if concealment_lost:
        u.concealed = False
    if p.change:
        if p.reduced or p.change == "eliminated":  # a loss, not an ELR replacement
            _reph_loss(st, u, p.change)

        _unit_change(st, ev.UnitChange(side=p.side, unit=p.unit, to=p.change), p.reduced)
        if u.status == Status.ELIMINATED:
            return
    if r in ("eliminated", "eliminated_cs_na"):
        _reph_loss(st, u, "eliminated")
        u.status, u.eliminated_in = _ELIMINATED_W, st.firefight
        st.ff.lost.append([p.side, u.id])
        return
    if r.startswith("redeploys"):
        u.hex = p.to
        u.isolated = False
    else:  # remains in hex: uncontrolled / NML units become Isolated (3.216)
        u.isolated = p.situation in ("uncontrolled", "nml", "isolated")


# The records of the two events of half a long log, made without a Python call: the per-side ones made
# once, Done("set", side, unit) by tuple.__new__ (what Done(...) does, less its Python-level __new__).
_SETUP = {s: Done("setup", s) for s in SIDES}
_REDEPLOY_25 = {s: Done("redeploy-2.5", s) for s in SIDES}
_new_done = tuple.__new__


@on("unit_set_up")
def _setup(st, p: UnitSetUp):
    # half of a long log: kept to the few operations it needs (a reserve unit stays In Reserve)
    side = p.side
    u = st.units[(side, p.unit)]  # a unit in play (decide checked it): never in the settled part
    rules = rules_for(st)
    for done in rules.set_up_done(side, u.id):  # 2.6: the side that sets up first goes before the other; set up this
        # 2.6: no longer a unit left in place (3.34)
        st.reph.done.add(_SETUP[side] if done[0] == "setup" else _new_done(Done, done))
    u.hex = p.hex
    u.hip = p.hip
    if u.status == _AVAILABLE_W:
        u.status = _ON_MAP_W
    pur = st.purchases.get((u.side, u.purchase))  # None for a unit of no purchase
    if pur is not None:
        pur.revealed = True


@on("patrol_resolved")
def _patrol(st, p: PatrolResolved):
    side = p.side
    st.reph.patrols_done[side].add(p.patrol)
    if p.returns:
        st.reph.patrols_to_return[side].add(p.patrol)
    if rules_for(st).keeps_patrol_team(p.losses):
        st.reph.patrol_units[(side, p.patrol)] = PatrolTeam([p.leader, *p.units], p.kind, p.mission_hex,
                                                            p.typed or None)
    for uid in rules_for(st).patrol_hip_lost((p.leader, *p.units)):  # 2.72: "Place all Patrol units in a cloaking
        st.units[(side, uid)].hip = False  # box"; back, CG11
    _patrol_losses(st, p)


@on("patrol_returned")
def _patrol_ret(st, p: PatrolReturned):
    st.reph.patrols_to_return[p.side].discard(p.patrol)
    _patrol_losses(st, p)


def _patrol_losses(st, p) -> None:
    """Ruling R29: the units a patrol result strikes: reduced (a new counter), eliminated or captured; their
    CVP count for the current firefight (2.756, ruling R39)."""

    factor = rules_for(st).patrol_loss_cvp_factor  # 3.22: "Only guarded prisoners are worth double CVP" (ruling R91)
    for c in p.losses:
        cvp = loss_cvp(st.unit(c.unit, c.side), c.to) * factor(c.to)
        st.ff.patrol_cvp[c.side] += cvp
        st.ff.cvp_lost[c.side] += cvp
        if c.to == "captured":
            u = st.unit(c.unit, c.side)
            u.status, u.eliminated_in = _CAPTURED_W, st.firefight
            st.ff.lost.append([c.side, c.unit])
        else:
            _unit_change(st, c, True)


@on("patrol_given_up")
def _patrol_up(st, p: PatrolGivenUp):
    st.reph.patrols_done[p.side].add(p.patrol)


@on("firefight_ended")
def _ended(st, p: FirefightEnded):
    ff = st.ff
    ff.turn, ff.winner, ff.winner_rule = p.turn, p.winner, p.winner_rule
    rules_for(st).firefight_end_lifts_isolation(st)  # 3.211: the Isolated mark's Ammunition Shortage lasted it
    for su in p.oba_used:
        ff.oba_used[su.side] += 1
    for side in SIDES:  # 2.756: the patrols' losses count for this firefight too (ruling R39)
        ff.cvp_lost[side] = p.cvp_lost[side] + ff.patrol_cvp[side]
    for c in p.control:
        st.ground.control[c.hex] = c.side
    for lu in p.lost:
        u = st.unit(lu.unit, lu.side)
        if u is not None:
            u.status, u.eliminated_in = _ELIMINATED_W, st.firefight
        ff.lost.append([lu.side, lu.unit])
    for t in p.terrain:
        st.ground.terrain.setdefault(t.hex, []).append(Kept.parse(t.item))
        terrain_changed(st)
    for su in p.encircled:
        st.unit(su.unit, su.side).encircled = True
    for su in p.wounded:
        st.unit(su.unit, su.side).wounded = True
    for su in p.shocked:
        st.unit(su.unit, su.side).shocked = True
    for su in p.recalled:
        u = st.unit(su.unit, su.side)
        u.recalled, u.status = True, _RECALLED_W
    for su in p.hero:
        st.unit(su.unit, su.side).hero = True
    for reduced, changes in ((True, p.reduced), (False, p.replaced)):
        for change in changes:
            _unit_change(st, change, reduced)
    for su in p.captured:
        u = st.unit(su.unit, su.side)
        u.status, u.eliminated_in = _CAPTURED_W, st.firefight
        ff.lost.append([su.side, su.unit])
    for su in p.exited:
        u = st.unit(su.unit, su.side)
        for w in carried_by(st, u):  # ruling R86: its SWs go with it
            w.exited, w.hex = True, None
        u.exited, u.hex = True, None  # CG8: off a friendly edge, back in its MLR for the next firefight
    for r in p.repairs:
        side, item = r.hex.split(":", 1)
        st.reph.repairs_owed[(side, item)] = r.item
    _expend(st, rules_for(st).expended_at_end(st, p.oba_used))
    for u in rules_for(st).reserve_ends_with_firefight(st):  # 2.33: In Reserve for its own firefight only
        u.status = _ON_MAP_W if u.hex else _AVAILABLE_W
    for pur in reversed(st.purchases.values()):  # made in firefight order: this one's come last
        if pur.firefight < st.firefight:
            break
        pur.revealed = True  # purchases are revealed once the firefight was played
    st.reph.done.add(Done("end"))


def _unit_change(st, c: ev.UnitChange, reduced: bool) -> None:
    """Casualty Reduction or ELR replacement: a new counter, a wound, or the unit eliminated."""
    u = st.unit(c.unit, c.side)
    if c.to == "eliminated":
        u.status, u.eliminated_in = _ELIMINATED_W, st.firefight
        st.ff.lost.append([c.side, c.unit])
    elif c.to == "wounded":
        u.wounded = True
    else:
        u.name = c.to
        if reduced and u.kind == Kind.SQUAD:
            u.kind = Kind.HALF_SQUAD


@on("unit_positioned")
def _positioned(st, p: UnitPositioned):
    u = st.unit(p.unit, p.side)
    carried = carried_by(st, u)  # ruling R86: the SWs it possesses go with it
    u.hex, u.hip, u.concealed, u.exited = p.hex, p.hip, p.concealed, False
    if u.status in (Status.AVAILABLE, Status.RESERVE):
        u.status = _ON_MAP_W
    _follow(u, carried)


def _expend(st, spent: list) -> None:
    """CG7 EXC: the units of the purchases not retained (Rules.expended_at_end) leave the OB (status "expended")."""
    for pur in spent:
        if pur is None:
            continue
        for uid in pur.units:
            u = st.unit(uid, pur.side)
            if u is not None and u.status in IN_PLAY:
                u.status, u.eliminated_in = _EXPENDED_W, st.firefight


# ---- 3.x ---------------------------------------------------------------------------------------

@on("casualties_added")
def _casualties(st, p: CasualtiesAdded):
    ff = st.ff
    ff.cvp_lost[p.side] += p.cvp
    if ff.winner_rule in CVP_RULES:  # 3.11: RePh losses count for the firefight for all purposes
        ff.winner, ff.winner_rule = rules_for(st).winner_by_cvp(ff)
    for uid in p.units:
        u = st.unit(uid, p.side)
        if u is not None:
            u.status, u.eliminated_in = _ELIMINATED_W, st.firefight
        st.ff.lost.append([p.side, uid])


def _eliminate(st, side, uid):
    u = st.unit(uid, side)
    _reph_loss(st, u, "eliminated")
    u.status, u.eliminated_in = _ELIMINATED_W, st.firefight
    st.ff.lost.append([side, uid])


def _reph_loss(st, u, to: str) -> None:
    """3.11 "All RePh losses count for the previous firefight for all purposes" (revision 3, ruling R58): a
    loss the ledger decides in the RePh (3.17, 3.19, 3.21, 3.52) adds its CVP (ruling R39's values, taken
    before the counter changes) to the firefight's, and a winner decided by 1.31 is decided again."""
    if not rules_for(st).reph_loss_counts(st.step):
        return
    ff = st.ff
    ff.cvp_lost[u.side] += loss_cvp(u, to)
    if ff.winner_rule in CVP_RULES:
        ff.winner, ff.winner_rule = rules_for(st).winner_by_cvp(ff)


@on("casualty_reduced")
def _casualty_reduced(st, p: CasualtyReduced):
    c = p.change
    _reph_loss(st, st.unit(c.unit, c.side), c.to if c.to == "eliminated" else "reduced")
    _unit_change(st, c, True)
    st.reph.done.discard(Done("cr-owed", p.side, p.hex))


@on("half_squads_recombined")
def _recombined(st, p: HalfSquadsRecombined):
    keep, gone = st.unit(p.keep, p.side), st.unit(p.gone, p.side)
    keep.name, keep.kind = p.to, _SQUAD_K
    gone.status, gone.hex = _RECOMBINED_W, None  # 3.42: off the map with the squad it made


@on("heroes_removed")
def _heroes_removed(st, p: HeroesRemoved):
    for uid in p.units:
        st.unit(uid, p.side).hero = False  # 3.43: removed from play


@on("encircled_tested")
def _encircled(st, p: EncircledTested):
    u = st.unit(p.unit, p.side)
    if p.roll.outcome == "eliminated":
        _eliminate(st, p.side, u.id)
    elif p.roll.outcome == "abandoned":  # 3.17: the Immobile vehicle's crew failed (revision 3)
        u.abandoned = True
        u.encircled = False
        return
    # 3.17: a unit that passes keeps its Encircled marker (revision switch encircled_kept); revision 1
    # removed it, and the logs it wrote fold as they did
    u.encircled = rules_for(st).encircled_after_1tc(p.roll.outcome)
    if u.encircled:
        st.reph.done.add(Done("encircled", u.side, u.id))  # tested this RePh: owes no second 1TC


@on("shock_resolved")
def _shock(st, p: ShockResolved):
    u = st.unit(p.unit, p.side)
    u.shocked = False
    if p.roll.outcome == "eliminated":
        _eliminate(st, p.side, u.id)


@on("isolated_marked")
def _isolated(st, p: IsolatedMarked):
    for su in p.units:
        u = st.unit(su.unit, su.side)
        u.isolated = True
        u.hip = rules_for(st).hip_when_isolated(u.hip)  # 3.212 b / 3.215


@on("units_stranded")
def _stranded(st, p: UnitsStranded):  # ruling R48: eliminated (a vehicle: its wreck leaves the OB and owes no repair)
    for su in p.units:
        u = st.unit(su.unit, su.side)
        if p.counted:  # ruling R95: 3.11, its CVP count for the firefight as R58's losses do
            _reph_loss(st, u, "eliminated")
        u.status, u.eliminated_in = _ELIMINATED_W, st.firefight
        st.ff.lost.append([su.side, su.unit])
        st.reph.repairs_owed.pop((su.side, su.unit), None)


@on("terrain_changed")
def _terrain(st, p: TerrainChanged):
    terrain_changed(st)
    for c in p.changes:
        items = st.ground.terrain.setdefault(c.hex, [])
        item = Kept.parse(c.item)
        if c.change == "add":
            items.append(item)
        elif item in items:
            items.remove(item)
        if not items:
            del st.ground.terrain[c.hex]


@on("evacuation_rolled")
def _evac(st, p: EvacuationRolled):
    u = st.unit(p.leader, p.side)
    if p.roll.outcome == "evacuated":
        u.status, u.wounded = _EVACUATED_W, False
        rules_for(st).evacuated_leader_lost(st, u)  # 3.45 counts it among the leaders lost
    st.reph.done.add(Done("evacuate", None, u.id))


@on("tvp_awarded")
def _tvp(st, p: TvpAwarded):
    for side in SIDES:
        st.ff.tvp[side] = p.tvp[side]
        st.ff.tvp_total[side] = p.total[side]
        st.sides[side].tvp_total = p.total[side]


@on("disease_rolled")
def _disease(st, p: DiseaseRolled):
    st.reph.done.add(Done("disease", p.side))
    owed = rules_for(st).disease_hs_owed(p.roll.outcome)  # 3.41: the squads struck, in HS equivalents
    if owed is not None:
        st.reph.done.add(Done("disease-owed", p.side, owed))


@on("disease_replaced")
def _disease_replaced(st, p: DiseaseReplaced):
    side, c = p.side, p.change
    u = st.unit(c.unit, side)
    owed = next(k for k in st.reph.done if k.what == "disease-owed" and k.side == side)
    st.reph.done.discard(owed)
    left = owed.of - (2 if u.kind == Kind.SQUAD else 1)
    st.reph.done.add(Done("disease-owed", side, max(0, left)))
    st.reph.done.add(Done("disease-replaced", side, u.id))
    _unit_change(st, c, False)


@on("promotion_rolled")
def _promotion(st, p: PromotionRolled):
    st.reph.done.add(Done("promote", p.side))
    st.reph.promotions[p.side] = p.roll.outcome


@on("unit_hardened")
def _hardened(st, p: UnitHardened):
    u = st.unit(p.unit, p.side)
    u.hardened += 1
    st.reph.hardened_now[p.side].append(u.id)
    to, fanatic, hero = rules_for(st).hardening_applied(p)  # the counter changes (ruling R34); 3.43 uses the Hero up
    if to:
        u.name = to
    if fanatic:
        u.fanatic = True
    if hero:
        st.unit(hero, p.side).hero = False


@on("leaders_rolled")
def _leaders(st, p: LeadersRolled):
    st.reph.done.add(Done("leaders", p.side))
    st.reph.may_generate[p.side] = p.may_generate
    st.reph.leader_result[p.side] = p.roll.outcome


@on("repair_rolled")
def _repair(st, p: RepairRolled):
    if p.roll.outcome == "failed" and rules_for(st).failed_repair_kept(p.kind):
        st.reph.done.add(Done("repair", p.side, p.item))  # 3.46: still malfunctioned, tried again next RePh
        return
    st.reph.repairs_owed.pop((p.side, p.item), None)


@on("recall_rolled")
def _recall(st, p: RecallRolled):
    u = st.unit(p.unit, p.side)
    u.recalled = False
    if p.roll.outcome == "returned":
        u.status = _AVAILABLE_W
    else:
        u.status, u.eliminated_in = _ELIMINATED_W, st.firefight  # no CVP (3.461)


@on("elr_rolled")
def _elr(st, p: ElrRolled):
    side = p.side
    s = st.sides[side]
    if p.before == 5 and p.after < 5:
        s.five_lost = True
    s.elr = p.after
    st.ff.elr[side] = p.after
    st.reph.done.add(Done("elr", side))


@on("san_adjusted")
def _san(st, p: SanAdjusted):
    st.sides[p.side].san = p.after
    st.ff.san[p.side] = p.after


@on("clearance_rolled")
def _clear(st, p: ClearanceRolled):
    hx, item = p.hex, p.item
    st.reph.cleared.add((hx, item))
    terrain_changed(st)
    items = st.ground.terrain.get(hx, [])
    if rules_for(st).casualty_reduction_owed(p.casualty_reduction):
        st.reph.done.add(Done("cr-owed", p.side, hx))  # 3.52 dagger: owed before 3.52 is left (plcg casualties)
    if p.roll.outcome == "eliminated":
        left = rules_for(st).eliminated_clearance_leaves(item)
        if left:
            items.append(Kept(left))
            return
        for it in list(items):
            if it.key == item or (item == "mines" and it.mine):  # 3.52 *: all mines in the Location
                items.remove(it)
        if not items:
            st.ground.terrain.pop(hx, None)
    elif item == "mines" and any(it.key in ("mines", "ap_mine", "known_minefield") for it in items):
        st.reph.ap_failed.add(hx)  # 3.52: a failed A-P mine attempt stops the Location (ruling R23)


# ---- play by email (cg/pbem.py) ----

@on("head_signed")
def _head_signed(st, p: HeadSigned):
    st.pbem.signed[p.side] = [p.seq, p.hash]
    if st.pbem.requests:
        # ruling R67: signed over an answer it has not revealed: withheld (ruling R119: not one owed by 2.6)
        for r in rules_for(st).withheld_by_signature(st.pbem.requests.values(), p.side):
            r.withheld = r.withheld or not deferred(st, r)


@on("dice_committed")
def _dice_committed(st, p: DiceCommitted):
    if p.chain is None:
        st.pbem.requests[p.commit] = DiceRequest(p.side, p.command, p.nonce)
        return
    # ruling R83: decided by the other side's chain value at this place

    chain = pbem.chain_of(st, pbem.other(p.side))
    chain = cast(AnswerChain, chain)  # live: the rules committed this roll to it (None: the AttributeError is the row's)
    st.pbem.requests[p.commit] = DiceRequest(p.side, p.command, p.nonce, None, p.value, p.chain, chain.anchor)
    chain.next = p.chain + 1


@on("dice_chain")
def _dice_chain(st, p: DiceChain):  # ruling R83
    st.pbem.anchors[p.anchor] = AnswerChain(p.side, p.anchor, p.nonce, p.length, next=1, last=[0, p.anchor],
                                            reverts=len(st.reverts))  # an undo after it: no new place is given (R83)
    st.pbem.chain_at[p.side] = p.anchor


@on("dice_answered")
def _dice_answered(st, p: DiceAnswered):
    r = st.pbem.requests[p.request]
    r.answer = p.value
    if r.chain is not None:  # ruling R83: the chain's furthest answer shown

        pbem.chain_shown(st, p.side, r.anchor, r.chain, p.value)


@on("dice_revealed")
def _dice_revealed(st, p: DiceRevealed):
    del st.pbem.requests[p.request]


@on("sealed")
def _sealed(st, p: Sealed):
    apply_sealed(st, p, _opened)


@on("seals_revealed")
def _seals_revealed(st, p: SealsRevealed):
    apply_revealed(st, p)


@on("fact_proposed")
def _fact_proposed(st, p: FactProposed):
    # ruling R71: a step left provisionally has its own slot: it waits for nothing
    setattr(st.pbem, "provisional" if "provisional" in p.command else "proposal", Proposal(p.side, p.command))


@on("fact_confirmed")
def _fact_confirmed(st, p: FactConfirmed):
    setattr(st.pbem, "provisional" if "provisional" in p.command else "proposal", None)


@on("fact_rejected")
def _fact_rejected(st, p: FactRejected):
    setattr(st.pbem, "provisional" if "provisional" in p.command else "proposal", None)
