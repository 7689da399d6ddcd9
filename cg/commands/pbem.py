"""Play by email's own commands (cg/pbem.py): a signed head, an answer to two-party dice, a reveal.

The ledger makes them (`plcg bundle` signs and answers, `plcg reveal` reveals); the audit and
`plcg receive` decide them again like any command: a signature that does not verify with the side's
key, an answer to nothing, a reveal that does not match its commitment are refused (rule pbem).
"""
from __future__ import annotations

from cg import pbem
from cg.commands.base import Ctx, HANDLERS, command, decide
from events.errors import BadInput, Refused
from events.types import DiceAnswered, DiceRevealed, HeadSigned


def _other(side: str) -> str:
    return "allied" if side == "axis" else "axis"


@command("sign", "*")
def _sign(ctx: Ctx, cmd: dict):
    st = ctx.state
    by, seq, h, sig = cmd["by"], cmd.get("seq"), cmd.get("hash"), cmd.get("sig")
    if not isinstance(seq, int) or not isinstance(h, str) or not isinstance(sig, str):
        raise BadInput("sign: seq, hash and sig are needed")
    if seq != ctx.base_seq - 1:
        raise Refused(f"{by}'s signature is over row {seq}, not the head it follows ({ctx.base_seq - 1})",
                      "pbem", st.step)
    if not pbem.verify_head(st.pbem["keys"][by], seq, h, sig):
        raise Refused(f"the signature of row {seq} is not {by}'s key's", "pbem", st.step)
    ack = st.pbem["signed"][_other(by)]
    return [HeadSigned(side=by, seq=seq, hash=h, sig=sig, ack=None if ack is None else tuple(ack))]


@command("answer", "*")
def _answer(ctx: Ctx, cmd: dict):
    st = ctx.state
    by, commit, value = cmd["by"], cmd.get("request"), cmd.get("value")
    r = st.pbem["requests"].get(commit) if isinstance(commit, str) else None
    if r is None or r["side"] == by or r["answer"] is not None:
        raise Refused(f"{by} answers two-party dice {str(commit)[:8]} that no open commitment of the"
                      " other side asks for", "pbem", st.step)
    if not isinstance(value, str) or not value:
        raise BadInput("answer: a value is needed")
    return [DiceAnswered(side=by, request=commit, value=value)]


@command("reveal", "*")
def _reveal(ctx: Ctx, cmd: dict):
    st = ctx.state
    by, commit, value = cmd["by"], cmd.get("request"), cmd.get("value")
    r = st.pbem["requests"].get(commit) if isinstance(commit, str) else None
    if r is None or r["side"] != by:
        raise Refused(f"{by} reveals two-party dice {str(commit)[:8]} it never committed to", "pbem", st.step)
    if r["answer"] is None:
        raise Refused(f"{_other(by)} has not answered {by}'s two-party dice {commit[:8]} yet", "pbem", st.step)
    if not isinstance(value, str) or pbem.commitment(value) != commit:
        raise Refused(f"{by}'s revealed value does not match its commitment {commit[:8]}", "pbem", st.step)
    inner = dict(r["command"])
    handler = HANDLERS[inner["name"]]
    try:
        events = handler(Ctx(st, ctx.base_seq + 1, two_party=(value, r["answer"], commit)), inner)
    except Refused as e:  # e.g. the same roll committed twice: the second is refused, its dice spent
        return [DiceRevealed(side=by, request=commit, value=value, refused=str(e))]
    return [DiceRevealed(side=by, request=commit, value=value), *events]


__all__ = ["decide"]
