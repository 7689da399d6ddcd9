"""`plcg dice-check SEQ`: the roll of event SEQ recomputed from what the log holds, each step shown.

A seeded roll (ruling R31): each die is HMAC-SHA256(key = the campaign's seed, message "POS:INDEX:DIE"),
its first 8 bytes as a big-endian integer, mod 6, plus 1 (cg/dice.py): POS is the seq of the first event
its command wrote, INDEX the roll's place among that command's rolls, DIE the die's place in the roll.

A two-party roll (rulings R44, R83, R67): the committing side's value A, shown with its commitment
(sha256(A) is the commitment: checked), the other side's answer B (under R83 the answer at place n of its
chain, which hashed n times gives the chain's anchor: checked), and each die sha256("A:B:commitment:
INDEX:DIE"), its first 8 bytes mod 6 plus 1 (cg/pbem.py); a claimed roll (R67) has A = "withheld".

A typed roll (the player's own dice) or the ledger's OS dice cannot be recomputed: it says so and why
(for the OS dice, whether the command recorded the same dice, which is what the audit decides it with).
"""
from __future__ import annotations

import hashlib
import hmac

from cg.pbem import verify_claim
from events.errors import BadInput
from projections.dicestats import dice_of, roll_source

PBEM_LEAD = ("fact_confirmed",)  # events a batch may carry before its command's own (ruling R71)


def _rolls_in(p: dict) -> list[dict]:
    if isinstance(p.get("roll"), dict):
        return [p["roll"]]
    return [r for r in (p.get("rolls") or []) if isinstance(r, dict) and isinstance(r.get("dice"), list)]


def _int_die(digest: bytes) -> tuple[int, int]:
    n = int.from_bytes(digest[:8], "big")
    return n, n % 6 + 1


def seeded_die(seed: str, pos: int, index: int, die: int) -> tuple[str, int, int]:
    msg = f"{pos}:{index}:{die}"
    return msg, *_int_die(hmac.new(seed.encode(), msg.encode(), hashlib.sha256).digest())


def two_party_die(a: str, b: str, commit: str, index: int, die: int) -> tuple[str, int, int]:
    msg = f"{a}:{b}:{commit}:{index}:{die}"
    return msg, *_int_die(hashlib.sha256(msg.encode()).digest())


def _short(v: str) -> str:
    return v if len(v) <= 20 else f"{v[:16]}…"


class Log:
    """The rows read once: by seq, by batch, and the two-party records (commitments, answers, chains)."""

    def __init__(self, rows, opener=None):
        self.rows = {}
        self.batches: dict[int, list] = {}
        self.committed: dict[str, tuple[int, dict]] = {}
        self.answered: dict[str, tuple[int, dict]] = {}
        self.chains: dict[str, tuple[int, dict]] = {}
        self.started: dict = {}
        self.sealed_at: dict[str, int] = {}  # a seal's commitment -> the seq its command was decided at (R47)
        for r in rows:
            self.rows[r.seq] = r
            self.batches.setdefault(r.batch, []).append(r)
            p = r.payload if isinstance(r.payload, dict) else {}
            if r.type == "campaign_started":
                self.started = p
            elif r.type == "sealed" and isinstance(p.get("at"), int):
                self.sealed_at[str(p.get("commitment"))] = p["at"]
            for t, q in [(r.type, p), *_inside(r.type, p, opener)]:
                if t == "dice_committed":  # a sealed step's commitment is in its seal (ruling R47)
                    self.committed.setdefault(str(q.get("commit")), (r.seq, q))
                elif t == "dice_answered":
                    self.answered[str(q.get("request"))] = (r.seq, q)
                elif t == "dice_chain":
                    self.chains[str(q.get("anchor"))] = (r.seq, q)


def _openings(etype: str, p: dict, opener) -> list[dict]:
    """The openings of a sealed row this copy opens, or of a reveal (ruling R47): {"command", "events"}."""
    if etype == "sealed" and opener is not None:
        o = opener(p.get("commitment"), p.get("nonce"), p.get("box"))
        return [o] if isinstance(o, dict) else []
    if etype == "seals_revealed":
        return [op.get("opening") or {} for op in p.get("openings") or () if isinstance(op, dict)]
    return []


def _inside(etype: str, p: dict, opener) -> list:
    return [(t, q) for o in _openings(etype, p, opener) for t, q in o.get("events") or ()
            if isinstance(q, dict)]


