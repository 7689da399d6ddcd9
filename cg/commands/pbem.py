"""Play by email's own commands (cg/pbem.py): a signed head, an answer to two-party dice, a reveal.

The ledger makes them (`plcg bundle` signs and answers, `plcg reveal` reveals); the audit and
`plcg receive` decide them again like any command: a signature that does not verify with the side's
key, an answer to nothing, a reveal that does not match its commitment are refused (rule pbem).
"""
from __future__ import annotations

from typing import cast

import attrs

from cg import pbem, seal
from cg.rules import rules_for
from cg.commands.base import Ctx, HANDLERS, command, decide, hex_arg
from events.errors import BadInput, Refused
from events import types as ev  # the module: a write builds the event classes it makes (issue 36 item 2)
from events.payload import unstructure
from cg.commands.undo import decide_undo
from cg.units import article
from cg.state import Pbem, Proposal


def _other(side: str) -> str:
    return "allied" if side == "axis" else "axis"


@command("sign", "*")
def _sign(ctx: Ctx, cmd: dict):
    st = ctx.state
    assert st.pbem is not None  # a play-by-email command: decide() read st.pbem before (_waits_for_proposer)
    by, seq, h, sig = cmd["by"], cmd.get("seq"), cmd.get("hash"), cmd.get("sig")
    if not isinstance(seq, int) or not isinstance(h, str) or not isinstance(sig, str):
        raise BadInput("sign: seq, hash and sig are needed")
    if seq != ctx.base_seq - 1:
        raise Refused(f"{by}'s signature is over row {seq}, not the head it follows ({ctx.base_seq - 1})",
                      "pbem", st.step)
    mine = st.pbem.signed[by]
    why = rules_for(st).signature_refusal(mine, seq)  # the head is its own signature
    if why:
        raise Refused(f"{by} {why}", "pbem", st.step)
    owed = [c for c, r in st.pbem.requests.items() if r.side != by and r.chain is not None
            and r.answer is None]
    if owed:  # ruling R83: the answer is fixed and owed; a bundle without it is refused, not withheld
        raise Refused(f"{by} signs over {_other(by)}'s two-party dice {owed[0][:8]} without its answer from"
                      f" {by}'s chain (ruling R83): the answer goes first", "pbem", st.step)
    if not ctx.covered and not pbem.verify_head(st.pbem.keys[by], seq, h, sig):
        raise Refused(f"the signature of row {seq} is not {by}'s key's", "pbem", st.step)
    ack = st.pbem.signed[_other(by)]
    return [ev.HeadSigned(side=by, seq=seq, hash=h, sig=sig, ack=None if ack is None else tuple(ack))]


@command("answer", "*")
def _answer(ctx: Ctx, cmd: dict):
    st = ctx.state
    assert st.pbem is not None  # a play-by-email command: decide() read st.pbem before (_waits_for_proposer)
    by, commit, value = cmd["by"], cmd.get("request"), cmd.get("value")
    r = st.pbem.requests.get(commit) if isinstance(commit, str) else None
    if r is None or r.side == by or r.answer is not None:
        raise Refused(f"{by} answers two-party dice {str(commit)[:8]} that no open commitment of the"
                      " other side asks for", "pbem", st.step)
    if not isinstance(value, str) or not value:
        raise BadInput("answer: a value is needed")
    commit = cast(str, commit)  # r was found by it: a str
    if r.chain is None:
        return [ev.DiceAnswered(side=by, request=commit, value=value)]
    # ruling R83: the value at the roll's place of `by`'s chain, fixed before the roll; it decides the roll now
    if not pbem.chain_check(st, by, r.anchor, r.chain, value):
        raise Refused(f"{by}'s answer to two-party dice {commit[:8]} is not place {r.chain} of its chain of"
                      " answers (ruling R83)", "pbem", st.step)
    answered = ev.DiceAnswered(side=by, request=commit, value=value)
    if pbem.later(st, r):  # ruling R121: a roll committed ahead of its step is decided there (pbem.due)
        return [answered]
    return [answered, *_decided(ctx, r.command, value, r.side, commit, r.value, lead=1)]


