"""The ends: 2.9 CG Firefight End, and the CG's end (1.3), which any step may lead to; and their events' folds
(`@on`) and words (`@words`): the firefight's end, where a unit stands, the terrain changed (rubble and flame
at 2.9, and 3.31's, 3.3's and 3.52's), a concession and the CG's end."""
from __future__ import annotations

from typing import TYPE_CHECKING

from cg.items import Kept
from cg.rules import Rules, carried_by, rules_for
from cg.sequence import StepId
from cg.specs import Choose
from cg.state import SIDES, CampaignState, Done, terrain_changed
from cg.steps.changes import (AVAILABLE_W, CAPTURED_W, ELIMINATED_W, EXPENDED_W, ON_MAP_W, RECALLED_W, follow,
                              unit_change)
from cg.steps.registry import on, words
from cg.steps.step import Owed, Step
from cg.steps.wording import SIDE, roll_words, side_words, terrain_words
from cg.units import IN_PLAY, Status

if TYPE_CHECKING:  # its events' classes (built when the first fold or words of the type is made)
    from events.types import CgEnded, Conceded, FirefightEnded, TerrainChanged, UnitPositioned


def _firefight_end_owes(state: CampaignState, rules: Rules) -> Owed:
    owed = Owed()
    if Done("end") not in state.reph.done:
        owed.add("end", "2.9", "firefight result", False, turn=Choose.N, cvp_lost=Choose.CVP_LOST)
    return owed


FIREFIGHT_END = Step(StepId.FIREFIGHT_END, "CG Firefight End", "2.9", owes=_firefight_end_owes,
                     accepts=("end", "position", "rubble", "flame"))
CG_END = Step(StepId.END, "CG End", "1.3")  # ruling R16, R74: after the last firefight's RePh, or conceded


# ---- its events: what each does to the state (`@on`, cg/evolve.py folds with it) ----------------------

@on("conceded")
def _conceded(st, p: Conceded):
    st.position = st.position.to(conceded_by=p.side)


@on("cg_ended")
def _cg_ended(st, p: CgEnded):
    st.position = st.position.to(ended=True, step="end", end_reason=p.reason)


@on("firefight_ended")
def _ended(st, p: FirefightEnded):
    ff = st.ff
    ff.turn, ff.winner, ff.winner_rule = p.turn, p.winner, p.winner_rule
    rules_for(st).firefight_end_lifts_isolation(st)  # 3.211: the Isolated mark's Ammunition Shortage lasted it
    for su in p.oba_used:
        ff.oba_used[su.side] += 1
    for side in SIDES:  # 2.756: the patrols' losses count for this firefight too (ruling R39)
        ff.cvp_lost[side] = p.cvp_lost[side] + ff.patrol_cvp[side]
    for c in p.control:
        st.ground.control[c.hex] = c.side
    for lu in p.lost:
        u = st.unit(lu.unit, lu.side)
        if u is not None:
            u.status, u.eliminated_in = ELIMINATED_W, st.firefight
        ff.lost.append([lu.side, lu.unit])
    for t in p.terrain:
        st.ground.terrain.setdefault(t.hex, []).append(Kept.parse(t.item))
        terrain_changed(st)
    for su in p.encircled:
        st.unit(su.unit, su.side).encircled = True
    for su in p.wounded:
        st.unit(su.unit, su.side).wounded = True
    for su in p.shocked:
        st.unit(su.unit, su.side).shocked = True
    for su in p.recalled:
        u = st.unit(su.unit, su.side)
        u.recalled, u.status = True, RECALLED_W
    for su in p.hero:
        st.unit(su.unit, su.side).hero = True
    for reduced, changes in ((True, p.reduced), (False, p.replaced)):
        for change in changes:
            unit_change(st, change, reduced)
    for su in p.captured:
        u = st.unit(su.unit, su.side)
        u.status, u.eliminated_in = CAPTURED_W, st.firefight
        ff.lost.append([su.side, su.unit])
    for su in p.exited:
        u = st.unit(su.unit, su.side)
        for w in carried_by(st, u):  # ruling R86: its SWs go with it
            w.exited, w.hex = True, None
        u.exited, u.hex = True, None  # CG8: off a friendly edge, back in its MLR for the next firefight
    for r in p.repairs:
        side, item = r.hex.split(":", 1)
        st.reph.repairs_owed[(side, item)] = r.item
    _expend(st, rules_for(st).expended_at_end(st, p.oba_used))
    for u in rules_for(st).reserve_ends_with_firefight(st):  # 2.33: In Reserve for its own firefight only
        u.status = ON_MAP_W if u.hex else AVAILABLE_W
    for pur in reversed(st.purchases.values()):  # made in firefight order: this one's come last
        if pur.firefight < st.firefight:
            break
        pur.revealed = True  # purchases are revealed once the firefight was played
    st.reph.done.add(Done("end"))


