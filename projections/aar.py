"""`plcg export`: the raw log (JSON Lines) or an After Action Report (Markdown or one HTML file).

The report is built once as a list of blocks (headings, paragraphs, lists, tables, figures) and
rendered to Markdown (to paste into a forum post) or to a self-contained HTML page (the same text,
plus inline SVG charts and the control map after each played firefight). Everything in it follows
from the log: the same log gives the same report, byte for byte.

What the report shows:
  - every event in words, grouped by firefight and step, undone events left out (they are listed,
    struck through, with the reason, in "Undos");
  - purchases once they are revealed (ruling R10): set up, or their firefight (or a later one)
    played, or the CG ended. For a firefight still being set up, unrevealed RG purchases, Attack
    Options not yet announced (2.4), patrols and fortifications are left out;
  - the firefight result (turn, CVP, winner, control changes, losses, terrain kept, TVP);
  - the CG Roster and the CG totals.
"""
from __future__ import annotations

import collections
import re
from sys import intern

from collections import Counter
from html import escape
from itertools import chain
from typing import NoReturn

import attrs

from cg import seal
from cg.evolve import HANDLERS, evolve, fold_stored, reverted_seqs, start
from cg.state import CampaignState, Ground, active_units
from cg.steps import BY_ID, ORDER
from cg.steps.registry import FOLDS, MAY_BE_SECRET, WORDS
from events.codec import loads
from events.errors import UNFOLDABLE, BadInput
from events.stored import build, builder
from events.types import REGISTRY
from events.upcasters import upcast
from events.versions import VERSIONS
from projections.charts import line_chart
from projections import verdict
from projections.digest import digest
from projections.maps import map_svg
from projections.purchases import purchase_rows
from projections.roster import roster_rows, totals
from projections.transfer import export_lines
from projections.words import SIDE, TYPE, roll_words, summary, terrain_words, vasl_words
from cg.units import IN_PLAY
from projections.dicestats import COUNTED, Rolls, rolls_of, section_stats, stats, tally

FORMATS = ("jsonl", "md", "html", "bbcode")
# a forum post's size the BBCode export keeps under (characters): phpBB's default post limit; the six-firefight
# demo's report is about a quarter of it (tests/test_bbcode.py states and checks its size)
BBCODE_LIMIT = 60_000


def export(ledger, fmt: str, url: str = "aar.html") -> str:
    """The campaign of `ledger` as text in `fmt`: "jsonl" (importable), "md", "html" or "bbcode" (its
    links to the HTML report at `url`)."""
    return "".join(export_chunks(ledger, fmt, url))


def export_chunks(ledger, fmt: str, url: str = "aar.html"):
    """export() as an iterator of text pieces, for writing as they come: one firefight's blocks are made at a
    time, from what the one read of the log kept of its rows (their words, not their payloads: issue 36). The
    log is read (and every error raised) before the first piece; the ledger must stay open until the last."""
    if fmt == "jsonl":
        return (line + "\n" for line in export_lines(ledger.store))
    if fmt not in FORMATS:
        raise BadInput(f"unknown export format {fmt!r}: one of {', '.join(FORMATS)}")
    try:
        if fmt == "md":  # the log read once: the Dice line's rolls on the way
            return _named(ledger, iter_md(iter_report(walk(ledger, dice=True))))
        if fmt == "bbcode":  # one post, a few tens of thousands of characters: made whole, then written
            h = walk(ledger, dice=True)
            return iter([bbcode_post(iter_report(h), url, {n for n, info in h.firefights.items()
                                                          if info.ended is not None})])
        h = walk(ledger, maps=True, dice=True)  # the log read once: the dice section's rolls on the way
        return _named(ledger, iter_html(iter_report(h, html=True),
                                        title=f"After Action Report — {h.final.card.campaign.name}"))
    except UNFOLDABLE:
        _name_the_row(ledger)


def _named(ledger, pieces):
    """The pieces; a row edited against its schema met on the way is exit 2 naming it, never 5."""
    try:
        yield from pieces
    except UNFOLDABLE:
        _name_the_row(ledger)


def _name_the_row(ledger) -> NoReturn:
    """Only after the report met a row it cannot use: the checked read raises UnreadableRow naming the
    first row that does not hold its event as plcg writes it (issue 15); where every row has the keys its
    schema requires but one holds a value the report cannot use, exit 2 all the same, never 5."""
    for _ in ledger.store.read():
        pass
    raise BadInput("a row of the log does not hold its event as plcg writes it, and the report cannot use it"
                   " (edited by another tool? plcg audit lists what changed)")


# ---- the history, folded once ----------------------------------------------------------------------

@attrs.define
class Row:
    seq: int
    batch: int | None
    type: str
    version: int
    firefight: int
    step: str
    payload: dict  # upcast to the event's current version
    recorded: str | None  # read for the first and the last row (the overview's dates), else None
    command_text: str | None  # the batch's command as stored: parsed only when asked for (the report never does)
    hash: str | None  # read for the last row (the head witness), else None

    @property
    def command(self) -> dict | None:
        return None if self.command_text is None else loads(self.command_text)

    @property
    def event(self):
        """The row's event as its class's instance (events/types.py; events/stored.build, the fold's constructor:
        a field the row leaves out reads as its default, one an edited row lacks is an AttributeError)."""
        return build(REGISTRY[self.type], self.payload)


@attrs.define
class FirefightHistory:
    n: int
    # what the firefight's section needs of its rows, gathered by the walk as it folds them (the log read
    # once: issue 36), its rows themselves not kept
    told: list = attrs.Factory(list)  # the Sequence: a Told per event that stands (_told_row), in seq order
    visited: list = attrs.Factory(list)  # the steps its rows were recorded at or left, in the order met
    set_up: dict = attrs.Factory(dict)  # step -> how many setups (2.6) it recorded: told by the setup tables
    # side -> {unit: (seq, hex, hip, its counter as it stood then: issue 27 item 2)} of its last setup (2.6)
    placed: dict = attrs.Factory(dict)
    terrain: list = attrs.Factory(list)  # (seq, event) of each terrain_changed (the result's terrain kept)
    changed: list = attrs.Factory(list)  # the counters changed, in words (_counters_changed)
    step: str | None = None  # the step of the last row _told_row met
    ended: Row | None = None  # firefight_ended
    tvp: Row | None = None  # tvp_awarded (3.33)
    control_before: dict | None = None  # map control just before firefight_ended
    control_after: dict | None = None
    map_state: object = None  # what the map shows after tvp_awarded, else after firefight_ended (maps=True)
    map_seq: int | None = None


@attrs.define
class History:
    count: int  # rows in the log, undone ones included
    first: Row  # the first row and the last
    last: Row
    reverts: list  # every `reverted` Row, in seq order
    named: dict  # seq -> Row of every row a revert names
    cg_ended: Row | None  # the last cg_ended that stands
    undone: set
    final: object  # CampaignState: the whole log folded
    firefights: dict  # n -> FirefightHistory
    store: object = None  # the open store (_log_rolls: a walk without the dice reads them there)
    secret: set = attrs.Factory(set)  # (firefight, side) whose spending is not yet revealed (ruling R10)
    hidden: set = attrs.Factory(set)  # (firefight, side, figure) sealed in play by email (ruling R47)
    played_upto: int = 0  # the last firefight ended (won or drawn): purchases up to it are public (ruling R10)
    purchases: dict | None = None  # side -> purchase_rows(final, side, reveal=True), built once
    bought: dict = attrs.Factory(dict)  # (side, purchase) -> the counters it brought, as bought (rg_bought)
    # the reveals the log holds (ruling R47): opener(commitment, nonce, box) -> the opening, or None; the
    # walk's own, so a sealed row's content is read once (cg.seal.Opener caches it)
    opener: object = None
    rolls: list | None = None  # every roll (projections.dicestats.rolls_of), gathered by the walk for the dice section

    _roster: list | None = attrs.field(default=None, init=False, eq=False, repr=False)

    def roster(self) -> list:
        """The CG Roster's rows (projections.roster: what the card makes public shown, ruling R47's sealed
        figures None), built once."""
        if self._roster is None:
            self._roster = roster_rows(self.final)
        return self._roster

    def cp(self, n: int, side: str) -> tuple[str, str, str]:
        """(gained, spent, left) of SIDE in firefight N as the report shows them: "sealed" where ruling R47
        keeps a figure, "?" for spending ruling R10 keeps until the setup; every other figure as it is."""
        row = next(r for r in self.roster() if r["firefight"] == n and r["side"] == side)
        out = [_or_sealed(row[k]) for k in ("cp_gained", "cp_spent", "cp_left")]
        if (n, side) in self.secret:
            out[1] = out[2] = "?"
        return out[0], out[1], out[2]


_MAY_HIDE = frozenset(("rg_bought", "oba_rolled", "leader_rolled", "attack_bought", "patrols_bought", "fortified"))

# what a map needs of the state (projections.maps.map_svg): taken at a firefight's end instead of a
# copy of the whole state, which grows with the campaign (every unit ever bought)
_MapUnit = collections.namedtuple("_MapUnit", "side name hex status")
_new_tuple = tuple.__new__  # a _MapUnit made as its class's own __new__ makes it, less that Python-level call


class _MapState:
    def __init__(self, st):
        self.card, self.firefight, self.step = st.card, st.firefight, st.step
        # the ground as it stands now (a copy: the walk folds on), where the map's readers look for it
        self.ground = Ground(dict(st.ground.control), {hx: list(items) for hx, items in st.ground.terrain.items()})
        # the units not settled (cg.state.active_units: every unit in play is among them, in the order of
        # `units`), not every unit ever bought: a map per firefight, each walking the whole roster, grew
        # the report's cost per event with the campaign's length
        self.units = {(u.side, u.id): _new_tuple(_MapUnit, (u.side, u.name, u.hex, u.status))
                      for u in active_units(st)[0] if u.hex and u.status in IN_PLAY}
        self._strategic = st.strategic()  # 1.4 as the campaign's rules revision has it (ruling R32)

    def load_all(self):
        return self

    def strategic(self):
        return self._strategic

    def grid(self):
        return CampaignState.grid(self)

    def controlled(self, strategic=None):
        return CampaignState.controlled(self, strategic)

    def map_control(self):
        return CampaignState.map_control(self)


def walk(ledger, maps: bool = False, dice: bool = False) -> History:
    """The history as both players may read it: a sealed secret opens only where the log reveals it
    (ruling R47), whatever key the exporting copy holds. `dice`: also every roll, for dice_section."""
    h = _walk(ledger, maps, seal.Opener(lambda: seal.log_openings(ledger.store)), dice)
    h.hidden = seal.unknown_figures(h.final)  # (firefight, side, figure) sealed (ruling R47); each row says its own
    return h


