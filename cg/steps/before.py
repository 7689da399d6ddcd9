"""The steps before the firefight, 2.4 to 2.8: Determination, Redeployment in the Friendly MLR, Setup,
Patrols, Commencement; and their events' folds (`@on`) and words (`@words`): the firefight type and night, the
redeployments (3.2's `redeployed` too), the setup, a fortification placed, the patrols."""
from __future__ import annotations

from typing import TYPE_CHECKING

from cg.items import Kept
from cg.rules import Rules, carried_by, rules_for
from cg.sequence import StepId
from cg.specs import Choose
from cg.state import SIDES, CampaignState, Done, PatrolTeam, loss_cvp
from cg.steps.changes import AVAILABLE_W, CAPTURED_W, ELIMINATED_W, ON_MAP_W, follow, in_hex, reph_loss, unit_change
from cg.steps.registry import on, words
from cg.steps.step import Owed, Step
from cg.steps.wording import SIDE, SITUATION, TYPE, roll_words, side_words, terrain_words
from cg.units import Status, article
from events import types as ev  # the module: an event class is built when first used (status builds none)

if TYPE_CHECKING:  # its events' classes (built when the first fold or words of the type is made)
    from events.types import (FirefightDetermined, FortificationPlaced, MovesFirstRolled, NightSet, PatrolGivenUp,
                              PatrolResolved, PatrolReturned, Redeployed, RedeploymentDone, UnitSetUp)


def _determination_owes(state: CampaignState, rules: Rules) -> Owed:
    owed = Owed()
    if Done("determine") not in state.reph.done:
        owed.add("determine", "2.41", "firefight type")
    elif state.ff.time == "night" and Done("night") not in state.reph.done and not state.idle:
        owed.add("night", "2.42", "night conditions from the CG Card's night rules", False, text=Choose("TEXT"))
    return owed


def _mlr_redeployment_left(st: CampaignState, to: StepId) -> None:
    if rules_for(st).redeployed_marks_cleared_leaving_2_5(to):
        for u in st.units.values():  # ruling R28: the 3.2 redeployment mark lasts through 2.5
            u.redeployed = False


def _setup_owes(state: CampaignState, rules: Rules) -> Owed:
    owed = Owed()
    if state.ff.type == "dual" and state.ff.move_first is None:  # revision 2: after all setup (2.41)
        owed.add("moves-first", "2.41", "Dual Attack: the dr for who moves first, after all setup")
    return owed


def _patrols_owes(state: CampaignState, rules: Rules) -> Owed:
    owed = Owed()
    for side in SIDES:
        done = state.reph.patrols_done[side]
        for n in range(1, state.sides[side].patrols + 1):
            if n not in done:
                owed.add("patrol", "2.7", f"{side} patrol {n} (or give it up: plcg patrol {side} --give-up REASON)",
                         False, side=side, kind=Choose("TYPE"), units=Choose("..."), leader=Choose("L"),
                         hex_=Choose.HEX)
        for n in sorted(state.reph.patrols_to_return[side]):
            owed.add("patrol-return", "2.74", f"{side} patrol {n} Return DR", side=side, patrol_n=n)
    return owed


def _commencement_left(st: CampaignState, to: StepId) -> None:
    st.ff.commenced = True  # 2.8 Firefight Commencement (conceded here too)


STEPS = (
    Step(StepId.DETERMINATION, "Firefight Determination", "2.4", owes=_determination_owes,
         accepts=("determine", "night"),
         # 2.41 Idle; 2.5 not in the Initial Firefight
         leads_to=((StepId.DISEASE, "is_idle"), (StepId.SETUP, "is_initial"))),
    Step(StepId.MLR_REDEPLOYMENT, "Redeployment of Units in Friendly MLR", "2.5", accepts=("redeploy",),
         on_left=_mlr_redeployment_left),
    Step(StepId.SETUP, "Firefight Setup", "2.6", owes=_setup_owes, accepts=("fortify", "setup", "moves-first")),
    Step(StepId.PATROLS, "Patrols", "2.7", owes=_patrols_owes, accepts=("patrol", "patrol-return")),
    Step(StepId.COMMENCEMENT, "Firefight Commencement", "2.8", on_left=_commencement_left),
)


# ---- its events: what each does to the state (`@on`, cg/evolve.py folds with it) ----------------------

@on("fortification_placed")
def _fortification_placed(st, p: FortificationPlaced):
    f = st.ground.fortifications[p.index]
    f.hex = p.hex
    in_hex(st, p.side, p.kind, p.hex, f.detail)


