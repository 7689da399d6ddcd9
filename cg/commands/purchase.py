"""2.1-2.3: CP replenishment, weather, purchases (RGs, patrols, Attack Option, OBA and leader DRs, FP)."""
from __future__ import annotations


from typing import Any
import attrs

from cg import items, seal
from cg.rules import LEADERS_PER_RG, conventions, rules_for
from cg import drm as drms
from cg import tables
from events.errors import BadInput, Refused
from cg.state import CampaignState, expand_units
from events import types as ev
from cg.options import rg_unavailable
from cg.card_as_printed import DUMMY_MINEFIELD_FP
from cg.commands.base import at, command, given_dice, hex_arg, int_arg, leader_slots, roll, side_arg, unit_arg
from cg.units import Kind, article, Status
from cg.state import Done
from cg.sequence import StepId


@command("cp")
def _cp(ctx, cmd):
    side = side_arg(cmd)
    given = given_dice(cmd, 2)
    st = ctx.state
    at(st, "cp")
    if Done("cp", side) in st.reph.done:
        raise Refused(f"{side} has already replenished CP for firefight {st.firefight}", "2.1", st.step)
    provided = st.card.sides[side].cp_provided
    idx = st.firefight - 2  # cp_provided lists the later firefights, the 2nd first
    if provided and 0 <= idx < len(provided):
        if given is not None:
            raise BadInput(f"the CG Card provides {side}'s CP for firefight {st.firefight}: no dice (2.1 EXC)")
        gained = provided[idx]
        return [ev.CpReplenished(side=side, roll=None, gained=gained, total=st.sides[side].cp + gained)]
    d = ctx.dice(given, 2)
    intensity = st.card.campaign.intensity
    r = roll(d, drms.cp_replenishment(st, side), lambda f: tables.cp_replenishment(f, intensity))
    return [ev.CpReplenished(side=side, roll=r, gained=r.outcome, total=st.sides[side].cp + r.outcome)]


@command("weather")
def _weather(ctx, cmd):
    st = ctx.state
    text = cmd.get("text") or None
    at(st, "weather")
    if Done("weather") in st.reph.done:
        raise Refused("the at-start weather is already recorded", "2.2", st.step)
    return [ev.WeatherSet(text=text or default_weather(st))]


def default_weather(st: CampaignState) -> str:
    """2.2 / ruling R27: the card's weather for this firefight, else the weather the previous firefight
    recorded (as the players gave it), else the card's (Card.weather_at)."""
    if st.card.firefights[st.firefight - 1].weather:
        return st.card.firefights[st.firefight - 1].weather
    for ff in reversed(st.firefights[: st.firefight - 1]):
        if ff.weather:
            return ff.weather
    return st.card.weather_at(st.firefight)


MODES = ("on-map", "reserve", "entry")


def _rg(st: CampaignState, side: str, rg_id):
    rg = st.card.sides[side].rg_by_id(str(rg_id or ""))
    if rg is None:
        ids = ", ".join(r.id for r in st.card.sides[side].rg)
        raise BadInput(f"unknown {side} RG {rg_id!r} (the card lists {ids})")
    return rg


