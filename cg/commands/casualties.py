"""3.1: RePh casualties, Encircled units (3.17), Shock/UK (3.19)."""
from __future__ import annotations


from cg import drm as drms
from cg import revision
from cg import tables
from events.errors import BadInput, Refused
from cg.state import counter_morale
from events import types as ev
from events.roll import Drm
from cg.commands.base import at, command, given_dice, in_play, int_arg, roll, side_arg, unit_arg


@command("casualties", "3.1", "3.2", "3.3")  # ruling R25: where RePh losses happen
def _casualties(ctx, cmd):
    side = side_arg(cmd)
    st = ctx.state
    n = int_arg(cmd, "cvp", 0)
    units = [unit_arg(st, side, u).id for u in (cmd.get("lost") or ())]
    at(st, "casualties")
    return [ev.CasualtiesAdded(side=side, cvp=n, units=tuple(units))]


@command("encircled", "3.1")
def _encircled(ctx, cmd):
    side = side_arg(cmd)
    st = ctx.state
    u = unit_arg(st, side, cmd.get("unit"), alive=False)
    printed = counter_morale(u.name)
    if cmd.get("morale") is None and printed is None:
        raise BadInput(f"--morale is required: {u.id}'s counter ({u.name}) does not show a morale")
    morale = int_arg(cmd, "morale", 2, 12, default=printed)
    typed = None if cmd.get("leadership") is None else int_arg(cmd, "leadership", -6, 6)
    given = given_dice(cmd, 2)
    in_play(st, u)
    at(st, "encircled")
    if not u.encircled:
        raise Refused(f"{u.id} is not Encircled", "3.17", st.step)
    if f"encircled:{side}:{u.id}" in st.done:
        raise Refused(f"{u.id} has taken its 3.17 1TC this RePh (passed: it stays Encircled)", "3.17", st.step)
    dl = (Drm("3.17", "1TC", 1),) + drms.leadership(st, u, typed, "3.17")
    if revision.on(st, "encircled_abandoned"):
        # 3.17: a failed 1TC of an Immobile AFV/vehicle's inherent crew leaves it Immobile and Abandoned;
        # the failing row is 'morale + 1 or more' (a final DR equal to the morale passes)
        failed = "abandoned" if immobile(st, u) else "eliminated"
        lookup = lambda f: tables.Hit("3.17", f"<={morale}" if f <= morale else f">{morale + 1}",  # noqa: E731
                                      "passed" if f <= morale else failed)
    else:
        lookup = lambda f: tables.Hit("3.17", f"<={morale}" if f <= morale else f">{morale}",  # noqa: E731
                                      "passed" if f <= morale else "eliminated")
    r = roll(ctx.dice(given, 2), dl, lookup)
    return [ev.EncircledTested(side=side, unit=u.id, morale=morale, roll=r)]


def immobile(st, u) -> bool:
    """An Immobile vehicle: one flagged Immobilized at 2.9 (`end --repair SIDE:UNIT=immobilized`) and not
    repaired since (3.46)."""
    return u.kind == "vehicle" and st.repairs_owed.get((u.side, u.id)) == "immobilized"


SHOCK_RECOVERY = 3  # ruling R19: 3.19 gives no number; a dr <= 3 removes the marker, else eliminated


@command("shock", "3.1")
def _shock(ctx, cmd):
    side = side_arg(cmd)
    st = ctx.state
    u = unit_arg(st, side, cmd.get("unit"))
    given = given_dice(cmd, 1)
    at(st, "shock")
    if not u.shocked:
        raise Refused(f"{u.id} is not marked Shock/UK", "3.19", st.step)
    r = roll(ctx.dice(given, 1), (), lambda f: tables.Hit(
        "3.19", f"<={SHOCK_RECOVERY}" if f <= SHOCK_RECOVERY else f">{SHOCK_RECOVERY}",
        "removed" if f <= SHOCK_RECOVERY else "eliminated"))
    return [ev.ShockResolved(side=side, unit=u.id, roll=r)]