def check(rows, seq: int, opener=None, anchor_of=None) -> dict:
    """The report of `dice-check SEQ` (None in "rolls" never: a SEQ without a roll raises LookupError).
    `opener(commitment, nonce, box)` opens a sealed row this copy may read (ruling R47); `anchor_of(commit,
    seq)` the chain anchor a two-party roll named (the folded state's request), for a roll from a chain."""
    log = Log(rows, opener)
    row = log.rows.get(seq)
    if row is None:
        raise LookupError(f"seq {seq} is not in the log (it holds 1-{max(log.rows, default=0)})")
    groups = []  # (the events of one command in order, its command, the first seq of its own events)
    p = row.payload if isinstance(row.payload, dict) else {}
    if row.type in ("sealed", "seals_revealed"):  # decided where it was sealed, at the seal's `at` (R47)
        commits = [p.get("commitment")] if row.type == "sealed" else \
            [op.get("commitment") for op in p.get("openings") or () if isinstance(op, dict)]
        for o, c in zip(_openings(row.type, p, opener), commits):
            groups.append(([(seq, t, q) for t, q in o.get("events") or ()], o.get("command") or {},
                           log.sealed_at.get(str(c), seq), True))
    else:
        batch = log.batches[row.batch]
        cmd = next((r.command for r in batch if isinstance(r.command, dict)), {})
        groups.append(([(r.seq, r.type, r.payload) for r in batch], cmd, row.batch, False))
    out = []
    for events, cmd, first, sealed in groups:
        out += _check_group(log, events, cmd, first, sealed, seq, anchor_of)
    if not out:
        raise LookupError(f"seq {seq} ({row.type}) holds no roll this copy can read"
                          + (" (a sealed secret it cannot open)" if row.type == "sealed" else ""))
    return {"seq": seq, "type": row.type, "rolls": out,
            "ok": all(r["ok"] is not False for r in out),
            "recomputed": sum(1 for r in out if r["ok"] is not None)}


def _check_group(log: Log, events, cmd: dict, first: int, sealed: bool, seq: int, anchor_of) -> list[dict]:
    """Each roll of the events at `seq` (all of a sealed opening's), recomputed. `first`: the seq the
    command was decided at (its batch's first row, or the seal's `at`)."""
    out = []
    lead = next((i for i, (_s, t, _q) in enumerate(events) if t not in PBEM_LEAD), 0)
    base = first + lead  # the seq of the command's own first event (R71: a confirmation before it)
    index = 0  # the roll's place among its command's rolls (cg/commands/base.py Ctx.n_rolls)
    decided = None  # the two-party roll this run of events decides: (A, commit)
    for s, t, q in events:
        q = q if isinstance(q, dict) else {}
        if t == "dice_revealed":
            decided, index = (q.get("value"), str(q.get("request")), s, q.get("side")), 0
            continue
        for r in _rolls_in(q):
            if (sealed or s == seq) and isinstance(r.get("dice"), list):
                out.append(_one(log, t, q, r, roll_source(r, cmd), cmd, base, index, decided, anchor_of))
            index += 1
    return out