@command("buy")
def _buy(ctx, cmd):
    side = side_arg(cmd)
    st = ctx.state
    rg = _rg(st, side, cmd.get("rg"))
    mode = cmd.get("mode") or "entry"
    if mode not in MODES:
        raise BadInput(f"--mode {mode!r}: on-map, reserve or entry")
    at(st, "buy")
    if mode == "reserve":
        if not st.card.campaign.reserves:
            raise Refused("this CG does not allow Reserves", "2.33", st.step)
        if tables.rg_type(rg.id) not in tables.RESERVE_TYPES:
            raise Refused(f"{rg.id}: only I, G, HW and A RGs may be bought In Reserve", "2.33", st.step)
    key = (side, rg.id)
    if st.purchase_count.get(key, 0) >= rg.max:
        raise Refused(f"{rg.id} may be bought {rg.max} time(s) in the CG and has been", "2.3", st.step)
    why = rg_unavailable(st, side, rg, mode)
    if why:
        raise Refused(why[0], why[1], st.step)
    limit = st.card.campaign.max_infantry_platoons
    if rg.platoons and st.sides[side].platoons + rg.platoons > limit:
        raise Refused(f"{side} would have {st.sides[side].platoons + rg.platoons} infantry platoons this "
                      f"purchase step; the limit is {limit} (ruling R12)", "2.3", st.step)
    cost, delta = tables.setup_cost(rg.kind, rg.id, mode, rg.cost)
    cp = st.sides[side].cp
    if cost > cp and not seal.cp_unknown(st, side):  # sealed CP: checked at the CG's end reveal (R47)
        raise Refused(f"{rg.id} costs {cost} CP ({mode}); {side} has {cp}", "2.3", st.step)
    n = rules_for(st).purchase_number(st, side, rg.id)  # the Allies' first I1 is I1-1 (revision 2 on)
    pid = f"{rg.id}-{n}"
    units = tuple(ev.UnitRef(f"{pid}.{i}", name) for i, name in enumerate(expand_units(rg.units), 1))
    return [ev.RgBought(side=side, rg=rg.id, purchase=pid, mode=mode, base_cost=rg.cost, delta=delta,
                        cost=cost, cp_left=cp - cost, platoons=rg.platoons, units=units,
                        fp=rg.fp if rg.kind == "fortification_points" else 0)]


@command("patrols")
def _patrols(ctx, cmd):
    side = side_arg(cmd)
    n = int_arg(cmd, "count", 1)
    st = ctx.state
    at(st, "patrols")
    allowed = st.card.campaign.patrols_per_reph
    have = st.sides[side].patrols
    if have + n > allowed:
        raise Refused(f"{side} may buy {allowed} patrol(s) per RePh and has {have}", "2.31", st.step)
    cost = n * st.card.sides[side].patrol_cost
    cp = st.sides[side].cp
    if cost > cp and not seal.cp_unknown(st, side):  # sealed CP: checked at the CG's end reveal (R47)
        raise Refused(f"{n} patrol(s) cost {cost} CP; {side} has {cp}", "2.31", st.step)
    return [ev.PatrolsBought(side=side, count=n, cost=cost, cp_left=cp - cost)]


@command("attack")
def _attack(ctx, cmd):
    side = side_arg(cmd)
    st = ctx.state
    at(st, "attack")
    if st.initial:
        raise Refused("the CG Card assigns the Initial Firefight's ATTACKER; no Attack Option is bought "
                      "(ruling R2)", "2.4", st.step)
    if cmd.get("none"):  # the sealed "no" of play by email (cg/seal.py kind, issue 25 item 10): nothing bought
        if not seal.attack_seal(st):
            raise BadInput("attack: `none` is the sealed Attack Option choice of a campaign played by email")
        return []
    if "announce" in cmd:  # ruling R109: the yes/no choice the ledger seals as the side leaves 2.3
        return _announce(st, side, cmd["announce"])
    if seal.attack_seal(st) and not seal.owes_attack_seal(st, side):
        # ruling R109: the choice was sealed as the side left 2.3 (its `next`); bought after it, the two disagree
        raise Refused(f"{side} has sealed its Attack Option choice for firefight {st.firefight} already (as it"
                      " left 2.3)", "2.4", st.step)
    if st.sides[side].attack:
        raise Refused(f"{side} already bought the Attack Option for firefight {st.firefight}", "2.4", st.step)
    cost = st.card.sides[side].attack_cost
    cp = st.sides[side].cp
    if cost > cp and not seal.cp_unknown(st, side):  # sealed CP: checked at the CG's end reveal (R47)
        raise Refused(f"the Attack Option costs {cost} CP; {side} has {cp}", "2.4", st.step)
    return [ev.AttackBought(side=side, cost=cost, cp_left=cp - cost)]


