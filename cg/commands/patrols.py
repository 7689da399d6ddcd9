"""2.7: patrols and their return."""
from __future__ import annotations

from typing import Any, cast

from cg import drm as drms
from cg.rules import rules_for
from cg import counters, tables
from events.roll import Drm
from events.errors import BadInput, Refused
from cg.state import CampaignState
from events import types as ev
from cg.card import BURNABLE, CONCEALMENT
from cg.commands.base import at, command, counter_table, given_dice, hex_arg, in_play, int_arg, roll, side_arg, unit_arg
from cg.units import IN_PLAY, Kind, PERSONNEL


PATROL_KINDS = ("recon", "ambush", "raid", "anti-vehicle")


@command("patrol")
def _patrol(ctx, cmd):
    side = side_arg(cmd)
    st = ctx.state
    give_up = cmd.get("give_up")
    if give_up is not None:
        at(st, "patrol")
        n = _next_patrol(st, side)
        return [ev.PatrolGivenUp(side=side, patrol=n, reason=str(give_up))]
    kind = cmd.get("type")
    if kind not in PATROL_KINDS:
        raise BadInput(f"--type {kind!r}: recon, ambush, raid or anti-vehicle")
    units = [unit_arg(st, side, x, alive=False) for x in (cmd.get("units") or [])]
    leader = unit_arg(st, side, cmd.get("leader"), alive=False) if cmd.get("leader") else None
    hx = hex_arg(st, cmd.get("hex"), "--hex")
    given = given_dice(cmd, 2)
    flags = {k: int_arg(cmd, k, 0, default=0) for k in
             ("elite", "stealthy", "inexperienced", "lax", "enemy_adjacent", "sw_pp")}
    leadership = int_arg(cmd, "leadership", -6, 6, default=0)
    in_play(st, *units, leader)
    at(st, "patrol")
    n = _next_patrol(st, side)
    if leader is None or leader.kind != Kind.LEADER:
        raise Refused("one unwounded leader must accompany the patrol", "2.72", st.step)
    for u in (leader, *units):  # 2.33: set up In Reserve (or kept off map) it "may conduct no action whatsoever"
        pur = st.purchase(u.purchase, side) if u.purchase else None
        if pur is not None and pur.mode == "reserve" and pur.firefight == st.firefight:
            raise Refused(f"{u.id} is In Reserve ({pur.id}, bought In Reserve for this firefight): it may conduct no "
                          "action whatsoever, a patrol neither", "2.33", st.step)
    if leader.wounded:
        raise Refused(f"{leader.id} is wounded", "2.72", st.step)
    _smc(st, leader, units)
    squads = sum(1 for u in units if u.kind == Kind.SQUAD)
    hs = sum(1 for u in units if u.kind in (Kind.HALF_SQUAD, Kind.CREW))
    if any(u.kind not in (Kind.SQUAD, Kind.HALF_SQUAD, Kind.CREW, Kind.SW, Kind.LEADER) for u in units):
        raise Refused("only infantry (squads, half-squads, a hero, SW) can patrol", "2.72", st.step)
    if squads + hs == 0:
        raise Refused("at least one HS must be assigned to a patrol", "2.72", st.step)
    if squads + hs / 2 > tables.PATROL_MAX_SQUADS:
        raise Refused("no more than three squads may be assigned to a patrol", "2.72", st.step)
    mc = st.map_control()
    dist = mc.distance_to_mlr(hx, side)
    if dist is None or dist > tables.PATROL_MAX_HEXES:
        raise Refused(f"mission hex {hx} is {dist} hexes from the {side} MLR ({tables.PATROL_MAX_HEXES} at most)",
                      "2.73", st.step)
    m = st.card.map
    if not rules_for(st).mission_hex_accessible(m, hx):  # rulings R56, R96
        raise Refused(f"mission hex {hx} is a water hex, not Accessible to Infantry (ruling R56)", "2.73", st.step)
    if kind == "ambush" and any(getattr(m, key) for key in BURNABLE):
        # ruling R36: 2.73 concealment terrain is woods, orchard, brush, grain or a building; checked only
        # on a card that maps that terrain (a first-format card maps none: nothing to check against)
        if not any(hx in getattr(m, key) for key in CONCEALMENT):
            raise Refused(f"an Ambush mission hex must be concealment terrain; {hx} is not (CG Card map)",
                          "2.73", st.step)
    night = st.ff.time == "night"

    def from_units() -> list:  # rules revision 2: the DRMs come from the patrol's units
        why = rules_for(st).patrol_leader_refusal(st, side, leader)
        if why:
            raise Refused(why, "2.72", st.step)
        refusal = rules_for(st).patrol_team_refusal(st, side, [leader, *units], hx, mc)
        if refusal:
            raise Refused(refusal, "2.72", st.step)
        typed = _typed(cmd)
        dl = drms.patrol_from_units(st, side, kind, units, leader, hx, typed)
        _half_squads_before_roll(st, side, units, cmd.get("counter"))
        r = roll(ctx.dice(given, 2), dl, tables.patrol_detection)
        selection, losses = _strike(ctx, st, side, [leader, *units], r.outcome, cmd.get("counter"))
        kept = rules_for(st).patrol_flags_for_return(typed, KEPT)
        return [ev.PatrolResolved(side=side, patrol=n, kind=kind, units=tuple(u.id for u in units),
                                  leader=leader.id, mission_hex=hx, roll=r, returns=r.outcome != "kia",
                                  selection=selection, losses=losses, typed=kept or None)]

    def from_flags() -> list:  # revision 1: from the flags typed
        spec = st.card.firefight(st.firefight)
        dl = drms.patrol(kind, leadership=leadership, distance=dist, night=night,
                         hs=max(0, hs - 1) if squads == 0 else hs, pto=st.card.campaign.pto,
                         moon=bool(spec and spec.moon_drm), **cast(dict[str, Any], flags))  # ints for the int flags it names
        r = roll(ctx.dice(given, 2), dl, tables.patrol_detection)
        returns = r.outcome != "kia"
        return [ev.PatrolResolved(side=side, patrol=n, kind=kind, units=tuple(u.id for u in units),
                                  leader=leader.id, mission_hex=hx, roll=r, returns=returns)]

    return from_units() if rules_for(st).patrol_drms_from_units(kind) else from_flags()


