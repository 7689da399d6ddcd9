"""The purchase steps, 2.1 to 2.3: CP Replenishment, At Start Weather, Purchasing Reinforcements; and their
events' folds (`@on`) and words (`@words`): the CP, the weather, what is bought, the leader and OBA DRs (a
3.45 generated leader's `leader_rolled` too), the fortifications bought (2.6's too)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from cg import caches, seal, tables
from cg.items import Kept
from cg.rules import Rules, rules_for
from cg.sequence import StepId
from cg.state import SIDES, BySide, CampaignState, Done, Fortification, Purchase, Unit, new_firefight, unit_kind
from cg.steps.changes import AVAILABLE_W, LEADER_K, ON_MAP_W, RESERVE_W, in_hex
from cg.steps.registry import on, words
from cg.steps.step import Owed, Step, each_side_owes
from cg.steps.wording import cp_left_words, roll_words, side_words, signed, terrain_words
from cg.units import Kind

if TYPE_CHECKING:  # its events' classes (built when the first fold or words of the type is made)
    from events.types import (AttackAnnounced, AttackBought, CpReplenished, Fortified, LeaderRolled, ObaRolled,
                              PatrolsBought, RgBought, WeatherSet)


def _new_firefight_entered(st: CampaignState, p) -> None:
    """2.1 entered (from 3.52): the next CG Firefight, and the RePh's records of the one before dropped."""
    played = not st.idle
    new_firefight(st, p.firefight)
    for side in SIDES:
        s = st.sides[side]
        s.attack, s.patrols, s.platoons = False, 0, 0
    st.reph.cleared.clear()
    st.reph.ap_failed.clear()
    st.reph.patrols_done = BySide(set(), set())
    st.reph.patrols_to_return = BySide(set(), set())
    st.reph.patrol_units = {}
    if rules_for(st).redeployed_marks_cleared_at_2_1(played):
        for u in st.units.values():
            u.redeployed = False
    st.reph.hardened_now = BySide([], [])
    st.reph.promotions = BySide(0, 0)
    st.reph.leader_result = BySide(0, 0)
    st.reph.generated = BySide(0, 0)
    st.reph.may_generate = BySide(0, 0)


def _weather_owes(state: CampaignState, rules: Rules) -> Owed:
    owed = Owed()
    if Done("weather") not in state.reph.done:
        owed.add("weather", "2.2", "at-start weather")
    return owed


def _purchase_owes(state: CampaignState, rules: Rules) -> Owed:
    owed = Owed()
    hidden = _sealed_2_3(state)  # rulings R72 and R47: the other side's secret, this view cannot open
    hidden |= {side for side in SIDES if seal.unseen_purchases(state, side)}
    for p in _this_firefights(state):
        if p.side in hidden:
            continue
        for _ in range(p.leader_owed):
            owed.add("leader", "2.36", f"{p.side} leader DR for {p.id}", side=p.side, rg=p.id)
        if p.oba_owed:
            owed.add("oba", "2.35", f"{p.side} OBA ammunition DR for {p.id}", side=p.side, rg=p.id)
    return owed


def _purchase_entered(st: CampaignState, p) -> None:
    for side in SIDES:
        st.sides[side].platoons = 0


def _this_firefights(state: CampaignState) -> list:
    """The purchases of the current firefight, in their order: they come last in `purchases`, which are
    made in firefight order (`rg_bought`'s fold, below), so the walk stops at the first earlier one."""
    out = []
    for p in reversed(state.purchases.values()):
        if p.firefight < state.firefight:
            break
        if p.firefight == state.firefight:
            out.append(p)
    out.reverse()
    return out


def _sealed_2_3(state: CampaignState) -> set[str]:
    """Ruling R72: the sides whose 2.3 secrets this view cannot open (play by email, ruling R47): a
    leader or OBA DR it owes may be in one of them, so this view owes none of its DRs; its own copy
    does, and the audit of the CG's end, with every seal open, checks them."""
    pb = state.pbem
    if pb is None or not pb.seals:
        return set()
    return {r.side for r in pb.seals.values()
            if not r.opened and r.ff == state.firefight and r.step == StepId.PURCHASE}


STEPS = (
    Step(StepId.CP, "CP Replenishment", "2.1", owes=each_side_owes("cp", "2.1", "CP replenishment"),
         accepts=("cp",), on_enter=_new_firefight_entered,
         # ruling R27; rules revision 1: 2.2 in the Initial Firefight only, else on to 2.3
         leads_to=((StepId.WEATHER, "weather_every"), (StepId.PURCHASE,))),
    Step(StepId.WEATHER, "At Start Weather", "2.2", owes=_weather_owes, accepts=("weather",)),
    Step(StepId.PURCHASE, "Purchasing Reinforcements", "2.3", owes=_purchase_owes,
         accepts=("buy", "patrols", "attack", "oba", "leader", "fortify"), on_enter=_purchase_entered),
)