def _announce(st: CampaignState, side: str, answer) -> list:
    """Ruling R109: the Attack Option choice, yes or no, sealed as SIDE leaves 2.3 whatever the order it typed
    its commands in; it must say what SIDE bought (its `attack`, a sealed purchase). A view that cannot open
    SIDE's 2.3 seals cannot tell, and checks it once 2.6 reveals them (the log decided again with them open)."""
    if not seal.attack_seal(st):
        raise BadInput("attack: `announce` is the sealed Attack Option choice of a campaign played by email")
    if answer not in ("yes", "no"):
        raise BadInput("attack: `announce` is yes or no")
    if not seal.unseen_purchases(st, side) and (answer == "yes") != st.sides[side].attack:
        raise Refused(f"{side}'s sealed Attack Option choice says {answer}; its purchases say "
                      f"{'yes' if st.sides[side].attack else 'no'} (ruling R109)", "2.4", st.step)
    return [ev.AttackAnnounced(side=side, attack=answer == "yes")]


def _known_ref(st: CampaignState, side: str, ref) -> None:
    """Input before the rules: `ref` must be one of the side's purchase ids or one of its card RG ids."""
    ref = str(ref or "")
    p = st.purchase(ref, side) or st.purchase(ref.upper(), side)
    if (p is None or p.side != side) and st.card.sides[side].group_by_id(ref) is None:
        raise BadInput(f"unknown {side} RG or purchase {ref!r}")


def _owed_purchase(st: CampaignState, side: str, ref, what: str, rule: str):
    """`ref` is a purchase id (I1-2) or an RG id (I1) with exactly one purchase owing `what`."""
    ref = str(ref or "")
    p = st.purchase(ref, side) or st.purchase(ref.upper(), side)
    if p is None and (st.purchase(ref) or st.purchase(ref.upper())) is not None:
        raise BadInput(f"purchase {ref} is not {side}'s")
    if p is None:
        rg = st.card.sides[side].group_by_id(ref)
        if rg is None:
            raise BadInput(f"unknown {side} RG or purchase {ref!r}")
        cands = [q for q in st.purchases.values()
                 if q.side == side and q.rg == rg.id and q.firefight == st.firefight and
                 (q.leader_owed > 0 if what == "leader" else q.oba_owed)]
        if not cands:
            raise Refused(f"no {rg.id} bought for firefight {st.firefight} owes {article(what)} DR", rule, st.step)
        p = cands[0]
    if p.side != side:
        raise BadInput(f"purchase {ref} is not {side}'s")
    return p


@command("oba")
def _oba(ctx, cmd):
    side = side_arg(cmd)
    given = given_dice(cmd, 2)
    st = ctx.state
    _known_ref(st, side, cmd.get("rg"))
    at(st, "oba")
    p = _owed_purchase(st, side, cmd.get("rg"), "oba", "2.35")
    if not p.oba_owed:
        raise Refused(f"{p.id} owes no OBA ammunition DR", "2.35", st.step)
    r = roll(ctx.dice(given, 2), drms.oba(st, side), tables.oba_strength)
    return [ev.ObaRolled(side=side, purchase=p.id, roll=r)]


