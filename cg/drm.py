"""Each table's DRM list, derived from the campaign's own history (never typed in).

Every function returns a tuple of `Drm(rule, reason, value)`; zero-valued card DRMs are left out
so the log shows only what applied.
"""
from __future__ import annotations

from typing import cast

from cg import caches, counters, tables
from cg.counters import leader_modifier
from cg.rules import counter_table, rules_for
from cg.state import CampaignState, FirefightRecord, active_units, other
from events.roll import Drm
from cg.units import IN_PLAY, Kind, MMC, Status
from events.errors import Refused


def _card(value: int, rule: str, reason: str) -> tuple[Drm, ...]:
    return (Drm(rule, reason, value),) if value else ()


def full(n: int, per: int) -> int:
    """Ruling R4: 'per N CVP' counts full Ns (23 CVP: 2 at 10, 1 at 20)."""
    return max(0, n) // per


def cp_replenishment(state: CampaignState, side: str) -> tuple[Drm, ...]:
    """2.12 DRM at 2.1 of firefight N+1; 'previous CG Firefight' is N (ruling R7)."""
    spec = state.card.sides[side]
    prev = state.firefights[state.firefight - 2] if state.firefight >= 2 else None
    out = list(_card(spec.cp_drm, "2.12", "HIST/CP DRM (CG Card)"))
    if prev is not None:
        if prev.attack[side] and not prev.initial:  # ruling R2: an assigned Initial attacker gets none
            out.append(Drm("2.12", f"bought an Attack Option for firefight {prev.n}", +1))
        tens = full(prev.cvp_lost[side], 10)
        if tens:
            out.append(Drm("2.12", f"{prev.cvp_lost[side]} CVP suffered in firefight {prev.n} (incl. RePh)", -tens))
    return tuple(out)


def oba(state: CampaignState, side: str) -> tuple[Drm, ...]:
    """2.351: card OBA and Historical DRM; -1 once the Attack Option is bought (ruling R14)."""
    spec = state.card.sides[side]
    out = list(_card(spec.oba_drm, "2.351", "OBA DRM (CG Card)"))
    out += _card(spec.historical_drm, "2.351", "Historical DRM (CG Card)")
    if state.sides[side].attack:
        out.append(Drm("2.351", "Attack Option purchased", -1))
    return tuple(out)


def leader(state: CampaignState, side: str) -> tuple[Drm, ...]:
    """2.361: card Leader and Historical DRM; the legacy nationality drm where the card switches it on."""
    spec = state.card.sides[side]
    out = list(_card(spec.leader_drm, "2.361", "Leader DRM (CG Card)"))
    out += _card(spec.historical_drm, "2.361", "Historical DRM (CG Card)")
    if state.card.campaign.legacy_leader_drm:
        year = int(state.ff.date[:4])
        out += _card(tables.legacy_leader_drm(spec.nationality, year), "2.361",
                     f"legacy nationality drm ({spec.nationality}, {year})")
    return tuple(out)


def _won(ff: FirefightRecord, side: str) -> bool:
    return ff.winner == side


def promotion(state: CampaignState, side: str) -> tuple[Drm, ...]:
    """3.44: -1 won; -1 per full 20 CVP amassed (= CVP the enemy lost, ruling R4); card; historical."""
    ff, spec = state.ff, state.card.sides[side]
    out = []
    if _won(ff, side):
        out.append(Drm("3.44", f"won firefight {ff.n}", -1))
    amassed = ff.cvp_lost[other(side)]
    if full(amassed, 20):
        out.append(Drm("3.44", f"{amassed} CVP amassed in firefight {ff.n}", -full(amassed, 20)))
    out += _card(spec.promotion_drm, "3.44", "CG Card drm")
    out += _card(spec.historical_drm, "3.44", "Historical drm")
    return tuple(out)


def leader_generation(state: CampaignState, side: str) -> tuple[Drm, ...]:
    """3.45: as 3.44 without the CVP drm, plus +2."""
    ff, spec = state.ff, state.card.sides[side]
    out = [Drm("3.45", "second dr on the 3.44 table", +2)]
    if _won(ff, side):
        out.append(Drm("3.44", f"won firefight {ff.n}", -1))
    out += _card(spec.promotion_drm, "3.44", "CG Card drm")
    out += _card(spec.historical_drm, "3.44", "Historical drm")
    return tuple(out)


def firefights_without_idle(state: CampaignState) -> int:
    """Ruling R6: played firefights since the CG start or the last Idle one, this one included."""
    count = 0
    for ff in state.firefights[: state.firefight]:
        count = 0 if ff.type == "idle" else count + 1
    return count


