"""`plcg sync` (issue 26), and the pieces `receive` and `bundle` share with it: play by email in one
command a turn, in the application layer (issue 33 item 5: out of cli.py). It takes in every new bundle of a
folder or a git clone (cg/app/medium.py), joins two copies that parted (ruling R113), answers and reveals
what the player owes, and sends what the other copy lacks.

It prints nothing itself: what it says goes through the command line's `Voice` (the words for an event,
for what a command recorded and for whose move it is are the read models', which this layer does not
import; the audit a bundle passes is the ledger's own, cg/app/audit.py).
"""
from __future__ import annotations

import os
from typing import Callable, cast

import attrs
import orjson

from cg import pbem, seal
from cg.app import medium, receiving
from cg.app.ledger import Ledger
from cg.steps import BY_ID, pending
from events import bundle as bundles
from events import outpath
from events.bundle import NOTE_MAX
from events.errors import BadInput, PlcgError
from events.text import SHOWN, shown, typed_text

SYNC_MAX = 32 * 2**20  # bytes of text a bundle `sync` takes in may hold (a whole CG from seq 1 holds a few MB)
_POSITIONAL = ("side", "rg", "unit", "text")  # a command's arguments typed without a flag, in this order


@attrs.frozen
class Voice:
    """How sync speaks, given by the command line (this layer prints nothing and imports no read model)."""
    say: Callable  # say(text, err=False): one line to the player
    recorded: Callable  # recorded(events or seq): what was written is in the file from here on
    words: Callable  # words(type, payload): an event in the log's words
    stored: Callable  # stored(ledger, events, key): what a command recorded, in words
    turn: Callable  # turn(state, side, pending) -> lines: whose move it is, and what he may do now
    protected: dict  # what an output path must never be (events/outpath.py)
    out_bytes: Callable  # out_bytes(data): bytes on standard output (`-o -`)


def _signer(row) -> str:
    return orjson.loads(row[6]).get("side", "?") if row[2] == "head_signed" else "nobody"


def _checked_text(b):
    """The bundle, if what the other side typed passes the command line's text checks (issue 25 item 12):
    every command and payload, the card of row 1 too (its names reach every view); BadInput otherwise."""
    for row in b.rows:
        try:
            bad = (row[8] is not None and typed_text(orjson.loads(row[8]))) or typed_text(orjson.loads(row[6]))
        except RecursionError:
            raise BadInput(f"row {row[0]} of the bundle: nested too deep to be a row of the log") from None
        if bad:
            raise BadInput(f"row {row[0]} of the bundle: a command's text holds control characters (newlines,"
                           " escape codes): the command line refuses them; refused")
    return b


def _check_note(note: str, send: bool) -> None:
    """`sync --send --note`: one line of text for the other player, bounded (exit 2 before anything is done)."""
    if not send:
        raise BadInput("sync --note: a note travels with what you send: sync --send --note TEXT")
    if not note.strip():
        raise BadInput("sync --note: give some text")
    if SHOWN.search(note):
        raise BadInput("sync --note: one line of text: no newlines or control characters")
    if len(note) > NOTE_MAX:
        raise BadInput(f"sync --note: at most {NOTE_MAX} characters ({len(note)} given)")


def _campaign_of(db: str, found: list, key) -> str | None:
    """The hash of this copy's row 1; for a copy not made yet, the campaign of the bundles from seq 1
    whose players' keys hold this player's (one read whole at a time)."""
    if os.path.exists(db):
        led = Ledger(db)
        try:
            return led.store.hash_at(1)
        finally:
            led.close()
    firsts = {h.campaign: p for p, h in found if h.since == 0}
    if len(firsts) <= 1:
        return next(iter(firsts), None)
    me = pbem.public_line(key)
    for campaign, p in firsts.items():
        try:
            keys = (orjson.loads(bundles.read(p, SYNC_MAX).rows[0][6]).get("pbem") or {}).get("keys") or {}
        except (PlcgError, ValueError, AttributeError):
            continue
        if me in keys.values():
            return campaign
    return None


def _superseded(db: str, b, key) -> bool:
    """A bundle from before two copies were joined (ruling R113): this player's own, or one whose author has
    signed this copy since the parting."""
    fork = receiving.fork_point(db, b) if b is not None else None
    if fork is None:
        return False
    signer = _signer(b.rows[-1])
    return signer == _player_side(db, key) or receiving.signed_after(db, fork, signer)