@command("leader")
def _leader(ctx, cmd):
    side = side_arg(cmd)
    given = given_dice(cmd, 2)
    st = ctx.state
    generated = bool(cmd.get("generated"))
    if not generated:
        _known_ref(st, side, cmd.get("rg"))
    hx = None
    if cmd.get("hex"):
        if not generated:
            raise BadInput("--hex places a leader generated at 3.45 (--generated); a 2.36 leader sets up at 2.6")
        hx = hex_arg(st, cmd["hex"], "--hex")
    at(st, "leader", "3.45" if generated else "2.3")
    spec = st.card.sides[side]
    if generated:
        if Done("leaders", side) not in st.reph.done:
            raise Refused(f"{side} makes the 3.45 dr (plcg leaders {side}) before generating", "3.45", st.step)
        if st.reph.generated[side] >= st.reph.may_generate[side] or leader_slots(st, side) <= 0:
            raise Refused(f"{side} may generate {st.reph.may_generate[side]} leader(s) this RePh (3.45 result, leaders "
                          f"lost - 1, MMC on board) and has generated {st.reph.generated[side]}", "3.45", st.step)
        why = rules_for(st).generated_leader_hex_refusal(st, side, hx) if hx else None
        if why:
            raise Refused(why, "3.45", st.step)
        column = tables.leader_column(spec.nationality, False)
        pid = None
    else:
        p = _owed_purchase(st, side, cmd.get("rg"), "leader", "2.36")
        if p.leader_owed <= 0:
            raise Refused(f"{p.id} owes no leader DR", "2.36", st.step)
        rg = spec.group_by_id(p.rg)
        column = tables.leader_column(spec.nationality, rg.armor_leader)
        pid = p.id
    if cmd.get("commissar"):  # rulings R49, R92: what the roll does not decide is judged before it, every revision
        _commissar_allowed(st, side, pid, rg if pid else None, column)
    d = ctx.dice(given, 2)
    r = roll(d, drms.leader(st, side), lambda f: tables.leader(f, column))
    got = r.outcome
    if st.initial and not generated:  # 2.362 at the Initial Firefight start (ruling R9)
        got = tables.demote_2362(r.outcome, column, st.sides[side].leaders_taken.get(column, {}))
    if got != r.outcome:
        r = attrs.evolve(r, outcome=got, rolled=r.outcome)
    if cmd.get("commissar"):  # ruling R49: the Commissar on a * row, else the leader rolled stands
        if not rules_for(st).judges_before_roll("leader"):  # revision 2: judged by the result, after the roll
            r = attrs.evolve(r, outcome=_commissar(st, side, pid, rg if pid else None, column, r, got), rolled=got)
        elif r.row in tables.COMMISSAR_ROWS and got is not None:  # ruling R92
            r = attrs.evolve(r, outcome=COMMISSARS[_morale(got)], rolled=got)
        got = r.outcome
    unit = None
    if got is not None:
        base = pid if pid else f"L{st.firefight}"
        if conventions(st, LEADERS_PER_RG):  # issue 38: within the RG (a generated leader: within its RePh), per side
            n = _leaders_of(st, side, base) + 1
        else:  # a campaign started before: unique across the sides; where each side's purchases are sealed, per
            # side (ruling R47): a sealed leader DR cannot depend on the other side's (unit ids are keyed by side)
            n = (st.pbem.leaders_made[side] if st.pbem is not None and st.pbem.sealing else st.leaders_made) + 1
        unit = ev.UnitRef(f"{base}.L{n}", got)
    return [ev.LeaderRolled(side=side, purchase=pid, roll=r, unit=unit, generated=generated,
                            hex=hx if unit is not None else None)]


def _leaders_of(st: CampaignState, side: str, base: str) -> int:
    """The leaders `side` has numbered under `base` (an RG's purchase id, or L<firefight> for 3.45's)."""
    pur = st.purchase(base, side)
    ids = pur.units if pur is not None else [uid for (s, uid) in st.units if s == side]
    prefix = f"{base}.L"
    return sum(1 for uid in ids if uid.startswith(prefix) and uid[len(prefix):].isdigit())


COMMISSARS = {8: "8+1", 9: "9-0", 10: "10-0"}  # A25.22 Commissar counters by morale (ruling R40)