def _walk(ledger, maps: bool = False, view=None, dice: bool = False) -> History:
    """Fold the log once (as cg.evolve.fold does: undone events skipped), keeping what the report
    needs along the way: where each firefight's events are, the control before and after each
    result, (maps=True) what the map shows after each firefight's TVP award, the rolls counted per
    source and side, and (dice=True) every roll for the dice section (projections.dicestats.Rolls,
    fed by the same pass: issue 36). The log read once (issue 36), one chunk of rows at a time: the rows are
    not kept, but for the few it names; what each firefight's section needs of its rows is gathered on the
    way (_told_row)."""
    store = ledger.store
    last_seq = store.head()[0]
    revs = store.reverts(until=last_seq)  # what is undone is known before the walk
    undone = reverted_seqs(revs)
    named_seqs = {x for _, _, _, p in revs for x in build(REGISTRY["reverted"], p).seqs}
    named: dict = {}
    reverts: list = []
    candidates: list = []  # rows _hidden may leave out (ruling R10)
    bought: dict = {}  # (side, purchase) -> the counters as bought, from rg_bought rows and revealed seals
    first = last = cg_ended = None
    count = 0
    st = None
    ffs: dict[int, FirefightHistory] = {}
    rolls = Rolls(view) if dice else None
    versions = VERSIONS
    # the rows folded together, as replay folds them (cg.evolve.fold_stored, one call a run of rows, not one a
    # row): a run ends before a row the walk reads the state around (a result, a TVP award, a revert, an undone
    # row, a seal: each folded where the state stands as it stood in a fold row by row) and after a run of
    # setups, whose counters are read from the state once it is folded (a setup changes no counter)
    fold = _Folding()
    add_seq, add_type, add_payload = fold.seqs.append, fold.types.append, fold.payloads.append
    setups = fold.setups
    info = last_ff = None
    unusual = named_seqs | undone  # the rows of _ROUTINE types that take the long way all the same
    # the log read once, a run of rows at a time: their seqs, types and payloads as the fold reads them (Store.fold_chunks:
    # the payloads joined and parsed by one call, each row's stored version asked for only where it is not its type's
    # current one), beside the same rows' firefight, step and command (read_rows, the same runs of rows)
    chunks, common, top = store.fold_chunks(versions, 0, last_seq)
    rest = store.read_rows(0, top, _WALKED, chunk=store.FOLD_CHUNK, columnar=True)
    for (seqs, types, payloads, stale), (rffs, steps, texts) in zip(chunks, rest):
        if len(texts) != len(types):  # (the same runs of an append-only log: never)
            raise BadInput(f"{ledger.path}: the log changed while it was read")
        # a type's and a step's name one string each (not one a row: the Sequence's lines hold them)
        types, steps = _interned(types), _interned(steps)
        cols = (seqs, types, rffs)  # (_award_follows)
        count += len(texts)
        if rolls is not None:  # the rolls see each payload as stored (projections.dicestats.rolls_of)
            rolls.add_rows(seqs, types, payloads, _commands(texts))
        for seq, etype, rff, step, p, text in zip(seqs, types, rffs, steps, payloads, texts):
            if stale and seq in stale:  # a row stored at another version than its type's current one
                current = versions.get(etype)
                if current is not None and stale[seq] != current:
                    p = upcast(etype, stale[seq], p)
            if etype not in _NOT_ROUTINE and rff == last_ff and st is not None and seq not in unusual:
                # most rows (a setup, a redeployment, a step left): what the long way below does with them
                if setups and etype != "unit_set_up":
                    fold.flush()
                add_seq(seq)
                add_type(etype)
                add_payload(p)
                _told_row(info, seq, step, etype, p, None, st, view, fold)
                continue
            r = None  # the Row, made only for a row kept
            version = stale[seq] if seq in stale else versions.get(etype, common)
            if first is None:
                first = r = Row(seq, None, etype, version, rff, step, p, None, text, None)
            if seq in named_seqs:
                named[seq] = r = r or Row(seq, None, etype, version, rff, step, p, None, text, None)
            if setups and etype != "unit_set_up" or etype in _FOLDED_ALONE:
                fold.flush()
            if etype == "campaign_started":
                st = fold.st = start(p, view)
                st.seq = seq
                continue
            if st is None:
                raise BadInput(f"{ledger.path} holds no campaign_started event")
            if etype == "reverted":
                reverts.append(r := r or Row(seq, None, etype, version, rff, step, p, None, text, None))
                e = r.event
                st.reverts.append((seq, tuple(e.seqs), e.reason, e.force))
                st.seq = seq
                continue
            if seq in undone:
                fold.flush()
                st.seq = seq
                continue
            if rff != last_ff:
                last_ff, info = rff, ffs.get(rff)
                if info is None:
                    info = ffs[rff] = FirefightHistory(rff)
            if etype in _KEPT:
                r = r or Row(seq, None, etype, version, rff, step, p, None, text, None)
                if etype in _MAY_HIDE:
                    candidates.append(r)
                if etype in _FOLDED_ALONE:  # firefight_ended, tvp_awarded
                    _keep(r, info, st, maps and not _award_follows(cols, seq, rff, undone))
                else:
                    add_seq(seq), add_type(etype), add_payload(p)
                if etype == "cg_ended":
                    cg_ended = r
                elif etype == "rg_bought":
                    _bought(bought, r.event)
            else:
                add_seq(seq), add_type(etype), add_payload(p)
                if etype == "sealed" and view is not None:  # a purchase by email: as bought, once revealed (R47)
                    for t2, q in _opened_events(view, build(REGISTRY["sealed"], p)) or ():
                        if t2 == "rg_bought":
                            _bought(bought, build(REGISTRY[t2], q))
            _told_row(info, seq, step, etype, p, r, st, view, fold)
        if texts:
            last = Row(seq, None, etype, stale[seq] if seq in stale else versions.get(etype, common), rff, step, p, None,
                       text, None)  # the chunk's last row, as folded
    fold.flush()
    if st is None:
        raise BadInput(f"{ledger.path} holds no campaign_started event")
    for r in (first, last):  # the two rows the overview dates and witnesses, asked for by seq
        r.recorded, r.hash = store.recorded_at(r.seq), store.hash_at(r.seq)
    h = History(count=count, first=first, last=last, reverts=reverts, named=named, cg_ended=cg_ended,
                undone=undone, final=st, firefights=ffs, store=store,
                played_upto=max((ff.n for ff in st.firefights if ff.turn is not None or ff.winner is not None), default=0),
                bought=bought, opener=view)
    h.secret = {(r.firefight, r.event.side) for r in candidates if _hidden(r, h)}
    h.rolls = None if rolls is None else rolls.out
    return h


def _interned(names: list) -> list:
    """Each name one string (sys.intern); a value that is no text (an edited row read alone) as it is."""
    try:
        return list(map(intern, names))
    except TypeError:
        return [intern(x) if type(x) is str else x for x in names]


def _commands(texts: list) -> list:
    """A chunk's commands as stored (None where a row holds none), parsed: in one call, as read_rows parses
    the payloads; row by row where the joined text does not parse (an edited command raises as its own loads
    would)."""
    given = texts if None not in texts else [c for c in texts if c is not None]  # (most chunks: a command a row)
    try:
        parsed = loads("[" + ",".join(given) + "]")
    except (TypeError, ValueError):
        parsed = None
    if not isinstance(parsed, list) or len(parsed) != len(given):
        return [None if c is None else loads(c) for c in texts]
    if given is texts:
        return parsed
    it = iter(parsed)
    return [None if c is None else next(it) for c in texts]


def _bought(bought: dict, e) -> None:
    """An RG purchase's counters as bought (an rg_bought event), by (side, purchase)."""
    bought[(e.side, e.purchase)] = [u.name for u in e.units]


def _opened_events(opener, e) -> list:
    """The events (type, payload as stored) of a `sealed` event the log has revealed (ruling R47), its two-party
    dice records left out; None while it stays sealed."""
    if opener is None:
        return None
    o = opener(e.commitment, e.nonce, e.box)
    if not isinstance(o, dict):
        return None
    return [(t, q) for t, q in o.get("events") or () if t not in ("dice_committed", "dice_revealed")]


# what the walk reads of each row beside its seq, type and payload (Store.fold_chunks, which asks for a row's version
# only where it is not its type's current one): the date and the hash only of the first and the last (asked for by
# seq), never the batch (the report shows none: a Row's is None, and so is the walk's state's last batch)
_WALKED = ("firefight", "step", "command")



# the events walk keeps a Row of, and what it does with each
_KEPT = frozenset(("rg_bought", "oba_rolled", "leader_rolled", "attack_bought", "patrols_bought", "fortified",
                   "cg_ended", "firefight_ended", "tvp_awarded"))


# the rows the walk folds where the state stands as a fold row by row has it, one at a time (_Folding): it reads the
# state around a result and a TVP award (_keep), a seal's opened events are folded at the state's seq
_FOLDED_ALONE = frozenset(("firefight_ended", "tvp_awarded", "sealed", "campaign_started", "reverted"))

# the types of the rows the walk does no more with than add them to its run of folds and tell them (_told_row), when
# the row is neither the first, nor named by a revert, nor undone, nor its firefight's first: every other type
_NOT_ROUTINE = _KEPT | _FOLDED_ALONE


class _Folding:
    """The walk's rows folded a run at a time (cg.evolve.fold_stored, as replay folds them): a row is added to
    `seqs`, `types` and `payloads`, `flush` folds the run; the setups waiting for their counters (_told_row) get
    them then, and so do the Sequence's lines waiting for their words (`told`: worded from the instance the fold
    builds of their row, not from a second one built of its payload, issue 36). The lists are emptied in place:
    the walk holds their `append`s."""

    def __init__(self):
        self.st = None
        self.seqs: list = []
        self.types: list = []
        self.payloads: list = []
        self.setups: list = []  # (firefight, step, seq) of each setup of the run: _told_row's, placed by flush
        self.set_up: list = []  # their events, as the run's fold builds them
        self.told: list = []  # the Told of each row of the run worded by its fold (`worded`), in seq order
        self.said: list = []  # their words, as the run's fold says them
        # type -> its fold for this walk: HANDLERS', but for the types worded by their fold (`worded`)
        self.handlers: dict = dict(HANDLERS)
        self.worded: dict = {}  # type -> whether its rows are worded by their fold (_by_fold)
        fn, make, got = FOLDS["unit_set_up"], builder(_SET_UP), self.set_up.append

        def fold_and_keep(st, p):
            e = make(None, p)
            fn(st, e)
            got(e)
        self.handlers["unit_set_up"] = fold_and_keep

    def word(self, etype: str) -> bool:
        """Whether a row of `etype` folded in the run is worded by its fold: then its Told is added to `told`."""
        by = self.worded.get(etype)
        if by is None:
            by = self.worded[etype] = _by_fold(etype)
            if by:
                fn, make, say, said = FOLDS[etype], builder(REGISTRY[etype]), WORDS[etype], self.said.append

                def fold_and_say(st, p):  # what HANDLERS' fold does (events.stored.folder), then its words
                    e = make(None, p)
                    fn(st, e)
                    said(say(e))
                self.handlers[etype] = fold_and_say
        return by

    def flush(self) -> None:
        st = self.st
        if self.seqs:
            # errors raised as they are (named=False), as cg.evolve.evolve raises them: export_chunks names the row
            fold_stored(((self.seqs, self.types, self.payloads, None),), 0, _NO_SEQS, None, None, st, named=False,
                        handlers=self.handlers)
            self.seqs.clear()
            self.types.clear()
            self.payloads.clear()
        if self.told:
            for t, text in zip(self.told, self.said):
                t.words = _said_plainly(text)
            self.told.clear()
            self.said.clear()
        if self.setups:
            _placed(self.setups, self.set_up, st)
            self.setups.clear()
            self.set_up.clear()


