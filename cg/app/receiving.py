"""Receiving the other player's signed bundle (play by email, issue 16): `receive` checks it against this copy
and appends its rows, `rejoin` joins two copies that parted (ruling R113), `fork_point` and `signed_after`
say where and whether they parted. Out of cg/app/ledger.py (they were its static methods): only `plcg sync`
(cg/app/sync.py) receives, so no other command imports the audit service or shutil for them (issue 36 item 2).
"""
from __future__ import annotations

import os
import shutil

from cg import pbem
from cg.app.audit import audit_store, audit_tail
from cg.app.ledger import VERSION, Ledger, rows_after
from cg.evolve import reverted_seqs
from events.codec import GENESIS, loads
from events.errors import BadInput, Refused
from events.store import COPIED_AFTER_KILL, Store, remove_file, temp_path


def receive(path: str, bundle) -> int:
    """Check a bundle against the copy at `path` (made from the bundle if there is none) and
    append its new rows; how many were appended (0: all held already). Nothing is written
    unless every check passes: form and hashes (events/bundle.read), the campaign, continuing
    this copy's chain (no fork, no gap), the signatures and who signed what (exit 2), the step
    order and every rule (exit 3). The audit service (cg/app/audit.py) decides: `audit_tail` the new
    rows on the copy's state at its head; a new copy is written under a temporary name, audited whole
    by `audit_store`, and renamed into place only if it is clean."""
    rows = list(bundle.rows)
    if not os.path.exists(path):
        if bundle.since != 0 or rows[0][2] != "campaign_started":
            raise BadInput(f"{path} does not exist, and the bundle starts at seq {bundle.since + 1}: only a"
                           " bundle from seq 1 (plcg bundle --since 0) makes a new copy")
        first = loads(rows[0][6])
        if not first.get("pbem"):
            raise BadInput("the campaign was not started with the players' keys: it has no signed bundles")
        _check_signatures(first["pbem"]["keys"], (0, GENESIS), rows)
        tmp = f"{path}.receiving"
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(tmp + suffix):
                os.unlink(tmp + suffix)
        store = Store.create(tmp, {"product": "plcg", "product_version": VERSION})
        try:
            store.append_rows((0, GENESIS), rows)
            _refuse_findings(audit_store(store), 0)
        except BaseException:
            store.close()
            for suffix in ("", "-wal", "-shm"):
                if os.path.exists(tmp + suffix):
                    os.unlink(tmp + suffix)
            raise
        store.close()
        if os.path.exists(path):
            os.unlink(tmp)
            raise BadInput(f"{path} appeared while the bundle was checked; nothing written")
        os.replace(tmp, path)
        return len(rows)
    store = Store.open(path, write=True)
    try:
        head = store.head()
        if store.hash_at(1) != bundle.campaign:
            raise BadInput("the bundle belongs to another campaign than this copy's")
        held = _hashes(store, rows[0][0], head[0])
        for r in rows:
            if r[0] in held and held[r[0]] != r[-1]:
                raise BadInput(f"the bundle forks the history at seq {r[0]}: this copy holds another"
                               f" row {r[0]}; refused (plcg audit --against compares two copies;"
                               f" a fork of the players, {COPIED_AFTER_KILL})")
        rows = [r for r in rows if r[0] > head[0]]
        if not rows:
            return 0
        if rows[0][0] != head[0] + 1:
            raise BadInput(f"the bundle starts at seq {rows[0][0]}, this copy ends at {head[0]}: the"
                           f" bundles with seq {head[0] + 1}-{rows[0][0] - 1} are missing")
        if rows[0][9] != head[1]:
            raise BadInput(f"the bundle does not continue this copy's chain at seq {head[0]}: a fork"
                           f" of the players, {COPIED_AFTER_KILL}")
        first = next(iter(store.read(until=1))).payload
        if not first.get("pbem"):
            raise BadInput("the campaign was not started with the players' keys: it has no signed bundles")
        _check_signatures(first["pbem"]["keys"], head, rows)
        if any(r[2] == "seals_revealed" for r in rows):
            # ruling R47: a reveal opens seals made earlier: the whole log is decided again with them open
            _check_whole(path, head, rows, audit_store)
        else:
            led = Ledger(path, store=store)
            _refuse_findings(audit_tail(led.state(), list(led.records()), rows), head[0])
        store.append_rows(head, rows)
        return len(rows)
    finally:
        store.close()

def fork_point(path: str, bundle) -> int | None:
    """The last row this copy and the bundle share, where the bundle holds another row after it that this
    copy holds too (two copies that parted: issue 37 F2); None where they do not part within the bundle."""
    store = Store.open(path)
    try:
        head = store.head()
        rows = [r for r in bundle.rows if r[0] <= head[0]]
        if not rows or store.hash_at(1) != bundle.campaign:
            return None
        held = _hashes(store, max(rows[0][0] - 1, 1), head[0])
        for r in rows:
            if held.get(r[0]) != r[-1]:
                before = held.get(r[0] - 1, GENESIS if r[0] == 1 else None)
                return r[0] - 1 if r[0] > 1 and r[9] == before else None
        return None
    finally:
        store.close()