def _smc(st: CampaignState, leader, units: list) -> None:
    """2.72: "One unwounded leader must accompany the patrol and one unwounded hero may join": the leader is
    `--leader`; a leader among `--units` joins only as the patrol's one hero (a heroic leader, `end --hero`),
    unwounded (ruling R87)."""
    smc = [u for u in units if u.kind == Kind.LEADER]
    for u in smc:
        if not u.hero:
            raise Refused(f"{u.id} is a second leader: one leader accompanies the patrol ({leader.id}); another SMC "
                          "joins only as its one hero (ruling R87)", "2.72", st.step)
        if u.wounded:
            raise Refused(f"{u.id} is wounded: one unwounded hero may join the patrol", "2.72", st.step)
    if len(smc) > 1:
        raise Refused(f"{', '.join(u.id for u in smc)}: one hero may join the patrol, not {len(smc)}", "2.72", st.step)


TYPED = ("elite", "stealthy", "inexperienced", "lax", "enemy_adjacent", "sw_pp", "leadership")
# ruling R26: the typed flags of the Detection that its Return roll takes too (Elite, Inexperienced and
# Leadership come from the OB at both rolls)
KEPT = ("stealthy", "lax", "enemy_adjacent", "sw_pp")


def _typed(cmd: dict) -> dict:
    """The DRM flags the player typed (None: not given), for drm.patrol_from_units to check."""
    return {k: (None if cmd.get(k) is None else int_arg(cmd, k, -6 if k == "leadership" else 0, 6 if k == "leadership"
                                                           else None)) for k in TYPED}


def _half_squads_before_roll(st, side: str, units: list, counter) -> None:
    """Ruling R49: where a Reduced result could strike a squad the counter table has no half-squad for, the
    counter is asked for before the dice are rolled (exit 2), never after them."""
    if not counter and rules_for(st).judges_before_roll("patrol"):
        _half_squads_lacking(st, side, units)


def _half_squads_lacking(st, side: str, units: list) -> None:
    """Ruling R49: asked for (exit 2) where the counter table has no half-squad for a squad of `units`."""
    nat, over = counter_table(st, side)
    lacking = [u for u in units if u.kind == Kind.SQUAD and not counters.half_squad(nat, u.name, over)]
    if lacking:
        raise BadInput(f"{lacking[0].id} ({nat} {lacking[0].name}) has no half-squad in the counter table, which a "
                       "Reduced result may need: give it with --counter COUNTER before the roll (rulings R34, R49)")