def _commissar_allowed(st: CampaignState, side: str, pid, rg, column: str) -> None:
    """2.361 * (A25.22): "Russian may choose Commissar if available": only a Russian side, only for a
    leader rolled on the column whose rows carry the * (not the Armor Leader column), only where the card
    makes one available: the leader's RG says `commissar = true` (ruling R40); a leader generated at 3.45
    has no RG, so any RG of the side saying it (ruling R92). Each condition is its own refusal (issue 35 D4)."""
    spec = st.card.sides[side]
    if spec.nationality.lower() != "russian":
        raise Refused(f"only a Russian side takes a Commissar (2.361 *, A25.22); {side} is {spec.nationality}",
                      "2.361", st.step)
    if column != "general":
        raise Refused(f"{pid or 'this leader'} is rolled on the {column} column of 2.361; the * that offers a "
                      "Commissar marks rows of the Russian (general) leader column only (2.361 *, A25.22)",
                      "2.361", st.step)
    if pid is None:  # 3.45: generated "using the 2.361 Table" (ruling R92)
        if not any(getattr(g, "commissar", False) for g in spec.rg):
            raise Refused(f"the CG Card makes no Commissar available to {side}: no RG of it says `commissar = "
                          "true` (2.361 *: \"if available\"; ruling R92)", "2.361", st.step)
        return
    if rg is None or not getattr(rg, "commissar", False):
        raise Refused(f"the CG Card does not allow a Commissar for {pid} (RG key commissar)", "2.361", st.step)


def _morale(leader: str) -> int:
    return int(leader.split("-")[0].split("+")[0])


def _commissar(st: CampaignState, side: str, pid, rg, column: str, r, got) -> str:
    """2.361 * (A25.22): a Russian side may take a Commissar for the leader its DR gives, on the rows so
    marked and where the card's RG allows it (`commissar = true`): the Commissar of that leader's morale
    (ruling R40). Before ruling R49 (rules revision 3) a roll off the * rows was refused after it was made."""
    _commissar_allowed(st, side, pid, rg, column)
    if r.row not in tables.COMMISSAR_ROWS or got is None:
        raise Refused(f"row {r.row} of the 2.361 table has no * : no Commissar on it", "2.361", st.step)
    return COMMISSARS[_morale(got)]


def _dummy_minefield_fp(st: CampaignState, side: str) -> int | None:
    """Ruling R22: the FP price of one Dummy Minefield as the CG Card states it (the side's own fortifications
    table, else the campaign's), None where it states none."""
    side_table = st.card.sides[side].fortifications
    table = side_table if side_table is not None else st.card.campaign.fortifications
    return (table or {}).get(DUMMY_MINEFIELD_FP)


def _fortify_limits(st: CampaignState, side: str, kind: str, spec, hx, hip_unit) -> None:
    """2.38 placement and pricing as written (revision switch fortify_rules)."""
    if hip_unit is not None and hip_unit.kind == Kind.SW:
        raise Refused(f"{hip_unit.id} is a SW: it hides with its possessor (buy HIP for the unit holding it)",
                      "2.38", st.step)
    if kind == "cave_complex":
        caves = sum(1 for f in st.ground.fortifications if f.side == side and f.kind == "cave")
        if caves < 4:
            raise Refused(f"a Cave Complex joins four or more caves; {side} has bought {caves}", "2.38", st.step)
    if hx:
        _fortify_hex_limits(st, side, kind, spec, hx)


def _fortify_hex_limits(st: CampaignState, side: str, kind: str, spec, hx) -> None:
    hc = st.map_control().hexes[hx]
    if st.map_control().situation(hx, side) != "friendly_mlr" and not (spec.isolated_ok and hc.isolated == side):
        raise Refused(f"{hx} is not inside the {side} MLR: fortifications go there (I items also in an Isolated "
                      "Location)", "2.38", st.step)
    if kind != "set_dc" and any(i.key == "rubble" for i in st.ground.terrain.get(hx, [])):
        raise Refused(f"{hx} holds rubble: no fortification there but a Set DC", "B24.5", st.step)