def elr(state: CampaignState, side: str) -> tuple[Drm, ...]:
    """3.47 ELR Change DRM, 'last/previous CG Firefight' = the one just played (ruling R7)."""
    ff, spec = state.ff, state.card.sides[side]
    out = []
    if _won(ff, side):
        out.append(Drm("3.47", f"won firefight {ff.n}", -1))
    bought = ff.platoons[side]
    if bought.get("elite"):
        out.append(Drm("3.47", f"{bought['elite']} Elite infantry platoon(s) bought for firefight {ff.n}",
                       -2 * bought["elite"]))
    if bought.get("first_line"):
        out.append(Drm("3.47", f"{bought['first_line']} 1st Line infantry platoon(s) bought for firefight {ff.n}",
                       -bought["first_line"]))
    if ff.attack[side] and not ff.initial:  # ruling R2
        out.append(Drm("3.47", f"bought an Attack Option for firefight {ff.n}", +2))
    n = firefights_without_idle(state)
    if n:
        out.append(Drm("3.47", f"{n} firefight(s) since the CG start or the last Idle one (ruling R6)", n))
    out += _card(spec.historical_drm, "3.47", "Historical DRM (CG Card)")
    return tuple(out)


def disease(state: CampaignState, side: str) -> tuple[Drm, ...]:
    return _card(state.card.sides[side].historical_drm, "3.41", "Historical DRM (CG Card)")


