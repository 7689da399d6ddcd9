"""What a step accepts beside what it owes: `status` `options` (cli-contract.md, second round).

`pending` (cg/steps/) holds only what the rules make compulsory; `options(state)` lists the optional
commands the current step accepts, each an `Item` (cg/specs.py: the command's spec and typed arguments, read
as `{"command": "plcg buy axis I1", "rule": "2.3", "what": "..."}`; a 2.3 purchase also carries `side`, `rg`
and `cost` per setup mode), so a player learns what he may
buy or record without reading the card's TOML. The list is what the ledger would accept now (CP left,
limits, the step), never a promise about a roll.
"""
from __future__ import annotations

import attrs

from cg import seal, tables
from cg.rules import rules_for
from cg.items import CLEAR_ITEMS
from cg.rules import REPAIRABLE, clearable, defender_may_redeploy_2_5, redeployment_attacker_at_2_5
from cg.state import SIDES, CampaignState, other
from cg.units import PRESENT
from cg.card_as_printed import rg_time_refusal
from cg.state import Done
from cg.sequence import StepId
from cg.specs import Choose, Item

# the commands each step accepts without owing them (besides `next` and `concede`, always)
_TERRAIN = ("rubble", "flame")  # 2.9 / 3.3: terrain the campaign keeps (CG5)


def options(state: CampaignState, has_command=lambda name: True) -> list[Item]:
    """The optional commands of the current step. `has_command(name)` says whether the CLI offers a
    command (a command another release adds, like `position`, is listed only where it exists)."""
    if state.ended:
        return []
    out: list[Item] = []

    def may(name: str, rule: str, what: str, **values) -> None:
        out.append(Item.of(name, rule, what, **values))

    s = state.step
    if s == StepId.PURCHASE:
        rgs = purchase_options(state)
        for side in SIDES:  # each side's RGs, then its patrols, Attack Option and FP
            out.extend(o for o in rgs if o["side"] == side)
            _purchase_options(state, side, may)
    elif s in (StepId.MLR_REDEPLOYMENT, StepId.REDEPLOYMENT):
        order = s == StepId.MLR_REDEPLOYMENT and rules_for(state).defender_first_at_2_5(state.option)
        att = redeployment_attacker_at_2_5(state) if order else None
        for side in SIDES:
            done = order and side != att and not ({Done("redeploy-2.5", att), Done("redeploy-2.5-done", side)}
                                                  & state.reph.done)
            if order and (not done if side != att else defender_may_redeploy_2_5(state, other(side))):
                continue  # ruling R85: the Defender first, the Attacker once it has begun or has done
            if any(u.status in PRESENT for u in state.side_units(side)):
                may("redeploy", "2.5" if s == StepId.MLR_REDEPLOYMENT else "3.21",
                    f"{side}: redeploy a unit (Redeployment Table 3.21; the DRM comes from the map)",
                    side=side, unit=Choose.UNIT, to=Choose.HEX)
            if done:
                may("redeploy", "2.5", f"{side}, the Defender: done redeploying, the Attacker "
                    "redeploys now (ruling R85)", side=side, done=True)
        if s == StepId.REDEPLOYMENT:
            _losses(may)
    elif s == StepId.SETUP:
        closed = rules_for(state).setup_closed(state.ff)  # ruling R54: no setup after the moves-first dr
        for side in SIDES:
            if not closed and any(u.status in PRESENT for u in state.side_units(side)):
                may("setup", "2.6",
                    f"{side}: where a unit sets up (--hip for HIP); a unit with no hex is in its friendly MLR",
                    side=side, unit=Choose.UNIT, hex_=Choose.HEX)
            unplaced = sorted({f.kind for f in state.ground.fortifications if f.side == side and f.hex is None
                               and not f.unit and f.firefight == state.firefight})
            if unplaced and rules_for(state).places_fortification_at(s):
                may("fortify", "2.38", f"{side}: place a fortification bought without a hex ({', '.join(unplaced)})",
                    side=side, kind=Choose.KIND, hex_=Choose.HEX)
        if has_command("moves-first") and state.ff.type == "dual":
            may("moves-first", "2.41", "Dual Attack: the dr for who moves first, made after all setup")
    elif s == StepId.FIREFIGHT_END:
        if has_command("position"):
            for side in SIDES:
                may("position", "2.9", f"{side}: where a unit stands at firefight end (3.212 reads it)",
                    side=side, unit=Choose.UNIT, hex_=Choose.HEX)
        if Done("end") not in state.reph.done:
            may("end", "2.9", "the firefight result: turn, CVP lost, control, casualties, terrain kept",
                turn=Choose.N, cvp_lost=Choose.CVP_LOST)
        _terrain_options(may)
    elif s in (StepId.BATTLE_END, StepId.CONSEQUENCES):
        _losses(may)
        if s == StepId.CONSEQUENCES:
            _terrain_options(may)
    elif s in (StepId.HEROES, StepId.PROMOTIONS, StepId.LEADERS):
        for side in SIDES:
            may("harden", "3.43" if s == StepId.HEROES else s,
                f"{side}: Battle Harden a unit (within the 3.44/3.45 results, once per unit per RePh)",
                side=side, unit=Choose.UNIT)
        if s == StepId.LEADERS:
            for side in SIDES:
                if state.reph.may_generate.get(side, 0) > state.reph.generated.get(side, 0):
                    left = state.reph.may_generate[side] - state.reph.generated[side]
                    may("leader", "3.45", f"{side}: generate a leader ({left} left of this RePh's result)",
                        side=side, generated=True)
    elif s == StepId.REPAIR:
        for side in SIDES:  # beside the repairs flagged at 2.9 (owed), any weapon or vehicle in play
            if any(u.kind in REPAIRABLE and u.status in PRESENT for u in state.side_units(side)):
                may("repair", "3.46", f"{side}: a repair dr for a weapon or vehicle not flagged at 2.9",
                    side=side, item=Choose("ITEM"), kind=Choose("|".join(tables.REPAIR)))
    elif s == StepId.CLEARANCE:
        _clearance_options(state, may)
    first = seal.reveals_first(state)  # ruling R112: no command of 2.9 is taken before a side's owed reveal
    return [attrs.evolve(o, waits_for=tuple(first)) for o in out] if first else out


