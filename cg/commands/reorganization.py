"""3.3-3.47: evacuation, disease, promotion, leaders, hardening, repair, recall, ELR."""
from __future__ import annotations


import attrs

from cg import drm as drms
from cg.rules import rules_for
from cg import counters, tables
from cg.counters import leader_modifier
from events.errors import BadInput, Refused
from cg.state import CampaignState
from events import types as ev
from events.roll import Drm
from cg.commands.base import (at, card_quality, command, given_dice, int_arg, leader_slots, roll, side_arg,
                              unit_any_case, unit_arg)
from cg.rules import REPAIRABLE, heroes_in_mlr, repair_refusal
from cg.steps import disease_owed
from cg.units import Kind, PRESENT, Status, article
from cg.commands.firefight_end import _replace
from cg.commands.base import counter_table
from cg.state import Done
from cg.sequence import StepId


@command("evacuate")
def _evacuate(ctx, cmd):
    side = side_arg(cmd)
    st = ctx.state
    u = unit_arg(st, side, cmd.get("leader"))
    given = given_dice(cmd, 1)
    at(st, "evacuate")
    if u.kind != Kind.LEADER or not u.wounded:
        raise Refused(f"{u.id} is not a wounded leader", "3.32", st.step)
    if st.card.sides[side].nationality.lower() == "japanese":
        raise Refused("Japanese wounded leaders are not evacuated", "3.32", st.step)
    if Done("evacuate", None, u.id) in st.reph.done:
        raise Refused(f"{u.id} has had its evacuation dr", "3.32", st.step)
    r = roll(ctx.dice(given, 1), (), tables.evacuation)
    return [ev.EvacuationRolled(side=side, leader=u.id, roll=r)]


def _once(st: CampaignState, key: Done, what: str, rule: str):
    if key in st.reph.done:
        raise Refused(f"{what} is already made this RePh", rule, st.step)


@command("disease")
def _disease(ctx, cmd):
    side = side_arg(cmd)
    st = ctx.state
    if cmd.get("replaced"):
        return [_disease_replacement(st, side, cmd)]
    given = given_dice(cmd, 1)
    at(st, "disease")
    if not st.card.campaign.disease:
        raise Refused("Disease & Starvation is only invoked by FSR; the CG Card has none", "3.41", st.step)
    _once(st, Done("disease", side), f"{side}'s Disease & Starvation dr", "3.41")
    r = roll(ctx.dice(given, 1), drms.disease(st, side), tables.disease)
    return [ev.DiseaseRolled(side=side, roll=r)]


def _disease_replacement(st, side: str, cmd: dict):
    """3.41 (ruling R60): "The owning player may choose any squads/equivalents ..., but must choose all Isolated units
    before applying Replacement to any non-Isolated unit"; each by ELR Replacement (A19.13, ruling R34)."""
    text, _, counter = str(cmd.get("replaced")).partition("=")
    u = unit_arg(st, side, text)
    at(st, "disease")
    if disease_owed(st, side) <= 0:  # revision 2 owes none (Rules.disease_hs_owed)
        raise Refused(f"{side}'s Disease & Starvation dr owes no (more) ELR Replacement", "3.41", st.step)
    mmc = [x for x in st.side_units(side) if x.kind in (Kind.SQUAD, Kind.HALF_SQUAD) and x.status in PRESENT
           and Done("disease-replaced", side, x.id) not in st.reph.done]
    if u not in mmc:
        raise Refused(f"{u.id} ({u.name}) is no squad or HS of {side} in play not yet Replaced this RePh", "3.41",
                      st.step)
    isolated = [x for x in mmc if x.isolated]
    if isolated and not u.isolated:
        raise Refused(f"Isolated units are chosen first: {', '.join(x.id for x in isolated)}", "3.41", st.step)
    given = counter.strip() or None
    if _disrupted_instead(st, u):  # A19.12: no lower-quality counter, so Disrupted (ruling R93)
        if given not in (None, u.name):
            raise Refused(f"{u.id} ({u.name}) has no lower-quality counter: A19.12 Disrupts it instead of an "
                          f"ELR Replacement; give no counter (not {given})", "3.41", st.step)
        return ev.DiseaseReplaced(side=side, change=ev.UnitChange(side, u.id, u.name), disrupted=True)
    return ev.DiseaseReplaced(side=side, change=_replace(st, ev.SideUnit(side, u.id), given))