def _one(log: Log, etype: str, p: dict, r: dict, source: str, cmd: dict, base: int, index: int, decided,
         anchor_of) -> dict:
    dice = list(r["dice"])
    names = [n for n, _v in dice_of(dice)]
    res = {"event": etype, "side": p.get("side"), "source": source, "dice": dice, "index": index,
           "recomputed": None, "ok": None, "steps": []}
    step = res["steps"].append
    if source == "typed":
        step("typed in with --dice: the player's own dice, recorded as given; nothing in the log makes them,"
             " so nothing recomputes them (ruling R31)")
        return res
    if source == "ledger":
        step("rolled by the ledger from the operating system's random source (ruling R31): nobody can"
             " foresee them, and nothing in the log can recompute them")
        recorded = cmd.get("ledger_dice")
        got = recorded[index] if isinstance(recorded, list) and index < len(recorded) else None
        step(f"the command recorded them with itself (ledger_dice, roll {index + 1}): {got}; the audit decides"
             " the command again with these (ruling R42)")
        res["ok"] = None if got == dice else False
        if got != dice:
            step(f"the logged dice {dice} are not the dice the command recorded")
        return res
    if source == "seeded":
        seed = log.started.get("seed") or ""
        step(f"seeded roller (ruling R31): key = the campaign's seed {seed!r} (its first event); position ="
             f" the seq of the command's first event {base} and the roll's place {index} among its rolls")
        got = []
        for die, name in enumerate(names):
            msg, n, v = seeded_die(seed, base, index, die)
            step(f"{name}: HMAC-SHA256(seed, \"{msg}\") first 8 bytes = {n}; {n} mod 6 + 1 = {v}")
            got.append(v)
        return _verdict(res, got)
    # two-party
    if decided is None:
        step("a two-party roll with no reveal before it in its batch: nothing to recompute it from")
        res["ok"] = False
        return res
    a, commit, rev_seq, claimer = decided
    c_seq, c = log.committed.get(commit, (None, {}))
    ans_seq, ans = log.answered.get(commit, (None, {}))
    b = ans.get("value")
    what = (c.get("command") or {}).get("name")
    step(f"commitment {_short(commit)}: {str(c.get('side')).capitalize()}'s roll for {what}, committed at seq"
         f" {c_seq}" if c_seq else f"commitment {_short(commit)}: no dice_committed in the log holds it")
    ok = c_seq is not None
    if a == "withheld":
        step(f"claimed (ruling R67) at seq {rev_seq}: A = \"withheld\", the dice come from the answer alone")
    elif isinstance(a, str) and a.startswith("withheld:"):  # ruling R108: from the claimer's signature

        pub = (((log.started or {}).get("pbem") or {}).get("keys") or {}).get(str(claimer))
        good = pub is not None and verify_claim(pub, commit, a.partition(":")[2])
        step(f"claimed (ruling R108) at seq {rev_seq} by {str(claimer).capitalize()}: A = \"withheld:\" and"
             f" {str(claimer).capitalize()}'s signature over the commitment, which its key"
             f" {'signs' if good else 'does NOT sign'}")
        ok = ok and good
    else:
        shown = f"shown with the commitment at seq {c_seq}" if c.get("value") else f"revealed at seq {rev_seq}"
        good = isinstance(a, str) and hashlib.sha256(a.encode()).hexdigest() == commit
        step(f"A = {_short(str(a))} ({shown}); sha256(A) = {'the commitment' if good else 'NOT the commitment'}")
        ok = ok and good
    if ans_seq is None or not isinstance(b, str):
        step("no answer to it in the log: nothing to recompute it from")
        res["ok"] = False
        return res
    place = c.get("chain")
    if place is not None:
        anchor = anchor_of(commit, c_seq) if anchor_of else None
        ch_seq = log.chains.get(str(anchor), (None, {}))[0]
        v = b
        for _ in range(int(place)):
            v = hashlib.sha256(v.encode()).hexdigest()
        good = anchor is not None and v == anchor
        step(f"B = {_short(b)} (answered at seq {ans_seq}), the answer at place {place} of"
             f" {str(ans.get('side')).capitalize()}'s chain of answers (ruling R83, anchor"
             f" {_short(str(anchor))} committed at seq {ch_seq}): sha256 applied {_times(int(place))} to B"
             f" {'gives the anchor' if good else 'does NOT give the anchor'}")
        ok = ok and good
    else:
        step(f"B = {_short(b)} ({str(ans.get('side')).capitalize()}'s answer at seq {ans_seq}, ruling R44)")
    got = []
    for die, name in enumerate(names):
        msg, n, v = two_party_die(a, b, commit, index, die)
        step(f"{name}: sha256(\"A:B:commitment:{index}:{die}\") first 8 bytes = {n}; {n} mod 6 + 1 = {v}")
        got.append(v)
    out = _verdict(res, got)
    if not ok:
        out["ok"] = False
    return out


def _times(n: int) -> str:
    return "once" if n == 1 else "twice" if n == 2 else f"{n} times"


def _verdict(res: dict, got: list[int]) -> dict:
    res["recomputed"] = got
    res["ok"] = got == res["dice"]
    res["steps"].append(f"recomputed {got}; logged {res['dice']}: "
                        + ("the same" if res["ok"] else "NOT the logged dice"))
    return res


def check_text(d: dict) -> str:
    lines = []
    for r in d["rolls"]:
        who = f"{str(r['side']).capitalize()} " if r["side"] else ""
        kind = "DR" if len(r["dice"]) == 2 else "dr" if len(r["dice"]) == 1 else "dice"
        lines.append(f"seq {d['seq']}: {who}{kind} {'+'.join(map(str, r['dice']))} ({r['event']}), {r['source']}")
        lines += [f"  {s}" for s in r["steps"]]
    bad = [r for r in d["rolls"] if r["ok"] is False]
    if bad:
        lines.append(f"{len(bad)} roll{'s' if len(bad) != 1 else ''} of seq {d['seq']} not as logged: the log was"
                     " changed after the roll, or written by another program (plcg audit says more)")
    elif d["recomputed"]:
        lines.append(f"the dice of seq {d['seq']} are as the log's values make them")
    else:
        lines.append(f"seq {d['seq']}: nothing in the log makes these dice, so nothing recomputes them")
    return "\n".join(lines)


def check_log(open_ledger, seq: str) -> dict:
    """`plcg dice-check SEQ`: the roll of event SEQ recomputed from the log (`open_ledger()` opens it)."""
    try:
        n = int(seq)
    except ValueError:
        raise BadInput(f"SEQ {seq!r}: the seq of an event that holds a roll (plcg log shows them)") from None
    led = open_ledger()
    try:
        rows = []
        for r in led.store.read():  # up to SEQ and the rest of its batch (the roll may come before its reveal)
            if r.seq > n and (not rows or r.batch != rows[-1].batch or rows[-1].seq < n):
                break
            rows.append(r)

        def anchor_of(commit, at):  # the chain a roll committed at `at` named (ruling R83)
            req = led.state(at=at).pbem.requests.get(commit)
            return None if req is None else req.anchor

        try:
            return check(rows, n, led.opener(), anchor_of)
        except LookupError as e:
            raise BadInput(f"SEQ {n}: {e.args[0]}") from None
    finally:
        led.close()