# --- 2.3 purchases ------------------------------------------------------------------------------------

def _purchase_options(state: CampaignState, side: str, may) -> None:
    sd = state.sides[side]
    card_side = state.card.sides[side]
    allowed = state.card.campaign.patrols_per_reph
    cost = card_side.patrol_cost
    left = allowed - sd.patrols
    if left > 0 and cost <= sd.cp:
        may("patrols", "2.31",
            f"{side}: buy patrols, {cost} CP each, up to {min(left, sd.cp // cost) if cost else left} more",
            side=side, count=Choose.N)
    if not state.initial and not sd.attack and card_side.attack_cost <= sd.cp:  # ruling R2, R3
        may("attack", "2.3", f"{side}: buy the Attack Option for {card_side.attack_cost} CP (ruling R3)", side=side)
    if sd.fp > 0:
        may("fortify", "2.38", f"{side}: spend {sd.fp} FP on the 2.38 table (plcg fortify --help lists the kinds)",
            side=side, kind=Choose.KIND)


# ===== the per-RG purchase options (the cards branch): one item per RG a side may buy now, with its
# cost per setup mode after 2.34 and the card's availability keys =====


def rg_unavailable(st, side: str, rg, mode: str | None = None) -> tuple[str, str] | None:
    """(why, rule) when the card's availability keys forbid buying `rg` now; None when they allow it.

    Only the second-round card keys (available_from/until, max_per_reph, reserve): a first-format card
    never sets them, so its campaigns decide as before (ruling R32)."""
    n = st.firefight
    if not rg.available_at(n):
        return f"{rg.id} may be bought at {rg.availability()} (CG Card), not at firefight {n}", "2.3"
    if rg.max_per_reph is not None:
        now = sum(1 for p in st.purchases.values() if p.side == side and p.rg == rg.id and p.firefight == n)
        if now >= rg.max_per_reph:
            return f"{rg.id} may be bought {rg.max_per_reph} time(s) per RePh (CG Card) and has been", "2.3"
    if mode == "reserve" and not rg.reserve:
        return f"{rg.id} may not be bought In Reserve (CG Card: reserve = false)", "2.33"
    if mode == "reserve" and not st.card.sides[side].reserve:  # third-round card key
        return f"{side} buys nothing In Reserve (CG Card: sides.{side}.reserve = false)", "2.33"

    return rg_time_refusal(st, rg)


def _modes(st, rg, side: str | None = None) -> list[str]:
    modes = ["entry", "on-map"]
    side_ok = side is None or st.card.sides[side].reserve  # third-round card key: sides.X.reserve
    if st.card.campaign.reserves and rg.reserve and side_ok and tables.rg_type(rg.id) in tables.RESERVE_TYPES:
        modes.append("reserve")  # 2.33
    return modes


def purchase_options(st) -> list[Item]:
    """At 2.3: every RG a side may buy now (the card's max, per-RePh limit and availability, the
    platoon limit of ruling R12, and its CP left), each with its cost per setup mode after 2.34."""
    if st.ended or st.step != StepId.PURCHASE:
        return []
    out = []
    limit = st.card.campaign.max_infantry_platoons
    for side in SIDES:
        s = st.sides[side]
        for rg in st.card.sides[side].rg:
            bought = st.purchase_count.get((side, rg.id), 0)
            if bought >= rg.max or rg_unavailable(st, side, rg) is not None:
                continue
            if rg.platoons and s.platoons + rg.platoons > limit:
                continue
            costs = {m: tables.setup_cost(rg.kind, rg.id, m, rg.cost)[0] for m in _modes(st, rg, side)}
            costs = {m: c for m, c in costs.items() if c <= s.cp}
            if not costs:
                continue
            priced = ", ".join(f"{c} CP {m}" for m, c in costs.items())
            out.append(Item.of("buy", "2.3", f"{rg.name}: {priced} (2.34); bought {bought} of {rg.max}",
                               side=side, rg=rg.id, cost=costs))
    return out

# ===== end of the per-RG purchase options =====


# --- 2.9 / 3.3 terrain, 3.52 clearance --------------------------------------------------------------

def _losses(may) -> None:
    may("casualties", "3.11", "RePh losses, counted for the firefight just played (ruling R25)", side=Choose.SIDE,
        cvp=Choose.N)


def _terrain_options(may) -> None:
    may("rubble", "B24.11", "rubble created in play, kept on the map (CG5)", hex_=Choose.HEX, kia=Choose.N)
    may("flame", "Table 23", "a Flame placed in play, kept on the map (CG5)", hex_=Choose.HEX, kindling=Choose.N)


def _clearance_options(state: CampaignState, may) -> None:
    mc = state.map_control()
    for side in SIDES:
        for hx in sorted(state.ground.terrain, key=state.grid().index):
            hc = mc.hexes.get(hx)
            if hc is None or not (hc.cthc == side or side in hc.mlr):
                continue
            for item in CLEAR_ITEMS:
                if clearable(state, hx, item):
                    may("clear", "3.52", f"{side}: Fortification Clearance dr for the {item.replace('_', ' ')} in {hx}"
                        " (dr 1-3 eliminates it)", side=side, hex_=hx, item=item)