def _read_or_none(path: str):
    try:
        return bundles.read(path, SYNC_MAX)
    except PlcgError:
        return None


def _player_side(db: str, key) -> str | None:
    led = Ledger(db)
    try:
        return led._player(key)[1]
    finally:
        led.close()


def _typed(cmd: dict) -> str:
    """A recorded command as the player typed it, near enough to type again."""
    words = [str(cmd.get("name", "?"))] + [str(cmd[k]) for k in _POSITIONAL if cmd.get(k) is not None]
    for k, v in cmd.items():
        if k in ("name", *_POSITIONAL) or v is None or v is False or v == [] or v == {}:
            continue
        flag = "--" + k.replace("_", "-")
        if v is True:
            words.append(flag)
        else:
            words.append(f"{flag} {v if not isinstance(v, (list, dict)) else orjson.dumps(v).decode()}")
    return shown(" ".join(words))


def _head(db: str) -> tuple:
    if not os.path.exists(db):
        return (0, None)
    led = Ledger(db)
    try:
        return led.store.head()
    finally:
        led.close()


def _differing(db: str, found: list) -> list:
    """Of (path, header) pairs whose head this copy's seqs reach, those whose head row differs from this copy's."""
    if not found:
        return []
    led = Ledger(db)
    try:
        return [(p, h) for p, h in found if led.store.hash_at(h.head[0]) != h.head[1]]
    finally:
        led.close()


def _hash_at(db: str, seq: int) -> str | None:
    led = Ledger(db)
    try:
        return led.store.hash_at(seq)
    finally:
        led.close()