_NO_SEQS: frozenset = frozenset()


def _award_follows(cols: list, seq: int, ff: int, undone: set) -> bool:
    """Whether a TVP award of firefight `ff` that stands follows the row `seq` in the walk's chunk `cols` (its
    columns, _WALKED): then the map of `ff` is the award's, and one taken at `seq` (a result) would be dropped
    (_keep). A chunk that ends first says no: the map is taken, as it always was."""
    seqs, types, ffs = cols
    i = seq - seqs[0]
    if not (0 <= i < len(seqs) and seqs[i] == seq):  # (a log with a row deleted: its seqs not a range)
        i = seqs.index(seq)
    while True:
        try:
            i = types.index("tvp_awarded", i + 1)
        except ValueError:
            return False
        if ffs[i] == ff and seqs[i] not in undone:
            return True


def _keep(r, info, st, maps) -> None:
    """A result or a TVP award folded, the state read around it; `maps`: what the map shows taken after it."""
    if r.type == "firefight_ended":
        info.control_before = dict(st.ground.control)
    evolve(st, r.type, r.payload, r.seq, r.batch)
    if r.type == "firefight_ended":
        info.ended = r
        info.control_after = dict(st.ground.control)
    elif r.type == "tvp_awarded":
        info.tvp = r
    if maps and r.type in ("firefight_ended", "tvp_awarded"):
        info.map_state, info.map_seq = _MapState(st), r.seq


# ---- events in words -------------------------------------------------------------------------------

_SNAKE = re.compile(r"(?<=[a-z])_(?=[a-z])")


def narrate(etype: str, p: dict, st=None) -> str:
    """One event in words for the AAR: projections.words.summary with a few touches for readers
    (the RG's name, "ELR stays 3", arrows, no snake_case outcomes, the Dual Attack drs)."""
    return _arrows(_plain(etype, p, st))


def _arrows(text: str) -> str:
    """narrate's arrows ("->" as "→"), put in last: a text the walk keeps until it is shown stays ASCII until then
    (one byte a character, not two; the snake_case words are taken out first, which no arrow touches)."""
    return text.replace(" -> ", " → ")


_NARRATED = frozenset(("rg_bought", "elr_rolled", "san_adjusted", "firefight_determined"))  # narrate's touches


def _by_fold(etype: str) -> bool:
    """Whether the walk words a row of `etype` from the instance its fold builds (_Folding.word): a type the fold
    builds an instance of (its handler in a run: not one _keep folds alone), whose words projections.words.summary
    takes from that instance alone (no secret, ruling R22; no side to name) and _plain touches no further."""
    return (etype in FOLDS and etype in WORDS and etype not in MAY_BE_SECRET and etype not in _NARRATED
            and etype not in _FOLDED_ALONE and etype not in _EMAIL and etype != "redeployment_option")


def _said_plainly(text: str) -> str:
    """An event's words as _plain leaves them (summary's, touched as it touches every type's)."""
    if " [dice given]" in text:  # roll_words marks manual dice after the result, mid-sentence here and there
        text = text.replace(" [dice given]", "") + " [dice given]"
    return _SNAKE.sub(" ", text) if "_" in text else text  # most lines hold no "_": no regex run


def _plain(etype: str, p: dict, st=None) -> str:
    """narrate's words but for the arrows (_arrows)."""
    text = summary(etype, p)  # (projections.words takes the payload as stored, and builds its instance)
    if etype in _NARRATED:
        e = build(REGISTRY[etype], p)
        if etype == "rg_bought":
            if st is not None:
                rg = st.card.sides[e.side].group_by_id(e.rg)
                if rg is not None and rg.name:
                    text = text.replace(f"bought {e.rg} as", f"bought {e.rg} ({rg.name}) as", 1)
            if e.units:  # one line per purchase with what it brought (issue 38)
                text += ": " + _units_text([u.name for u in e.units])
        elif etype in ("elr_rolled", "san_adjusted"):
            what = "ELR" if etype == "elr_rolled" else "SAN"
            if e.before == e.after:
                text = text.replace(f"{what} {e.before} -> {e.after}", f"{what} stays {e.after}")
        elif e.rolls:  # firefight_determined: the Dual Attack's drs
            text += "; " + "; ".join(roll_words(r) for r in e.rolls)
    return _said_plainly(text)


def _hidden(r: Row, h: History) -> bool:
    """Left out of the AAR until revealed (ruling R10; see the module docstring)."""
    st = h.final
    if st.ended:
        return False

    def public_from(n: int) -> bool:  # a firefight from n on has been played
        return h.played_upto >= n

    if r.type in ("rg_bought", "oba_rolled", "leader_rolled") and (e := r.event).purchase:
        pur = st.purchase(e.purchase, e.side)
        return pur is not None and not pur.revealed and not public_from(pur.firefight)
    if r.firefight > len(st.firefights):
        return False
    ff = st.firefights[r.firefight - 1]
    if r.type == "attack_bought":
        return ff.type is None  # announced at 2.4
    if r.type in ("patrols_bought", "fortified"):
        return not public_from(r.firefight) and not ff.commenced and ff.type != "idle"
    return False


# ---- the report as blocks ---------------------------------------------------------------------------
# Inline text: a list of str and (style, str) with style in b, i, s (struck), code, seq.
# Blocks: ("h", level, inlines, anchor) ("p", inlines) ("ul", [inlines], cls)
#         ("table", head, rows, numeric[, caption]) ("summary", inlines, note): the heading of a folded
#         <details> (Markdown: a level-3 heading); ("figure", cls, svg, caption) ("open", tag, id, cls)
#         ("close", tag) -- the last three HTML only; ("email", inlines, [inlines]): a step's play-by-email
#         records, one line (HTML: a <details> that opens on the records).

def _side(s) -> str:
    return SIDE.get(s, str(s))


def _steps():
    return BY_ID, ORDER


def report(h: History, html: bool = False) -> list:
    return list(iter_report(h, html))


def iter_report(h: History, html: bool = False):
    """report() one block at a time (a firefight's blocks at once)."""
    st = h.final
    card = st.card
    head: list = []  # the blocks before the first firefight
    add = head.append
    camp = card.campaign
    add(("h", 1, [f"After Action Report — {camp.name}"], "top"))
    dates = [f.date for f in card.firefights]
    sides = "; ".join(f"{_side(s)}: {card.sides[s].nationality.title()}" for s in ("axis", "allied"))
    add(("p", [("i", f"Platoon Leader 2.5 campaign game on the CG Card “{st.card_ref}”: {len(card.firefights)} "
                     f"firefights from {dates[0]} to {dates[-1]}, {camp.intensity} intensity. {sides}. "
                     f"Initial attacker: {_side(camp.initial_attacker)}.")]))
    add(("ul", _overview(h), "facts"))
    vlines = verdict.card_lines(card)  # the card's Victory Conditions, as printed and as decided (ruling R74)
    add(("open", "details", "victory", "victory"))  # folded in HTML: the verdict line above says who won
    add(("summary", ["CG Victory Conditions"], vlines[0].split(":", 1)[1].strip() or "(1.3, ruling R74)"))
    add(("ul", [[line.strip()] for line in vlines[1:]] or [[vlines[0]]], "facts"))
    add(("close", "details"))
    if html:
        toc = [[(f"link:#ff{ff.n}", f"Firefight {ff.n} — {ff.date}, {ff.time}" + _type_tag(ff))]
               for ff in st.firefights]
        toc += [[("link:#roster", "CG Roster")], [("link:#charts", "Charts")], [("link:#dice", "Dice")],
                [("link:#undos", "Undos")]]
        add(("open", "nav", "contents", "toc"))
        add(("ul", toc, "toc"))
        add(("close", "nav"))
    yield from head
    for ff in st.firefights:
        yield from _firefight(h, ff, html)
    yield from _roster(h)
    if html:
        yield from _charts(h)
        yield from dice_section(h)
    yield from _undos(h)


def _type_tag(ff) -> str:
    if ff.type == "idle":
        return " (Idle)"
    if ff.type:
        return f" ({TYPE.get(ff.type, ff.type)})"
    return ""


def _overview(h: History) -> list:
    st = h.final
    BY_ID, _ = _steps()
    items = []
    if st.ended:
        ended = h.cg_ended
        e = ended.event if ended else None
        why = f" ({e.reason})" if e else ""
        win = e.winner if e else None
        items.append([("b", "Status:"), f" the CG has ended{why}" + ("; a draw" if win == "draw" else f"; winner {_side(win)}" if win else "") +
                      f"; CG TVP Axis {st.sides['axis'].tvp_total}, Allied {st.sides['allied'].tvp_total}."])
    else:
        items.append([("b", "Status:"), f" in progress: firefight {st.firefight} of {len(st.card.firefights)}, "
                      f"step {st.step} {BY_ID[st.step].name}; CG TVP Axis {st.sides['axis'].tvp_total}, "
                      f"Allied {st.sides['allied'].tvp_total}."])
    items.append([("b", "CG verdict:"), f" {verdict.victory(st)['why']}."])  # ruling R74
    start = st.card.sides
    items.append([("b", "At the start:"), " " + "; ".join(
        f"{_side(s)} ELR {start[s].elr}, SAN {start[s].san}, {start[s].initial_cp} CP" for s in ("axis", "allied"))
        + "."])
    if st.option:
        items.append([("b", "Redeployment Option:"), f" {st.option} (3.2)."])
    for rule in st.card.campaign.ssr:  # third-round card key: the card's special rules as printed
        items.append([("b", "SSR:"), f" {rule}"])
    first, last = h.first, h.last
    undos = len(h.reverts)
    n = h.count
    items.append([("b", "Log:"), f" {n} event{'s' if n != 1 else ''} recorded {first.recorded[:10]} to "
                  f"{last.recorded[:10]}" + (f", {undos} undo{'s' if undos != 1 else ''}" if undos else "")
                  + "; head witness ", ("code", f"{last.seq}:{last.hash[:16]}"),
                  " (plcg audit --witness checks it), replay digest ", ("code", digest(st)["digest"][:16]),
                  f" (plcg {st.product_version or '?'})."])
    items.append(_dice_item(h))
    return items