def _place(st: CampaignState, side: str, kind: str, spec, hx):
    """2.38: "the actual on-map positioning of Fortifications may be deferred until that side sets up for
    the next CG Firefight during step 2.6": the oldest fortification of `kind` the side bought without a
    hex goes to `hx` (revision switch fortify_placed_at_setup), under the limits of its purchase."""
    if hx is None:
        raise BadInput(f"--hex is required: at 2.6 plcg fortify places {article(spec.name)} bought without a hex")
    at(st, "fortify")
    index = next((i for i, f in enumerate(st.ground.fortifications)
                  if f.side == side and f.kind == kind and f.hex is None and not f.unit
                  and f.firefight == st.firefight), None)
    if rules_for(st).bought_as_level(kind):  # CG12 (ruling R99): a level, never placed
        _booby_trap_level(st, side, hx)
    if index is None or not items.ITEMS[kind].in_hex:
        raise Refused(f"{side} has no {spec.name} bought without a hex to place", "2.38", st.step)
    if rules_for(st).fortification_limits_apply(kind):
        _fortify_hex_limits(st, side, kind, spec, hx)
    _fortify_notes_hex(st, side, kind, hx)
    if not spec.isolated_ok and st.map_control().hexes[hx].isolated == side:
        raise Refused(f"{spec.name} may not go in an Isolated Location (only I fortifications)", "2.38", st.step)
    return ev.FortificationPlaced(side=side, kind=kind, index=index, hex=hx)


SET_DC_TERRAIN = ("rubble", "pillbox", "trench")  # 2.38 n8: besides building, hut and bridge hexes


def _fortify_notes(st: CampaignState, side: str, kind: str, hx) -> None:
    """2.38 notes 5, 8, 9 and CG12 as written (revision switch fortify_notes)."""
    if kind == "booby_traps" and st.card.sides[side].booby_traps is None \
            and st.card.campaign.booby_traps is not True:  # a side's own `booby_traps` decides for it (below)
        raise Refused("Booby Traps are bought only where the CG's FSR allow them (CG Card booby_traps = true)",
                      "CG12", st.step)
    if kind == "cave_complex":
        caves = sum(1 for f in st.ground.fortifications if f.side == side and f.kind == "cave")
        complexes = sum(1 for f in st.ground.fortifications if f.side == side and f.kind == "cave_complex")
        need = tables.CAVES_PER_COMPLEX * (complexes + 1)
        if caves < need:
            raise Refused(f"each Cave Complex needs four caves of its own: {complexes + 1} need {need}, {side} has "
                          f"bought {caves}", "2.38", st.step)
    why = rules_for(st).set_dc_refusal(st, side) if kind == "set_dc" else None
    if why:
        raise Refused(why, "2.38", st.step)
    if hx is not None:
        _fortify_notes_hex(st, side, kind, hx)


BOOBY_TRAP_LEVELS = ("A", "B", "C")  # B28.9


def _booby_trap_level(st: CampaignState, side: str, hx) -> str:
    """CG12 / 2.38 notes 6-7 (ruling R99): Booby Trap capability is a level of the side (B28.9 A, B, C) in effect
    within its MLR, not an item in a hex: each purchase "creates Level A Booby Traps or increases preexisting
    Level to next Level" (the card's `booby_traps` level for the side, where it gives one, preexists)."""
    if hx is not None:
        raise Refused("Booby Traps are a level in effect within the side's MLR (CG12, 2.38 note 7), not an item in "
                      "one hex: buy them without --hex", "CG12", st.step)
    given = st.card.sides[side].booby_traps
    start = BOOBY_TRAP_LEVELS.index(given) + 1 if given in BOOBY_TRAP_LEVELS else 0
    bought = sum(1 for f in st.ground.fortifications if f.side == side and f.kind == "booby_traps")
    if start + bought >= len(BOOBY_TRAP_LEVELS):
        raise Refused(f"{side}'s Booby Traps are at Level C already: no Level above it (B28.9, 2.38 note 6)", "CG12",
                      st.step)
    return BOOBY_TRAP_LEVELS[start + bought]