@on("firefight_determined")
def _determined(st, p: FirefightDetermined):
    ff = st.ff
    ff.type, ff.attacker = p.type, p.attacker
    ff.setup_first, ff.move_first = p.setup_first, p.move_first
    st.reph.done.add(Done("determine"))
    if p.type == "idle":  # 2.41: patrols and Air Support bought for it are lost (ruling R11)
        for side in SIDES:
            st.sides[side].patrols = 0
        for pur in st.purchases.values():
            if pur.firefight == st.firefight and pur.kind == "air":
                pur.lost_idle = True
                for uid in pur.units:
                    st.unit(uid, pur.side).status = ELIMINATED_W
                    st.unit(uid, pur.side).eliminated_in = st.firefight


@on("moves_first_rolled")
def _moves_first(st, p: MovesFirstRolled):
    st.ff.move_first = p.move_first


@on("night_set")
def _night(st, p: NightSet):
    st.ff.night = p.text
    st.reph.done.add(Done("night"))


@on("redeployment_done")
def _redeployment_done(st, p: RedeploymentDone):  # ruling R85: 2.5 Option A, the Defender has done
    st.reph.done.add(_REDEPLOY_25[p.side])
    st.reph.done.add(Done("redeploy-2.5-done", p.side))


@on("redeployed")
def _redeployed(st, p: Redeployed):
    u = st.units[(p.side, p.unit)]  # a unit in play (decide checked it): never in the settled part
    carried = carried_by(st, u) if p.result.startswith("redeploys") else ()  # ruling R86: its SWs go with it
    _redeploy_unit(st, p, u)
    follow(u, carried)


def _redeploy_unit(st, p: Redeployed, u) -> None:
    u.redeployed = True
    if rules_for(st).redeployment_marks_side_begun(st.step):
        st.reph.done.add(_REDEPLOY_25[p.side])  # 2.5 Option A: the Defender goes first
    r = p.result
    hip_lost, concealment_lost = rules_for(st).hiding_lost_in_redeployment(p.situation)
    if hip_lost:
        u.hip = False
    if concealment_lost:
        u.concealed = False
    if p.change:
        if p.reduced or p.change == "eliminated":  # a loss, not an ELR replacement
            reph_loss(st, u, p.change)

        unit_change(st, ev.UnitChange(side=p.side, unit=p.unit, to=p.change), p.reduced)
        if u.status == Status.ELIMINATED:
            return
    if r in ("eliminated", "eliminated_cs_na"):
        reph_loss(st, u, "eliminated")
        u.status, u.eliminated_in = ELIMINATED_W, st.firefight
        st.ff.lost.append([p.side, u.id])
        return
    if r.startswith("redeploys"):
        u.hex = p.to
        u.isolated = False
    else:  # remains in hex: uncontrolled / NML units become Isolated (3.216)
        u.isolated = p.situation in ("uncontrolled", "nml", "isolated")


# The records of the two events of half a long log, made without a Python call: the per-side ones made
# once, Done("set", side, unit) by tuple.__new__ (what Done(...) does, less its Python-level __new__).
_SETUP = {s: Done("setup", s) for s in SIDES}


_REDEPLOY_25 = {s: Done("redeploy-2.5", s) for s in SIDES}


_new_done = tuple.__new__


@on("unit_set_up")
def _setup(st, p: UnitSetUp):
    # half of a long log: kept to the few operations it needs (a reserve unit stays In Reserve)
    side = p.side
    u = st.units[(side, p.unit)]  # a unit in play (decide checked it): never in the settled part
    rules = rules_for(st)
    for done in rules.set_up_done(side, u.id):  # 2.6: the side that sets up first goes before the other; set up this
        # 2.6: no longer a unit left in place (3.34)
        st.reph.done.add(_SETUP[side] if done[0] == "setup" else _new_done(Done, done))
    u.hex = p.hex
    u.hip = p.hip
    if u.status == AVAILABLE_W:
        u.status = ON_MAP_W
    pur = st.purchases.get((u.side, u.purchase))  # None for a unit of no purchase
    if pur is not None:
        pur.revealed = True


@on("patrol_resolved")
def _patrol(st, p: PatrolResolved):
    side = p.side
    st.reph.patrols_done[side].add(p.patrol)
    if p.returns:
        st.reph.patrols_to_return[side].add(p.patrol)
    if rules_for(st).keeps_patrol_team(p.losses):
        st.reph.patrol_units[(side, p.patrol)] = PatrolTeam([p.leader, *p.units], p.kind, p.mission_hex,
                                                            p.typed or None)
    for uid in rules_for(st).patrol_hip_lost((p.leader, *p.units)):  # 2.72: "Place all Patrol units in a cloaking
        st.units[(side, uid)].hip = False  # box"; back, CG11
    _patrol_losses(st, p)


@on("patrol_returned")
def _patrol_ret(st, p: PatrolReturned):
    st.reph.patrols_to_return[p.side].discard(p.patrol)
    _patrol_losses(st, p)


