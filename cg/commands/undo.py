"""Undo: a revert of the last command or of everything after a seq, guarded at 2.8."""
from __future__ import annotations


from events.errors import BadInput, Refused
from cg.evolve import reverted_seqs
from cg.state import CampaignState
from events import types as ev


def decide_undo(state: CampaignState, history: list[tuple], reverted: set[int],
                to: int | None, reason: str, force: bool):
    """history: (seq, batch, type, ...) of every event, in order (the fold's records will do);
    reverted: the seqs undone now.

    Without `to`: take back the newest command in force (a revert too: that is an undo of an undo).
    With `to`: take back every event in force after that seq (reverts stay, so what they undid
    stays undone). Walks back from the end: an undo costs what it takes back, not the log's length.
    """
    if not reason or not reason.strip():
        raise BadInput("--reason TEXT is required: the log keeps why")
    seqs: list[int] = []
    restores = False
    if to is not None:
        if to < 1 or to > (history[-1][0] if history else 0):
            raise BadInput(f"--to {to}: no such seq")
        for s, b, t, *_ in reversed(history):
            if s <= to:
                break
            if s not in reverted and t not in ("reverted", "campaign_started", "head_signed"):
                seqs.append(s)
    else:
        last_batch = None
        for s, b, t, *_ in reversed(history):
            if t == "campaign_started":
                break
            if s in reverted or t == "head_signed":  # a signature is no command to take back (play by email)
                continue
            if last_batch is None:
                last_batch = b
            elif b != last_batch:
                break
            seqs.append(s)
            restores = restores or t == "reverted"
    if not seqs:
        raise Refused("nothing to undo" + (" after that seq" if to is not None else ""), "undo", state.step)
    seqs.reverse()
    # What the undo takes out of force: its own seqs, and, where it takes back a revert that itself
    # took back an undo (undoing a redo), what that earlier undo took back comes out of force again.
    crosses = any(_left_2_8(state, s) for s in _taken_out(state, reverted, seqs, history))
    if crosses and not force:
        raise Refused("that undo crosses a firefight's commencement (2.8); give --force to do it anyway "
                      "(the log records it)", "2.8", state.step)
    return [ev.Reverted(seqs=tuple(seqs), reason=reason.strip(), force=bool(force and crosses),
                        restores=restores)]


def _left_2_8(state: CampaignState, seq: int) -> bool:
    return seq in state.commencements


def _taken_out(state: CampaignState, reverted: set[int], seqs: list[int], history: list[tuple]) -> set[int]:
    """The seqs in force now that a revert of `seqs` would take out of force (reverts of reverts
    included: the log's reverts, from state.reverts, with the new one after them)."""
    after = history[-1][0] + 1 if history else 1
    records = [(s, None, "reverted", {"seqs": list(took)}) for s, took, *_ in state.reverts]
    records.append((after, None, "reverted", {"seqs": seqs}))
    return reverted_seqs(records) - reverted