def _dice_item(h: History) -> list:
    """Who made the dice (ruling R31): the roller, and every roll counted per source and side, as
    `plcg dice-stats` counts them (one function, projections/dicestats.tally) and saying what it counts."""
    st = h.final
    t = tally(h.rolls if h.rolls is not None else _log_rolls(h))  # the walk's rolls (walk(dice=True))
    if st.pbem is not None and st.pbem.dice_policy == "two-party":
        shown = ["two-party (both players, rulings R44, R83)"]
    else:
        shown = ["ledger (unforeseeable)"] if st.dice_mode == "ledger" else ["seeded (predictable), seed ",
                                                                             ("code", st.seed)]
    said = "; ".join(f"{src} {side} {n}" for (src, side), n in sorted(t["by_source_side"].items())) or "none"
    return [("b", "Dice:"), " ", *shown, f"; {t['rolls']} roll{'s' if t['rolls'] != 1 else ''}"
            f" ({t['dice']} dice), by source and side: {said} ({COUNTED}; plcg dice-stats counts the same)."]


def _log_rolls(h: History) -> list[dict]:
    """Every roll of the log as `plcg dice-stats` reads it, sealed ones where the log reveals them (R47)."""
    def rows():
        for chunk in h.store.read_rows(0, h.last.seq, ("seq", "batch", "type", "payload", "command"), parse=True):
            for seq, batch, etype, p, command in chunk:
                yield seq, batch, etype, p, None if command is None else loads(command)

    return rolls_of(rows(), seal.Opener(lambda: seal.log_openings(h.store)))


def _firefight(h: History, ff, html: bool) -> list:
    BY_ID, _ = _steps()
    st = h.final
    info = h.firefights.get(ff.n) or FirefightHistory(ff.n)
    out: list = []
    add = out.append
    add(("open", "section", f"ff{ff.n}", "firefight"))
    initial = " (Initial Firefight)" if ff.initial else ""
    add(("h", 2, [f"Firefight {ff.n} — {ff.date}, {ff.time}{initial}"], f"ff{ff.n}"))
    facts = []
    if ff.type == "idle":
        facts.append([("b", "Type:"), " Idle Firefight: neither side bought an Attack Option (2.41)."])
    elif ff.type:
        t = [("b", "Type:"), f" {TYPE.get(ff.type, ff.type)}"]
        if ff.attacker:
            t.append(f"; attacker {_side(ff.attacker)}")
        if ff.setup_first:
            t.append(f"; {_side(ff.setup_first)} sets up first, {_side(ff.move_first)} moves first")
        facts.append(t + ["."])
    else:
        facts.append([("b", "Type:"),
                      " never determined: the CG ended first." if st.ended else " not yet determined (2.4)."])
    if ff.weather:
        facts.append([("b", "Weather:"), f" {ff.weather}."])
    if ff.night:
        facts.append([("b", "Night:"), f" {ff.night}."])
    spec = st.card.firefight(ff.n)  # what the CG Card says of this firefight (second-round keys)
    if spec is not None:
        said = []
        if spec.moon:
            said.append(f"moon {spec.moon}")
        if spec.turns:
            said.append(f"at most {spec.turns} game turns (CG2)")
        if spec.attacker:
            said.append(f"historical ATTACKER {_side(spec.attacker)} (1.34)")
        if said:
            facts.append([("b", "CG Card:"), f" {'; '.join(said)}."])
        for rule in spec.fsr:
            facts.append([("b", "FSR:"), f" {rule}"])
    if ff.type is not None:
        bought = [_side(s) for s in ("axis", "allied") if ff.attack.get(s)]
        facts.append([("b", "Attack Options:"), f" {', '.join(bought) if bought else 'none'}."])
    cp = {side: h.cp(ff.n, side) for side in ("axis", "allied")}
    facts.append([("b", "CP:"), " " + "; ".join(
        f"{_side(s)} gained {g}, " + ("spending not yet revealed (ruling R10)" if sp == "?" else f"spent {sp}, left {left}")
        for s, (g, sp, left) in cp.items()) + "."])
    # two columns in HTML: what was bought and set up | the result, then the folded sequence and map
    add(("open", "div", f"ff{ff.n}cols", "cols"))
    add(("open", "div", f"ff{ff.n}left", "col"))
    add(("ul", facts, "facts"))

    # purchases
    add(("h", 3, ["Purchases"], None))
    rows = _purchase_table(st, ff.n, h)
    if rows:
        add(("table", ["Side", "Purchase", "RG", "Setup", "CP", "OBA", "Leaders", "Units"], rows, {4}))
    else:
        add(("p", ["No purchase shown."]))

    add(("close", "div"))
    add(("open", "div", f"ff{ff.n}right", "col"))
    # the setup: one table per side (2.6), not a line per unit
    setups = _setup_tables(info, h, st)
    if setups:
        add(("h", 3, ["Setup"], None))
        add(("open", "div", f"setup{ff.n}", "pair"))
        out.extend(setups)
        add(("close", "div"))
    add(("h", 3, ["Result"], None))
    add(("ul", _result(h, ff, info), "facts"))

    # the sequence, step by step (folded in HTML: a click opens it): the game in words, a step's
    # play-by-email records folded into one "by email" line (issue 38)
    told = info.told
    add(("open", "details", f"seq{ff.n}", "sequence"))
    add(("summary", ["Sequence"], f"{sum(1 for t in told if not t.email) + sum(info.set_up.values())} events,"
                                  " step by step"))
    by_step: dict[str, list] = {}
    mail: dict[str, list] = {}
    visited = info.visited
    secret_steps: set[str] = set()
    # steps whose records the setup tables tell: every setup of a side (counted by the walk, set_up), a setup of
    # another "side" where there are tables
    tabled: set[str] = set(info.set_up)
    for t in told:
        if t.email:
            mail.setdefault(t.step, []).append(t)
        elif t.type in _MAY_HIDE and t.row is not None and _hidden(t.row, h):  # (no other type is ever left out)
            secret_steps.add(t.step)
        elif t.type == "unit_set_up" and setups:
            tabled.add(t.step)  # told in the setup tables
        else:
            by_step.setdefault(t.step, []).append(t)
    current = st.step if st.firefight == ff.n and not st.ended else None
    quiet, quiet_mail = [], []
    for s in visited:
        if s in tabled and s not in by_step:  # its records are the setup tables' (issue 27 item 4)
            add(("h", 4, [f"{s} {BY_ID[s].name}" + (" (in progress)" if s == current else "")], None))
            add(("p", [("i", "Every unit set up is in the setup tables above.")]))
            if s in mail:
                add(_email_block(mail[s], st))
            continue
        if s not in by_step and s not in secret_steps and s != current:
            quiet.append(f"{s} {BY_ID[s].name}")
            quiet_mail += mail.get(s, [])
            continue
        add(("h", 4, [f"{s} {BY_ID[s].name}" + (" (in progress)" if s == current else "")], None))
        if s in by_step:
            add(("ul", [[("seq", str(t.seq)), t.text(st)] for t in by_step[s]], "events"))
        if s in secret_steps:
            add(("p", [("i", "Purchases not yet revealed are left out until they are (ruling R10).")]))
        elif s not in by_step:
            add(("p", [("i", "Nothing recorded yet.")]))
        if s in mail:
            add(_email_block(mail[s], st))
    if quiet:
        add(("p", [("i", "Passed with nothing to record: " + ", ".join(quiet) + ".")]))
    if quiet_mail:
        add(_email_block(quiet_mail, st))
    if not visited:
        add(("p", ["Nothing recorded yet."]))
    add(("close", "details"))
    add(("close", "div"))
    add(("close", "div"))

    if html and info.map_state is not None:  # below both columns: the map at its own size, counters legible
        title = f"Control after firefight {ff.n} ({ff.date}, {ff.time})"
        svg = map_svg(info.map_state, title, id_prefix=f"m{ff.n}-", cls="map")  # its final ids: one per page
        cap = f"Map control after firefight {ff.n}, as of seq {info.map_seq}" + (
            " (TVP awarded, 3.3)." if info.tvp is not None else " (firefight end, 2.9).")
        add(("open", "details", f"map{ff.n}", "map"))
        add(("summary", ["Map"], f"control, terrain and units after firefight {ff.n}"))
        add(("figure", "map", svg.rstrip("\n"), cap))  # inline: not the standalone file's last newline
        add(("close", "details"))
    add(("close", "section"))
    return out


@attrs.define(eq=False)  # not frozen: ~50,000 made per report at 100k events, and a frozen init costs twice
class Told:
    """One line of a firefight's Sequence: an event that stands, in words, or (email) a play-by-email record.
    Its words are made as the walk meets it (_told_row: the payload is not kept, only the words, ~5 times
    smaller), but for a row the report may leave out until revealed (ruling R10: worded when shown)."""
    seq: int
    step: str
    type: str
    email: bool  # a signature, seal, two-party dice record, reveal or proposal: folded into "by email"
    words: str | None  # its words but for the arrows (_plain), None where the report may leave it out (`row`)
    row: Row | None = None  # the row itself where the report may leave it out (_hidden), else None
    payload: dict | None = None  # its payload where it is worded only when shown (words None)

    def text(self, st) -> str:
        """Its words (narrate, with the folded state `st` for the RG's name)."""
        return _arrows(self.words) if self.words is not None else narrate(self.type, self.payload, st)


# the records play by email adds to the game (folded into one "by email" line per step): a rejection and a
# claim of withheld dice stay in the game's words, they say what the players disputed
_EMAIL = frozenset(("head_signed", "sealed", "seals_revealed", "dice_committed", "dice_chain", "dice_answered",
                    "dice_revealed", "fact_proposed", "fact_confirmed"))
_EMAIL_KIND = {"head_signed": "signature", "sealed": "seal", "seals_revealed": "reveal",
               "fact_proposed": "proposal", "fact_confirmed": "confirmation"}