@command("chain", "*")
def _chain(ctx: Ctx, cmd: dict):
    """Ruling R83: `by` commits to a chain of answers to the other side's two-party dice."""
    st = ctx.state
    assert st.pbem is not None  # a play-by-email command: decide() read st.pbem before (_waits_for_proposer)
    by, anchor, nonce, length = cmd["by"], cmd.get("anchor"), cmd.get("nonce"), cmd.get("length")
    if not (isinstance(anchor, str) and len(anchor) == 64 and isinstance(nonce, str) and nonce
            and type(length) is int and 1 <= length <= 1 << 16):
        raise BadInput("chain: an anchor (64 hex digits), a nonce and a length (1-65536) are needed")
    why = rules_for(st).chain_refusal(pbem.two_party(st))
    if why:
        raise Refused(why, "pbem", st.step)
    if anchor in st.pbem.anchors:
        raise Refused(f"the chain {anchor[:8]} is in the log already", "pbem", st.step)
    if not pbem.needs_chain(st, by):
        raise Refused(f"{by} answers from its chain {st.pbem.chain_at[by][:8]} still: a new one is made when it"
                      " is spent or after an undo (ruling R83)", "pbem", st.step)
    return [ev.DiceChain(side=by, anchor=anchor, nonce=nonce, length=length)]


@command("reveal", "*")
def _reveal(ctx: Ctx, cmd: dict):
    st = ctx.state
    assert st.pbem is not None  # a play-by-email command: decide() read st.pbem before (_waits_for_proposer)
    by, commit, value = cmd["by"], cmd.get("request"), cmd.get("value")
    r = st.pbem.requests.get(commit) if isinstance(commit, str) else None
    if r is not None and (commit, r) in pbem.due(st):  # ruling R121: both values are in the log; either side decides it
        if value != r.value:
            raise Refused(f"{by}'s value for two-party dice {cast(str, commit)[:8]} is not the one shown with its"
                          " commitment (ruling R83)", "pbem", st.step)
        return _decided(ctx, r.command, cast(str, r.answer), r.side, cast(str, commit), value)
    if r is None or r.side != by:
        raise Refused(f"{by} reveals two-party dice {str(commit)[:8]} it never committed to", "pbem", st.step)
    if r.answer is None:
        raise Refused(f"{_other(by)} has not answered {by}'s two-party dice {cast(str, commit)[:8]} yet", "pbem", st.step)
    commit = cast(str, commit)  # r was found by it: a str
    if not isinstance(value, str) or pbem.commitment(value) != commit:
        raise Refused(f"{by}'s revealed value does not match its commitment {commit[:8]}", "pbem", st.step)
    pbem.check_order(st, by, commit)
    return _decided(ctx, r.command, r.answer, by, commit, value, as_of=r.sealed_at)


def _decided(ctx: Ctx, command: dict, answer: str, by: str, commit: str, value: str, lead: int = 0,
             as_of: str | None = None) -> list:
    """A committed command decided with the dice `value` and the `answer` make (a reveal, a claim, or an
    answer from a chain: `lead` events before it). `as_of`: ruling R119, a sealed 2.3 roll revealed after 2.3
    was left is decided by 2.3's rules, as it would have been there (the step it was committed at)."""
    st = ctx.state
    inner = dict(command)
    handler = HANDLERS[inner["name"]]
    here = st.position
    if as_of is not None and as_of != here.step:
        st.position = here.to(step=as_of)  # restored below: decide is pure
    try:
        events = handler(Ctx(st, ctx.base_seq + 1 + lead, two_party=(value, answer, commit)), inner)
    except Refused as e:  # e.g. the same roll committed twice: the second is refused, its dice spent
        return [ev.DiceRevealed(side=by, request=commit, value=value, refused=str(e))]
    finally:
        st.position = here
    return [ev.DiceRevealed(side=by, request=commit, value=value), *events]


WITHHELD = "withheld"  # the committer's value in a claimed roll (ruling R67): the dice come from the answer