def _strike(ctx, st, side: str, patrol: list, outcome: str, counter) -> tuple[tuple, tuple]:
    """Ruling R29: a starred result strikes one unit by Random Selection (a dr per unit, the highest,
    ties roll again among the tied): Reduced = a squad becomes its HS, a HS or SMC is eliminated; KIA*
    eliminates it. Unstarred KIA eliminates every unit; Return >=14 captures one, the others KIA."""
    alive = [u for u in patrol if u.kind in PERSONNEL]
    if outcome in ("kia",):
        return (), tuple(ev.UnitChange(side, u.id, "eliminated") for u in patrol)
    if outcome not in ("reduced", "kia_returned", "captured") or not alive:
        return (), ()
    selection, pool, rnd = [], alive, 1
    while True:
        drs = [(u, ctx.dice(None, 1).values[0]) for u in pool]
        selection += [ev.SelectionDr(u.id, dr, rnd) for u, dr in drs]
        top = max(dr for _u, dr in drs)
        pool = [u for u, dr in drs if dr == top]
        if len(pool) == 1:
            break
        rnd += 1
    hit = pool[0]
    if outcome == "captured":
        return tuple(selection), tuple(ev.UnitChange(side, u.id, "captured" if u is hit else "eliminated")
                                       for u in patrol)
    if outcome == "reduced" and hit.kind == Kind.SQUAD:
        nat, over = counter_table(st, side)
        to = counters.half_squad(nat, hit.name, over) or (str(counter).strip() if counter else None)
        if not to:
            raise BadInput(f"{hit.id} ({nat} {hit.name}) is Reduced and the counter table has no half-squad: "
                           "give it with --counter COUNTER (ruling R34)")
        return tuple(selection), (ev.UnitChange(side, hit.id, to),)
    to = rules_for(st).patrol_reduced_leader_becomes(hit) if outcome == "reduced" and hit.kind == Kind.LEADER \
        else "eliminated"  # ruling R29: an SMC is wounded (A15/A17)
    return tuple(selection), (ev.UnitChange(side, hit.id, to),)


def _next_patrol(st: CampaignState, side: str) -> int:
    for n in range(1, st.sides[side].patrols + 1):
        if n not in st.reph.patrols_done[side]:
            return n
    raise Refused(f"{side} has no patrol left to resolve (bought {st.sides[side].patrols})", "2.31", st.step)


def _trip_flares(st, side: str, hx: str | None, cmd: dict) -> tuple:
    """2.753 (ruling R88): `patrol-return --trip-flares`, the enemy's Trip Flares in the mission hex went off at
    night: the Return roll takes +2. Refused by day, and where the ledger holds no enemy Trip Flares that could
    be there: placed in the mission hex, or bought for this firefight without a hex (then taken as typed, ruling
    R33). The patrol's mission hex unknown (revision 1), taken as typed."""
    if not cmd.get("trip_flares"):
        return ()
    if st.ff.time != "night":
        raise Refused("Trip Flares go off only on a Mission at night (2.753)", "2.753", st.step)
    enemy = "allied" if side == "axis" else "axis"
    here = hx is not None and any(k.key == "trip_flares" and k.side == enemy for k in st.ground.terrain.get(hx, ()))
    unplaced = any(f.kind == "trip_flares" and f.side == enemy and f.hex is None and f.firefight == st.firefight
                   for f in st.ground.fortifications)
    if hx is not None and not here and not unplaced:
        raise Refused(f"the ledger holds no {enemy} Trip Flares in the mission hex {hx} (2.753)", "2.753", st.step)
    typed = "" if here else " (typed: the ledger cannot tell, ruling R33)"
    return (Drm("2.753", "Trip Flares went off at night" + typed, 2),)


@command("patrol-return")
def _patrol_return(ctx, cmd):
    side = side_arg(cmd)
    n = int_arg(cmd, "patrol", 1)
    given = given_dice(cmd, 2)
    st = ctx.state
    at(st, "patrol-return")
    if n not in st.reph.patrols_to_return[side]:
        raise Refused(f"{side} patrol {n} owes no Return DR", "2.74", st.step)
    info = rules_for(st).patrol_team(st.reph.patrol_units.get((side, n)))
    if info:  # ruling R26: the whole list applies to the Return roll
        units = [st.unit(x, side) for x in info.team]
        leader, members = units[0], units[1:]
        typed = {**(info.typed or {}), **{k: v for k, v in _typed(cmd).items() if v is not None}}
        dl = drms.patrol_from_units(st, side, info.kind, members, leader, info.hex, typed, returning=True,
                                    attacked=bool(cmd.get("attacked")), pinned=bool(cmd.get("pinned")),
                                    broken=bool(cmd.get("broken")))
        _half_squads_before_roll(st, side, members, cmd.get("counter"))
        dl += _trip_flares(st, side, info.hex, cmd)
        r = roll(ctx.dice(given, 2), dl, tables.patrol_return)
        alive = [u for u in units if u.status in IN_PLAY]
        struck = r.outcome if r.outcome in ("kia", "reduced", "captured") else ""
        selection, losses = _strike(ctx, st, side, alive, struck, cmd.get("counter"))
        return [ev.PatrolReturned(side=side, patrol=n, roll=r, selection=selection, losses=losses)]
    spec = st.card.firefight(st.firefight)
    dl = drms.patrol("return", returning=True, night=st.ff.time == "night", pto=st.card.campaign.pto,
                     moon=bool(spec and spec.moon_drm),
                     attacked=bool(cmd.get("attacked")), pinned=bool(cmd.get("pinned")),
                     broken=bool(cmd.get("broken")), leadership=int_arg(cmd, "leadership", -6, 6, default=0))
    dl += _trip_flares(st, side, None, cmd)
    r = roll(ctx.dice(given, 2), dl, tables.patrol_return)
    return [ev.PatrolReturned(side=side, patrol=n, roll=r)]