def _told_row(info: FirefightHistory, seq: int, step: str, etype: str, p: dict, r: Row | None, st, opener,
              fold: _Folding) -> None:
    """What the firefight's section needs of one row that stands, as the walk folds it (the rows are not read
    again, issue 36): the steps it was recorded at and left, its line of the Sequence in words (a sealed
    secret's events where it was sealed once the log reveals them, ruling R47; the play-by-email records
    marked `email`), a unit's setup (2.6: counted, the setup tables tell it), the terrain a RePh command
    changed and the counters changed. `r`: the row where the walk keeps it (_KEPT: the purchases _hidden may
    leave out, worded only when shown, as are the setups of a side that is neither). `fold`: where a setup
    waits for its counter and a line for its words (_Folding.word), both read once its row is folded (flush,
    _placed). A name the setups repeat (a unit's id, a hex) is held once (sys.intern), not once a setup: ~100,000
    strings at 100k events."""
    if step is not info.step:  # the rows of a step come together (the walk gives each step's name one string)
        info.step = step
        visited = info.visited
        if step and step not in visited and step in BY_ID:
            visited.append(step)
    if etype == "step_left":
        s = build(_STEP_LEFT, p).step
        visited = info.visited
        if s and s not in visited and s in BY_ID:
            visited.append(s)
        return
    told = info.told
    if etype == "unit_set_up":  # placed once its row is folded (_Folding.flush: _placed), from the fold's instance
        fold.setups.append((info, step, seq))
        return
    if etype == "terrain_changed":
        info.terrain.append((seq, build(REGISTRY[etype], p)))
    elif etype == "sealed":
        e = build(REGISTRY["sealed"], p)
        opened = _opened_events(opener, e)
        for t, q in opened or ():
            told.append(Told(seq, step, t, False, _plain(t, q, st) + " (sealed; revealed later, R47)"))
            _changes(t, q, info.changed)
        text = None
        given = seal.card_cp(st.card, e.side, info.n) if e.what == "cp" else None
        if opened is None and given is not None:  # 2.1 EXC: no DR, the card's CP, public (issue 38)
            text = (f"{_side(e.side)} CP replenishment: {given} CP provided by the CG Card (2.1 EXC; "
                    "its record sealed by email, ruling R47)")
        told.append(Told(seq, step, etype, opened is not None, text or _plain(etype, p, st)))
        return
    if etype in _MAY_HIDE:  # (_KEPT: the walk keeps its row)
        told.append(Told(seq, step, etype, False, None, r, p))
        return
    email = etype in _EMAIL and not (etype == "dice_revealed" and build(REGISTRY[etype], p).value == "withheld")
    if email or not fold.word(etype):
        told.append(Told(seq, step, etype, email, _plain(etype, p, st)))
    else:  # worded as its row is folded (_Folding.flush)
        t = Told(seq, step, etype, False, None)
        told.append(t)
        fold.told.append(t)
    if not email:
        _changes(etype, p, info.changed)


def _placed(setups: list, events: list, st) -> None:
    """Units' setups (2.6): (firefight history, step, seq) of each in `setups`, its event in `events` as its fold
    built it, the state `st` folded past them: the last setup of a unit stands (ids repeat across sides), with its
    counter as it stood then (issue 27 item 2: a setup changes no counter, and a run of the walk's folds ends after
    its setups). One call a run (~50,000 setups at 100k events)."""
    units = st.units
    for (info, step, seq), e in zip(setups, events):
        side = e.side
        placed = info.placed.get(side)
        if placed is None:
            placed = info.placed[side] = {}
        unit = intern(e.unit)
        u = units.get((side, unit))  # (its fold found it there: a unit set up is in play, never settled)
        # (a key of no field an edited row holds is its instance's attribute too: a "seq" shows, as it did)
        placed[unit] = (getattr(e, "seq", seq), intern(e.hex), e.hip, u.name if u is not None else "")
        if side == "axis" or side == "allied":  # in the setup tables: counted, not worded
            set_up = info.set_up
            set_up[step] = set_up.get(step, 0) + 1
        else:
            info.told.append(Told(seq, step, "unit_set_up", False, None, payload=e.__dict__))


# the classes of the two types of every firefight's rows (a step left, a unit set up: ~50,000 at 100k events), looked
# up once: the fold builds both for any campaign's log
_STEP_LEFT, _SET_UP = REGISTRY["step_left"], REGISTRY["unit_set_up"]


def _email_block(told: list[Told], st) -> tuple:
    """A step's play-by-email records as one line (HTML: opened on demand)."""
    kinds = Counter(_EMAIL_KIND.get(t.type, "two-party dice record") for t in told)
    said = ", ".join(f"{n} {k}{'s' if n != 1 else ''}" for k, n in kinds.items())
    n = len(told)
    return ("email", [f"By email: {n} record{'s' if n != 1 else ''} ({said}), seq {_ranges([t.seq for t in told])}"],
            [[("seq", str(t.seq)), t.text(st)] for t in told])


def _setup_tables(info: FirefightHistory, h: History, st) -> list:
    """2.6 as a table per side: unit, counter (as it stood at the setup), hex, HIP, seq (the last setup of a
    unit stands)."""
    out: list = []
    for side in ("axis", "allied"):
        rows = [[unit, counter, hx, "HIP" if hip else "", str(sq)]
                for unit, (sq, hx, hip, counter) in info.placed.get(side, {}).items()]
        if rows:
            out.append(("table", ["Unit", "Counter", "Hex", "HIP", "Seq"], rows, {4}, f"{_side(side)} setup"))
    return out


def _units_text(names: list[str]) -> str:
    c = Counter(names)
    return ", ".join(f"{n}× {u}" if n > 1 else u for u, n in c.items())


def _purchase_table(st, n: int, h: History) -> list:
    if h.purchases is None:  # once, grouped by firefight: not every purchase per firefight and side
        h.purchases = {}
        for side in ("axis", "allied"):
            for r in purchase_rows(st, side, reveal=True):
                h.purchases.setdefault((side, r["firefight"]), []).append(r)
    out = []
    for side in ("axis", "allied"):
        for r in h.purchases.get((side, n), ()):
            if r["side"] != side:
                continue
            if r.get("sealed"):  # ruling R47: there is one, its content sealed until the rules reveal it
                out.append([_side(side), "sealed", "(revealed at setup, ruling R47)", "", "", "", "", ""])
                continue
            if not (st.ended or r["revealed"] or h.played_upto >= n):
                continue
            # the counters as bought (leaders are the Leaders column, as rolled: issue 27 item 5)
            units = _units_text(h.bought.get((side, r["purchase"]), r["units"]))
            if r["lost_idle"]:
                units += " (lost: Idle Firefight, 2.41)"
            out.append([_side(side), r["purchase"], f"{r['rg']} {r['name']}", r["mode"], str(r["cost"]),
                        r["oba"] or "", ", ".join(r["leaders"]), units])
    return out


def _result(h: History, ff, info: FirefightHistory) -> list:
    BY_ID, _ = _steps()
    st = h.final
    items = []
    if ff.type == "idle":
        items.append(["Idle Firefight: no firefight was played; no TVP, no RePh beyond 3.41, 3.46, 3.461 "
                      "and 3.52 (2.41)."])
        return items
    if info.ended is None:
        if st.ended:
            items.append(["Not played: the CG ended first."])
        else:
            items.append([f"Not played yet (the campaign stands at step {st.step} {BY_ID[st.step].name})."])
        return items
    e = info.ended.event
    items.append([("b", "End:"), f" turn {e.turn} (seq {info.ended.seq})."])
    patrols = getattr(ff, "patrol_cvp", None) or {"axis": 0, "allied": 0}
    extra = {s: ff.cvp_lost[s] - e.cvp_lost[s] - patrols[s] for s in ("axis", "allied")}
    cvp = "; ".join(f"{_side(s)} {ff.cvp_lost[s]}" + (f" (incl. {extra[s]} in the RePh, 3.11)" if extra[s] else "")
                    + (f" (incl. {patrols[s]} by patrols, 2.756)" if patrols[s] else "")
                    for s in ("axis", "allied"))
    items.append([("b", "CVP lost:"), f" {cvp}."])
    rule = e.winner_rule  # None: a log written before it was recorded (the schema's default)
    items.append([("b", "Winner:"), f" {_side(e.winner)}" + (f" ({rule})." if rule else ".")])
    if e.vasl_logs:  # the firefight's evidence (end --vasl-log, issue 37 item 11)
        items.append([("b", "VASL logs:"), " " + vasl_words([{"name": x.name, "sha256": x.sha256} for x in e.vasl_logs])
                      + "."])
    before, after = info.control_before or {}, info.control_after or {}
    changes = [f"{hx} {_side(before.get(hx)) if before.get(hx) else 'uncontrolled'} → "
               f"{_side(after.get(hx)) if after.get(hx) else 'uncontrolled'}"
               for hx in sorted(set(before) | set(after), key=_hex_key) if before.get(hx) != after.get(hx)]
    held = [f"{_side(c.side)} {c.hex}" for c in e.control]
    if changes:
        items.append([("b", "Control changes:"), " " + "; ".join(changes) + "."])
    else:
        items.append([("b", "Control changes:"), " none" + (f" ({', '.join(held)} confirmed)" if held else "") + "."])
    lost = {}
    for side, uid in ff.lost:
        u = st.unit(uid, side)
        lost.setdefault(side, []).append(f"{uid} {u.name}" if u is not None else uid)
    if lost:
        items.append([("b", "Units lost:"), " " + "; ".join(
            f"{_side(s)} {len(v)} ({', '.join(v)})" for s, v in lost.items()) + "."])
    changed = _counters_changed(h, info)
    if changed:
        items.append([("b", "Counters changed:"), " " + "; ".join(changed) + "."])
    kept = [f"{t.hex} {_SNAKE.sub(' ', t.item)}" for t in e.terrain]
    # and what the RePh's own commands made (B24.11 rubble, Table 23 flame, 3.31 fire: issue 27 item 4)
    kept += [f"{c.hex} {terrain_words(c.item)} ({q.rule}, seq {seq})"
             for seq, q in info.terrain if q.rule != "3.52" for c in q.changes if c.change == "add"]
    if kept:
        items.append([("b", "Terrain kept (CG5):"), " " + ", ".join(kept) + "."])
    if info.tvp is not None:
        t = info.tvp.event
        items.append([("b", "TVP (3.33):"), " " + "; ".join(
            f"{_side(s)} {t.tvp[s]} (CG total {t.total[s]})" for s in ("axis", "allied")) + "."])
    return items


def _counters_changed(h: History, info: FirefightHistory) -> list[str]:
    """Every unit whose counter or standing a result of this firefight and its RePh changed (issues 14, 38),
    with its rule: Casualty Reduction, ELR replacement, captures, exits, Heroes (2.9), patrol results (2.74,
    R29), Redeployment results (3.21), Disease replacements (3.41), recombined half-squads (3.42), Battle
    Hardening (3.43-3.45, sealed ones once revealed), a clearance's Casualty Reduction (3.52). Gathered by
    the walk (_changes, in the order of the Sequence's lines)."""
    return info.changed


# the events whose results change counters (_changes)
_CHANGES = frozenset(("firefight_ended", "patrol_resolved", "patrol_returned", "redeployed", "disease_replaced",
                      "casualty_reduced", "half_squads_recombined", "unit_hardened"))