@attrs.define
class Sync:
    """One `plcg sync` (or `receive`, `bundle`) of the copy `db`, for the player of `key`."""
    db: str
    key: object
    v: Voice

    def say(self, text: str, err: bool = False) -> None:
        self.v.say(text, err=err)

    def recorded(self, stored) -> None:
        self.v.recorded(stored)

    def words(self, etype: str, payload: dict) -> str:
        return self.v.words(etype, payload)

    def stored(self, led, stored, key) -> None:
        self.v.stored(led, stored, key)

    @property
    def protected(self) -> dict:
        return self.v.protected

    def bundle(self, since: int | None, out: str) -> None:
        """`plcg bundle`: answer the other side's two-party dice, sign the head, write what the other copy lacks."""
        if out != outpath.STDOUT:
            outpath.check_target(out, self.protected)  # before anything is signed or answered (issue 25)
        led = Ledger(self.db, write=True, key=lambda: self.key)
        try:
            stored = led.sign(self.key)
            self.recorded(stored)
            if since is None:  # issue 26: only what the other copy has not acknowledged
                since = led.acknowledged(self.key)
            rows, campaign = led.bundle_rows(since)
        finally:
            led.close()
        self._said_answers(stored, err=out == outpath.STDOUT)
        data, b = bundles.encode(rows, since, campaign)
        if out == outpath.STDOUT:
            self.v.out_bytes(data)
        else:
            outpath.write(out, [data], protected=self.protected)
        self.say(f"bundle {out}: seq {since + 1} to {b.head[0]}, signed by {_signer(rows[-1])}",
                 err=out == outpath.STDOUT)

    def receive(self, path: str) -> None:
        """`plcg receive FILE`: check the other side's bundle (signature, chain, step order, rules) and append it."""
        db = self.db
        b = _checked_text(bundles.read(path))
        start = _head(db)
        n = receiving.receive(db, b)
        self.recorded(b.head[0] if n else None)
        if n == 0:
            self.say(f"bundle {path}: already held (seq {b.since + 1} to {b.head[0]}); nothing written")
            return
        self.say(f"bundle {path}: {n} events received, now at seq {b.head[0]}")
        self._said_taken(db, start, self.key, heading=False)  # the other player's moves in the log's words
        self._said_note(db, b)
        led = Ledger(db, key=lambda: self.key)
        try:
            for item in pbem.pending_items(led.state(lazy=True)):
                self.say(f"  owed: {shown(item['what'])}")
        finally:
            led.close()

    def run(self, git_dir: str | None, folder: str | None, send: bool, give_way: bool, note: str | None) -> None:
        """`plcg sync --git DIR | --folder DIR [--send [--note TEXT]] [--give-way]`."""
        if (git_dir is None) == (folder is None):
            raise BadInput("sync: name where the bundles are: --git DIR (a clone of the shared repository) or"
                           " --folder DIR")
        where = cast(str, git_dir or folder)  # exactly one of them is given (above)
        if not os.path.isdir(where):
            raise BadInput(f"sync: {where} is not a folder")
        if git_dir is not None and not medium.is_repo(where):
            raise BadInput(f"sync --git {where}: not a git clone (git clone the shared repository there first)")
        key = self.key
        if key is None:
            raise BadInput("sync: play by email needs the player's key (--key FILE or $PLCG_KEY)")
        if git_dir is not None:
            for name in medium.mend(where):
                self.say(f"sync: committed {name}, which a stopped sync had left uncommitted")
            medium.pull(where)
        if send and give_way:
            raise BadInput("sync: --give-way takes the other player's moves in; send afterwards with --send")
        if note is not None:
            _check_note(note, send)
        if send:
            self._sync_send(where, git_dir is not None, key, note)
        else:
            self._sync_take(where, key, give_way)

    def _said_answers(self, stored, err: bool = False) -> None:
        """The answers a bundle gives to the other side's two-party dice, in the log's words."""
        for s in stored:
            if s.type == "dice_answered":
                made = "made now (ruling R83)" if any(t.type == "dice_revealed" and t.payload.get("request") ==
                                                      s.payload.get("request") for t in stored) else "made at its reveal"
                self.say(f"[{s.seq}] {self.words(s.type, s.payload)}: the other side's roll is {made}", err=err)

    def _said_note(self, db: str, b) -> None:
        """The note a bundle carries (`sync --send --note`), shown as text if its author's key signed it."""
        if b.note is None:
            return
        signer = _signer(b.rows[-1])
        led = Ledger(db)
        try:
            keys = (next(iter(led.store.read(until=1))).payload.get("pbem") or {}).get("keys") or {}
        finally:
            led.close()
        n = b.note
        if signer in keys and pbem.verify_note(keys[signer], b.campaign, b.head[0], b.head[1], n["text"], n["sig"]):
            self.say(f"note from {signer}: {shown(n['text'])}")
        else:
            self.say("sync: a note in the bundle is not signed by its author's key: not shown", err=True)

    def _skipped(self, path: str, why: str) -> None:
        self.say(f"sync: skipped {os.path.basename(path)}: {why}", err=True)

    def _bundles_in(self, where: str, db: str, key) -> list:
        """(path, header) of the bundles of this campaign in `where`, their rows unread (events.bundle.peek):
        a file that is no bundle, or another campaign's, is skipped with one line naming it, so no file
        a folder holds can keep the real bundles out (issue 37 attack 4)."""
        found = []
        for p in medium.bundle_files(where):
            try:
                found.append((p, bundles.peek(p, SYNC_MAX)))
            except PlcgError as e:
                self._skipped(p, str(e).removeprefix(f"{p}: ").removeprefix(p).strip())
        campaign = _campaign_of(db, found, key)
        mine = []
        for p, h in found:
            if h.campaign == campaign:
                mine.append((p, h))
            else:
                self._skipped(p, "a bundle of another campaign")
        return mine

    def _sync_take(self, where: str, key, give_way: bool = False) -> None:
        """Receive every bundle of `where` the copy lacks, in the history's order; say what came and what is owed."""
        db = self.db
        found = self._bundles_in(where, db, key)
        start = _head(db)
        head, taken, deferred, notes = start, set(), [], []

        def take(path, h, last: bool = False) -> None:
            nonlocal start
            taken.add(path)
            try:  # read whole only now, one bundle at a time: the folder's memory is one bundle's
                b = _checked_text(bundles.read(path, SYNC_MAX))
            except PlcgError as e:
                self._skipped(path, str(e).removeprefix(f"{path}: ").removeprefix(path).strip())
                return
            try:
                fork = receiving.fork_point(db, b) if os.path.exists(db) else None
                if fork is not None:  # the copies parted: both players acted at once (issue 37 F2, ruling R113)
                    me, signer = _player_side(db, key), _signer(b.rows[-1])
                    if _superseded(db, b, key):
                        self._skipped(path, f"{signer}'s bundle from before the copies were joined (ruling R113): the"
                                       " history has gone on from the joined copy; the file may be deleted")
                        return
                    if not (give_way or last) and receiving.signed_after(db, fork, me):
                        deferred.append((path, h))  # both sent: unless a later bundle of his joined them already
                        return
                    done = receiving.rejoin(db, b, key, give_way)
                    start = (done["fork"], None)  # the log from the parting on, as it now stands
                    self._rejoined(db, path, done)
                    notes.append(bundles.Bundle(b.campaign, b.since, b.head, b.rows[-1:], b.note))  # its note, the rows let go
                elif receiving.receive(db, b):
                    self.recorded(b.head[0])
                    notes.append(bundles.Bundle(b.campaign, b.since, b.head, b.rows[-1:], b.note))
            except PlcgError:
                self._said_taken(db, start, key)
                self.say(f"sync: refused {os.path.basename(path)}; nothing of it written", err=True)
                raise

        while True:
            left = [pb for pb in found if pb[0] not in taken]
            # what the copy holds already: a bundle that differs from it parts from it (taken first, the earliest
            # first: ruling R113 joins the copies there, and the bundles after it continue the joined copy)
            forks = sorted(_differing(db, [pb for pb in left if pb[1].head[0] <= head[0]]), key=lambda pb: pb[1].since)
            nxt = forks[0] if forks else medium.next_to_take(left, head)
            if nxt is None:
                break
            take(*nxt)
            head = _head(db)
        for p, h in deferred:
            take(p, h, last=True)  # skipped if his bundle from the joined copy came meanwhile; else refused, exit 2
        if head[0] == 0:
            raise BadInput(f"sync: {where} holds no bundle from seq 1 to make this copy from")
        self._said_taken(db, start, key)
        for b in notes:
            self._said_note(db, b)
        for p, b in medium.waiting(found, head[0]):
            self.say(f"waiting: {os.path.basename(p)} starts at seq {b.since + 1}; the bundle with seq"
                       f" {head[0] + 1}-{b.since} has not arrived yet")
        self._answer_owed(db, key)
        self._reveal_owed(db, key)
        self._say_turn(db, key)

    def _rejoined(self, db: str, path: str, done: dict) -> None:
        """What ruling R113's join did, in words: the player's own moves after the other's, each refused or held one
        named, and where the copy as it was is kept."""
        self.recorded(_head(db)[0])
        self.say(f"sync: the copies parted after row {done['fork']}: {os.path.basename(path)} holds the other"
                   " player's moves from there (both of you acted at once); your moves since, never sent, are"
                   " decided again after his (ruling R113):")
        for cmd in done["redone"]:
            self.say(f"  redone: {_typed(cmd)}")
        for cmd, why in done["refused"]:
            self.say(f"  refused: {_typed(cmd)}: {shown(why)}")
        for cmd, why in done["held"]:
            self.say(f"  held back: {_typed(cmd)}: {shown(why)}")
        if not any(done[k] for k in ("redone", "refused", "held")):
            self.say("  (no command of yours to decide again)")
        self.say(f"  this copy as it was is kept in {done['kept']} (plcg --db {done['kept']} log)")

    def _answer_owed(self, db: str, key) -> None:
        """Answer the other side's two-party dice now (ruling R83: a roll from a chain is decided by it)."""
        led = Ledger(db, write=True, key=lambda: key)
        try:
            st = led.state(lazy=True)
            by = pbem.side_of_key(st.pbem, key) if st.pbem else None
            if by is None or not pbem.unanswered(st, by) or pbem.provisional(st) is not None:
                return  # a step left provisionally by the other side: his player may still reject it (R71)
            stored = led.answer(key)
        finally:
            led.close()
        self.recorded(stored)
        self._said_answers(stored)
        self.stored(led, [s for s in stored if s.type != "dice_answered"], key)

    def _said_taken(self, db: str, start: tuple, key, heading: bool = True) -> None:
        """The rows after `start` in the log's words: the other player's moves (signatures and dice
        answers are the medium's, left out)."""
        if not os.path.exists(db):
            return
        led = Ledger(db, key=lambda: key)
        try:
            recs = [r for r in led.store.read(since=start[0])
                    if r.type not in ("head_signed", "dice_answered", "dice_chain")]
            head = led.store.head()[0]
        finally:
            led.close()
        if heading and head == start[0]:
            self.say(f"nothing new: this copy is at seq {head}")
            return
        if heading:
            self.say(f"received seq {start[0] + 1} to {head}:")
        for r in recs:
            self.say(f"[{r.seq}] {self.words(r.type, r.payload)}")

    def _reveal_owed(self, db: str, key) -> None:
        """Reveal what the player owes (two-party dice the other side answered, sealed secrets the rules
        reveal now): nothing to decide, so `sync` does it for him."""
        led = Ledger(db, write=True, key=lambda: key)
        try:
            for _ in range(3):
                st = led.state(lazy=True)
                by = pbem.side_of_key(st.pbem, key) if st.pbem else None
                due = [r for _, r in pbem.open_requests(st, side=by, answered=True) if not pbem.deferred(st, r)]
                if by is None or not (due or seal.owed(st, by)):  # ruling R119: a 2.3 roll deferred to 2.6 waits
                    break
                led.sealed_events = None  # what this reveal sealed, printed once
                stored = led.reveal(key)
                self.recorded(stored)
                self.stored(led, stored, key)
        finally:
            led.close()

    def _say_turn(self, db: str, key) -> None:
        led = Ledger(db, key=lambda: key)
        try:
            st = led.state(lazy=True)
        finally:
            led.close()
        me = pbem.side_of_key(st.pbem, key) if st.pbem else None
        self.say(f"now at firefight {st.firefight}, step {st.step} {BY_ID[st.step].name}" if not st.ended
                   else "the CG has ended")
        for line in self.v.turn(st, me, pending(st)):  # and ruling R111: what a decided roll of his now allows
            self.say(line)

    def _sync_send(self, where: str, git: bool, key, note: str | None = None) -> None:
        """Reveal what is owed, answer the other side's dice, sign, and write what the other copy lacks."""
        db = self.db
        if not os.path.exists(db):
            raise BadInput(f"sync --send: {db} does not exist (plcg sync takes the first bundle in)")
        mine = _head(db)
        for p, b in self._bundles_in(where, db, key):  # the other player sent more since this copy last took his bundles in
            if not (b.head[0] <= mine[0] and _hash_at(db, b.head[0]) == b.head[1]) and not _superseded(db, _read_or_none(p), key):
                raise BadInput(f"sync --send: {os.path.basename(p)} holds moves this copy has not taken in: run"
                               " `plcg sync` first (sending now would fork the history); nothing sent")
        self._reveal_owed(db, key)
        led = Ledger(db, write=True, key=lambda: key)
        try:
            stored = led.sign(key)
            self.recorded(stored)
            since = led.acknowledged(key)
            rows, campaign = led.bundle_rows(since)
            by = pbem.side_of_key(led.state(lazy=True).pbem, key)
        finally:
            led.close()
        self._said_answers(stored)
        path = os.path.join(where, medium.bundle_name(cast(str, by), since, rows[-1][0]))  # led.sign(key) took the key: a side's
        try:  # a file of that name that is no bundle is replaced (outpath.write: a new file renamed over it)
            there = os.path.exists(path) and bundles.peek(path).head == (rows[-1][0], rows[-1][-1])
        except PlcgError:
            there = False
        if there:
            if note is not None:
                self.say("sync: the note was not sent: the other player has these moves already (a note travels with"
                           " new moves)", err=True)
            if git and medium.unpushed(where):  # issue 37 F1: committed here, never pushed
                medium.push(where)
                self.say(f"sent again: {os.path.basename(path)} (seq {since + 1} to {rows[-1][0]}) had not reached"
                           " the shared repository, pushed")
            else:
                self.say(f"{os.path.basename(path)} is in {where} already (seq {since + 1} to {rows[-1][0]})")
            return
        signed = None if note is None else {"text": note, "sig": pbem.sign_note(key, campaign, rows[-1][0], rows[-1][-1],
                                                                                note)}
        b = bundles.write(path, rows, since, campaign, protected=self.protected, note=signed)
        if git:
            medium.commit_and_push(where, path, f"{by}: seq {since + 1} to {b.head[0]}")
        self.say(f"sent {os.path.basename(path)}: seq {since + 1} to {b.head[0]}, {os.path.getsize(path)} bytes,"
                   f" signed by {by}" + (", pushed" if git else ""))
        self._say_turn(db, key)
