"""Folding events into the campaign state: the one fold loop, and its own events (the campaign's start,
`step_left`, undo, a sealed secret and its opening), what each does to the state and its words.

An event's fold stands beside the step that writes it (`@on(type)` in cg/steps/purchase.py, before.py, end.py,
reph.py; an event written at any step, play by email's and a rules upgrade, in cg/steps/anywhere.py:
cg/steps/registry.py), a function of its event class (events/types.py, one schema per event), built
from the stored payload by a constructor made for the type (events/stored.py): no validation, no cattrs, so
replay pays little for it (docs/performance.md). Importing cg.steps (BY_ID, below) registers every step's.
`fold` first learns which seqs are reverted (a revert of a revert restores them), then folds the rest.
"""
from __future__ import annotations

from collections.abc import Set as AbstractSet
from itertools import islice
from typing import TYPE_CHECKING, Callable, Iterable, cast

from events.errors import UNFOLDABLE, BadInput, UnreadableRow, unknown_row
from cg import tables
from cg.card_schema import parse_card
from cg.pbem import state_of
from cg.seal import apply_revealed, apply_sealed, defer_sealed_rolls
from cg.sequence import StepId, step_id
from cg.state import SIDES, CampaignState, Purchase, Unit, new_firefight, ob_deal
from cg.steps import BY_ID  # the steps, and with them the folds of their events (@on: cg/steps/registry.py)
from cg.steps.changes import AVAILABLE_W, ON_MAP_W
from cg.steps.anywhere import command_words
from cg.steps.registry import FOLDS, on, said, words
from cg.steps.wording import side_words
from cg.units import Kind
from events.stored import build, folder
from events import types as ev  # the module: an event class is built when first used (status builds none)

if TYPE_CHECKING:  # the handlers' event classes (imported when the first fold is made: _built)
    from events.types import Sealed, SealsRevealed, StepLeft


# type name -> fold(state, stored payload dict): the handler of the type's event class (FOLDS), given the
# instance built from the payload in the same call (events/stored.folder). Replay, a command's own
# events and a seal's opened events (cg/seal.py) all fold through it. Each fold is made the first
# time its type is met (_built): a command that folds nothing (status on a fresh snapshot) never
# imports the event classes (events.types: ~25 ms of class creation, -X importtime), and one that
# folds a short tail makes the folds of the few types in it (all 55: ~9 ms).
HANDLERS: dict[str, Callable] = {}


def _built(etype: str) -> Callable | None:
    """The fold of `etype`, made now (None: a type the fold does nothing with)."""
    fn = FOLDS.get(etype)
    if fn is None:
        return None

    h = HANDLERS[etype] = folder(ev.REGISTRY[etype], fn)
    return h


def handler_table() -> dict[str, Callable]:
    """Every fold (HANDLERS with all of them made)."""
    for etype in FOLDS:
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
                             status=ON_MAP_W if hx else AVAILABLE_W, hex=hx)
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
                named: bool = True, handlers: dict[str, Callable] | None = None) -> CampaignState | None:
    """The fold loop, the one: the replay's hot loop (events/store.fold_chunks), `fold`'s records, one event
    (`evolve`) and a seal's opened events (`_opened`) all pass through it.

    chunks: (seqs, types, payload dicts, {seq: stored version} of the rows to upcast, or None) in seq order,
    every other row being stored at version `common`; reverted: every seq the log's reverts take
    back (reverted_seqs); upcast(type, version, payload) refuses a type or version this release
    does not know (None: rows already upcast, `current` unread). A row that is neither reverted nor stale
    costs one set lookup before its handler. st.last_batch is left to the caller, which reads it once
    instead of with every row. named: an error is raised naming its row (UnreadableRow), else as it is.
    handlers: type -> fold(state, payload), where a caller's own replace some of HANDLERS' (the report's walk
    words a row from the instance its fold builds: projections/aar._Folding); a type it lacks is added to it.
    """
    # None until campaign_started: a row before it fails on it, an AttributeError named as its row (UNFOLDABLE)
    st = cast(CampaignState, state)
    handlers, typed = HANDLERS if handlers is None else handlers, FOLDS
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
                    if handler is not None:  # (it is: a type of FOLDS) kept in a caller's own table too
                        handlers[etype] = handler
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


# ---- play by email's sealed secrets (cg/seal.py, ruling R47): a seal's opened events pass through the loop ----

@on("sealed")
def _sealed(st, p: Sealed):
    apply_sealed(st, p, _opened)


@on("seals_revealed")
def _seals_revealed(st, p: SealsRevealed):
    apply_revealed(st, p)


# ---- the loop's own events in words (`@words`: `plcg log`, the commands' output, the AAR) ---------------------

def seed_words(e) -> str:
    """campaign_started's dice: the seed, or what makes the dice when there is none (rulings R31, R44)."""
    if e.seed:
        return f"seed {e.seed!r}"
    if (e.pbem or {}).get("dice_policy") == "two-party":
        return "no seed: two-party dice, made by both players together (ruling R44)"
    return "no seed: the ledger's dice come from the operating system's random source, unforeseeable (ruling R31)"


def _opened_words(opening: dict) -> str:
    """A sealed secret revealed (ruling R47): its events as the log words them, else its command."""
    evs = opening.get("events") or []
    texts = [said(t, q) for t, q in evs if t not in ("dice_committed", "dice_revealed")]
    if texts:
        return "; ".join(texts)
    cmd = opening.get("command") or {}
    return "its two-party dice" if cmd.get("name") == "reveal" else command_words(cmd)


@words("campaign_started")
def _started_words(e) -> str:
    return f"campaign started: {e.card.get('campaign', {}).get('name', e.card_ref)} ({e.rules}, " \
           f"{e.product} {e.product_version}, rules revision {e.rules_revision}), {seed_words(e)}"


@words("sealed")
def _sealed_words(e) -> str:  # ruling R47
    s = side_words(e)
    what = {"cp": "its CP DR (2.1)", "purchase": "a purchase (2.3)", "promote": "its promotion dr (3.44)",
            "harden": "a hardening (3.44)", "attack": "its Attack Option choice, yes or no (2.3)",
            "hidden": "a HIP unit or mines placed (2.6; revealed at 2.9, ruling R112)",
            "concealed": f"a concealed unit set up: a \"?\" in {e.hex} (2.6, A12.1; revealed at 2.9, ruling R112)",
            }.get(e.what, e.what)
    return f"{s} sealed {what} ({e.commitment[:8]})"


@words("seals_revealed")
def _seals_revealed_words(e) -> str:
    s = side_words(e)
    n = len(e.openings)
    return f"{s} revealed {n} sealed secret{'s' if n != 1 else ''} at " + (
        "the CG's end" if e.point == StepId.END else f"{e.point}") + (
        f": {'; '.join(_opened_words(o['opening']) for o in e.openings)}" if n else "")


@words("step_left")
def _step_left_words(e) -> str:
    return f"left step {e.step} for {e.to}" + (f" of firefight {e.firefight}" if e.to == StepId.CP else "")


@words("reverted")
def _reverted_words(e) -> str:
    f = " (forced across a commencement)" if e.force else ""
    return f"undo of seq {', '.join(map(str, e.seqs))}: {e.reason}{f}"