def _changes(etype: str, p: dict, out: list) -> None:
    """What one event of the Sequence (not a play-by-email record; its payload as stored) changed of the
    counters, in words, added to `out` (_counters_changed)."""
    # the one read of a payload by key left in the report, for speed: a redeployment that changes no counter (~48,000
    # rows at 100k events, ~2 us each to build again with its Roll) is passed over on its stored `change`
    if etype not in _CHANGES or etype == "redeployed" and p.get("change") is None:
        return
    e = build(REGISTRY[etype], p)

    def change(side: str, unit: str, to: str, why: str) -> None:
        what = to if to in ("eliminated", "wounded", "captured") else f"now {to}"
        out.append(f"{_side(side)} {unit} {what} ({why})")

    if etype == "firefight_ended":
        for c in e.reduced:
            change(c.side, c.unit, c.to, "Casualty Reduction, 2.9")
        for c in e.replaced:
            change(c.side, c.unit, c.to, "ELR replacement, A19.13")
        out += [f"{_side(su.side)} {su.unit} captured (2.9)" for su in e.captured]
        out += [f"{_side(su.side)} {su.unit} exited (CG8)" for su in e.exited]
        out += [f"{_side(su.side)} {su.unit} Hero (3.43)" for su in e.hero]
    elif etype in ("patrol_resolved", "patrol_returned"):
        for c in e.losses:
            change(c.side, c.unit, c.to, f"patrol {e.patrol}, 2.74")
    elif etype == "redeployed":
        if e.change:
            change(e.side, e.unit, e.change, "Redeployment, 3.21")
    elif etype == "disease_replaced":
        c = e.change
        change(c.side, c.unit, c.to, "Disease & Starvation, 3.41")
    elif etype == "casualty_reduced":
        c = e.change
        change(c.side, c.unit, c.to, f"Casualty Reduction of the {e.hex} clearance, 3.52")
    elif etype == "half_squads_recombined":
        out.append(f"{_side(e.side)} {e.keep} and {e.gone} recombined into a {e.to} (3.42)")
    elif e.to or e.fanatic:  # unit_hardened
        what = "leader Battle Hardening" if e.by == "3.45" else "Battle Hardening"
        out.append(f"{_side(e.side)} {e.unit} " + ("Fanatic" if e.fanatic else f"now {e.to}") + f" ({what}, {e.by})")


def _hex_key(hx: str):
    m = re.match(r"^([A-Za-z]+)(\d+)$", hx)
    return (len(m.group(1)), m.group(1), int(m.group(2))) if m else (99, hx, 0)


def _or_sealed(x) -> str:
    return "sealed" if x is None else str(x)


def _roster(h: History) -> list:
    st = h.final
    rows = h.roster()
    table = []
    hidden_spent = {"axis": 0, "allied": 0}
    for r in rows:
        first = r["side"] == "axis"
        if (r["firefight"], r["side"]) in h.secret:
            hidden_spent[r["side"]] += r["cp_spent"] or 0
        gained, spent, left = h.cp(r["firefight"], r["side"])
        r = {**r, "cp_gained": gained, "cp_spent": spent, "cp_left": left}
        table.append([
            str(r["firefight"]) if first else "", r["date"] if first else "", r["time"] if first else "",
            (TYPE.get(r["type"], r["type"]) if r["type"] else "") if first else "", _side(r["side"]),
            "" if r["elr"] is None else str(r["elr"]), "" if r["san"] is None else str(r["san"]),
            str(r["cp_gained"]), str(r["cp_spent"]), str(r["cp_left"]),
            "" if r["cvp_lost"] is None else str(r["cvp_lost"]), str(r["tvp"]), str(r["cg_tvp"]),
            "won" if r["winner"] == r["side"] else "",
        ])
    head = ["FF", "Date", "Time", "Type", "Side", "ELR", "SAN", "CP gained", "CP spent", "CP left", "CVP lost",
            "TVP", "CG TVP", ""]
    out = [("open", "section", "roster", "roster"), ("h", 2, ["CG Roster"], "roster"),
           ("open", "div", "rosterpair", "pair"),  # in HTML the totals stand beside the table
           ("table", head, table, {0, 5, 6, 7, 8, 9, 10, 11, 12}), ("open", "div", "totals", "totals")]
    t = totals(rows)
    out.append(("h", 3, ["Totals"], None))
    out.append(("ul", [[("b", f"{_side(s)}:"), f" CP gained {_or_sealed(v['cp_gained'])}, spent "
                        f"{_or_sealed(None if v['cp_spent'] is None else v['cp_spent'] - hidden_spent[s])}"
                        + (" (and what is not yet revealed)" if any(k[1] == s for k in h.secret) else "")
                        + f"; CVP lost {v['cvp_lost']}; firefights won {v['wins']}; CG TVP {st.sides[s].tvp_total}."]
                       for s, v in t.items()], "facts"))
    if h.secret:
        out.append(("p", [("i", "? : spending not yet revealed (ruling R10).")]))
    out += [("close", "div"), ("close", "div"), ("close", "section")]
    return out


def chart_series(h: History) -> dict:
    """Per firefight and side: CP gained and left, ELR and SAN after the RePh (carried over a firefight
    that did not roll them), CVP lost, CG TVP (carried over an Idle firefight). None where the campaign
    has not got there: CP gained before 2.1 is over, CP left before 2.3 is, the rest before the firefight's
    RePh is (or, once the CG has ended, for the firefights it never reached)."""
    st = h.final

    rows = {(r["firefight"], r["side"]): r for r in h.roster()}  # ruling R47: a sealed figure is None, not charted

    def past(n: int, step: str) -> bool:
        if n != st.firefight:
            return n < st.firefight
        return st.ended or ORDER[st.step] > ORDER[step]
    out = {k: {s: [] for s in ("axis", "allied")} for k in ("cp_gained", "cp_left", "elr", "san", "cvp", "tvp")}
    elr = {s: st.card.sides[s].elr for s in ("axis", "allied")}
    san = {s: st.card.sides[s].san for s in ("axis", "allied")}
    tvp = {s: 0 for s in ("axis", "allied")}
    for ff in st.firefights:
        info = h.firefights.get(ff.n)
        done = past(ff.n, "3.52") and (ff.n < st.firefight or ff.turn is not None or ff.winner is not None
                                          or ff.type == "idle")
        for s in ("axis", "allied"):
            row = rows[(ff.n, s)]
            out["cp_gained"][s].append(row["cp_gained"] if past(ff.n, "2.1") else None)  # None: sealed (R47)
            out["cp_left"][s].append(None if (ff.n, s) in h.secret or not past(ff.n, "2.3") else row["cp_left"])
            elr[s] = ff.elr.get(s, elr[s])
            san[s] = ff.san.get(s, san[s])
            out["elr"][s].append(elr[s] if done else None)
            out["san"][s].append(san[s] if done else None)
            played = ff.turn is not None or ff.winner is not None or ff.type == "idle"  # ended: a draw too (R5)
            out["cvp"][s].append(ff.cvp_lost[s] if played else None)
            if info is not None and info.tvp is not None:
                tvp[s] = ff.tvp_total[s]
            out["tvp"][s].append(tvp[s] if done else None)
    return out


def _charts(h: History) -> list:
    st = h.final
    x = [f"FF{ff.n}" + (" idle" if ff.type == "idle" else "") for ff in st.firefights]
    d = chart_series(h)
    charts = [
        ("CP per firefight: gained and left",
         {"Axis gained": d["cp_gained"]["axis"], "Axis left": d["cp_left"]["axis"],
          "Allied gained": d["cp_gained"]["allied"], "Allied left": d["cp_left"]["allied"]},
         {"Axis left": {"marker": "triangle", "dash": "2 3"}, "Allied gained": {"marker": "square", "dash": "7 4"},
          "Allied left": {"marker": "diamond", "dash": "10 3 2 3"}}, "CP",
         "CP gained: the Initial Firefight's CP from the CG Card, then the 2.1 replenishment; CP left: what "
         "each side kept after its purchases."),
        ("ELR after each firefight (3.47)", {"Axis": d["elr"]["axis"], "Allied": d["elr"]["allied"]}, {}, "ELR",
         "ELR after the RePh's 3.47 DR (carried over a firefight that rolled none)."),
        ("SAN after each firefight (3.51)", {"Axis": d["san"]["axis"], "Allied": d["san"]["allied"]}, {}, "SAN",
         "SAN after the RePh's 3.51 adjustment (carried over a firefight that made none)."),
        ("CVP lost per firefight", {"Axis": d["cvp"]["axis"], "Allied": d["cvp"]["allied"]}, {}, "CVP",
         "CVP each side lost in the firefight, RePh losses included (3.11); none for an Idle Firefight."),
        ("CG TVP (running total, 3.33)", {"Axis": d["tvp"]["axis"], "Allied": d["tvp"]["allied"]}, {}, "TVP",
         "The CG TVP total after each firefight's Consequences Phase (3.33)."),
    ]
    out: list = [("open", "section", "charts", "charts"), ("h", 2, ["Charts"], "charts")]
    for i, (title, series, styles, ylab, caption) in enumerate(charts, 1):
        out.append(("figure", "chart", line_chart(title, series, x, styles=styles, y_label=ylab,
                                                  width=380, height=215,
                                                  chart_id=f"chart{i}"), caption))
    out.append(("close", "section"))
    return out


def dice_section(h: History) -> list:
    """The dice of the CG per side (plcg dice-stats): DR totals observed against fair dice, with
    the chi-square p-value in the caption. The rolls are the walk's (walk(dice=True)): every roll of the
    log, a sealed one where the log reveals it (ruling R47)."""
    rolls = h.rolls
    out: list = [("open", "section", "dice", "dice"), ("h", 2, ["Dice"], "dice")]
    for side in ("axis", "allied"):
        d = section_stats(rolls, side)
        for name, label in (("DR", "DR totals"), ("dr", "dr results")):
            t = d[name]
            if not t["rolls"]:
                continue
            keys = list(t["observed"])
            series = {f"{_side(side)} observed": [t["observed"][k] for k in keys],
                      "fair dice": [t["expected"][k] for k in keys]}
            src = ", ".join(f"{v} {k}" for k, v in sorted(d["sources"].items()))
            cap = (f"{_side(side)}: {t['rolls']} {name}s, mean {t['mean']} (fair {t['expected_mean']});"
                   f" chi-square {t['chi_square']:.2f} on {t['df']} df, p = {t['p_value']:.3f}"
                   + (" — few rolls: read with care" if t["small_sample"] else "")
                   + f". All {_side(side)} rolls: {src}.")
            svg = line_chart(f"{_side(side)} {label}: observed and fair", series, keys,
                             styles={"fair dice": {"color": "#888888", "dash": "6 4"}}, y_label="rolls",
                             width=290, height=185, chart_id=f"dice-{side}-{name}")
            out.append(("figure", "chart", svg.replace('<svg class="chart"', '<svg class="chart dice"', 1), cap))
    out.append(("close", "section"))
    return out


