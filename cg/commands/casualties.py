"""3.1: RePh casualties, Encircled units (3.17), Shock/UK (3.19)."""
from __future__ import annotations


from cg import drm as drms
from cg.rules import rules_for
from cg import counters, tables
from events.errors import BadInput, Refused
from cg.state import counter_morale
from events import types as ev
from events.roll import Drm
from cg.commands.base import at, card_quality, command, given_dice, in_play, int_arg, roll, side_arg, unit_arg
from cg.units import Kind, PRESENT
from cg.commands.firefight_end import _reduce
from cg.drm import is_assault_engineer
from cg.rules import mmc_in_play
from cg.commands.base import counter_table
from cg.state import Done


@command("casualties")  # ruling R25: where RePh losses happen; 3.52 dagger
def _casualties(ctx, cmd):
    side = side_arg(cmd)
    st = ctx.state
    if cmd.get("reduced"):
        return _clearance_reduction(st, side, cmd)
    if cmd.get("cvp") is None:
        raise BadInput("--cvp N is required (or --reduced UNIT at 3.52)")
    n = int_arg(cmd, "cvp", 0)
    units = [unit_arg(st, side, u).id for u in (cmd.get("lost") or ())]
    at(st, "casualties", "3.1", "3.2", "3.3")
    return [ev.CasualtiesAdded(side=side, cvp=n, units=tuple(units))]


# 3.52 dagger (ruling R61): "Assault Engineers if possible, otherwise owner's choice of Elite MMC; if no Elite MMC is
# available, Reduce a First Line ...; then a Second Line, and so on"
REDUCTION_ORDER = ("assault_engineer", "elite", "first_line", "second_line", "green", "conscript")


def _clearance_reduction(st, side: str, cmd: dict):
    """3.52 dagger (revision switch clearance_casualty_reduction): the MMC a clearance's Original 6 reduces."""
    values = list(cmd.get("reduced") or ())
    if len(values) != 1 or cmd.get("cvp") or cmd.get("lost"):
        raise BadInput("--reduced UNIT[=COUNTER]: one MMC, alone (3.52: the Casualty Reduction of one MMC)")
    text, _, counter = str(values[0]).partition("=")
    u = unit_arg(st, side, text)
    at(st, "casualties", "3.52")
    owed = sorted(k for k in st.reph.done if k.what == "cr-owed" and k.side == side)
    if not owed:  # revision 2 owes none (Rules.casualty_reduction_owed)
        raise Refused(f"no clearance of {side}'s owes a Casualty Reduction (3.52: an Original 6 against a Known "
                      "minefield or Panji)", "3.52", st.step)
    mmc = mmc_in_play(st, side)  # A1.1: crews too; 3.52 owes no reduction without one (ruling R100)
    if u not in mmc:
        raise Refused(f"{u.id} ({u.name}) is no MMC of {side} in play: the Casualty Reduction is of one MMC", "3.52",
                      st.step)

    def rank(x) -> int:
        if is_assault_engineer(st, x):
            return 0
        q = card_quality(st, x) or counter_class(st, x)
        return REDUCTION_ORDER.index(q) if q in REDUCTION_ORDER else len(REDUCTION_ORDER)

    best = min(rank(x) for x in mmc)
    if rank(u) > best:
        first = next(x for x in mmc if rank(x) == best)
        what = REDUCTION_ORDER[best].replace("_", " ") if best < len(REDUCTION_ORDER) else "unclassed"
        raise Refused(f"{u.id} is not of the first class the rule reduces: {side} still has {what} MMC "
                      f"({first.id} {first.name})", "3.52", st.step)
    change = _reduce(st, ev.SideUnit(side, u.id), counter.strip() or None)
    return [ev.CasualtyReduced(side=side, hex=owed[0].of, change=change)]


def counter_class(st, u) -> str | None:
    nat, over = counter_table(st, u.side)
    c = counters.lookup(nat, u.name, over)
    return c.klass if c else None


@command("encircled")
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
    if Done("encircled", side, u.id) in st.reph.done:
        raise Refused(f"{u.id} has taken its 3.17 1TC this RePh (passed: it stays Encircled)", "3.17", st.step)
    dl = (Drm("3.17", "1TC", 1),) + drms.leadership(st, u, typed, "3.17")
    rules, abandons = rules_for(st), immobile(st, u)
    r = roll(ctx.dice(given, 2), dl, lambda f: rules.encircled_1tc_hit(f, morale, abandons))
    return [ev.EncircledTested(side=side, unit=u.id, morale=morale, roll=r)]


def immobile(st, u) -> bool:
    """Ruling R59: an Immobile vehicle is one flagged Immobilized at 2.9 (`end --repair SIDE:UNIT=immobilized`) and not
    repaired since (3.46)."""
    return u.kind == Kind.VEHICLE and st.reph.repairs_owed.get((u.side, u.id)) == "immobilized"


SHOCK_RECOVERY = 3  # ruling R19: 3.19 gives no number; a dr <= 3 removes the marker, else eliminated


@command("shock")
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