@command("claim", "*")
def _claim(ctx: Ctx, cmd: dict):
    """Ruling R67: the other side withheld its reveal past its next signature; `by` claims the roll:
    the command is decided with dice from `by`'s answer alone."""
    st = ctx.state
    assert st.pbem is not None  # a play-by-email command: decide() read st.pbem before (_waits_for_proposer)
    by, commit = cmd["by"], cmd.get("request")
    r = st.pbem.requests.get(commit) if isinstance(commit, str) else None
    if r is None or not rules_for(st).claimable((commit, r) in pbem.claimable(st, by)):
        raise Refused(f"{by} claims two-party dice {str(commit)[:8]} that the other side has not withheld (it"
                      " signed no head after the answer without revealing)", "pbem", st.step)
    commit = cast(str, commit)  # r was found by it: a str
    if r.command.get("name") == "sealed":
        raise Refused(f"two-party dice {commit[:8]} are for a sealed command: only its side can decide it",
                      "pbem", st.step)
    sig = cmd.get("sig")
    if sig is None:  # a claim of before ruling R108: the dice from the answer alone, which the withholder knows
        return _decided(ctx, r.command, r.answer, by, commit, WITHHELD, as_of=r.sealed_at)
    if not isinstance(sig, str) or not pbem.verify_claim(st.pbem.keys[by], commit, sig):
        raise Refused(f"the claim of two-party dice {commit[:8]} is not signed by {by}'s key (ruling R108)",
                      "pbem", st.step)
    return _decided(ctx, r.command, r.answer, by, commit, f"{WITHHELD}:{sig}", as_of=r.sealed_at)  # rulings R108, R119


@command("seal", "*")  # a secret step only: checked below
def _seal(ctx: Ctx, cmd: dict):
    """Ruling R47: a secret command sealed. Checked as far as this view sees: the side, what it is at
    this step, the two-party dice it asks for or resolves; where the viewer holds its opening (its
    reveal is in the log), the opening matches the commitment and its command is decided here."""
    st = ctx.state
    assert st.pbem is not None  # a play-by-email command: decide() read st.pbem before (_waits_for_proposer)
    by, what, c = cmd["by"], cmd.get("what"), cmd.get("commitment")
    nonce, box, opens, closes = cmd.get("nonce"), cmd.get("box"), cmd.get("opens"), cmd.get("closes")
    if not seal.sealing(st):
        raise Refused("this campaign does not seal secrets (it was started before ruling R47)", "pbem", st.step)
    if not (isinstance(what, str) and what and isinstance(c, str) and c and isinstance(nonce, str) and nonce
            and isinstance(box, str) and box) or \
            any(x is not None and not isinstance(x, str) for x in (opens, closes)):
        raise BadInput("seal: what, commitment, nonce and box are needed")
    hx = cmd.get("hex")  # ruling R112: a concealed setup's "?" stack, public; no other seal carries a hex
    if (what == "concealed") != (hx is not None) or (hx is not None and hex_arg(st, hx, "seal: hex") != hx):
        raise BadInput("seal: a concealed setup's seal carries the hex of its \"?\" stack (ruling R112), no other seal a hex")
    if what not in seal.sealed_here(st, closes) or (what == "attack" and not seal.attack_seal(st)):
        raise Refused(f"{by} seals {article(what)} at step {st.step}: only 2.1 (cp), 2.3 (purchase) and 3.44 (promote,"
                      " harden) hold secrets", "pbem", st.step)
    if c in st.pbem.seals:
        raise Refused(f"the seal {c[:8]} is in the log already", "pbem", st.step)
    if what == "attack" and not seal.owes_attack_seal(st, by):  # one yes/no Attack Option seal (issue 25 item 10)
        raise Refused(f"{by} has sealed its Attack Option choice for firefight {st.firefight} already (or the"
                      " card assigns this firefight's ATTACKER, ruling R2)", "2.4", st.step)
    if closes is not None:
        r = st.pbem.requests.get(closes)
        if r is None or r.side != by or r.answer is None:
            raise Refused(f"{by} seals the reveal of two-party dice {closes[:8]} it owes no reveal of", "pbem", st.step)
        pbem.check_order(st, by, closes)
    if opens is not None and opens in st.pbem.requests:
        raise Refused(f"two-party dice {opens[:8]} are asked for already", "pbem", st.step)
    opening = seal.opening_of(st, c, nonce, box)
    if opening is not None:
        inner = opening.get("command")
        if not isinstance(inner, dict) or inner.get("by") != by:
            raise Refused(f"the opening of {by}'s seal {c[:8]} holds a command that is not its own", "pbem", st.step)
        name = inner.get("name")
        if name == "reveal":
            if inner.get("request") != closes:
                raise Refused(f"the seal {c[:8]} says it reveals {str(closes)[:8]}, its opening another", "pbem", st.step)
            r = st.pbem.requests.get(closes)
            name = r.command.get("name") if r is not None else None
        legacy = name == "attack" and what == "attack" and "announce" not in inner  # a yes sealed as typed (before R109)
        if seal.kind(st, name, inner) != what and not legacy:
            raise Refused(f"the seal {c[:8]} says it is {article(what)}, its opening is {article(name)}", "pbem", st.step)
        inner_events = decide(st, dict(inner), ctx.base_seq)  # refused: the rules refuse the command sealed

        if seal.canonical(seal.opened_events(inner_events, unstructure)) != seal.canonical(opening.get("events")):
            raise Refused(f"the opening of {by}'s seal {c[:8]} holds other events than its command decides here",
                          "pbem", st.step)
        first = inner_events[0] if inner_events else None
        if hx is not None and (first is None or first.TYPE != "unit_set_up" or first.hex != hx):
            raise Refused(f"the seal {c[:8]} shows its \"?\" stack in {hx}, its opening sets up elsewhere", "2.6", st.step)
        if (first.commit if first is not None and first.TYPE == "dice_committed" else None) != opens:
            raise Refused(f"the seal {c[:8]} does not ask for the two-party dice its command does", "pbem", st.step)
    return [ev.Sealed(side=by, what=what, at=ctx.base_seq, commitment=c, nonce=nonce, box=box, opens=opens,
                   closes=closes, hex=hx)]