def _disrupted_instead(st, u) -> bool:
    nat, over = counter_table(st, u.side)
    return counters.disrupted_instead(nat, u.name, over)


@command("promote")
def _promote(ctx, cmd):
    side = side_arg(cmd)
    given = given_dice(cmd, 1)
    st = ctx.state
    at(st, "promote")
    _once(st, Done("promote", side), f"{side}'s Battlefield Promotion dr", "3.44")
    r = roll(ctx.dice(given, 1), drms.promotion(st, side), tables.promotion)
    return [ev.PromotionRolled(side=side, roll=r)]


@command("leaders")
def _leaders(ctx, cmd):
    side = side_arg(cmd)
    given = given_dice(cmd, 1)
    st = ctx.state
    at(st, "leaders")
    _once(st, Done("leaders", side), f"{side}'s Leader Generation dr", "3.45")
    r = roll(ctx.dice(given, 1), drms.leader_generation(st, side),
             lambda f: attrs.evolve(tables.promotion(f), table="3.45"))
    lost, mmc = generation_limits(st, side)
    may = max(0, min(r.outcome, lost - 1, mmc))
    return [ev.LeadersRolled(side=side, roll=r, may_generate=may)]


def generation_limits(st, side: str) -> tuple[int, int]:
    """3.45: (leaders the side lost in the firefight, its MMC on board): it generates at most lost - 1
    leaders, never more than MMC on board."""
    lost = sum(1 for s, uid in st.ff.lost if s == side and st.unit(uid, s) and st.unit(uid, s).kind == Kind.LEADER)
    is_mmc = rules_for(st).is_mmc
    mmc = sum(1 for u in st.side_units(side) if is_mmc(u.kind) and u.status == Status.ON_MAP)
    if not any(u.hex for u in st.side_units(side)):
        mmc = sum(1 for u in st.side_units(side) if is_mmc(u.kind))  # roster-only play
    return lost, mmc


@command("harden")
def _harden(ctx, cmd):
    """Battle Hardening: 3.43 a hero combined/heroic leader, 3.44 up to the promotion dr's # of MMC,
    3.45 leaders within the 3.45 result; no unit hardens twice in one RePh (3.44 EXC)."""
    side = side_arg(cmd)
    st = ctx.state
    u = unit_arg(st, side, cmd.get("unit"))
    to = (cmd.get("to") or "").strip() or None
    at(st, "harden")
    if u.id in st.reph.hardened_now[side]:
        raise Refused(f"{u.id} has already Battle Hardened this RePh", "3.44", st.step)
    if st.step == StepId.PROMOTIONS:
        if Done("promote", side) not in st.reph.done:
            raise Refused(f"make {side}'s Battlefield Promotion dr first (plcg promote {side})", "3.44", st.step)
        is_mmc = rules_for(st).is_mmc
        if not is_mmc(u.kind):
            raise Refused(f"{u.id} is not an MMC (a squad, half-squad or crew, ASL A1.1)", "3.44", st.step)
        used = sum(1 for x in st.reph.hardened_now[side] if is_mmc(st.unit(x, side).kind))
        if used >= st.reph.promotions[side]:
            raise Refused(f"the 3.44 dr allows {st.reph.promotions[side]} MMC and {used} have hardened", "3.44", st.step)
    elif st.step == StepId.LEADERS:
        if Done("leaders", side) not in st.reph.done:
            raise Refused(f"make {side}'s 3.45 dr first (plcg leaders {side})", "3.45", st.step)
        if u.kind != Kind.LEADER:
            raise Refused(f"{u.id} is not a leader", "3.45", st.step)
        if leader_slots(st, side) <= 0:
            raise Refused(f"the 3.45 result ({st.reph.leader_result[side]}) allows no more leaders to harden or "
                          "be generated", "3.45", st.step)
    made: dict = {"to": to}  # revision 1: the counter as typed
    if rules_for(st).hardens_by_counter_table(u.kind):
        hero = _hero_for(st, side, u) if st.step == StepId.HEROES else None
        to, fanatic = _hardened_counter(st, u, to)
        made = {"to": to, "fanatic": fanatic, "hero": hero}
    return [ev.UnitHardened(side=side, unit=u.id, by=st.step, **made)]


