"""`plcg log` (cli-contract.md): the history, one line per event, or JSON Lines with `--json`, streamed a chunk
of rows at a time (issue 33 item 5: out of cli.py). Undone events are marked; a roll is shown with its
source (ruling R31); the other side's sealed secret shows as null until revealed (ruling R47); a viewer
reads the other side's Dummy Minefields as Known Minefields (ruling R22)."""
from __future__ import annotations

import orjson

from cg.bulk import gc_paused
from cg.evolve import reverted_seqs
from events.errors import UNFOLDABLE, BadInput, UnreadableRow
from events.versions import VERSIONS
from events.text import SHOWN, shown
from projections.dicestats import roll_source
from projections.words import given_last, plain_words, seen_command, summary

_OPTION_BY = ("redeployment_option", "fact_confirmed", "fact_proposed")
_UNSEEN = object()  # a type not yet met (its words not yet looked up)


def log_chunks(led, as_json: bool, viewer: str | None):
    """The log of `led` as text, a chunk of rows at a time: each chunk one string, written by one write."""
    last = led.store.head()[0]
    undone = reverted_seqs(led.store.reverts(until=last))
    # streamed: a chunk of rows at a time, written as one string (no object per row kept, no
    # whole log in memory, one write per chunk instead of one echo per line)
    # the command of the current batch: a roll's source (two-party: a reveal's); parsed only when a
    # roll asks for it (most rows have none)
    cmd_text, batch_cmd = None, {}
    fact: dict = {}  # the last shared fact read (a Redeployment Option confirmed names its proposer)

    def batch_command() -> dict:  # the batch's command, parsed the first time a roll asks for it
        nonlocal batch_cmd
        if batch_cmd is None:
            batch_cmd = _command_of(cmd_text)
        return batch_cmd

    # the rows' seqs, types and payloads as the fold reads them (Store.fold_chunks: a run of payloads parsed by one
    # call), beside the same runs' other columns (read_rows), a run at a time; the payloads as stored (no upcast)
    chunks, _common, top = led.store.fold_chunks(VERSIONS, 0, last)
    rest = led.store.read_rows(0, top, ("firefight", "step", "recorded", "command"), chunk=led.store.FOLD_CHUNK,
                               columnar=True)
    # each type's words once looked up (projections.words.plain_words): said from the payload alone, or None
    # where summary must see the viewer or the side
    sayers: dict = {}
    for (seqs, types, payloads, _stale), (ffs, steps, recs, commands) in _gc_paused_each(zip(chunks, rest)):
        if len(ffs) != len(types):  # (the same runs of an append-only log: never)
            raise BadInput(f"{led.path}: the log changed while it was read")
        out = []
        for seq, ff, step, etype, p, recorded, command in zip(seqs, ffs, steps, types, payloads, recs, commands):
            if command is not None:
                cmd_text, batch_cmd = command, None
            try:
                say = sayers.get(etype, _UNSEEN)
                if say is _UNSEEN:
                    say = sayers[etype] = None if etype in _OPTION_BY else plain_words(etype, viewer)
                if say is not None:
                    said = say(None, p)
                    if " [dice given]" in said:
                        said = given_last(said)
                else:
                    said = summary(etype, p, viewer,
                                   _option_by(etype, p, batch_command, fact) if etype in _OPTION_BY else None)
            except UNFOLDABLE as e:  # a row edited against its schema: exit 2 naming it, never 5
                raise UnreadableRow(seq, f"{type(e).__name__}: {e}") from None
            if as_json:
                line = {"seq": seq, "firefight": ff, "step": step, "type": etype, "side": p.get("side"),
                        "summary": said, "reverted": seq in undone, "recorded": recorded}
                if "roll" not in p and "rolls" not in p and etype != "sealed":  # most rows: none of the three below
                    pass
                elif isinstance(p.get("roll"), dict):  # with its source (ruling R31; derived in an old log)
                    line["roll"] = _sourced(p["roll"], batch_command())
                elif etype == "sealed":  # ruling R47: the other side's secret shows as null until revealed
                    opening = led.opener()(p["commitment"], p.get("nonce"), p.get("box"))
                    line["sealed"] = opening is None
                    line["what"] = p["what"]
                    line["command"] = None if opening is None else \
                        seen_command(_cmd_public(opening["command"]), viewer)  # ruling R22
                    if opening is not None:  # the events it holds, with their rolls and sources
                        inner_cmd = opening["command"]
                        line["events"] = [{"type": t, "summary": summary(t, q, viewer), **(
                            {"roll": _sourced(q["roll"], inner_cmd)} if isinstance(q.get("roll"), dict) else {})}
                            for t, q in opening.get("events") or ()]
                    if opening is None and p["what"] in ("cp", "promote") and not p.get("opens"):
                        line["roll"] = {"dice": None, "final": None, "outcome": None, "sealed": True}
                elif p.get("rolls"):  # Dual Attack's two drs, rubble's creation and falling rolls
                    cmd = batch_command()
                    line["rolls"] = [_sourced(x, cmd) if isinstance(x, dict) else x for x in p["rolls"]]
                    line["roll"] = line["rolls"][0]
                out.append(orjson.dumps(line).decode())
            else:
                out.append((seq, ff, step, said, " (undone)" if seq in undone else ""))
        if not as_json:  # a summary with a control character is escaped (shown); one search a chunk
            clean = SHOWN.search("".join([x[3] for x in out])) is None
            if len(set(map(type, steps))) != 1 or type(steps[0]) is not str:  # an edited row's step (null, a
                # number): as log --json shows it, never an internal error (a null step had no format)
                out = [(q, f, st if type(st) is str else orjson.dumps(st).decode(), w, m) for q, f, st, w, m in out]
            out = [f"{seq:>5} ff{ff} {step:>5}  {said if clean else shown(said)}{mark}"
                   for seq, ff, step, said, mark in out]
        out.append("")
        yield "\n".join(out)


def _option_by(etype: str, p: dict, batch_command, fact: dict) -> str | None:
    """The side that chose the Redeployment Option (3.2): its `option` command's, or the proposer's of the
    fact confirmed just before it (play by email, ruling R68); None in a campaign without keys."""
    if etype != "redeployment_option":
        fact["command"] = p.get("command") if isinstance(p.get("command"), dict) else None
        return None
    cmd = batch_command()
    if cmd.get("name") != "option":
        cmd = fact.get("command") or {}
    return cmd.get("by") if cmd.get("name") == "option" else None


def _gc_paused_each(chunks):
    """The chunks, each read and written with the cyclic collector paused (cg/bulk.py): a row's dicts
    and strings form no cycle and die by reference counting, and the collector's walks over them were
    ~12% of `log --json` at 111k events. Resumed between chunks (a reader may stop at any one)."""
    it = iter(chunks)
    while True:
        with gc_paused():
            try:
                chunk = next(it)
            except StopIteration:
                return
            yield chunk


def _cmd_public(cmd: dict) -> dict:
    """A sealed command as its opening holds it, without the dice commitment's own fields."""
    return {k: v for k, v in cmd.items() if k not in ("commit", "nonce")}


def _command_of(text) -> dict:
    try:
        cmd = orjson.loads(text)
    except (TypeError, ValueError):
        return {}
    return cmd if isinstance(cmd, dict) else {}


def _sourced(roll: dict, cmd: dict) -> dict:
    """A roll with its `source` (contract)."""
    return {**roll, "source": roll_source(roll, cmd)}