@command("unseal", "*")
def _unseal(ctx: Ctx, cmd: dict):
    """Ruling R47: the side reveals what the rules reveal at this point (cg/seal.check_unseal)."""
    st = ctx.state
    assert st.pbem is not None  # a play-by-email command: decide() read st.pbem before (_waits_for_proposer)
    seals = st.pbem.seals
    seal.check_unseal(st, cmd, lambda c: seal.opening_of(st, c, seals[c].nonce, seals[c].box))
    openings = tuple({"commitment": o["commitment"], "opening": o["opening"]} for o in cmd["openings"])
    return [ev.SealsRevealed(side=cmd["by"], point=cmd["point"], openings=openings)]


def _confirmed(st, cmd: dict) -> dict:
    """The proposed command as the confirming side gives it (its own dice commitment, if any)."""
    inner = {**st.pbem.proposal.command, "confirmed": True, "by": cmd["by"]}
    for k in pbem.COMMIT_KEYS:
        if k in cmd:
            inner[k] = cmd[k]
    return inner


@command("confirm", "*")
def _confirm(ctx: Ctx, cmd: dict):
    """Ruling R45: the other side agrees; the proposal is decided now, as the rules stand now."""
    st = ctx.state
    assert st.pbem is not None  # a play-by-email command: decide() read st.pbem before (_waits_for_proposer)
    inner = _confirmed(st, cmd)
    if inner["name"] == "undo":
        raise BadInput("an undo is confirmed with its history (decide_all)")
    prop = st.pbem.proposal
    assert prop is not None  # _confirmed read its command above
    st.pbem.proposal = None  # decided as the rules stand once it is answered (restored: decide is pure)
    try:
        events = decide(st, inner, ctx.base_seq + 1, confirmed=True, leave=ctx.leave)
    finally:
        st.pbem.proposal = prop
    return [ev.FactConfirmed(side=cmd["by"], command=prop.command), *events]