def _hero_for(st, side: str, u) -> str:
    """3.43: a heroic leader hardens itself; an MMC combines with a Hero of its side (`end --hero`)."""
    if u.kind == Kind.LEADER:
        if not u.hero:
            raise Refused(f"{u.id} is no heroic leader (plcg end --hero {side}:{u.id} records one)", "3.43", st.step)
        return u.id
    if not rules_for(st).is_mmc(u.kind):
        raise Refused(f"{u.id} is not an MMC: only an MMC combines with a Hero", "3.43", st.step)
    heroes = [h for h in st.side_units(side) if h.hero and h.kind != Kind.LEADER]
    near = heroes_in_mlr(st, side, u.hex, heroes) if rules_for(st).hero_combines_within_mlr(u.hex) else heroes
    if heroes and not near:
        raise Refused(f"no Hero of {side} stands in {u.id}'s MLR ({u.hex}): a Hero combines with an MMC within "
                      "that MLR", "3.43", st.step)
    heroes = near
    if not heroes:
        raise Refused(f"{side} has no Hero left to combine with {u.id} (plcg end --hero records one)", "3.43",
                      st.step)
    return heroes[0].id


def _hardened_counter(st, u, given) -> tuple[str | None, bool]:
    """(new counter, fanatic) by the counter table (ruling R34); `--to` only where the table lacks it."""
    if u.kind not in (Kind.SQUAD, Kind.HALF_SQUAD, Kind.LEADER):
        return given, False
    nat, over = counter_table(st, u.side)
    to, fanatic = counters.harden(nat, u.name, over)
    quality = rules_for(st).elite_class_for_hardening(card_quality(st, u))
    if quality is not None and u.kind in (Kind.SQUAD, Kind.HALF_SQUAD):  # 3.43/3.44 EXC: the card's class wins (item 20)
        c = counters.lookup(nat, u.name, over)
        to = c.hardened if c is not None else None
        fanatic = quality == "elite"
    if fanatic:
        if given and given != u.name:
            raise Refused(f"{u.id} ({u.name}) is Elite: it turns Fanatic and keeps its counter, not {given} "
                          "(3.43/3.44 EXC, ruling R34)", "R34", st.step)
        return None, True
    if to is None:
        if not given:
            raise BadInput(f"the counter table has no Battle Hardened counter for {nat} {u.name}: give it with "
                           f"--to COUNTER (ruling R34)")
        return given, False
    if given and given != to:
        raise Refused(f"{u.id} ({u.name}) Battle Hardens to {to} by the counter table, not {given} (ruling R34; "
                      "--to is for counters the table lacks)", "R34", st.step)
    return to, False


@command("repair")
def _repair(ctx, cmd):
    side = side_arg(cmd)
    st = ctx.state
    item = str(cmd.get("item") or "")
    if not item:
        raise BadInput("plcg repair SIDE ITEM: name the weapon or vehicle")
    owed = st.reph.repairs_owed.get((side, item))
    unit = st.unit(item, side)
    if owed is None and unit is None:  # ids are case-insensitive: i1-1.5 names I1-1.5
        same = [k for (sd, k) in st.reph.repairs_owed if sd == side and k.casefold() == item.casefold()]
        unit = unit_any_case(st, item, side)
        item = same[0] if same else unit.id if unit is not None else item
        owed = st.reph.repairs_owed.get((side, item))
    if owed is None and (unit is None or unit.side != side):
        raise BadInput(f"unknown {side} unit {item!r}, and no repair is owed for it (plcg end --repair "
                       f"{side}:ITEM=KIND flags one at 2.9; plcg oob {side} lists the units)")
    if owed is None and unit.kind not in REPAIRABLE:
        raise BadInput(f"{unit.id} is {article(unit.kind)}: only a weapon or vehicle is repaired (3.46)")
    kind = cmd.get("kind") or owed
    if kind is None:
        raise BadInput(f"--kind is required: {item} was not flagged at 2.9; one of {', '.join(tables.REPAIR)}")
    if kind not in tables.REPAIR:
        raise BadInput(f"--kind {kind!r}: one of {', '.join(tables.REPAIR)}")
    given = given_dice(cmd, 1)
    drm_v = int_arg(cmd, "drm", -6, 6, default=0)
    typed = None if cmd.get("leadership") is None else int_arg(cmd, "leadership", -6, 6)
    at(st, "repair")
    why = rules_for(st).repair_command_refusal(item, kind, drm_v, Done("repair", side, item) in st.reph.done)
    if why:
        raise Refused(why, "3.46", st.step)
    why = repair_refusal(st, side, item, unit, kind)  # the same test 3.46's pending skips by (ruling R48)
    if why:
        raise Refused(why, "3.46", st.step)
    dl = (Drm("3.46", "leadership/inexperience/captured use/ammunition shortage (stated)", drm_v),) if drm_v else ()
    if rules_for(st).repair_leadership_from_ob(kind):
        dl = _repair_drm(st, side, unit, kind, drm_v, typed)
    r = roll(ctx.dice(given, 1), dl, lambda f: tables.repair(f, kind))
    return [ev.RepairRolled(side=side, item=item, kind=kind, roll=r)]