def signed_after(path: str, seq: int, side: str | None) -> bool:
    """Whether `side` signed a head after row `seq` of this copy (its rows there were sent)."""
    store = Store.open(path)
    try:
        return any(r.payload.get("side") == side for r in store.read(since=seq) if r.type == "head_signed")
    finally:
        store.close()

def rejoin(path: str, bundle, key, give_way: bool = False) -> dict:
    """Ruling R113 (issue 37 F2): join two copies that parted because both players acted at once. The
    other side's signed bundle holds rows after the fork; this copy holds rows of its own player there,
    none of them signed (so never sent: the other player has seen none of them). The copy is built
    again: the rows up to the fork, the bundle's rows (checked as `receive` checks them), then this
    player's commands after the fork decided again in their order on top, each refused one named. A
    command that would confirm a fact the other side gave after the fork (which this player has not
    read) is held back with every later one. The copy as it was is kept beside the campaign
    (`PATH.fork-N`), so nothing is lost. {"fork", "kept", "redone", "refused", "held"}; nothing is
    written unless the whole rebuild succeeds (BadInput, Refused otherwise). Where this player has sent
    rows after the fork too, only `give_way` (his own decision, agreed by mail) lets them be decided again."""
    fork = fork_point(path, bundle)
    if fork is None:
        raise BadInput("the bundle does not continue this copy's chain and shares no row with it where they"
                       f" part: a fork of the players, {COPIED_AFTER_KILL}")
    old = Ledger(path, key=key)
    try:
        st, by = old._player(key)
        head = old.store.head()
        mine = rows_after(old.store, fork)
        signed = [r for r in mine if r[2] == "head_signed"]
        if signed and not give_way:
            who = sorted({loads(r[6]).get("side", "?") for r in signed})
            raise BadInput(
                f"the copies parted after row {fork}, and both players have sent moves since ({', '.join(who)}"
                f" signed rows {signed[0][0]}-{head[0]} of this copy, the other side's bundle rows"
                f" {fork + 1}-{bundle.head[0]}): a move the other player has seen is never taken back"
                " (ruling R113). Agree by mail whose moves stand: the player whose moves give way runs"
                " `plcg sync --give-way` with his folder, which puts his moves after the other's; the other"
                " runs `plcg sync` once the result has arrived")
        base = old.state(at=fork, lazy=True).pbem
        base_open = (base.proposal, base.provisional)
        undone = reverted_seqs(old.store.reverts())
        commands = _own_commands(old, mine, fork, by, undone)
        prefix = rows_after(old.store, 0, fork)
    finally:
        old.close()
    tmp = temp_path(path, "rejoin")
    redone: list = []
    refused: list = []
    held: list = []
    try:
        store = Store.create(tmp, {"product": "plcg", "product_version": VERSION})
        try:
            store.append_rows((0, GENESIS), prefix)
        finally:
            store.close()
        receive(tmp, bundle)  # the other side's rows: checked as any bundle is
        led = Ledger(tmp, write=True, key=key)
        try:
            for cmd, why in commands:
                if why is None and not held:
                    now = led.state(lazy=True).pbem
                    new = [p for p in (now.provisional, now.proposal)
                           if p is not None and p.side != by and p not in base_open]
                    if new and (now.provisional in new or cmd.get("name") in ("next", "confirm", "reject")):
                        why = (f"{new[0].side} gave '{new[0].command.get('name')}' after the copies parted;"
                               " this command would answer it unread: give it again once you have read it")
                if why is not None or held:
                    held.append((cmd, why or "held back with the command before it"))
                    continue
                try:
                    led.run(dict(cmd), key)
                    redone.append(cmd)
                except (Refused, BadInput) as e:
                    refused.append((cmd, str(e)))
        finally:
            led.close()
        store = Store.open(tmp)
        try:
            joined = rows_after(store, fork)
        finally:
            store.close()
    finally:
        remove_file(tmp)
    kept = f"{path}.fork-{fork}"
    n = 1
    while os.path.exists(kept):
        n += 1
        kept = f"{path}.fork-{fork}-{n}"
    shutil.copyfile(path, kept)  # nothing lost: the copy as it was (a command meanwhile: refused below)
    shutil.copymode(path, kept)
    try:  # in the campaign file itself, one transaction: a command typed meanwhile is a race (exit 4)
        store = Store.open(path, write=True)
        try:
            store.rejoin_rows(head, fork, joined)
        finally:
            store.close()
    except BaseException:
        remove_file(kept)
        raise
    return {"fork": fork, "kept": kept, "redone": redone, "refused": refused, "held": held}