def _fortify_notes_hex(st: CampaignState, side: str, kind: str, hx) -> None:
    m = st.card.map
    if kind == "fortified_building" and m.buildings and hx not in m.buildings:
        raise Refused(f"{hx} holds no building on the CG Card: a Fortified Building is a building Location (note 5)",
                      "2.38", st.step)
    if kind == "set_dc":
        here = {i.key for i in st.ground.terrain.get(hx, [])}
        if m.buildings and hx not in m.buildings and hx not in m.bridges and not here & set(SET_DC_TERRAIN):
            raise Refused(f"{hx} is no building, hut, rubble, bridge, pillbox or trench Location: no Set DC there "
                          "(note 8)", "2.38", st.step)
        if st.map_control().hexes[hx].cthc != side:
            raise Refused(f"{hx} is not in {side}'s Controlled Terrain (a friendly CTHC): no Set DC there (note 8)",
                          "2.38", st.step)


@command("fortify")
def _fortify(ctx, cmd):
    side = side_arg(cmd)
    st = ctx.state
    entry = items.find(cmd.get("kind") or "")  # the one vocabulary (cg/items.py): "set-dc", "Set DC": set_dc
    if entry is None or not entry.fortification:
        raise BadInput(f"unknown fortification {cmd.get('kind')!r}: {', '.join(sorted(items.FORTIFICATION_ITEMS))}")
    kind = entry.key
    spec = tables.FORTIFICATIONS[kind]
    hx = hex_arg(st, cmd["hex"], "--hex") if cmd.get("hex") else None
    if rules_for(st).places_fortification_at(st.step):
        return [_place(st, side, kind, spec, hx)]
    if hx is not None and cmd.get("mines_at_setup") and kind in seal.SECRET_PLACED and seal.sealing(st) \
            and rules_for(st).places_fortification_at(StepId.SETUP):
        # ruling R112: the 2.6 reveal of the purchases would show the hex; placed at 2.6 it stays sealed until 2.9
        raise Refused(f"played by email, {kind.replace('_', ' ')}s are placed at 2.6 (plcg fortify {side} {kind}"
                      " --hex HEX there; 2.38 lets placement wait for setup): a hex given at 2.3 would show when 2.6"
                      " reveals the purchases (ruling R112)", "2.38", st.step)
    detail: dict[str, Any] = {}
    for k in ("capacity", "factors", "hexsides", "locations", "ca", "nca"):
        if cmd.get(k) is not None:
            detail[k] = int_arg(cmd, k, 0)
    hip_unit = None
    if kind == "hip":
        hip_unit = unit_arg(st, side, cmd.get("unit"))
        unit_type = {"squad": "squad", "hs": "hs", "crew": "crew", "leader": "smc", "vehicle": "afv"}.get(
            hip_unit.kind, "smc")
        unit_type = rules_for(st).hip_priced_as(hip_unit.kind, unit_type)  # note 3: a Gun at its crew's price
    else:
        unit_type = None
    if kind == "dummy_minefield":  # ruling R22: "As per F.7B", priced by the card (None: the card is silent)
        if detail:
            raise BadInput(f"a Dummy Minefield takes no {', '.join('--' + k for k in detail)}: one is one counter at "
                           "the card's price (ruling R22)")
        cost = _dummy_minefield_fp(st, side)
    else:
        try:
            cost = tables.fortification_cost(kind, unit=unit_type, **detail)
        except ValueError as e:
            raise BadInput(f"{kind}: {e}") from None
    at(st, "fortify", "2.3")  # 2.6 places what was bought (revision 3, above)
    if cost is None:
        raise Refused(f"the CG Card states no FP price for a Dummy Minefield (2.38: \"As per F.7B\", which PL 2.5 "
                      f"does not print; card key fortifications.{DUMMY_MINEFIELD_FP}, ruling R22)", "2.38", st.step)
    if rules_for(st).fortification_limits_apply(kind):
        _fortify_limits(st, side, kind, spec, hx, hip_unit)
    if rules_for(st).fortification_notes_apply(kind):
        _fortify_notes(st, side, kind, hx)
    if spec.initial_only and not st.initial:
        raise Refused(f"{spec.name} may only be bought for the Initial Firefight (S)", "2.38", st.step)
    card_side = st.card.sides[side]  # third-round card keys: a side's own Booby Traps say decides for it
    if kind == "booby_traps" and card_side.booby_traps is None and st.card.campaign.booby_traps is False:
        raise Refused("this CG's FSR do not allow Booby Traps (CG Card booby_traps = false)", "CG12", st.step)
    if kind == "booby_traps" and card_side.booby_traps == "none":
        raise Refused(f"the CG Card allows {side} no Booby Traps (sides.{side}.booby_traps = false)", "CG12", st.step)
    if rules_for(st).bought_as_level(kind):  # CG12 (ruling R99)
        detail["level"] = _booby_trap_level(st, side, hx)
    limits = st.card.campaign.fortifications  # second-round card key: None on a first-format card
    if card_side.fortifications is not None:  # third-round card key: this side's own kinds and limits
        limits = card_side.fortifications
    if limits is not None:
        if kind not in limits:
            allowed = ", ".join(k for k in limits if k != DUMMY_MINEFIELD_FP) or "none"
            raise Refused(f"this CG allows no {spec.name} (CG Card fortifications: {allowed})", "2.38", st.step)
        amount = detail.get("factors", 1)  # mines count their factors; every other kind its items
        used = sum(f.detail.get("factors", 1) for f in st.ground.fortifications if f.side == side and f.kind == kind)
        if used + amount > limits[kind]:
            raise Refused(f"{side} has {used} of the CG's {limits[kind]} {spec.name} (CG Card); {amount} more "
                          "exceeds it", "2.38", st.step)
    if hx and not spec.isolated_ok and st.map_control().hexes[hx].isolated == side:
        raise Refused(f"{spec.name} may not go in an Isolated Location (only I fortifications)", "2.38", st.step)
    if kind == "hip":
        squads = sum(1 for u in st.side_units(side) if u.kind == Kind.SQUAD and u.status != Status.RESERVE) \
            + sum(0.5 for u in st.side_units(side) if u.kind == Kind.HALF_SQUAD and u.status != Status.RESERVE)
        night = st.ff.time == "night"
        japanese = st.card.sides[side].nationality.lower() == "japanese"
        limit = tables.hip_limit(int(squads), japanese, night)
        assert hip_unit is not None  # kind "hip": read above
        if limit is not None and hip_unit.kind in (Kind.SQUAD, Kind.HALF_SQUAD):
            used = sum(1 for u in st.side_units(side) if u.hip and u.kind in (Kind.SQUAD, Kind.HALF_SQUAD))
            if used + 1 > limit:  # the percentage the limit was taken at (issue 39 defect 9)
                pct = tables.HIP_PERCENT_JAPANESE if japanese else tables.HIP_PERCENT
                why = ", the Japanese 10% more of G.1631" if japanese else ""
                raise Refused(f"HIP for {used + 1} squads exceeds {pct}% of {int(squads)} non-Reserve squads "
                              f"in a daytime firefight (at most {limit}, fractions dropped{why})", "2.38", st.step)
    fp = st.sides[side].fp
    if cost > fp:
        raise Refused(f"{spec.name} costs {cost} FP; {side} has {fp} FP", "2.38", st.step)
    return [ev.Fortified(side=side, kind=kind, hex=hx, cost=cost, fp_left=fp - cost, detail=detail,
                         unit=hip_unit.id if hip_unit else None)]