def _undos(h: History) -> list:
    by_seq = h.named
    st = h.final
    out: list = [("open", "section", "undos", "undos"), ("h", 2, ["Undos"], "undos")]
    reverts = h.reverts
    if not reverts:
        out.append(("p", ["No undo: every command stands as first recorded."]))
    for r in reverts:
        p = r.event
        head = [("seq", str(r.seq)), f"firefight {r.firefight}, step {r.step}: undo of seq "
                f"{_ranges(p.seqs)} — “{p.reason}”"]
        if p.force:
            head.append(" (forced across a firefight commencement, 2.8)")
        if r.seq in h.undone:
            head.append(" — this undo was itself undone")
        out.append(("p", head))
        items = []
        for s in p.seqs:
            e = by_seq.get(s)
            if e is None or e.type == "step_left":
                continue
            text = narrate(e.type, e.payload, st)
            if s in h.undone:
                items.append([("seq", str(s)), ("s", text)])
            else:
                items.append([("seq", str(s)), text, " (restored)"])
        if items:
            out.append(("ul", items, "events"))
    out.append(("close", "section"))
    return out


def _ranges(seqs) -> str:
    seqs = sorted(seqs)
    parts, i = [], 0
    while i < len(seqs):
        j = i
        while j + 1 < len(seqs) and seqs[j + 1] == seqs[j] + 1:
            j += 1
        parts.append(str(seqs[i]) if i == j else f"{seqs[i]}–{seqs[j]}")
        i = j + 1
    return ", ".join(parts)


# ---- Markdown ---------------------------------------------------------------------------------------

# what a Markdown renderer would take for HTML (CommonMark 6.6, 6.5): a tag, a comment, a declaration or an
# autolink opens with "<" then a letter, "/", "!" or "?"; an entity or character reference is "&name;" or "&#..;"
_MD_HTML = re.compile(r"<(?=[A-Za-z/!?])|&(?=#?[A-Za-z0-9]+;)")


def _md_text(text: str) -> str:
    """Text as Markdown shows it and never as HTML a renderer would run: a "<" or "&" that would open a tag or
    an entity is backslash-escaped (CommonMark 2.4), every other one stays as written, so the text reads the
    same raw and rendered ("Disease & Starvation", "row <=3"; issue 38: no entities)."""
    return _MD_HTML.sub(lambda m: "\\" + m.group(0), str(text))


def _inline(parts, esc, forms: dict, link=None) -> str:
    """Inline parts in one format: plain text through `esc`; a (style, text) through forms[style], a template
    of the escaped text `{t}` or a function of the raw text (a style without a form: the text alone); a
    "link:#id" through link(id, escaped text), else the text alone."""
    out = []
    for x in parts:
        if isinstance(x, str):
            out.append(esc(x))
            continue
        style, text = x
        if style.startswith("link:"):
            out.append(link(style[5:], esc(text)) if link else esc(text))
            continue
        form = forms.get(style, "{t}")
        out.append(form(text) if callable(form) else form.format(t=esc(text)))
    return "".join(out)


_MD_FORMS = {"b": "**{t}**", "i": "*{t}*", "s": "~~{t}~~", "seq": "[{t}] ",
             "code": lambda text: "`" + str(text).replace("`", "'") + "`"}


def _md_inline(parts) -> str:
    return _inline(parts, _md_text, _MD_FORMS)


def _md_cell(text: str) -> str:
    return _md_text(text).replace("|", "\\|").replace("\n", " ")


def iter_md(blocks):
    """The Markdown report in pieces, as the blocks come."""
    first = True
    for b in blocks:
        out: list[str] = []
        kind = b[0]
        if kind == "h":
            out.append("#" * b[1] + " " + _md_inline(b[2]))
        elif kind == "p":
            out.append(_md_inline(b[1]))
        elif kind == "ul":
            out.append("\n".join("- " + _md_inline(item) for item in b[1]))
        elif kind == "summary":  # the heading of a folded part (HTML <details>)
            out.append("### " + _md_inline(b[1]))
        elif kind == "email":  # play-by-email records: one summarising line (HTML opens them on demand)
            out.append("*" + _md_inline(b[1]) + "*")
        elif kind == "table":
            head, rows, numeric = b[1], b[2], b[3]
            if len(b) > 4 and b[4]:
                out.append(f"**{b[4]}**")
            lines = ["| " + " | ".join(_md_cell(h) for h in head) + " |",
                     "|" + "|".join("---:" if i in numeric else "---" for i in range(len(head))) + "|"]
            lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in rows]
            out.append("\n".join(lines))
        # figures and section wrappers are HTML only
        if out:  # a table with its caption is two pieces: both are printed (issue 27 item 3)
            text = "\n\n".join(out)
            yield text if first else "\n\n" + text
            first = False
    yield "\n"


# ---- BBCode (a forum post) ---------------------------------------------------------------------------
# The report for a forum that takes BBCode (issue 38 item 2): the overview and the verdict, each firefight's
# facts, purchases and result as [table] rows, the CG Roster; the step-by-step sequences, setups, charts, dice
# and maps stay in the HTML report, which the post links to (each firefight's map by its anchor, #mapN).

_BB_TAG = re.compile(r"\[(?=/?[A-Za-z*])")


def _bb_text(text: str) -> str:
    """Text as a forum shows it, never as a tag: a "[" that would open one ("[b]", "[/table]", "[*]") gets a
    zero-width space after it (BBCode has no escape), every other "[" stays."""
    return _BB_TAG.sub("[\u200b", str(text))


_BB_FORMS = {"b": "[b]{t}[/b]", "i": "[i]{t}[/i]", "s": "[s]{t}[/s]", "seq": "#{t} "}  # "[12]" would read as a tag


def _bb_inline(parts) -> str:
    return _inline(parts, _bb_text, _BB_FORMS)


def _bb_row(cells, tag: str = "td") -> str:
    return "[tr]" + "".join(f"[{tag}]{c}[/{tag}]" for c in cells) + "[/tr]"


# the firefight facts whose lists a post over the limit counts instead of naming (the HTML report names them),
# with the separator of their entries
_BB_LISTS = {"Counters changed:": "; ", "Control changes:": "; ", "Terrain kept (CG5):": ", "}


def _bb_fact(item) -> str | tuple[str, str]:
    """One "Label: text" fact as a table row; a long list's row as (row, the row with its entries counted)."""
    label = item[0][1]
    text = _bb_inline(item[1:]).strip()
    row = _bb_row([_bb_inline([item[0]]), text])
    if label == "Units lost:":  # "Axis 2 (I1-1.1 4-6-7, ...); Allied 1 (...)." -> "Axis 2; Allied 1."
        return row, _bb_row([_bb_inline([item[0]]), re.sub(r" \([^()]*\)", "", text)])
    sep = _BB_LISTS.get(label)
    if sep is None or not text or text.startswith("none"):
        return row
    n = len(text.split(sep))
    return row, _bb_row([_bb_inline([item[0]]), f"{n}, named in the HTML report."])


def bbcode_post(blocks, url: str, played: set, limit: int = BBCODE_LIMIT) -> str:
    """The report's blocks as one BBCode post (see above), under `limit` characters where it can be: a post
    that would pass it counts each firefight's long lists (counters changed, control changes, terrain kept,
    the units lost) instead of naming them, and says so."""
    pieces = list(_bb_pieces(blocks, url, played))
    full = "".join(p if isinstance(p, str) else p[0] for p in pieces)
    if len(full) <= limit:
        return full
    note = (f"[i]Each firefight's lists are counted here and named in the HTML report: named, this post would pass "
            f"a forum post's {limit:,} characters.[/i]\n")
    return note + "".join(p if isinstance(p, str) else p[1] for p in pieces)


def _bb_pieces(blocks, url: str, played: set):
    """bbcode_post's pieces: text, or (text, its shorter form). `url`: where the HTML report is; `played`: the
    firefights with a map in it."""
    url = _bb_text(url).replace("]", "%5D")
    skip = 0  # inside a part the post leaves to the HTML report (a sequence, a setup, the charts, the dice)
    ff = None
    yield (f"[url={url}]The whole report (HTML): each firefight step by step, setups, maps, charts and dice[/url]"
           "\n")
    for b in blocks:
        kind = b[0]
        if kind == "open":
            if skip or b[2].startswith(("seq", "setup", "charts", "dice")) or b[3] == "toc":
                skip += 1
            elif b[3] == "firefight":
                ff = int(b[2][2:])
            continue
        if kind == "close":
            if skip:
                skip -= 1
            elif b[1] == "section" and ff is not None:
                if ff in played:
                    yield f"[url={url}#map{ff}]Map after firefight {ff}[/url]\n"
                ff = None
            continue
        if skip or kind in ("figure", "email"):
            continue
        if kind == "h":
            if b[1] == 3 and b[2] == ["Setup"]:  # the setup tables are the HTML's
                continue
            text = f"[b]{_bb_inline(b[2])}[/b]"
            yield "\n" + (f"[size=150]{text}[/size]" if b[1] == 1 else f"[size=120]{text}[/size]" if b[1] == 2
                          else text) + "\n"
        elif kind == "summary":
            yield f"\n[b]{_bb_inline(b[1])}[/b]\n"
        elif kind == "p":
            yield _bb_inline(b[1]) + "\n"
        elif kind == "ul":
            items = b[1]
            if items and all(not isinstance(i[0], str) and i[0][0] == "b" for i in items):  # "Label: text" facts
                yield "[table]"
                yield from (_bb_fact(i) for i in items)
                yield "[/table]\n"
            else:
                yield "[list]" + "".join(f"[*]{_bb_inline(i)}" for i in items) + "[/list]\n"
        elif kind == "table":
            head, rows = b[1], b[2]
            cap = f"[b]{_bb_text(b[4])}[/b]\n" if len(b) > 4 and b[4] else ""
            yield cap + "[table]" + _bb_row([_bb_text(x) for x in head], "th") + "".join(
                _bb_row([_bb_text(c) for c in row]) for row in rows) + "[/table]\n"


# ---- HTML -------------------------------------------------------------------------------------------