@on("unit_positioned")
def _positioned(st, p: UnitPositioned):
    u = st.unit(p.unit, p.side)
    carried = carried_by(st, u)  # ruling R86: the SWs it possesses go with it
    u.hex, u.hip, u.concealed, u.exited = p.hex, p.hip, p.concealed, False
    if u.status in (Status.AVAILABLE, Status.RESERVE):
        u.status = ON_MAP_W
    follow(u, carried)


def _expend(st, spent: list) -> None:
    """CG7 EXC: the units of the purchases not retained (Rules.expended_at_end) leave the OB (status "expended")."""
    for pur in spent:
        if pur is None:
            continue
        for uid in pur.units:
            u = st.unit(uid, pur.side)
            if u is not None and u.status in IN_PLAY:
                u.status, u.eliminated_in = EXPENDED_W, st.firefight


@on("terrain_changed")
def _terrain(st, p: TerrainChanged):
    terrain_changed(st)
    for c in p.changes:
        items = st.ground.terrain.setdefault(c.hex, [])
        item = Kept.parse(c.item)
        if c.change == "add":
            items.append(item)
        elif item in items:
            items.remove(item)
        if not items:
            del st.ground.terrain[c.hex]


# ---- its events in words (`@words`: `plcg log`, the commands' output, the AAR) -----------------------

def _winner(e) -> str:
    """'winner Axis (1.31)'; a Dual Night Assault's CVP tie: a draw, no Firefight Defender (ruling R5)."""
    if e.winner is None and e.winner_rule == "2.421":
        return "no winner, a draw (2.421: a Dual Night Assault has no Firefight Defender to take the tie)"
    return f"winner {SIDE[e.winner]} ({e.winner_rule})"


def _end_more(e) -> str:
    """2.9: what else the firefight's end records of units and terrain (issue 27 item 10)."""
    out = []
    for changes, what in ((e.reduced, "reduced"), (e.replaced, "replaced (A19.13)")):
        if changes:
            out.append(f"{what}: " + ", ".join(
                f"{SIDE[c.side]} {c.unit} " + (c.to if c.to in ("eliminated", "wounded", "captured")
                                               else f"to {c.to}") for c in changes))
    for units, what in ((e.wounded, "wounded"), (e.captured, "captured"), (e.exited, "exited (CG8)"),
                        (e.hero, "Hero (3.43)"), (e.encircled, "Encircled (3.17)"), (e.shocked, "Shocked/UK (3.19)"),
                        (e.recalled, "Recalled (3.461)")):
        if units:
            out.append(f"{what}: " + ", ".join(f"{SIDE[x.side]} {x.unit}" for x in units))
    if e.terrain:
        out.append("terrain kept (CG5): " + ", ".join(f"{terrain_words(t.item)} in {t.hex}" for t in e.terrain))
    if e.vasl_logs:
        out.append("played in " + ", ".join(f"{x.name} (SHA-256 {x.sha256})" for x in e.vasl_logs))
    return "".join(f"; {x}" for x in out)


@words("firefight_ended")
def _ended_words(e) -> str:
    c = ", ".join(f"{SIDE[x.side]} {x.hex}" for x in e.control)
    return f"firefight ended on turn {e.turn}: CVP lost Axis {e.cvp_lost['axis']}, Allied " \
           f"{e.cvp_lost['allied']}; {_winner(e)}" + \
           (f"; control: {c}" if c else "") + (f"; {len(e.lost)} unit(s) lost" if e.lost else "") + \
           _end_more(e)


@words("unit_positioned")
def _positioned_words(e) -> str:
    s = side_words(e)
    how = " (HIP)" if e.hip else " (concealed)" if e.concealed else ""
    return f"{s} {e.unit} stands in {e.hex} at the firefight's end{how} (2.9)"


@words("terrain_changed")
def _terrain_words(e) -> str:
    ch = ", ".join(f"{c.change} {terrain_words(c.item)} in {c.hex}" for c in e.changes) or "no change"
    rolls = "; ".join(roll_words(x) for x in e.rolls)
    return f"terrain ({e.rule}): {ch}" + (f" [{rolls}]" if rolls else "")


@words("conceded")
def _conceded_words(e) -> str:
    s = side_words(e)
    return f"{s} concedes the CG"


@words("cg_ended")
def _cg_ended_words(e) -> str:
    w = "; a draw (ruling R74)" if e.winner == "draw" else f"; winner {SIDE[e.winner]}" if e.winner else ""
    return f"CG ended ({e.reason}); CG TVP Axis {e.tvp['axis']}, Allied {e.tvp['allied']}{w}"
