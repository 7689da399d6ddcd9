"""The events written at any step, by no single step's command: play by email's (a signed head, two-party dice
and their chains of answers, shared facts proposed, confirmed and rejected: rulings R44, R45, R67, R71, R83)
and a rules upgrade (ruling R32). Their folds (`@on`) and words (`@words`), as a step's module holds its
events' (cg/steps/registry.py). The fold loop's own events (the campaign's start, `step_left`, undo, a sealed
secret and its opening) keep theirs in cg/evolve.py and projections/words.py."""
from __future__ import annotations

from typing import TYPE_CHECKING, cast

from cg import pbem
from cg.rules import rules_for
from cg.seal import deferred
from cg.state import AnswerChain, DiceRequest, Proposal  # play by email's records (rulings R44, R45, R67, R71, R83)
from cg.steps.registry import on, words
from cg.steps.wording import SIDE, side_words, vasl_words

if TYPE_CHECKING:  # its events' classes (built when the first fold or words of the type is made)
    from events.types import (DiceAnswered, DiceChain, DiceCommitted, DiceRevealed, FactConfirmed, FactProposed,
                              FactRejected, HeadSigned, RulesUpgraded)


# ---- what each does to the state (`@on`, cg/evolve.py folds with it) ------------------------------------------

@on("rules_upgraded")
def _rules_upgraded(st, p: RulesUpgraded):
    st.rules_upgrades.append([p.from_firefight, p.revision])  # ruling R32


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


# ---- in words (`@words`: `plcg log`, the commands' output, the AAR) ---------------------------------------

def command_words(cmd: dict) -> str:
    """A command as the player typed it, roughly: `plcg end --turn 5 ...`."""
    skip = ("name", "by", "commit", "nonce", "confirmed", "provisional", "step")
    args = " ".join(f"{k}={v}" for k, v in sorted(cmd.items()) if k not in skip)
    return f"plcg {cmd.get('name')}" + (f" ({args})" if args else "")


def provisional_words(side: str, cmd: dict) -> str:
    """What a side did provisionally (rulings R71, R73): left a step, or gave a shared fact."""
    if cmd.get("name") == "next":
        return f"{side} left step {cmd.get('step')} provisionally"
    return f"{side} gave {fact_words(cmd)} provisionally at step {cmd.get('step')}"


def fact_words(cmd: dict) -> str:
    """A shared fact (rulings R45, R71) as a player says it: `to leave step 2.3`, `the firefight's end: ...`."""
    name = cmd.get("name")
    if name == "next":
        return "to leave step " + str(cmd["step"]) if "step" in cmd else "to leave the step"
    if name == "end":
        lost = cmd.get("cvp_lost") or {}
        lost = lost if isinstance(lost, dict) else dict(str(x).split("=", 1) for x in lost if "=" in str(x))
        out = f"the firefight's end: turn {cmd.get('turn')}, CVP lost " + ", ".join(
            f"{SIDE.get(k, k)} {v}" for k, v in sorted(lost.items()))
        for key, what in (("control", "control"), ("winner", "winner"), ("lost", "lost"), ("position", "at")):
            v = cmd.get(key)
            if v:
                out += f"; {what} {', '.join(map(str, v)) if isinstance(v, (list, tuple)) else v}"
        logs = cmd.get("vasl_logs")
        if isinstance(logs, list) and all(isinstance(x, dict) for x in logs) and logs:
            out += "; played in " + vasl_words(logs)
        return out
    if name == "determine":
        return "the 2.41 firefight determination"
    if name == "weather" and cmd.get("text"):  # ruling R68: a typed weather
        return f"the at-start weather {cmd['text']}"
    if name == "night":
        return f"the night ({cmd.get('text')})"
    if name == "option":
        return f"Redeployment Option {cmd.get('option')}"
    if name == "undo":
        seqs = cmd.get("seqs") or []
        what = f"seq {min(seqs)}-{max(seqs)}" if seqs else "the last command"
        return f"to undo {what} ({cmd.get('reason')})"
    return command_words(cmd)


@words("rules_upgraded")
def _upgraded_words(e) -> str:
    return f"rules revision {e.revision} in force from firefight {e.from_firefight}'s 2.1 on (ruling R32)"


@words("head_signed")
def _head_signed_words(e) -> str:
    s = side_words(e)
    return f"{s} signed the head at seq {e.seq} ({e.hash[:16]})"


@words("dice_committed")
def _dice_committed_words(e) -> str:
    s = side_words(e)
    ahead = e.command.get("ahead")
    if ahead is not None:  # ruling R121: answered by the other side's next bundle, decided at its own step
        return f"{s} committed ahead of its step to two-party dice for {e.command.get('name')} ({e.commit[:8]}):" \
               f" answered by the other side's next bundle, decided at {ahead} as the rules stand there (ruling R121)"
    if e.chain is not None:  # ruling R83
        return f"{s} committed to two-party dice for {e.command.get('name')} ({e.commit[:8]}), its value" \
               " shown: decided by the other side's next bundle, whose answer is fixed already (ruling R83)"
    return f"{s} committed to two-party dice for {e.command.get('name')} ({e.commit[:8]}): decided at" \
           f" {s}'s reveal, after the other side's answer"


@words("dice_chain")
def _dice_chain_words(e) -> str:
    s = side_words(e)
    return f"{s} committed to its chain of answers to the other side's two-party dice ({e.anchor[:8]})"


@words("dice_answered")
def _dice_answered_words(e) -> str:
    s = side_words(e)
    return f"{s} answered two-party dice {e.request[:8]}"


@words("dice_revealed")
def _dice_revealed_words(e) -> str:
    s = side_words(e)
    if str(e.value).partition(":")[0] == "withheld":
        return f"{s} claimed two-party dice {e.request[:8]}, withheld by the other side (ruling R67)"
    return f"{s} revealed two-party dice {e.request[:8]}"


@words("fact_proposed")
def _fact_proposed_words(e) -> str:
    s = side_words(e)
    if "provisional" in e.command:  # ruling R71
        return (f"{provisional_words(s, e.command)} (the other side's next command"
                " confirms it; `plcg reject --reason TEXT` undoes it)")
    return f"{s} proposed {fact_words(e.command)} (the other side's `plcg next` or `plcg confirm` confirms" \
           " it; `plcg reject --reason TEXT` refuses it)"


@words("fact_confirmed")
def _fact_confirmed_words(e) -> str:
    s = side_words(e)
    return f"{s} confirmed {fact_words(e.command)}"


@words("fact_rejected")
def _fact_rejected_words(e) -> str:
    s = side_words(e)
    return f"{s} rejected {fact_words(e.command)} ({e.reason})"