STYLE = """
:root { color-scheme: light; --axis: #2f5b8a; --allied: #5c8a1e; }
* { box-sizing: border-box; }
body { font: 16px/1.35 Georgia, "Times New Roman", serif; color: #1d1d1d; background: #fff;
       max-width: 78rem; margin: 1.2rem auto; padding: 0 1.2rem; }
h1 { font-size: 1.9rem; border-bottom: 3px double #333; padding-bottom: .3rem; margin-bottom: .4rem; }
h2 { font-size: 1.45rem; border-bottom: 1px solid #999; margin: 1.3rem 0 .5rem; }
h3 { font-size: 1.1rem; margin: .8rem 0 .3rem; }
div.cols { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 0 2rem; }
div.pair { display: flex; flex-wrap: wrap; gap: 0 1.5rem; align-items: flex-start; }
details { margin: .3rem 0; }
details > summary { cursor: pointer; }
details > summary h3 { display: inline; margin: 0; }
details > summary .note { font-size: .85rem; color: #555; }
details.email { margin: 0 0 .4rem; font-size: .85rem; color: #555; }
details.email > summary { font-style: italic; }
caption { text-align: left; font-weight: bold; padding: .1rem 0; }
section.charts { display: grid; grid-template-columns: repeat(3, minmax(0, 1fr)); gap: 0 1.2rem; }
section.charts > h2 { grid-column: 1 / -1; }
section.dice { display: grid; grid-template-columns: repeat(4, minmax(0, 1fr)); gap: 0 1rem; }
section.dice > h2 { grid-column: 1 / -1; }
section.dice figcaption { font-size: .72rem; }
h4 { font-size: 1rem; margin: .9rem 0 .2rem; color: #333; }
p, ul { margin: .4rem 0; }
ul.facts { padding-left: 1.2rem; }
ul.events { list-style: none; padding-left: 0; font-size: .95rem; }
ul.events li { padding-left: 3.2em; text-indent: -3.2em; margin: .1rem 0; }
.seq { display: inline-block; min-width: 3em; text-indent: 0; color: #777;
       font: .8rem/1 ui-monospace, "DejaVu Sans Mono", monospace; }
code { font: .85em ui-monospace, "DejaVu Sans Mono", monospace; background: #f3f3f3; padding: 0 .2em; }
del { color: #9b2c2c; }
table { border-collapse: collapse; margin: .3rem 0 .6rem; font: .82rem/1.3 system-ui, "Segoe UI", Arial, sans-serif; }
th, td { border: 1px solid #bbb; padding: .1rem .4rem; vertical-align: top; }
th { background: #ececec; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tbody tr:nth-child(4n+1), tbody tr:nth-child(4n+2) { background: #fafafa; }
figure { margin: .5rem 0 .8rem; }
figure svg { display: block; max-width: 100%; height: auto; border: 1px solid #ddd; }
details.map > summary { margin-left: calc(50% + 1rem); }
figcaption { font-size: .8rem; line-height: 1.3; color: #555; margin-top: .2rem; }
nav.toc { margin: .6rem 0 0; }
nav.toc ul { display: flex; flex-wrap: wrap; gap: .1rem 1.4rem; list-style: none; padding: 0; margin: 0;
             font-size: .9rem; }
div.totals { flex: 1 1 18rem; }
div.totals h3 { margin-top: .2rem; }
a { color: #2f5b8a; }
@media print {
  body { max-width: none; margin: 0; padding: 0; font-size: 10.5pt; }
  nav.toc { display: none; }
  section.firefight, section.roster, section.charts, section.dice, section.undos { break-before: page; }
  h2, h3, h4 { break-after: avoid; }
  figure, table, li { break-inside: avoid; }
  figure svg { border: none; }
  a { color: inherit; text-decoration: none; }
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
}
"""


# what html.escape replaces (with quote, and without): a text holding none of them is its own escape, and most of a
# report's ~400,000 texts at 100k events hold none (a seq, a hex, a counter's name)
_SPECIAL = re.compile("[&<>\"']").search
_SPECIAL_TEXT = re.compile("[&<>]").search


def _esc(text: str) -> str:
    """html.escape(text), the same string, without its five replacements where there is nothing to replace."""
    return escape(text) if _SPECIAL(text) else text


def _html_text(text) -> str:
    text = str(text)
    return escape(text, quote=False) if _SPECIAL_TEXT(text) else text


def _html_form(head: str, tail: str):
    return lambda text: head + _html_text(text) + tail


# each a function of the raw text (_inline): the escaped text between its tags, without a str.format per part
_HTML_FORMS = {"b": _html_form("<strong>", "</strong>"), "i": _html_form("<em>", "</em>"),
               "s": _html_form("<del>", "</del>"), "code": _html_form("<code>", "</code>"),
               "seq": _html_form('<span class="seq">[', "]</span> ")}


def _html_rows(rows: list, numeric: set):
    """A table's body rows (<tr>), each cell escaped (_esc): a row with nothing to escape in any cell (most of the
    ~50,000 setup rows at 100k events: a unit, a counter, a hex, a seq) is joined as it is, one search a row."""
    forms: dict = {}  # a row's form by its count of cells (a table's rows have one): one format call a row
    for row in rows:
        form = forms.get(len(row))
        if form is None:
            form = forms[len(row)] = "<tr>" + "".join(('<td class="num">' if i in numeric else "<td>") + "{}</td>"
                                                      for i in range(len(row))) + "</tr>"
        yield form.format(*([_esc(c) for c in row] if _SPECIAL("".join(row)) else row))


def _html_body(rows: list, numeric: set) -> str:
    """A table's body (_html_rows joined). Where every row has as many cells and no cell holds anything to escape
    (a setup table: ~50,000 rows at 100k events, one search for the whole table), its cells are joined once,
    each between the tags it stands between (the same text as a row at a time)."""
    if not rows or len(set(map(len, rows))) != 1:
        return "".join(_html_rows(rows, numeric))
    cells = list(chain.from_iterable(rows))
    if _SPECIAL("".join(cells)):
        return "".join(_html_rows(rows, numeric))
    n = len(rows[0])
    opens = [('<td class="num">' if i in numeric else "<td>") for i in range(n)]
    # before each cell: its <td> (the first of a row after the last row's end), then the table's last end
    before = ["</td></tr><tr>" + opens[0], *("</td>" + o for o in opens[1:])] * len(rows)
    before[0] = "<tr>" + opens[0]
    both: list = [None] * (2 * len(cells))
    both[0::2] = before
    both[1::2] = cells
    both.append("</td></tr>")
    return "".join(both)


def _html_li(parts) -> str:
    """An item of a list: _html_inline's, between its tags; a Sequence line's (its seq, a number, and its words:
    ~50,000 at 100k events) without the general path's calls."""
    if len(parts) == 2:
        a, b = parts
        if type(b) is str and type(a) is tuple and a[0] == "seq" and a[1].isdigit():  # (isdigit: nothing to escape)
            return '<li><span class="seq">[' + a[1] + "]</span> " + (
                escape(b, quote=False) if _SPECIAL_TEXT(b) else b) + "</li>"
    return "<li>" + _html_inline(parts) + "</li>"


def _html_link(target: str, t: str) -> str:
    return f'<a href="{escape(target)}">{t}</a>' if target.startswith("#") else t


def _html_inline(parts) -> str:
    if len(parts) == 2:  # most of a report's ~100,000 inlines at 100k events: a Sequence line, its seq and words
        a, b = parts
        if type(b) is str and type(a) is tuple and a[0] == "seq":  # (what _inline makes of it)
            return '<span class="seq">[' + _html_text(a[1]) + "]</span> " + _html_text(b)
    return _inline(parts, _html_text, _HTML_FORMS, _html_link)


def iter_html(blocks, title: str):
    """The HTML report in pieces, as the blocks come: each line with its newline."""
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           '<meta name="generator" content="plcg">',
           f"<title>{escape(title)}</title>", f"<style>{STYLE}</style>", "</head>", "<body>", "<main>"]
    yield "\n".join(out) + "\n"
    for b in blocks:
        out = []
        kind = b[0]
        if kind == "h":
            anchor = f' id="{escape(b[3])}"' if b[3] and b[1] == 1 else ""
            out.append(f"<h{b[1]}{anchor}>{_html_inline(b[2])}</h{b[1]}>")
        elif kind == "p":
            out.append(f"<p>{_html_inline(b[1])}</p>")
        elif kind == "ul":
            cls = f' class="{b[2]}"' if len(b) > 2 and b[2] else ""
            out.append(f"<ul{cls}>" + "".join([_html_li(i) for i in b[1]]) + "</ul>")
        elif kind == "table":
            head, rows, numeric = b[1], b[2], b[3]
            th = "".join(f'<th scope="col">{_esc(h)}</th>' for h in head)
            body = _html_body(rows, numeric)
            cap = f"<caption>{escape(b[4])}</caption>" if len(b) > 4 and b[4] else ""
            out.append(f"<table>{cap}<thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>")
        elif kind == "email":
            out.append(f'<details class="email"><summary>{_html_inline(b[1])}</summary><ul class="events">'
                       + "".join([_html_li(i) for i in b[2]]) + "</ul></details>")
        elif kind == "summary":
            note = f' <span class="note">{escape(b[2])}</span>' if len(b) > 2 and b[2] else ""
            out.append(f"<summary><h3>{_html_inline(b[1])}</h3>{note}</summary>")
        elif kind == "figure":
            out.append(f'<figure class="{b[1]}">{b[2]}<figcaption>{escape(b[3])}</figcaption></figure>')
        elif kind == "open":
            out.append(f'<{b[1]} id="{escape(b[2])}" class="{escape(b[3])}">')
        elif kind == "close":
            out.append(f"</{b[1]}>")
        if out:
            yield out[0] + "\n"
    yield "</main>\n</body>\n</html>\n"


# ---- `plcg export` (out of cli.py, issue 33 item 5) ------------------------------------------------

EXPORT_WHAT = {"jsonl": "the raw log (JSON Lines)", "md": "the After Action Report (Markdown)",
               "html": "the After Action Report (HTML)"}


def _size(n: int) -> str:
    """A file's size as a player reads it: '812 bytes', '41 KB', '2.3 MB'."""
    if n < 1024:
        return f"{n} byte{'s' if n != 1 else ''}"
    if n < 1024 * 1024:
        return f"{n / 1024:.0f} KB"
    return f"{n / (1024 * 1024):.1f} MB"


def batched(pieces, size: int = 1 << 16):
    """Text pieces joined into strings of about `size` characters: one write each."""
    buf, n = [], 0
    for p in pieces:
        buf.append(p)
        n += len(p)
        if n >= size:
            yield "".join(buf)
            buf, n = [], 0
    if buf:
        yield "".join(buf)


def export_batches(led, fmt: str, url: str):
    """The export of `led` in `fmt`, in strings of about 64 KB: one write each."""
    return batched(export_chunks(led, fmt, url))


def wrote(fmt: str, path: str, size: int) -> str:
    """`export -o FILE`'s line: what was written where, and its size."""
    return f"wrote {EXPORT_WHAT.get(fmt, fmt)} to {path} ({_size(size)})"