def patrol(kind: str, *, elite: int = 0, stealthy: int = 0, inexperienced: int = 0, lax: int = 0,
           leadership: int = 0, enemy_adjacent: int = 0, distance: int = 0, night: bool = False,
           pto: bool = False, moon: bool = False, hs: int = 0, sw_pp: int = 0, attacked: bool = False,
           pinned: bool = False, broken: bool = False, returning: bool = False) -> tuple[Drm, ...]:
    """2.74 Patrol Detection and Return DRM, from what the command states about the patrol."""
    out = []
    if elite:
        out.append(Drm("2.74", "Elite", -elite))
    if stealthy:
        out.append(Drm("2.74", "Stealthy", -stealthy))
    if kind == "recon":
        out.append(Drm("2.74", "Recon type patrol", -1))
    if leadership:
        out.append(Drm("2.74", "leadership", leadership))
    if inexperienced:
        out.append(Drm("2.74", "Inexperienced", inexperienced))
    if lax:
        out.append(Drm("2.74", "Lax", lax))
    if enemy_adjacent:
        out.append(Drm("2.74", "enemy unit(s) adjacent to the mission hex", enemy_adjacent))
    if distance > 3:
        over = -(-(distance - 3) // 3)  # each 3 hexes beyond 3, fractions rounded up
        out.append(Drm("2.74", f"mission hex {distance} hexes from friendly MLR", over))
    if not night and not pto:
        out.append(Drm("2.74", "day patrol", 2))
    if night and pto:
        out.append(Drm("2.74", "night patrol (PTO)", 2))
    if moon:
        out.append(Drm("2.74", "No Moon or Full Moon", 1))
    if hs > 0:
        out.append(Drm("2.74", f"{hs} HS beyond one squad", hs))
    if sw_pp > 1:
        out.append(Drm("2.74", f"SW PP {sw_pp} > 1", sw_pp - 1))
    if returning:
        if attacked:
            out.append(Drm("2.74", "conducted an attack (Return only)", 1))
        if pinned:
            out.append(Drm("2.74", "pinned (Return only)", 1))
        if broken:
            out.append(Drm("2.74", "broken (Return only)", 2))
    return tuple(out)


def leadership(state: CampaignState, unit, typed, rule: str) -> tuple[Drm, ...]:
    """3.17 / 3.21 "Leadership" (rulings R30, R33; revision switch leadership_from_units): the best
    modifier among the side's leaders in the unit's hex, read from the OB. A unit with no recorded hex
    takes the typed value, recorded as typed; a typed value contradicting the OB is refused."""
    as_typed = rules_for(state).typed_leadership(typed, rule)
    if as_typed is not None:
        return as_typed
    if not unit.hex:
        return (Drm(rule, "leadership (typed: no hex recorded for the unit, ruling R33)", typed),) if typed else ()
    side, hx = unit.side, unit.hex
    here = [(leader_modifier(u.name), u.id, u.name) for u in _leaders_in_play(state)
            if u.side == side and u.status in IN_PLAY and u.hex == hx and u is not unit
            and u.status != Status.RESERVE and leader_modifier(u.name) is not None]
    best = min(here) if here else None
    value = best[0] if best else 0
    if typed is not None and typed != value:
        who = f"{best[1]} ({best[2]}) gives {value:+d}" if best else "no leader stands there: +0"
        raise Refused(f"--leadership {typed:+d} contradicts the OB: {unit.id} is in {unit.hex}, where {who} "
                      "(ruling R30)", "R33", state.step)
    return (Drm(rule, f"leadership of {best[1]} ({best[2]}) in {unit.hex}", value),) if best and value else ()


# The units not settled (active_units' list, a new list whenever it changes) last asked about, and the
# leaders among them in its order: what state.side_units gives of a side, filtered to kind leader (a
# unit's kind never becomes or stops being a leader), without a walk over every unit at each leadership
# DRM (every 3.2 redeployment asks one). The list is held: an entry never stands for a new one.
def _leaders_in_play(state: CampaignState) -> list:
    units = active_units(state)[0]
    last = caches.current().leaders
    if last[0] is not units:
        last[:] = (units, [u for u in units if u.kind == Kind.LEADER])
    return last[1]


def redeployment(state: CampaignState, side: str, frm: str | None, situation: str, *,
                 hs_beyond: int = 0, crosses_uncontrolled: bool = False, leadership: int = 0,
                 unit=None, lead: tuple[Drm, ...] | None = None) -> tuple[Drm, ...]:
    """3.21 Redeployment DRM; the situation and distances come from the map-control projection.
    `lead`: the leadership DRM already decided (drm.leadership), else the typed `leadership`."""
    out = []
    mc = state.map_control()
    rules = rules_for(state)
    if frm is not None and rules.takes_isolated_drm(situation, unit):
        d = rules.distance_to_fmlr(state, mc, frm, side)
        if rules.far_from_fmlr(d):
            out.append(Drm("3.21", f"Isolated, {d if d is not None else 'no'} hexes from nearest FMLR", 1))
    if crosses_uncontrolled:
        out.append(Drm("3.21", "redeployment crosses Uncontrolled terrain from FMLR", 1))
    if situation == "nml":
        out.append(Drm("3.21", "in No Man's Land", 1))
    if rules.in_enemy_mlr_for_redeployment(situation):
        out.append(Drm("3.21", "in enemy MLR", 2))
    if hs_beyond:
        out.append(Drm("3.21", f"{hs_beyond} HS equivalent(s) beyond one squad on the same DR", hs_beyond))
    if frm is not None and mc.inside_or_adjacent_mlr(frm, side):
        if rules.friendly_mlr_drm_applies(situation):
            out.append(Drm("3.21", "inside/adjacent to friendly MLR", -1))
    elif frm is None:
        out.append(Drm("3.21", "inside friendly MLR (no recorded hex)", -1))
    if lead is not None:
        out.extend(lead)
    elif leadership:
        out.append(Drm("3.21", "leadership", leadership))
    return tuple(out)


ENTRENCH_LIKE = {"mines", "wire", "panji"}  # 3.52 +1 "Panji/Minefield/Wire/Entrenchment" (3.52 clears no entrenchment)


def clearance(state: CampaignState, side: str, hex: str, item: str) -> tuple[Drm, ...]:
    """3.52 drm (Labor status NA): adjacency to the enemy CTHC, water, three Assault Engineer squads."""
    mc = state.map_control()
    out = []
    if item in ENTRENCH_LIKE and mc.adjacent_to_enemy_cthc(hex, side):
        out.append(Drm("3.52", f"{item} adjacent to enemy CTHC", 1))
    if item == "roadblock" and mc.adjacent_to_enemy_cthc(hex, side):
        out.append(Drm("3.52", "roadblock along/next to an enemy CTHC hexside", 1))
    if hex in state.card.map.water and item not in ("flame", "rubble"):  # ruling R23: fortifications/A-B mines
        out.append(Drm("3.52", "in a water hex", 1))
    engineers = sum(
        1 for u in state.side_units(side)
        if u.kind == Kind.SQUAD and not u.isolated and _assault_engineer(state, u)
    )
    if engineers >= 3:
        out.append(Drm("3.52", f"{engineers} non-Isolated Assault Engineer squads", -1))
    return tuple(out)


def is_assault_engineer(state: CampaignState, unit) -> bool:
    """3.52: a squad of an RG the card names Assault Engineers (also the first the 3.52 dagger reduces)."""
    return _assault_engineer(state, unit)


def _assault_engineer(state: CampaignState, unit) -> bool:
    p = state.purchase(unit.purchase, unit.side) if unit.purchase else None
    if p is None:
        return False
    rg = state.card.sides[unit.side].rg_by_id(p.rg)
    if rg is None:
        return False
    if rg.assault_engineers is not None:  # ruling R96: the card says it
        return rg.assault_engineers
    return "assault engineer" in rg.name.lower()  # a card without the key (one of a started campaign too)


def patrol_from_units(state: CampaignState, side: str, kind: str, units: list, leader, mission_hex: str,
                      typed: dict, *, returning: bool = False, attacked: bool = False, pinned: bool = False,
                      broken: bool = False) -> tuple[Drm, ...]:
    """2.74 Patrol Detection and Return DRM from the patrol's units (rules revision 2; rulings R26, R30,
    R33): every DRM of the list for both rolls, the three "Return only" ones for the Return roll alone.
    `typed` holds the flags the player gave (None: not given); where the ledger knows the value a
    different typed one is refused (Refused, rule R33), where it cannot, the typed value is taken and
    marked so."""
    nat, over = counter_table(state, side)
    mmc = [u for u in units if u.kind in MMC]
    quality = [_quality(state, u) for u in mmc]
    klass = [getattr(counters.lookup(nat, u.name, over), "klass", None) for u in mmc]  # ruling R55
    quality = [rules_for(state).patrol_class(q, k) for q, k in zip(quality, klass)]
    known: dict[str, int | None] = {
        "elite": 1 if quality and all(q == "elite" for q in quality) else 0,
        "inexperienced": 1 if any(q in ("green", "conscript") for q in quality) else 0,
        "leadership": counters.leader_modifier(leader.name) or 0,
    }
    pps = [counters.pp(nat, u.name, over) for u in units if u.kind == Kind.SW]
    known["sw_pp"] = sum(cast(list[int], pps)) if all(p is not None for p in pps) else None  # all known: ints
    enemy = [u for u in state.side_units("allied" if side == "axis" else "axis") if u.hex]
    if enemy:  # positions recorded: hexes adjacent to the mission hex holding enemy units (each)
        near = set(state.grid().neighbours(mission_hex))
        known["enemy_adjacent"] = len({u.hex for u in enemy if u.hex in near})
    else:
        known["enemy_adjacent"] = None
    value: dict = {}
    marked: dict = {}
    for k in ("elite", "inexperienced", "leadership", "sw_pp", "enemy_adjacent", "stealthy", "lax"):
        t = typed.get(k)
        have = known.get(k)
        if have is not None:
            if t is not None and t != have:
                raise Refused(f"--{k.replace('_', '-')} {t}: the OB gives {have} for this patrol (rulings R26, R30, "
                              "R33)", "R33", state.step)
            value[k] = have
        else:
            value[k] = t or 0
            if t and k in ("sw_pp", "enemy_adjacent"):
                marked[k] = " (typed: the ledger cannot tell, ruling R33)"
    spec = state.card.firefight(state.firefight)
    pto = state.card.campaign.pto  # the card's theater (2.74 PTO DRMs)
    moon = bool(spec and spec.moon_drm)  # No Moon or Full Moon
    hs_eq = sum(2 if u.kind == Kind.SQUAD else 1 for u in mmc)  # ruling R26: HS equivalents, beyond one squad
    dist = state.map_control().distance_to_mlr(mission_hex, side) or 0
    out = list(patrol(kind, elite=value["elite"], stealthy=value["stealthy"], inexperienced=value["inexperienced"],
                      lax=value["lax"], leadership=value["leadership"], enemy_adjacent=value["enemy_adjacent"],
                      distance=dist, night=state.ff.time == "night", pto=pto, moon=moon,
                      hs=max(0, hs_eq - 2), sw_pp=value["sw_pp"], attacked=attacked, pinned=pinned, broken=broken,
                      returning=returning))
    for i, d in enumerate(out):
        if d.reason.startswith("SW PP") and "sw_pp" in marked:
            out[i] = Drm(d.rule, d.reason + marked["sw_pp"], d.value)
        if d.reason.startswith("enemy unit") and "enemy_adjacent" in marked:
            out[i] = Drm(d.rule, d.reason + marked["enemy_adjacent"], d.value)
    return tuple(out)


def _quality(state: CampaignState, unit) -> str | None:
    p = state.purchase(unit.purchase, unit.side) if unit.purchase else None
    rg = state.card.sides[unit.side].group_by_id(p.rg) if p is not None else None
    return getattr(rg, "quality", None)