def _hashes(store, since: int, until: int) -> dict[int, str]:
    """{seq: hash} of the rows since <= seq <= until (a received bundle checked against this copy)."""
    return {seq: h for chunk in store.read_rows(since - 1, until, ("seq", "hash")) for seq, h in chunk}


def _own_commands(led: Ledger, rows: list, fork: int, by: str, undone: set) -> list[tuple[dict, str | None]]:
    """This player's commands in `rows` (the rows after the fork), as he gave them, in order, for ruling R113:
    (command, None) to decide again, or (command, why not). The medium's own rows (signatures, answers,
    reveals, chains) are left out: the ledger makes them again as they are owed. A command an undo among the
    rows took back is left out with that undo; an undo of rows before the fork is held back (the rows it
    named are not the rows it would name now)."""
    out: list[tuple[dict, str | None]] = []
    batches: dict[int, list] = {}
    for r in rows:
        batches.setdefault(r[1], []).append(r)
    for batch in batches.values():
        text = next((r[8] for r in batch if r[8] is not None), None)
        if text is None:
            continue
        cmd = loads(text)
        if cmd.get("by") not in (None, by):
            continue  # not this player's (only his own rows follow the fork in his copy)
        types = [r[2] for r in batch]
        if any(r[0] in undone for r in batch):
            continue  # taken back among the rows after the fork: with its undo, left out
        if "reverted" in types:
            seqs = [s for r in batch if r[2] == "reverted" for s in loads(r[6]).get("seqs", ())]
            if all(s > fork for s in seqs):
                continue
        if cmd.get("name") == "seal":
            opening = led.opener()(cmd.get("commitment"), cmd.get("nonce"), cmd.get("box"))
            if opening is None:  # never its own side's: named, not lost
                out.append(({"name": "seal", "what": cmd.get("what")}, "a sealed command this key does not open"))
                continue
            cmd = opening["command"]
        if cmd.get("name") in pbem.BUNDLING:
            continue
        cmd = {k: v for k, v in cmd.items() if k not in ("by", "ledger_dice", *pbem.COMMIT_KEYS, *pbem.RULING_KEYS)}
        why = ("an undo of rows before the copies parted: the rows it took back are not the rows it would take"
               " back now; give it again if still wanted") if "reverted" in types else None
        out.append((cmd, why))
    return out


def _check_whole(path: str, head: tuple, rows: list, check) -> None:
    """Audit a copy of the file with the bundle's rows appended; any finding refuses the bundle."""
    tmp = f"{path}.checking"
    try:
        shutil.copyfile(path, tmp)
        store = Store.open(tmp, write=True)
        try:
            store.append_rows(head, rows)
            _refuse_findings(check(store), 0)
        finally:
            store.close()
    finally:
        for suffix in ("", "-journal", "-wal", "-shm"):
            if os.path.exists(tmp + suffix):
                os.unlink(tmp + suffix)


def _refuse_findings(report: dict, head: int) -> None:
    """The first finding past this copy's head refuses the bundle: 2 for its form, 3 for a rule."""
    # a reveal a side still owes at the CG's end (ruling R47) is no fault of the bundle
    new = [f for f in report["findings"] if f["seq"] > head and f["rule"] != "reveal"]
    if not new:
        return
    f = new[0]
    if f["rule"] in ("chain", "format"):
        raise BadInput(f"row {f['seq']} of the bundle: {f['what']}")
    e = Refused(f"row {f['seq']} of the bundle: {f['what']}", f["rule"])
    if f"[rule {f['rule']}]" in f["what"]:  # a refusal names its rule already
        e.args = (f"row {f['seq']} of the bundle: {f['what']}",)
    raise e


def _check_signatures(keys: dict, head: tuple, rows: list) -> None:
    """Every signature in the new rows verifies with its side's key and signs the row before it,
    the last row is one, and every command is its signer's (exit 2 otherwise)."""
    if rows[-1][2] != "head_signed":
        raise BadInput("the bundle is not signed: it does not end with its author's head_signed row")
    prev = head
    signer_of: dict[int, str] = {}
    pending: list[int] = []
    for r in rows:
        seq, type_, payload, command = r[0], r[2], r[6], r[8]
        if type_ == "head_signed":
            p = loads(payload)
            side = p.get("side")
            if side not in keys or [p.get("seq"), p.get("hash")] != list(prev) or \
                    not pbem.verify_head(keys[side], prev[0], prev[1], p.get("sig")):
                raise BadInput(f"row {seq} of the bundle: the signature is not {side}'s key's over row {prev[0]}")
            for s in pending:
                signer_of[s] = side
            pending = []
        elif command is not None and type_ != "campaign_started":
            pending.append(seq)
        prev = (seq, r[-1])
    for r in rows:
        if r[0] in signer_of:
            by = loads(r[8]).get("by")
            if by != signer_of[r[0]]:
                raise BadInput(f"row {r[0]} of the bundle: a command of {by} signed by {signer_of[r[0]]}'s key")