def _patrol_losses(st, p) -> None:
    """Ruling R29: the units a patrol result strikes: reduced (a new counter), eliminated or captured; their
    CVP count for the current firefight (2.756, ruling R39)."""

    factor = rules_for(st).patrol_loss_cvp_factor  # 3.22: "Only guarded prisoners are worth double CVP" (ruling R91)
    for c in p.losses:
        cvp = loss_cvp(st.unit(c.unit, c.side), c.to) * factor(c.to)
        st.ff.patrol_cvp[c.side] += cvp
        st.ff.cvp_lost[c.side] += cvp
        if c.to == "captured":
            u = st.unit(c.unit, c.side)
            u.status, u.eliminated_in = CAPTURED_W, st.firefight
            st.ff.lost.append([c.side, c.unit])
        else:
            unit_change(st, c, True)


@on("patrol_given_up")
def _patrol_up(st, p: PatrolGivenUp):
    st.reph.patrols_done[p.side].add(p.patrol)


# ---- its events in words (`@words`: `plcg log`, the commands' output, the AAR) -----------------------

def _struck(e) -> str:
    """Ruling R29: the Random Selection drs and what the result did to each unit struck."""
    out = ""
    if e.selection:
        out += "; Random Selection drs " + ", ".join(f"{x.unit} {x.dr}" + (f" (round {x.round})" if x.round > 1 else "")
                                                     for x in e.selection)
    if e.losses:
        out += "; " + ", ".join(f"{c.unit} {c.to if c.to in ('eliminated', 'captured', 'wounded') else 'reduced to ' + c.to}"
                                for c in e.losses)
    return out


# the two types of nine rows in ten of a campaign's log (2.5 and 2.6, every unit each firefight)
@words("redeployed")
def _redeployed_words(e) -> str:
    s = side_words(e)
    r = e.roll
    how = roll_words(r, "Redeployment Table") if r else "Option B"
    res = e.result.replace("_", " ")
    tail = f" -> {res}" if not r or r.outcome != e.result else ""
    change = e.change
    change = "" if not change else f"; {e.unit} is {change}" if change in ("eliminated", "wounded") \
        else f"; {e.unit} is now {article(change)}"
    return f"{s} {e.unit} redeploys from {e.frm or 'MLR'} ({SITUATION.get(e.situation, e.situation)}) " \
           f"to {e.to}: {how}{tail}{change}"


@words("unit_set_up")
def _set_up_words(e) -> str:
    s = side_words(e)
    return f"{s} {e.unit} set up in {e.hex}" + (" (HIP)" if e.hip else "")


@words("fortification_placed")
def _fortification_placed_words(e, secret: bool = False) -> str:
    s = side_words(e)
    return f"{s} placed {terrain_words(Kept(e.kind))} in {e.hex} (bought at 2.38 without a hex)"


@words("firefight_determined")
def _determined_words(e) -> str:
    t = TYPE.get(e.type, e.type)
    if e.type == "idle":
        lost = f"; lost: {', '.join(e.lost)}" if e.lost else ""
        return f"firefight type: Idle Firefight (neither side bought an Attack Option){lost}"
    if e.type == "dual":
        drs = [r.dice[0] for r in e.rolls if r.dice]
        setup = f"dr {drs[0]}: " if drs else ""
        if not e.move_first:
            return f"firefight type: Dual Attack; {setup}{SIDE[e.setup_first]} sets up first " \
                   "(who moves first: a dr after all setup, 2.6)"
        move = f"dr {drs[1]}: " if len(drs) > 1 else ""
        return f"firefight type: Dual Attack; {setup}{SIDE[e.setup_first]} sets up first, " \
               f"{move}{SIDE[e.move_first]} moves first"
    return f"firefight type: {t}; {SIDE[e.setup_first]} sets up first, {SIDE[e.move_first]} moves first"


@words("moves_first_rolled")
def _moves_first_words(e) -> str:
    return f"Dual Attack, who moves first (2.41): {roll_words(e.roll)}: {SIDE[e.move_first]} moves first"


@words("night_set")
def _night_words(e) -> str:
    return f"night conditions: {e.text}"


@words("patrol_resolved")
def _patrol_words(e) -> str:
    s = side_words(e)
    return f"{s} {e.kind} patrol {e.patrol} ({', '.join(e.units)} with {e.leader}) to " \
           f"{e.mission_hex}: Detection {roll_words(e.roll)}{_struck(e)}"


@words("patrol_returned")
def _patrol_returned_words(e) -> str:
    s = side_words(e)
    return f"{s} patrol {e.patrol} Return: {roll_words(e.roll)}{_struck(e)}"


@words("patrol_given_up")
def _patrol_given_up_words(e) -> str:
    s = side_words(e)
    return f"{s} patrol {e.patrol} given up: {e.reason}"


@words("redeployment_done")
def _redeployment_done_words(e) -> str:
    s = side_words(e)
    return f"{s} has done with its 2.5 Option A redeployment: the Attacker redeploys now (ruling R85)"