# ---- its events: what each does to the state (`@on`, cg/evolve.py folds with it) ----------------------

@on("cp_replenished")
def _cp(st, p: CpReplenished):
    side = p.side
    total = p.total
    if total is None:  # ruling R47: an opening holds no balance; it is derived
        total = st.sides[side].cp + p.gained
    st.sides[side].cp = total
    st.ff.cp_gained[side] = p.gained
    st.ff.cp_left[side] = total
    st.reph.done.add(Done("cp", side))


@on("weather_set")
def _weather(st, p: WeatherSet):
    st.ff.weather = p.text
    st.reph.done.add(Done("weather"))


def _spend(st, side, cost, left):
    if left is None:  # a sealed purchase revealed before its side's CP (ruling R47): the balance is derived
        left = st.sides[side].cp - cost
    st.sides[side].cp = left
    st.ff.cp_spent[side] += cost
    st.ff.cp_left[side] = left


@on("rg_bought")
def _rg_bought(st, p: RgBought):
    side = p.side
    _spend(st, side, p.cost, p.cp_left)
    rg = st.card.sides[side].rg_by_id(p.rg)
    key = (side, rg.id)
    st.purchase_count[key] = st.purchase_count.get(key, 0) + 1
    pur = Purchase(id=p.purchase, side=side, rg=rg.id, firefight=st.firefight, mode=p.mode,
                   cost=p.cost, kind=rg.kind, leader_owed=rg.leader_drs, oba_owed=(rg.kind == "oba"),
                   fp=p.fp, revealed=False)
    st.purchases[(side, pur.id)] = pur
    # unit_kind by (counter name, RG kind): a memo of a pure function (unit_kind reads only its two
    # arguments), so no fold's result depends on another's (issue 22)
    kinds = caches.current().kinds
    for u in p.units:
        kind = kinds.get((u.name, rg.kind))
        if kind is None:
            kind = kinds[(u.name, rg.kind)] = unit_kind(u.name, rg.kind)
        st.units[(side, u.id)] = Unit(id=u.id, side=side, name=u.name, kind=kind, purchase=pur.id,
                                 status=RESERVE_W if p.mode == "reserve" else AVAILABLE_W)
        if kind == Kind.LEADER:
            _leader_made(st, side)
        pur.units.append(u.id)
    if p.platoons:
        st.sides[side].platoons += p.platoons
        q = rg.quality or "other"
        bought = st.ff.platoons[side]
        bought[q] = bought.get(q, 0) + p.platoons
    if p.fp:
        st.sides[side].fp += p.fp


def _leader_made(st, side: str) -> None:
    st.leaders_made += 1
    if st.pbem is not None and st.pbem.sealing:  # ruling R47: numbered per side (sealed apart)
        st.pbem.leaders_made[side] += 1


@on("patrols_bought")
def _patrols(st, p: PatrolsBought):
    _spend(st, p.side, p.cost, p.cp_left)
    st.sides[p.side].patrols += p.count


@on("attack_bought")
def _attack(st, p: AttackBought):
    _spend(st, p.side, p.cost, p.cp_left)
    st.sides[p.side].attack = True
    st.ff.attack[p.side] = True
    for key in [k for k in st.reph.done if k.what == "oba-roll" and k.side == p.side]:
        # ruling R14 (rules revision 3): the -1 of 2.351 goes with the Attack Option bought in this 2.3, not
        # with the order of the commands: an OBA DR made before it is read again, its final DR less 1
        side, (final, pid) = key.side, key.of
        st.purchase(pid, side).oba = tables.oba_strength(int(final) - 1).result
        st.reph.done.discard(key)


@on("attack_announced")
def _attack_announced(st, p: AttackAnnounced):
    """Ruling R109: the Attack Option as 2.4 announces it (the sealed choice opened); its CP go with the
    purchase (`attack_bought`), sealed apart and revealed at 2.6."""
    if p.attack:
        st.sides[p.side].attack = True
        st.ff.attack[p.side] = True


@on("oba_rolled")
def _oba(st, p: ObaRolled):
    pur = st.purchase(p.purchase, p.side)
    pur.oba = p.roll.outcome
    pur.oba_owed = False
    if rules_for(st).oba_read_again_if_attack_bought(st.sides[p.side].attack):
        # ruling R14: read again with the -1 should the side buy the Attack Option in this 2.3
        st.reph.done.add(Done("oba-roll", p.side, (p.roll.final, p.purchase)))


