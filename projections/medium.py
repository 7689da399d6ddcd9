"""Play by email's medium in words (issue 26): whose move it is, what the other player owes (`plcg sync`,
`plcg status`). The medium itself, the folder of bundles and git, is cg/app/medium.py."""
from __future__ import annotations

from cg.steps import owed_by as owner
from projections.entitlements import allowed_now
from projections.words import provisional_words

SIDES = ("axis", "allied")


# ---- whose move ----------------------------------------------------------------------------------

def turn_lines(pending: list[dict], me: str | None, proposal: dict | None = None,
               provisional: dict | None = None) -> list[str]:
    """`pending` in words for the player `me`: what he owes now, what the other player owes."""
    other = None if me is None else ("allied" if me == "axis" else "axis")
    later = [p for p in pending if p.get("waits_for")]  # issue 37 item 6: owed once a side has revealed (R112)
    mine = [p for p in pending if owner(p) in (me, None) and not p.get("waits_for")]
    theirs = [p for p in pending if other is not None and owner(p) == other and not p.get("waits_for")]
    out = []
    if provisional is not None and provisional.side != me:  # rulings R71, R73

        out.append(f"{provisional_words(provisional.side, provisional.command)}: your next"
                   " command confirms it; `plcg reject --reason TEXT` undoes it")
    if mine:
        out.append(f"your move ({me}):" if me else "owed now:")
        out += [f"  {p['what']}: {p['command']} ({p['rule']})" for p in mine]
    if theirs:
        out.append(f"{other} owes:")
        out += [f"  {p['what']}" for p in theirs]
    for p in later:
        out.append(f"then, once {' and '.join(p['waits_for'])} has revealed: {p['what']}: {p['command']} ({p['rule']})")
    if not pending:
        if proposal is not None and proposal.side != me:
            out.append(f"your move ({me}): {proposal.side}'s proposal awaits you: your commands at the step, then"
                       " `plcg next` (it confirms the proposal), or `plcg reject --reason TEXT`")
        elif proposal is not None:
            out.append(f"waiting for {other}: your proposal awaits his answer; send it (plcg sync --send)")
        else:
            out.append(f"your move ({me}): your optional commands, then `plcg next`" if me else
                       "nothing owed: the optional commands, then `plcg next`")
    return out


def whose_move(pending: list[dict], pb: dict) -> list[str]:
    """`status` in a campaign played by email (status_dict's `pbem`): who owes what, who waits."""
    by: dict[str, list[str]] = {}
    for p in pending:
        if not p.get("waits_for"):  # issue 37 item 6: nobody's move before the reveal it waits for (R112)
            by.setdefault(owner(p) or "either player", []).append(p["what"])
    out = [f"{who} to move: " + "; ".join(whats) for who, whats in by.items()]
    out += [f"then, once {' and '.join(p['waits_for'])} has revealed: {p['what']}" for p in pending if p.get("waits_for")]
    for side in SIDES:
        if side not in by and by:
            out.append(f"{side} waits for {' and '.join(w for w in by if w in SIDES) or 'the step to be done'}")
    prop, prov = pb.get("proposal"), pb.get("provisional")
    if prop is not None and not pending:
        other = "allied" if prop["side"] == "axis" else "axis"
        out.append(f"{other} to move: {prop['side']}'s proposal ({prop['command']}) awaits its answer")
    if prov is not None:
        other = "allied" if prov["side"] == "axis" else "axis"
        said = f"{prov['side']} left step {prov['step']} provisionally" if prov.get("command", "next") == "next" \
            else f"{prov['side']} gave {prov['command']} provisionally at step {prov['step']}"  # ruling R73
        out.append(f"{said} (seq {prov['seq']}): {other}'s next command confirms it, `plcg reject --reason TEXT`"
                   " undoes it")
    return out


def turn_words(st, me: str | None, pending: list[dict]) -> list[str]:
    """`sync`'s last words: whose move it is, and (ruling R111) what a decided roll of his now allows."""
    out = turn_lines(pending, me, st.pbem.proposal if st.pbem else None, st.pbem.provisional if st.pbem else None)
    return out + (allowed_now(st, me) if me is not None else [])
