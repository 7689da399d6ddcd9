"""2.4: firefight determination (2.41) and night (2.42)."""
from __future__ import annotations


from cg import seal
from cg.rules import rules_for
from cg import tables
from events.errors import BadInput, Refused
from cg.state import SIDES, other
from events import types as ev
from cg.commands.base import at, command, given_dice, roll
from cg.state import Done
from cg.units import article
from cg.sequence import StepId


@command("determine")
def _determine(ctx, cmd):
    g1 = given_dice(cmd, 1)
    g2 = given_dice(cmd, 1, "move_dice")
    st = ctx.state
    at(st, "determine")
    if Done("determine") in st.reph.done:
        raise Refused("the firefight type is already determined", "2.41", st.step)
    if st.initial:
        att = st.card.campaign.initial_attacker  # ruling R2
        if g1 or g2:
            raise BadInput("the Initial Firefight's ATTACKER is assigned by the card: no dice (2.4)")
        return [ev.FirefightDetermined(type=f"{att}_assault", attacker=att, setup_first=other(att),
                                       move_first=att)]
    a = {s: st.sides[s].attack for s in SIDES}
    if a["axis"] and a["allied"]:
        if "move" not in rules_for(st).dual_attack_drs_at(StepId.DETERMINATION):
            if g2:
                raise BadInput("--move-dice: the moves-first dr is made after all setup, at 2.6 (plcg moves-first)")
            r1 = roll(ctx.dice(g1, 1), (), lambda f: _first(f, "setup"))
            return [ev.FirefightDetermined(type="dual", attacker=None, setup_first=r1.outcome, move_first=None,
                                           rolls=(r1,))]
        r1 = roll(ctx.dice(g1, 1), (), lambda f: _first(f, "setup"))
        r2 = roll(ctx.dice(g2, 1), (), lambda f: _first(f, "move"))
        return [ev.FirefightDetermined(type="dual", attacker=None, setup_first=r1.outcome,
                                       move_first=r2.outcome, rolls=(r1, r2))]
    if g1 or g2:
        raise BadInput("dice are made only for a Dual Attack (2.41)")
    for s in SIDES:
        if a[s]:
            return [ev.FirefightDetermined(type=f"{s}_assault", attacker=s, setup_first=other(s), move_first=s)]
    lost = []
    if not rules_for(st).idle_lists_losses(seal.sealing(st)):
        # ruling R47: each side's patrols and Air Support are sealed in the other's copy; the shared record
        # names none of them (each copy folds the loss of what it holds)
        return [ev.FirefightDetermined(type="idle", attacker=None, setup_first=None, move_first=None, lost=())]
    for s in SIDES:
        if st.sides[s].patrols:
            lost.append(f"{s}: {st.sides[s].patrols} patrol(s)")
    for p in st.purchases.values():
        if p.firefight == st.firefight and p.kind == "air":
            lost.append(f"{p.side}: Air Support {p.id}")
    return [ev.FirefightDetermined(type="idle", attacker=None, setup_first=None, move_first=None,
                                   lost=tuple(lost))]


def _first(final: int, what: str):
    return tables.Hit("2.41", "1-3" if final <= 3 else "4-6", tables.dual_first(final))


@command("moves-first")
def _moves_first(ctx, cmd):
    """2.41 Dual Attack: who moves first, a dr made after all setup (revision 2)."""
    given = given_dice(cmd, 1)
    st = ctx.state
    at(st, "moves-first")
    if st.ff.type != "dual" or "move" not in rules_for(st).dual_attack_drs_at(StepId.SETUP):
        raise Refused("the moves-first dr belongs to a Dual Attack (2.41)" + (
            "" if st.ff.type != "dual" else ", and under rules revision 1 it was made at 2.4"), "2.41", st.step)
    if st.ff.move_first is not None:
        raise Refused(f"{st.ff.move_first} moves first: the dr is made", "2.41", st.step)
    r = roll(ctx.dice(given, 1), (), lambda f: _first(f, "move"))
    return [ev.MovesFirstRolled(roll=r, move_first=r.outcome)]


@command("night")
def _night(ctx, cmd):
    text = (cmd.get("text") or "").strip()
    if not text:
        raise BadInput("plcg night TEXT: say the night conditions (NVR, moon...)")
    st = ctx.state
    at(st, "night")
    if Done("determine") not in st.reph.done:
        raise Refused("determine the firefight type (2.41) before the night conditions", "2.42", st.step)
    if st.ff.time != "night":
        raise Refused(f"firefight {st.firefight} is {article(st.ff.time)} firefight: night conditions are set for a night "
                      "one only", "2.42", st.step)
    return [ev.NightSet(text=text)]