@on("leader_rolled")
def _leader(st, p: LeaderRolled):
    side = p.side
    if p.purchase is not None:
        pur = st.purchase(p.purchase, side)
        pur.leader_owed -= 1
    else:
        pur = None
        st.reph.generated[side] += 1
    u = p.unit
    if u:
        hx = p.hex  # 3.45: placed with an MMC on map; else it enters as a reinforcement
        st.units[(side, u.id)] = Unit(id=u.id, side=side, name=u.name, kind=LEADER_K,
                                 purchase=p.purchase, status=ON_MAP_W if hx else AVAILABLE_W, hex=hx)
        _leader_made(st, side)
        if pur is not None:
            pur.leaders.append(u.name)
            pur.units.append(u.id)
        if st.initial:
            col = _column(st, side, pur)
            taken = st.sides[side].leaders_taken.setdefault(col, {})
            taken[u.name] = taken.get(u.name, 0) + 1


def _column(st, side, pur):

    armor = False
    if pur is not None:
        rg = st.card.sides[side].group_by_id(pur.rg)
        armor = bool(rg and rg.armor_leader)
    return tables.leader_column(st.card.sides[side].nationality, armor)


@on("fortified")
def _fortified(st, p: Fortified):
    side = p.side
    st.sides[side].fp = p.fp_left
    st.ground.fortifications.append(Fortification(side, p.kind, p.hex, p.cost, dict(p.detail or {}), p.unit,
                                                  st.firefight))
    if p.hex:
        in_hex(st, side, p.kind, p.hex, p.detail)
    if p.unit and st.unit(p.unit, side) is not None:
        st.unit(p.unit, side).hip = True


# ---- its events in words (`@words`: `plcg log`, the commands' output, the AAR) -----------------------

@words("cp_replenished")
def _cp_words(e) -> str:
    s = side_words(e)
    if e.roll is None:
        return f"{s} CP replenishment: {e.gained} CP provided by the CG Card{cp_left_words(e.total, 'in hand')}"
    return f"{s} CP replenishment: {roll_words(e.roll)} CP{cp_left_words(e.total, 'in hand')}"


@words("weather_set")
def _weather_words(e) -> str:
    return f"at-start weather: {e.text}"


@words("rg_bought")
def _rg_bought_words(e) -> str:
    s = side_words(e)
    delta = f" ({e.base_cost}{signed(e.delta)} for {e.mode}, 2.34)" if e.delta else ""
    return f"{s} bought {e.rg} as {e.purchase} ({e.mode}) for {e.cost} CP{delta}{cp_left_words(e.cp_left)}"


@words("patrols_bought")
def _patrols_bought_words(e) -> str:
    s = side_words(e)
    return f"{s} bought {e.count} patrol(s) for {e.cost} CP{cp_left_words(e.cp_left)}"


@words("attack_announced")
def _attack_announced_words(e) -> str:  # ruling R109
    s = side_words(e)
    return f"{s} Attack Option (2.4): {'yes' if e.attack else 'no'}"


@words("attack_bought")
def _attack_bought_words(e) -> str:
    s = side_words(e)
    return f"{s} bought the Attack Option for {e.cost} CP{cp_left_words(e.cp_left)}"


@words("oba_rolled")
def _oba_words(e) -> str:
    s = side_words(e)
    return f"{s} OBA ammunition for {e.purchase}: {roll_words(e.roll)}"


@words("leader_rolled")
def _leader_words(e) -> str:
    s = side_words(e)
    what = "generated leader (3.45)" if e.generated else f"leader for {e.purchase}"
    placed = f"; placed in {e.hex}" if e.hex else ""
    return f"{s} {what}: {roll_words(e.roll)}{placed}"


@words("fortified")
def _fortified_words(e, secret: bool = False) -> str:
    s = side_words(e)
    if (e.detail or {}).get("level"):  # CG12, ruling R99
        return (f"{s} spent {e.cost} FP on Booby Traps: Level {e.detail['level']} in effect within its MLR "
                f"(CG12, 2.38 n6), {e.fp_left} FP left")
    where = f" in {e.hex}" if e.hex else ""
    unit = f" for {e.unit}" if e.unit else ""
    factors = (e.detail or {}).get("factors")
    what = terrain_words(Kept(e.kind, None, str(factors) if factors else None))  # 2.38: no side in words
    if secret:  # ruling R22: the other side reads no FP a minefield cost (its factors, or a dummy)
        return f"{s} bought a {what}{where} (2.38: its strength is {s}'s secret)"
    return f"{s} spent {e.cost} FP on {what}{',' if factors and where else ''}{where}{unit}, {e.fp_left} FP left"