@command("reject", "*")
def _reject(ctx: Ctx, cmd: dict):
    st = ctx.state
    reason = str(cmd.get("reason") or "").strip()
    if not reason:
        raise BadInput("reject: --reason TEXT is required: the log keeps why")
    prop = cast(Proposal, cast(Pbem, st.pbem).proposal)  # authorize() found one (a provisional leave's reject is decide_all's)
    return [ev.FactRejected(side=cmd["by"], command=prop.command, reason=reason)]


def decide_all(st, cmd: dict, base_seq: int, history, leave=None) -> list:
    """`decide`, and the undo (history(): (every event so far, the seqs reverted)), with play by
    email's shared facts: an undo that takes back what the other side has signed over is proposed,
    and a confirmed undo is decided with its history. `leave`: decide's (the audit's LeaveCheck)."""
    name = cmd.get("name")
    pb = st.pbem
    if name == "reject" and pb is not None and pb.proposal is None and pbem.provisional(st) is not None:
        # ruling R71: a rejected provisional leave is undone, with everything after it
        pbem.authorize(st, cmd)
        prov = pbem.provisional(st)
        assert prov is not None  # the condition above found it; authorize() changes nothing
        reason = str(cmd.get("reason") or "").strip()
        if not reason:
            raise BadInput("reject: --reason TEXT is required: the log keeps why")
        seen, reverted = history()
        since = prov.command["provisional"]
        rolled = pbem.rolled_after(st, seen, reverted, since)
        if rolled:  # undoing them would roll them again: the other side would choose among two results
            what = f"the leave of step {prov.command.get('step')}" if prov.command.get("name") == "next" \
                else f"{prov.command.get('name')} (given at step {prov.command.get('step')})"  # ruling R73
            raise Refused(f"{what} is no longer rejected: dice were rolled"
                          f" after it ({', '.join(rolled)}); propose an undo instead (plcg undo --to"
                          f" {since - 1} --reason TEXT)", "pbem", st.step)
        return [ev.FactRejected(side=cmd["by"], command=prov.command, reason=reason),
                *decide_undo(st, seen, reverted, since - 1, f"rejected: {reason}", True)]
    if name == "confirm" and pb is not None and pb.proposal and pb.proposal.command.get("name") == "undo":
        pbem.authorize(st, cmd)
        inner = _confirmed(st, cmd)
        seen, reverted = history()
        took = inner.get("seqs") or []  # what the undo took back when it was proposed, no more
        if not took or any(s in reverted for s in took):
            raise Refused("the undo proposed no longer applies: what it takes back has changed", "pbem", st.step)
        events = decide_undo(st, seen, reverted, min(took) - 1, inner.get("reason") or "", bool(inner.get("force")))
        events = [attrs.evolve(events[0], seqs=tuple(s for s in events[0].seqs if s in took))]
        return [ev.FactConfirmed(side=cmd["by"], command=pb.proposal.command), *events]
    if name != "undo":
        return decide(st, cmd, base_seq, leave=leave)
    if pb is not None:
        pbem.authorize(st, cmd)
        if cmd.get("confirmed"):
            raise Refused("undo: a command cannot confirm itself; the other side's `plcg confirm` does",
                          "pbem", st.step)
    seen, reverted = history()
    events = decide_undo(st, seen, reverted, cmd.get("to"), cmd.get("reason") or "", bool(cmd.get("force")))
    if pb is not None and pbem.two_party(st):  # ruling R83 (issue 37 attack 1): decided for the answerer already
        took = set(events[0].seqs)
        theirs = [s for s, side in seen.chained_after(min(took) - 1) if s in took and side != cmd["by"]]
        if theirs:
            raise Refused(f"the undo would take back {pbem.other(cmd['by'])}'s roll committed at seq {theirs[0]},"
                          f" whose dice {cmd['by']}'s chain of answers decides (ruling R83): only its roller's"
                          " own undo takes it back", "pbem", st.step)
    if pb is not None and pbem.undo_shared(st, events[0].seqs):
        proposed = {k: v for k, v in cmd.items() if k not in pbem.COMMIT_KEYS}
        return [ev.FactProposed(side=cmd["by"], command={**proposed, "seqs": list(events[0].seqs)})]
    return events


__all__ = ["decide", "decide_all"]