def _repair_drm(st, side: str, unit, kind: str, stated: int, typed) -> tuple:
    """3.46 (revision switch repair_drm_from_ob, ruling R63): Leadership, the one bonus the list names, is the best
    leader's in the item's hex, from the OB (rulings R30, R33: typed only where the item has no recorded
    hex); what the ledger cannot see (Inexperience, Captured Use, Ammunition Shortage) is stated, and
    those are penalties: 0 or more."""
    if stated < 0:
        raise Refused(f"--drm {stated}: the stated 3.46 drm are penalties (Inexperience, Captured Use, Ammunition "
                      "Shortage), 0 or more; Leadership comes from the OB (ruling R30)", "3.46", st.step)
    if kind not in ("disabled", "immobilized"):
        if typed is not None:
            raise Refused(f"{article(kind.replace('_', ' ')).capitalize()} repair takes no Leadership drm", "3.46", st.step)
        return ()
    if typed and (unit is None or not unit.hex):  # typed (ruling R33): still one of the side's leaders in play

        mods = {leader_modifier(u.name) for u in st.side_units(side)
                if u.kind == Kind.LEADER and u.status in PRESENT}
        if typed not in mods:
            raise Refused(f"--leadership {typed:+d}: no leader of the side in play has that modifier (ruling R30)",
                          "R33", st.step)
    lead = drms.leadership(st, unit, typed, "3.46") if unit is not None else \
        ((Drm("3.46", "leadership (typed: no hex recorded for the item, ruling R33)", typed),) if typed else ())
    return lead + ((Drm("3.46", "inexperience/captured use/ammunition shortage (stated)", stated),) if stated else ())


@command("recall")
def _recall(ctx, cmd):
    side = side_arg(cmd)
    st = ctx.state
    u = unit_arg(st, side, cmd.get("vehicle"), alive=False)
    given = given_dice(cmd, 1)
    drm_v = int_arg(cmd, "drm", -6, 6, default=0)
    at(st, "recall")
    if u.status != Status.RECALLED:
        raise Refused(f"{u.id} is not Recalled", "3.461", st.step)
    why = rules_for(st).recall_drm_refusal(drm_v)
    if why:
        raise Refused(why, "3.461", st.step)
    dl = (Drm("3.461", "inexperience/captured use/ammunition shortage (stated)", drm_v),) if drm_v else ()
    r = roll(ctx.dice(given, 1), dl, tables.recall)
    return [ev.RecallRolled(side=side, unit=u.id, roll=r)]


@command("elr")
def _elr(ctx, cmd):
    side = side_arg(cmd)
    given = given_dice(cmd, 2)
    st = ctx.state
    at(st, "elr")
    _once(st, Done("elr", side), f"{side}'s ELR Loss/Gain DR", "3.47")
    s = st.sides[side]
    r = roll(ctx.dice(given, 2), drms.elr(st, side), lambda f: tables.elr_change(f, s.elr, s.five_lost))
    return [ev.ElrRolled(side=side, roll=r, before=s.elr, after=r.outcome)]
