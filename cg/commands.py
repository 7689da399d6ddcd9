"""One `decide` per command: check the input (BadInput, exit 2), then the step order and the rules
(Refused, exit 3), and return the events the command records. Pure: no I/O, the state is not mutated.

A command is a plain dict as the CLI parsed it ({"name": "cp", "side": "axis", "dice": "3,4"}); the
log keeps it with its events so the audit can decide it again against the same history.
"""
from __future__ import annotations

import re
from typing import Callable

import attrs

from cg import dice as dicemod
from cg import drm as drms
from cg import tables
from cg.dice import Dice
from cg.errors import BadInput, Refused
from cg.evolve import reverted_seqs
from cg.rules import redeployment_owed, situation_of, winner_by_cvp
from cg.state import SIDES, CampaignState, counter_morale, expand_units, other
from cg.steps import BY_ID, next_step, pending
from events import types as ev
from events.roll import Drm, Roll

PRODUCT = "plcg"
RULES = "Platoon Leader 2.5"


@attrs.define
class Ctx:
    state: CampaignState
    base_seq: int  # the seq the command's first event will get: the seeded roller's position
    n_rolls: int = 0

    def dice(self, given: Dice | None, count: int) -> Dice:
        d = given if given is not None else dicemod.seeded(self.state.seed, self.base_seq, self.n_rolls, count)
        self.n_rolls += 1
        return d


HANDLERS: dict[str, Callable] = {}
STEPS_OF: dict[str, tuple[str, ...]] = {}  # command -> steps where it may be given ("*" = any)


def command(name: str, *steps: str):
    def wrap(fn):
        HANDLERS[name] = fn
        STEPS_OF[name] = steps
        return fn

    return wrap


def decide(state: CampaignState, cmd: dict, base_seq: int) -> list:
    name = cmd.get("name")
    handler = HANDLERS.get(name)
    if handler is None:
        raise BadInput(f"unknown command {name!r}")
    return handler(Ctx(state, base_seq), cmd)


# ---- shared checks --------------------------------------------------------------------------------

def at(state: CampaignState, name: str, *steps: str) -> None:
    """The step order: refuse a command given at the wrong step (exit 3, rule and current step)."""
    allowed = steps or STEPS_OF[name]
    if state.ended:
        raise Refused(f"the CG has ended ({state.end_reason}); {name} is not possible", "1.3", "end")
    if "*" in allowed or state.step in allowed:
        return
    where = " or ".join(f"{s} {BY_ID[s].name}" for s in allowed)
    raise Refused(f"{name} belongs to step {where}, not {state.step} {BY_ID[state.step].name}",
                  allowed[0], state.step)


def side_arg(cmd: dict, key: str = "side") -> str:
    side = cmd.get(key)
    if side in SIDES:  # as the CLI writes it
        return side
    side = str(side or "").lower()
    if side not in SIDES:
        raise BadInput(f"unknown side {cmd.get(key)!r}: sides are axis and allied")
    return side


def hex_arg(state: CampaignState, value, what: str = "hex") -> str:
    if value is None:
        raise BadInput(f"{what} is required")
    h = str(value).strip().upper()
    if not state.grid().valid(h):
        raise BadInput(f"{what} {value!r} is not a hex of the map ({state.card.map.columns}, rows 1-{state.card.map.rows})")
    return h


MAX_INT = 10**9  # no count, turn, CVP or modifier of a campaign comes near it; SQLite and JSON stop at 2**63


def int_arg(cmd: dict, key: str, lo: int | None = 0, hi: int | None = None, default=None) -> int:
    v = cmd.get(key, default)
    if v is None:
        raise BadInput(f"--{key.replace('_', '-')} is required")
    try:
        n = int(v)
    except (TypeError, ValueError):
        raise BadInput(f"--{key.replace('_', '-')} {v!r}: a whole number is needed") from None
    if abs(n) > MAX_INT:
        raise BadInput(f"--{key.replace('_', '-')} {n}: too large a number")
    if (lo is not None and n < lo) or (hi is not None and n > hi):
        bounds = f"{lo}..{hi}" if lo is not None and hi is not None else \
            f"{lo} or more" if lo is not None else f"{hi} or less"
        raise BadInput(f"--{key.replace('_', '-')} {n}: must be {bounds}")
    return n


def unit_arg(state: CampaignState, side: str, uid, alive: bool = True):
    """The unit named; BadInput if SIDE has none of that id. `alive`: also refused (3.11) if it is out
    of play. A command with other arguments to check asks with alive=False and calls in_play once
    they are all parsed: bad input is reported as such before any rule is applied."""
    u = state.unit(str(uid)) if uid is not None else None
    if u is None or u.side != side:
        raise BadInput(f"unknown {side} unit {uid!r} (plcg oob {side} lists them)")
    if alive:
        in_play(state, u)
    return u


def in_play(state: CampaignState, *units) -> None:
    for u in units:
        if u is not None and u.status not in ("available", "on_map", "reserve"):
            raise Refused(f"{u.id} is {u.status}", "3.11", state.step)


def roll(dice: Dice, drm: tuple[Drm, ...], lookup: Callable, **extra) -> Roll:
    final = dice.total + sum(d.value for d in drm)
    hit = lookup(final)
    return Roll(dice=dice.values, drm=tuple(drm), final=final, table=hit.table, row=hit.row,
                outcome=hit.result, manual=dice.manual, **extra)


def given_dice(cmd: dict, count: int, key: str = "dice") -> Dice | None:
    return dicemod.parse(cmd.get(key), count)


# ---- campaign -------------------------------------------------------------------------------------

def start_event(card, card_ref: str, card_dict: dict, seed: str, redeployment: str | None, version: str):
    if redeployment is not None and redeployment not in ("A", "B"):
        raise BadInput(f"--redeployment {redeployment!r}: A or B")
    return ev.CampaignStarted(product=PRODUCT, product_version=version, rules=RULES, seed=seed,
                              card_ref=card_ref, card=card_dict, redeployment=redeployment)


@command("next", "*")
def _next(ctx: Ctx, cmd: dict):
    st = ctx.state
    at(st, "next")
    owed = pending(st)
    if owed:
        listed = "; ".join(f"{o['what']} ({o['command']})" for o in owed)
        raise Refused(f"step {st.step} still owes: {listed}", owed[0]["rule"], st.step)
    to = next_step(st)
    out: list = []
    out += _leaving(ctx, st.step)
    if to == "end":
        out.append(ev.StepLeft(step=st.step, to="end", firefight=st.firefight))
        out.append(_cg_end(st, "last firefight"))
        return out
    ff = st.firefight + 1 if to == "2.1" else st.firefight
    out.append(ev.StepLeft(step=st.step, to=to, firefight=ff))
    return out


def _leaving(ctx: Ctx, step: str) -> list:
    """What a step records by itself when it is left: 3.25 Isolated units, 3.31 fire, 3.33 TVP, 3.51 SAN."""
    st = ctx.state
    out: list = []
    if step == "3.2":
        mc = st.map_control()
        iso = [ev.SideUnit(u.side, u.id) for u in st.units.values()  # (most units are out of play)
               if u.status in ("on_map", "available") and u.hex and mc.hexes[u.hex].isolated == u.side]
        if iso:
            out.append(ev.IsolatedMarked(units=tuple(iso)))
    elif step == "3.3":
        changes = _fire_3_31(st)
        if changes:
            out.append(ev.TerrainChanged(rule="3.31", changes=tuple(changes),
                                         note="Flames/Blazes/Burning Wrecks between firefights"))
        out.append(_tvp(st))
    elif step == "3.51":
        for side in SIDES:
            before = st.sides[side].san
            out.append(ev.SanAdjusted(side=side, before=before, after=tables.san_adjust(before)))
    return out


def _fire_3_31(st: CampaignState) -> list:
    from cg import terrain

    if not any(i in ("flame", "blaze", "burning_wreck") for items in st.terrain.values() for i in items):
        return []
    nxt = st.card.firefights[st.firefight] if st.firefight < len(st.card.firefights) else None
    same_date = nxt is not None and nxt.date == st.ff.date
    grid = st.grid()
    buildings = set(st.card.map.buildings)
    # ruling R20: the card maps buildings only, so a Flame spreads into building hexes alone
    raw = terrain.resolve_3_31({h: list(v) for h, v in st.terrain.items()}, buildings, same_date,
                               grid.neighbours, burnable=lambda h: h in buildings)
    return [ev.TerrainChange(h, c, i) for h, c, i in raw]


def _tvp(st: CampaignState):
    """3.33: TVP of each card TVP hex to the side that controls it now."""
    tvp = {"axis": 0, "allied": 0}
    for hx, value in st.card.map.tvp.items():
        side = st.control.get(hx)
        if side:
            tvp[side] += value
    total = {s: st.sides[s].tvp_total + tvp[s] for s in SIDES}
    return ev.TvpAwarded(tvp=tvp, total=total)


def _cg_end(st: CampaignState, reason: str):
    tot = {s: st.sides[s].tvp_total for s in SIDES}
    winner = None
    if reason == "concession":
        winner = other(st.conceded_by) if st.conceded_by else None
    return ev.CgEnded(reason=reason, winner=winner, tvp=tot)


@command("concede", "*")
def _concede(ctx, cmd):
    side = side_arg(cmd)
    st = ctx.state
    at(st, "concede")
    next_step(st, "concede")
    return [ev.Conceded(side=side), ev.StepLeft(step=st.step, to="end", firefight=st.firefight),
            ev.CgEnded(reason="concession", winner=other(side), tvp={s: st.sides[s].tvp_total for s in SIDES})]


# ---- 2.1 - 2.3 ------------------------------------------------------------------------------------

@command("cp", "2.1")
def _cp(ctx, cmd):
    side = side_arg(cmd)
    given = given_dice(cmd, 2)
    st = ctx.state
    at(st, "cp")
    if f"cp:{side}" in st.done:
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


@command("weather", "2.2")
def _weather(ctx, cmd):
    st = ctx.state
    text = cmd.get("text") or None
    at(st, "weather")
    if "weather" in st.done:
        raise Refused("the at-start weather is already recorded", "2.2", st.step)
    return [ev.WeatherSet(text=text or st.card.campaign.initial_weather)]


MODES = ("on-map", "reserve", "entry")


def _rg(st: CampaignState, side: str, rg_id):
    rg = st.card.sides[side].rg_by_id(str(rg_id or ""))
    if rg is None:
        ids = ", ".join(r.id for r in st.card.sides[side].rg)
        raise BadInput(f"unknown {side} RG {rg_id!r} (the card lists {ids})")
    return rg


@command("buy", "2.3")
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
    key = f"{side}:{rg.id}"
    if st.purchase_count.get(key, 0) >= rg.max:
        raise Refused(f"{rg.id} may be bought {rg.max} time(s) in the CG and has been", "2.3", st.step)
    limit = st.card.campaign.max_infantry_platoons
    if rg.platoons and st.sides[side].platoons + rg.platoons > limit:
        raise Refused(f"{side} would have {st.sides[side].platoons + rg.platoons} infantry platoons this "
                      f"purchase step; the limit is {limit} (ruling R12)", "2.3", st.step)
    cost, delta = tables.setup_cost(rg.kind, rg.id, mode, rg.cost)
    cp = st.sides[side].cp
    if cost > cp:
        raise Refused(f"{rg.id} costs {cost} CP ({mode}); {side} has {cp}", "2.3", st.step)
    # both sides' cards may list the same RG id (I1): number the purchases across the sides so a
    # purchase id (and the unit ids made from it) names one purchase of the campaign
    n = sum(st.purchase_count.get(f"{s}:{rg.id}", 0) for s in SIDES) + 1
    pid = f"{rg.id}-{n}"
    units = tuple(ev.UnitRef(f"{pid}.{i}", name) for i, name in enumerate(expand_units(rg.units), 1))
    return [ev.RgBought(side=side, rg=rg.id, purchase=pid, mode=mode, base_cost=rg.cost, delta=delta,
                        cost=cost, cp_left=cp - cost, platoons=rg.platoons, units=units,
                        fp=rg.fp if rg.kind == "fortification_points" else 0)]


@command("patrols", "2.3")
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
    if cost > cp:
        raise Refused(f"{n} patrol(s) cost {cost} CP; {side} has {cp}", "2.31", st.step)
    return [ev.PatrolsBought(side=side, count=n, cost=cost, cp_left=cp - cost)]


@command("attack", "2.3")
def _attack(ctx, cmd):
    side = side_arg(cmd)
    st = ctx.state
    at(st, "attack")
    if st.initial:
        raise Refused("the CG Card assigns the Initial Firefight's ATTACKER; no Attack Option is bought "
                      "(ruling R2)", "2.4", st.step)
    if st.sides[side].attack:
        raise Refused(f"{side} already bought the Attack Option for firefight {st.firefight}", "2.4", st.step)
    cost = st.card.sides[side].attack_cost
    cp = st.sides[side].cp
    if cost > cp:
        raise Refused(f"the Attack Option costs {cost} CP; {side} has {cp}", "2.4", st.step)
    return [ev.AttackBought(side=side, cost=cost, cp_left=cp - cost)]


def _known_ref(st: CampaignState, side: str, ref) -> None:
    """Input before the rules: `ref` must be one of the side's purchase ids or one of its card RG ids."""
    ref = str(ref or "")
    p = st.purchase(ref) or st.purchase(ref.upper())
    if (p is None or p.side != side) and st.card.sides[side].rg_by_id(ref) is None:
        raise BadInput(f"unknown {side} RG or purchase {ref!r}")


def _owed_purchase(st: CampaignState, side: str, ref, what: str, rule: str):
    """`ref` is a purchase id (I1-2) or an RG id (I1) with exactly one purchase owing `what`."""
    ref = str(ref or "")
    p = st.purchase(ref) or st.purchase(ref.upper())
    if p is None:
        rg = st.card.sides[side].rg_by_id(ref)
        if rg is None:
            raise BadInput(f"unknown {side} RG or purchase {ref!r}")
        cands = [q for q in st.purchases.values()
                 if q.side == side and q.rg == rg.id and q.firefight == st.firefight and
                 (q.leader_owed > 0 if what == "leader" else q.oba_owed)]
        if not cands:
            raise Refused(f"no {rg.id} bought for firefight {st.firefight} owes a {what} DR", rule, st.step)
        p = cands[0]
    if p.side != side:
        raise BadInput(f"purchase {ref} is not {side}'s")
    return p


@command("oba", "2.3")
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


@command("leader", "2.3", "3.45")
def _leader(ctx, cmd):
    side = side_arg(cmd)
    given = given_dice(cmd, 2)
    st = ctx.state
    generated = bool(cmd.get("generated"))
    if not generated:
        _known_ref(st, side, cmd.get("rg"))
    at(st, "leader", "3.45" if generated else "2.3")
    spec = st.card.sides[side]
    if generated:
        if f"leaders:{side}" not in st.done:
            raise Refused(f"{side} makes the 3.45 dr (plcg leaders {side}) before generating", "3.45", st.step)
        if st.generated[side] >= st.may_generate[side] or leader_slots(st, side) <= 0:
            raise Refused(f"{side} may generate {st.may_generate[side]} leader(s) this RePh (3.45 result, leaders "
                          f"lost - 1, MMC on board) and has generated {st.generated[side]}", "3.45", st.step)
        column = tables.leader_column(spec.nationality, False)
        pid = None
    else:
        p = _owed_purchase(st, side, cmd.get("rg"), "leader", "2.36")
        if p.leader_owed <= 0:
            raise Refused(f"{p.id} owes no leader DR", "2.36", st.step)
        rg = spec.rg_by_id(p.rg)
        column = tables.leader_column(spec.nationality, rg.armor_leader)
        pid = p.id
    d = ctx.dice(given, 2)
    r = roll(d, drms.leader(st, side), lambda f: tables.leader(f, column))
    got = r.outcome
    if st.initial and not generated:  # 2.362 at the Initial Firefight start (ruling R9)
        got = tables.demote_2362(r.outcome, column, st.sides[side].leaders_taken.get(column, {}))
    if got != r.outcome:
        r = attrs.evolve(r, outcome=got, rolled=r.outcome)
    unit = None
    if got is not None:
        n = st.leaders_made + 1  # unique across the sides
        base = pid if pid else f"L{st.firefight}"
        unit = ev.UnitRef(f"{base}.L{n}", got)
    return [ev.LeaderRolled(side=side, purchase=pid, roll=r, unit=unit, generated=generated)]


FORT_KEYS = ("capacity", "factors", "unit", "hexsides", "locations", "ca", "nca")


@command("fortify", "2.3")
def _fortify(ctx, cmd):
    side = side_arg(cmd)
    st = ctx.state
    kind = str(cmd.get("kind") or "").lower().replace("-", "_")
    spec = tables.FORTIFICATIONS.get(kind)
    if spec is None:
        raise BadInput(f"unknown fortification {cmd.get('kind')!r}: {', '.join(sorted(tables.FORTIFICATIONS))}")
    hx = hex_arg(st, cmd["hex"], "--hex") if cmd.get("hex") else None
    detail = {}
    for k in ("capacity", "factors", "hexsides", "locations", "ca", "nca"):
        if cmd.get(k) is not None:
            detail[k] = int_arg(cmd, k, 0)
    hip_unit = None
    if kind == "hip":
        hip_unit = unit_arg(st, side, cmd.get("unit"))
        unit_type = {"squad": "squad", "hs": "hs", "crew": "crew", "leader": "smc", "vehicle": "afv"}.get(
            hip_unit.kind, "smc")
    else:
        unit_type = None
    try:
        cost = tables.fortification_cost(kind, unit=unit_type, **detail)
    except ValueError as e:
        raise BadInput(f"{kind}: {e}") from None
    at(st, "fortify")
    if spec.initial_only and not st.initial:
        raise Refused(f"{spec.name} may only be bought for the Initial Firefight (S)", "2.38", st.step)
    if hx and not spec.isolated_ok and st.map_control().hexes[hx].isolated == side:
        raise Refused(f"{spec.name} may not go in an Isolated Location (only I fortifications)", "2.38", st.step)
    if kind == "hip":
        squads = sum(1 for u in st.side_units(side) if u.kind == "squad" and u.status != "reserve") \
            + sum(0.5 for u in st.side_units(side) if u.kind == "hs" and u.status != "reserve")
        night = st.ff.time == "night"
        limit = tables.hip_limit(int(squads), st.card.sides[side].nationality.lower() == "japanese", night)
        if limit is not None and hip_unit.kind in ("squad", "hs"):
            used = sum(1 for u in st.side_units(side) if u.hip and u.kind in ("squad", "hs"))
            if used + 1 > limit:
                raise Refused(f"HIP for {used + 1} squads exceeds 10% of {int(squads)} non-Reserve squads "
                              f"in a daytime firefight", "2.38", st.step)
    fp = st.sides[side].fp
    if cost > fp:
        raise Refused(f"{spec.name} costs {cost} FP; {side} has {fp} FP", "2.38", st.step)
    return [ev.Fortified(side=side, kind=kind, hex=hx, cost=cost, fp_left=fp - cost, detail=detail,
                         unit=hip_unit.id if hip_unit else None)]


# ---- 2.4 - 2.9 ------------------------------------------------------------------------------------

@command("determine", "2.4")
def _determine(ctx, cmd):
    g1 = given_dice(cmd, 1)
    g2 = given_dice(cmd, 1, "move_dice")
    st = ctx.state
    at(st, "determine")
    if "determine" in st.done:
        raise Refused("the firefight type is already determined", "2.41", st.step)
    if st.initial:
        att = st.card.campaign.initial_attacker  # ruling R2
        if g1 or g2:
            raise BadInput("the Initial Firefight's ATTACKER is assigned by the card: no dice (2.4)")
        return [ev.FirefightDetermined(type=f"{att}_assault", attacker=att, setup_first=other(att),
                                       move_first=att)]
    a = {s: st.sides[s].attack for s in SIDES}
    if a["axis"] and a["allied"]:
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


@command("night", "2.4")
def _night(ctx, cmd):
    text = (cmd.get("text") or "").strip()
    if not text:
        raise BadInput("plcg night TEXT: say the night conditions (NVR, moon...)")
    st = ctx.state
    at(st, "night")
    if "determine" not in st.done:
        raise Refused("determine the firefight type (2.41) before the night conditions", "2.42", st.step)
    if st.ff.time != "night":
        raise Refused(f"firefight {st.firefight} is a {st.ff.time} firefight: night conditions are set for a night "
                      "one only", "2.42", st.step)
    return [ev.NightSet(text=text)]


@command("option", "3.2")
def _option(ctx, cmd):
    opt = str(cmd.get("option") or "").upper()
    if opt not in ("A", "B"):
        raise BadInput(f"Redeployment Option {cmd.get('option')!r}: A or B (3.2)")
    st = ctx.state
    at(st, "option")
    if st.option is not None:
        raise Refused(f"Redeployment Option {st.option} is kept for the CG", "3.2", st.step)
    return [ev.RedeploymentOption(option=opt)]


@command("redeploy", "2.5", "3.2")
def _redeploy(ctx, cmd):
    side = side_arg(cmd)
    st = ctx.state
    u = unit_arg(st, side, cmd.get("unit"), alive=False)
    to = hex_arg(st, cmd.get("to"), "--to")
    given = given_dice(cmd, 2)
    hs_beyond = int_arg(cmd, "hs", 0, default=0)
    leadership = int_arg(cmd, "leadership", -6, 6, default=0)
    in_play(st, u)
    at(st, "redeploy")
    if u.redeployed:
        raise Refused(f"{u.id} has already redeployed this RePh", "3.211", st.step)
    mc = st.map_control()
    situation = situation_of(st, u)
    if st.step == "2.5":
        if st.option is None:
            raise Refused("choose Redeployment Option A or B first (3.2)", "2.5", st.step)
        if situation != "friendly_mlr":
            raise Refused(f"{u.id} is not in a friendly MLR ({situation})", "2.5", st.step)
        if mc.situation(to, side) != "friendly_mlr":
            raise Refused(f"{to} is not in a friendly MLR", "2.5", st.step)
        if st.option == "B":
            return [ev.Redeployed(side=side, unit=u.id, frm=u.hex, to=to, situation=situation, roll=None,
                                  result="redeploys")]
    else:
        if st.option is None:
            raise Refused("choose Redeployment Option A or B first (plcg option A|B)", "3.2", st.step)
        owed = redeployment_owed(st)
        mine = [o for o in owed if o[1] == u.id]
        if not mine:
            raise Refused(f"{u.id} owes no redeployment at 3.2 ({situation.replace('_', ' ')}); "
                          f"units in a friendly MLR redeploy at 2.5", "3.21", st.step)
        first = owed[0]
        if (first[2], first[0]) != (mine[0][2], mine[0][0]):
            raise Refused(f"{first[0]} units under {first[2]} redeploy first (3.214-3.217 order)",
                          mine[0][2], st.step)
        if mc.hexes[to].cthc != side:
            raise Refused(f"{to} is not a friendly-controlled hex of a {side} CTHC", mine[0][2], st.step)
    column = "vehicle" if u.kind == "vehicle" else "infantry"
    d = ctx.dice(given, 2)
    dl = drms.redeployment(st, side, u.hex, situation, hs_beyond=hs_beyond,
                           crosses_uncontrolled=bool(cmd.get("crosses_uncontrolled")), leadership=leadership)
    r = roll(d, dl, lambda f: tables.redeployment(f, column, d.values))
    result = r.outcome
    if result in ("remains", "remains_reduced") and situation in ("enemy_mlr", "isolated"):
        result = "eliminated"  # 3.214/3.215: failing to redeploy from the enemy MLR eliminates
    return [ev.Redeployed(side=side, unit=u.id, frm=u.hex, to=to, situation=situation, roll=r, result=result)]


@command("setup", "2.6")
def _setup(ctx, cmd):
    side = side_arg(cmd)
    st = ctx.state
    u = unit_arg(st, side, cmd.get("unit"), alive=False)
    hx = hex_arg(st, cmd.get("hex"))
    in_play(st, u)
    at(st, "setup")
    mc = st.map_control()
    if u.status == "reserve":
        enemy = [h for h, s in st.control.items() if s == other(side)]
        g = st.grid()
        if any(g.distance(hx, e) < 7 for e in enemy):
            raise Refused(f"{u.id} is In Reserve: it sets up 7 or more hexes from enemy-controlled "
                          "Strategic Terrain", "2.33", st.step)
    elif mc.situation(hx, side) != "friendly_mlr" and not st.initial:
        raise Refused(f"{hx} is not inside the {side} MLR", "2.32", st.step)
    return [ev.UnitSetUp(side=side, unit=u.id, hex=hx, hip=bool(cmd.get("hip")))]


PATROL_KINDS = ("recon", "ambush", "raid", "anti-vehicle")


@command("patrol", "2.7")
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
    if leader is None or leader.kind != "leader":
        raise Refused("one unwounded leader must accompany the patrol", "2.72", st.step)
    if leader.wounded:
        raise Refused(f"{leader.id} is wounded", "2.72", st.step)
    squads = sum(1 for u in units if u.kind == "squad")
    hs = sum(1 for u in units if u.kind in ("hs", "crew"))
    if any(u.kind not in ("squad", "hs", "crew", "sw", "leader") for u in units):
        raise Refused("only infantry (squads, half-squads, a hero, SW) can patrol", "2.72", st.step)
    if squads + hs == 0:
        raise Refused("at least one HS must be assigned to a patrol", "2.72", st.step)
    if squads + hs / 2 > 3:
        raise Refused("no more than three squads may be assigned to a patrol", "2.72", st.step)
    mc = st.map_control()
    dist = mc.distance_to_mlr(hx, side)
    if dist is None or dist > 10:
        raise Refused(f"mission hex {hx} is {dist} hexes from the {side} MLR (10 at most)", "2.73", st.step)
    night = st.ff.time == "night"
    dl = drms.patrol(kind, leadership=leadership, distance=dist, night=night,
                     hs=max(0, hs - 1) if squads == 0 else hs, **flags)
    r = roll(ctx.dice(given, 2), dl, tables.patrol_detection)
    returns = r.outcome != "kia"
    return [ev.PatrolResolved(side=side, patrol=n, kind=kind, units=tuple(u.id for u in units),
                              leader=leader.id, mission_hex=hx, roll=r, returns=returns)]


def _next_patrol(st: CampaignState, side: str) -> int:
    for n in range(1, st.sides[side].patrols + 1):
        if n not in st.patrols_done[side]:
            return n
    raise Refused(f"{side} has no patrol left to resolve (bought {st.sides[side].patrols})", "2.31", st.step)


@command("patrol-return", "2.7")
def _patrol_return(ctx, cmd):
    side = side_arg(cmd)
    n = int_arg(cmd, "patrol", 1)
    given = given_dice(cmd, 2)
    st = ctx.state
    at(st, "patrol-return")
    if n not in st.patrols_to_return[side]:
        raise Refused(f"{side} patrol {n} owes no Return DR", "2.74", st.step)
    dl = drms.patrol("return", returning=True, night=st.ff.time == "night",
                     attacked=bool(cmd.get("attacked")), pinned=bool(cmd.get("pinned")),
                     broken=bool(cmd.get("broken")), leadership=int_arg(cmd, "leadership", -6, 6, default=0))
    r = roll(ctx.dice(given, 2), dl, tables.patrol_return)
    return [ev.PatrolReturned(side=side, patrol=n, roll=r)]


def _pairs(st, values, what):
    out = []
    for v in values or ():
        if ":" not in str(v):
            raise BadInput(f"{what} {v!r}: SIDE:UNIT, e.g. axis:I1-1.2")
        side, unit = str(v).split(":", 1)
        side = side_arg({"side": side})
        u = unit_arg(st, side, unit, alive=False)
        out.append(ev.SideUnit(side, u.id))
    return out


@command("end", "2.9")
def _end(ctx, cmd):
    st = ctx.state
    turn = int_arg(cmd, "turn", 1)
    cvp = cmd.get("cvp_lost") or {}
    for k in cvp:
        side_arg({"side": k})  # an unknown side is named before a missing one is asked for
    lost_cvp = {}
    for side in SIDES:
        if side not in cvp:
            raise BadInput(f"--cvp-lost {side}=N is required")
        lost_cvp[side] = int_arg({f"cvp_lost {side}": cvp[side]}, f"cvp_lost {side}", 0)
    winner_given = cmd.get("winner")
    if winner_given is not None:
        winner_given = side_arg({"side": winner_given})
    control = []
    for c in cmd.get("control") or ():
        if "=" not in str(c):
            raise BadInput(f"--control {c!r}: SIDE=HEX, e.g. axis=C4")
        s, h = str(c).split("=", 1)
        control.append(ev.SideHex(side_arg({"side": s}), hex_arg(st, h, "--control hex")))
    terrain = []
    for t in cmd.get("terrain") or ():
        if "=" not in str(t):
            raise BadInput(f"--terrain {t!r}: HEX=ITEM, e.g. D5=rubble")
        h, item = str(t).split("=", 1)
        terrain.append(ev.HexItem(hex_arg(st, h, "--terrain hex"), item.strip().lower()))
    lost = _pairs(st, cmd.get("lost"), "--lost")
    enc = _pairs(st, cmd.get("encircled"), "--encircled")
    wounded = _pairs(st, cmd.get("wounded"), "--wounded")
    shocked = _pairs(st, cmd.get("shocked"), "--shocked")
    recalled = _pairs(st, cmd.get("recalled"), "--recalled")
    repairs = []
    for r in cmd.get("repair") or ():
        m = re.match(r"^(\w+):([^=]+)=(\w+)$", str(r))
        if not m or m.group(3) not in tables.REPAIR:
            raise BadInput(f"--repair {r!r}: SIDE:ITEM=KIND, KIND one of {', '.join(tables.REPAIR)}")
        repairs.append(ev.HexItem(f"{side_arg({'side': m.group(1)})}:{m.group(2)}", m.group(3)))
    oba_used = {}
    for o in cmd.get("oba_used") or ():
        s, _, pid = str(o).partition(":")
        s = side_arg({"side": s})
        pur = st.purchase(pid.strip()) or st.purchase(pid.strip().upper())
        if pur is None or pur.side != s or pur.kind != "oba":  # contract: an unknown RG is bad input
            raise BadInput(f"--oba-used {o!r}: SIDE:PURCHASE naming one of {s}'s OBA purchases "
                           f"(plcg purchases {s})")
        if pur.id not in oba_used.setdefault(s, []):  # a module named twice is one module (CG4)
            oba_used[s].append(pur.id)
    at(st, "end")
    if "end" in st.done:
        raise Refused("the firefight result is already recorded", "2.9", st.step)
    for flag, units in (("--lost", lost), ("--encircled", enc), ("--wounded", wounded), ("--shocked", shocked),
                        ("--recalled", recalled)):
        for su in units:
            u = st.unit(su.unit)
            if u.status not in ("available", "on_map", "reserve"):
                raise Refused(f"{flag} {su.side}:{u.id}: that unit is {u.status} already"
                              + (f" (firefight {u.eliminated_in})" if u.eliminated_in else ""), "2.9", st.step)
    for c in control:
        if c.hex not in st.card.map.strategic:
            raise Refused(f"{c.hex} is not Strategic Terrain on the CG Card: only those are controlled", "1.33",
                          st.step)
    for s, used in oba_used.items():
        if len(used) > 2:
            raise Refused(f"{s} used {len(used)} OBA modules; at most two per CG Firefight", "CG4", st.step)
    if winner_given:
        winner, rule = winner_given, "--winner"
    else:
        probe = attrs.evolve(st.ff, cvp_lost=dict(lost_cvp))
        winner, rule = winner_by_cvp(probe)
    return [ev.FirefightEnded(turn=turn, cvp_lost=lost_cvp, winner=winner, winner_rule=rule,
                              control=tuple(control), lost=tuple(lost), terrain=tuple(terrain),
                              encircled=tuple(enc), wounded=tuple(wounded), shocked=tuple(shocked),
                              recalled=tuple(recalled), repairs=tuple(repairs),
                              oba_used=tuple(ev.SideUnit(s, pid) for s, used in oba_used.items() for pid in used))]


# ---- 3.x ------------------------------------------------------------------------------------------

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
    leadership = int_arg(cmd, "leadership", -6, 6, default=0)
    given = given_dice(cmd, 2)
    in_play(st, u)
    at(st, "encircled")
    if not u.encircled:
        raise Refused(f"{u.id} is not Encircled", "3.17", st.step)
    dl = (Drm("3.17", "1TC", 1),) + ((Drm("3.17", "leadership", leadership),) if leadership else ())
    r = roll(ctx.dice(given, 2), dl,
             lambda f: tables.Hit("3.17", f"<={morale}" if f <= morale else f">{morale}",
                                  "passed" if f <= morale else "eliminated"))
    return [ev.EncircledTested(side=side, unit=u.id, morale=morale, roll=r)]


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


@command("evacuate", "3.3")
def _evacuate(ctx, cmd):
    side = side_arg(cmd)
    st = ctx.state
    u = unit_arg(st, side, cmd.get("leader"))
    given = given_dice(cmd, 1)
    at(st, "evacuate")
    if u.kind != "leader" or not u.wounded:
        raise Refused(f"{u.id} is not a wounded leader", "3.32", st.step)
    if st.card.sides[side].nationality.lower() == "japanese":
        raise Refused("Japanese wounded leaders are not evacuated", "3.32", st.step)
    if f"evacuate:{u.id}" in st.done:
        raise Refused(f"{u.id} has had its evacuation dr", "3.32", st.step)
    r = roll(ctx.dice(given, 1), (), tables.evacuation)
    return [ev.EvacuationRolled(side=side, leader=u.id, roll=r)]


def _once(st: CampaignState, key: str, what: str, rule: str):
    if key in st.done:
        raise Refused(f"{what} is already made this RePh", rule, st.step)


@command("disease", "3.41")
def _disease(ctx, cmd):
    side = side_arg(cmd)
    given = given_dice(cmd, 1)
    st = ctx.state
    at(st, "disease")
    if not st.card.campaign.disease:
        raise Refused("Disease & Starvation is only invoked by FSR; the CG Card has none", "3.41", st.step)
    _once(st, f"disease:{side}", f"{side}'s Disease & Starvation dr", "3.41")
    r = roll(ctx.dice(given, 1), drms.disease(st, side), tables.disease)
    return [ev.DiseaseRolled(side=side, roll=r)]


@command("promote", "3.44")
def _promote(ctx, cmd):
    side = side_arg(cmd)
    given = given_dice(cmd, 1)
    st = ctx.state
    at(st, "promote")
    _once(st, f"promote:{side}", f"{side}'s Battlefield Promotion dr", "3.44")
    r = roll(ctx.dice(given, 1), drms.promotion(st, side), tables.promotion)
    return [ev.PromotionRolled(side=side, roll=r)]


@command("leaders", "3.45")
def _leaders(ctx, cmd):
    side = side_arg(cmd)
    given = given_dice(cmd, 1)
    st = ctx.state
    at(st, "leaders")
    _once(st, f"leaders:{side}", f"{side}'s Leader Generation dr", "3.45")
    r = roll(ctx.dice(given, 1), drms.leader_generation(st, side),
             lambda f: attrs.evolve(tables.promotion(f), table="3.45"))
    lost = sum(1 for s, uid in st.ff.lost if s == side and st.unit(uid) and st.unit(uid).kind == "leader")
    mmc = sum(1 for u in st.side_units(side) if u.kind in ("squad", "hs") and u.status == "on_map")
    if not any(u.hex for u in st.side_units(side)):
        mmc = sum(1 for u in st.side_units(side) if u.kind in ("squad", "hs"))  # roster-only play
    may = max(0, min(r.outcome, lost - 1, mmc))
    return [ev.LeadersRolled(side=side, roll=r, may_generate=may)]


@command("harden", "3.43", "3.44", "3.45")
def _harden(ctx, cmd):
    """Battle Hardening: 3.43 a hero combined/heroic leader, 3.44 up to the promotion dr's # of MMC,
    3.45 leaders within the 3.45 result; no unit hardens twice in one RePh (3.44 EXC)."""
    side = side_arg(cmd)
    st = ctx.state
    u = unit_arg(st, side, cmd.get("unit"))
    to = (cmd.get("to") or "").strip() or None
    at(st, "harden")
    if u.id in st.hardened_now[side]:
        raise Refused(f"{u.id} has already Battle Hardened this RePh", "3.44", st.step)
    if st.step == "3.44":
        if f"promote:{side}" not in st.done:
            raise Refused(f"make {side}'s Battlefield Promotion dr first (plcg promote {side})", "3.44", st.step)
        if u.kind not in ("squad", "hs"):
            raise Refused(f"{u.id} is not an MMC", "3.44", st.step)
        used = sum(1 for x in st.hardened_now[side] if st.unit(x).kind in ("squad", "hs"))
        if used >= st.promotions[side]:
            raise Refused(f"the 3.44 dr allows {st.promotions[side]} MMC and {used} have hardened", "3.44", st.step)
    elif st.step == "3.45":
        if f"leaders:{side}" not in st.done:
            raise Refused(f"make {side}'s 3.45 dr first (plcg leaders {side})", "3.45", st.step)
        if u.kind != "leader":
            raise Refused(f"{u.id} is not a leader", "3.45", st.step)
        if leader_slots(st, side) <= 0:
            raise Refused(f"the 3.45 result ({st.leader_result[side]}) allows no more leaders to harden or "
                          "be generated", "3.45", st.step)
    return [ev.UnitHardened(side=side, unit=u.id, by=st.step, to=to)]


def leader_slots(st: CampaignState, side: str) -> int:
    """3.45: the dr's '# of MMC' result counts leaders hardened and generated together."""
    hardened = sum(1 for x in st.hardened_now[side] if st.unit(x).kind == "leader")
    return st.leader_result[side] - hardened - st.generated[side]


REPAIRABLE = ("sw", "gun", "vehicle", "other")  # unit kinds a 3.46 repair dr can be for


@command("repair", "3.46")
def _repair(ctx, cmd):
    side = side_arg(cmd)
    st = ctx.state
    item = str(cmd.get("item") or "")
    if not item:
        raise BadInput("plcg repair SIDE ITEM: name the weapon or vehicle")
    owed = st.repairs_owed.get((side, item))
    unit = st.unit(item)
    if owed is None and (unit is None or unit.side != side):
        raise BadInput(f"unknown {side} unit {item!r}, and no repair is owed for it (plcg end --repair "
                       f"{side}:ITEM=KIND flags one at 2.9; plcg oob {side} lists the units)")
    if owed is None and unit.kind not in REPAIRABLE:
        raise BadInput(f"{unit.id} is a {unit.kind}: only a weapon or vehicle is repaired (3.46)")
    kind = cmd.get("kind") or owed
    if kind is None:
        raise BadInput(f"--kind is required: {item} was not flagged at 2.9; one of {', '.join(tables.REPAIR)}")
    if kind not in tables.REPAIR:
        raise BadInput(f"--kind {kind!r}: one of {', '.join(tables.REPAIR)}")
    given = given_dice(cmd, 1)
    drm_v = int_arg(cmd, "drm", -6, 6, default=0)
    at(st, "repair")
    dl = (Drm("3.46", "leadership/inexperience/captured use/ammunition shortage (stated)", drm_v),) if drm_v else ()
    if unit is not None and unit.isolated and kind in ("malfunction", "low_ammo"):
        raise Refused(f"{item} is possessed by an Isolated unit: no repair", "3.46", st.step)
    r = roll(ctx.dice(given, 1), dl, lambda f: tables.repair(f, kind))
    return [ev.RepairRolled(side=side, item=item, kind=kind, roll=r)]


@command("recall", "3.461")
def _recall(ctx, cmd):
    side = side_arg(cmd)
    st = ctx.state
    u = unit_arg(st, side, cmd.get("vehicle"), alive=False)
    given = given_dice(cmd, 1)
    drm_v = int_arg(cmd, "drm", -6, 6, default=0)
    at(st, "recall")
    if u.status != "recalled":
        raise Refused(f"{u.id} is not Recalled", "3.461", st.step)
    dl = (Drm("3.461", "inexperience/captured use/ammunition shortage (stated)", drm_v),) if drm_v else ()
    r = roll(ctx.dice(given, 1), dl, tables.recall)
    return [ev.RecallRolled(side=side, unit=u.id, roll=r)]


@command("elr", "3.47")
def _elr(ctx, cmd):
    side = side_arg(cmd)
    given = given_dice(cmd, 2)
    st = ctx.state
    at(st, "elr")
    _once(st, f"elr:{side}", f"{side}'s ELR Loss/Gain DR", "3.47")
    s = st.sides[side]
    r = roll(ctx.dice(given, 2), drms.elr(st, side), lambda f: tables.elr_change(f, s.elr, s.five_lost))
    return [ev.ElrRolled(side=side, roll=r, before=s.elr, after=r.outcome)]


CLEAR_ITEMS = ("rubble", "mines", "wire", "roadblock", "set_dc", "flame", "panji")


def _present(st: CampaignState, hx: str, item: str) -> bool:
    items = [i.split(":")[0] for i in st.terrain.get(hx, [])]
    if item == "mines":
        return any(i in ("mines", "ap_mine", "at_mine", "known_minefield") for i in items)
    return item in items


@command("clear", "3.52")
def _clear(ctx, cmd):
    side = side_arg(cmd)
    st = ctx.state
    hx = hex_arg(st, cmd.get("hex"))
    item = str(cmd.get("item") or "").lower().replace("-", "_")
    if item not in CLEAR_ITEMS:
        raise BadInput(f"item {cmd.get('item')!r}: one of {', '.join(CLEAR_ITEMS)}")
    given = given_dice(cmd, 1)
    at(st, "clear")
    mc = st.map_control()
    if not (mc.hexes[hx].cthc == side or side in mc.hexes[hx].mlr):
        raise Refused(f"{hx} is not in a {side} CTHC or MLR", "3.52", st.step)
    if not _present(st, hx, item):
        raise Refused(f"the ledger holds no {item} in {hx}", "3.52", st.step)
    if f"{hx}:{item}" in st.cleared:
        raise Refused(f"{item} in {hx} has had its one attempt this RePh", "3.52", st.step)
    if hx in st.ap_failed:
        raise Refused(f"a failed A-P mine attempt in {hx} stops other attempts there", "3.52", st.step)
    if item == "rubble" and hx in st.card.map.buildings:
        raise Refused(f"{hx} is a building hex: only fallen rubble outside a building depiction is cleared",
                      "B24.71", st.step)
    d = ctx.dice(given, 1)
    r = roll(d, drms.clearance(st, side, hx, item), tables.clearance)
    cr = r.outcome == "no effect" and tables.clearance_cr(d.values[0], item)
    return [ev.ClearanceRolled(side=side, hex=hx, item=item, roll=r, casualty_reduction=cr)]


# ---- terrain the campaign keeps (CG5) --------------------------------------------------------------

@command("rubble", "2.9", "3.3")
def _rubble(ctx, cmd):
    from cg import terrain

    st = ctx.state
    hx = hex_arg(st, cmd.get("hex"))
    kia = int_arg(cmd, "kia", 1, 9)
    level = int_arg(cmd, "level", 0, 9, default=0)
    stone = bool(cmd.get("stone")) or hx in st.card.map.stone
    count = 3 if level >= 1 else 1
    given = dicemod.parse(cmd.get("dice"), count) if cmd.get("dice") else None
    at(st, "rubble")
    if st.card.map.buildings and hx not in st.card.map.buildings:
        raise Refused(f"{hx} holds no building on the CG Card: HE rubbles building hexes only", "B24.11", st.step)
    if given is not None:
        values = given.values
        manual = True
    else:
        values = ctx.dice(None, 1).values + (ctx.dice(None, 2).values if count == 3 else ())
        manual = False
    g = st.grid()
    res = terrain.resolve_rubble(hx, kia, stone, level, values, g.neighbour)
    rolls = [Roll(dice=values[:1], drm=((Drm("B24.11", "stone building", 1),) if stone else ()),
                  final=values[0] + (1 if stone else 0), table="B24.11",
                  row=f"<={kia}" if res.created else f">{kia}", outcome="rubble" if res.created else "no rubble",
                  manual=manual)]
    if count == 3 and res.created:
        rolls.append(Roll(dice=values[1:], drm=((Drm("B24.12", f"{res.levels} level(s) rubbled", res.levels),)
                                                if res.levels else ()),
                          final=values[2] + res.levels, table="B24.12", row=">=7" if res.fell else "<7",
                          outcome=(res.fell_into or "off map") if res.fell else "stays", manual=manual))
    changes = tuple(ev.TerrainChange(h, "add", i) for h, i in res.changes)
    return [ev.TerrainChanged(rule="B24.11", changes=changes, rolls=tuple(rolls),
                              note=f"HE KIA {kia} vs {'stone' if stone else 'wooden'} building level {level}")]


@command("flame", "2.9", "3.3")
def _flame(ctx, cmd):
    st = ctx.state
    hx = hex_arg(st, cmd.get("hex"))
    kindling = int_arg(cmd, "kindling", 2, 12)
    weapon = cmd.get("weapon") or "he"
    if weapon not in ("he", "ft", "wp"):
        raise BadInput("--weapon he|ft|wp (Table 23)")
    drm_v = int_arg(cmd, "drm", -6, 6, default=0)
    given = given_dice(cmd, 2)
    at(st, "flame")
    dl = (Drm("Table 23", "EC/placement modifiers (stated)", drm_v),) if drm_v else ()
    r = roll(ctx.dice(given, 2), dl, lambda f: tables.Hit(
        "Table 23", f">={kindling}" if f >= kindling else f"<{kindling}", "flame" if f >= kindling else "none"))
    changes = (ev.TerrainChange(hx, "add", "flame"),) if r.outcome == "flame" else ()
    return [ev.TerrainChanged(rule="Table 23", changes=changes, rolls=(r,),
                              note=f"{weapon.upper()} attack, Kindling Number {kindling}")]


# ---- undo ------------------------------------------------------------------------------------------

def decide_undo(state: CampaignState, history: list[tuple], reverted: set[int],
                to: int | None, reason: str, force: bool):
    """history: (seq, batch, type, ...) of every event, in order (the fold's records will do);
    reverted: the seqs undone now.

    Without `to`: take back the newest command in force (a revert too: that is an undo of an undo).
    With `to`: take back every event in force after that seq (reverts stay, so what they undid
    stays undone). Walks back from the end: an undo costs what it takes back, not the log's length.
    """
    if not reason or not reason.strip():
        raise BadInput("--reason TEXT is required: the log keeps why")
    seqs: list[int] = []
    restores = False
    if to is not None:
        if to < 1 or to > (history[-1][0] if history else 0):
            raise BadInput(f"--to {to}: no such seq")
        for s, b, t, *_ in reversed(history):
            if s <= to:
                break
            if s not in reverted and t not in ("reverted", "campaign_started"):
                seqs.append(s)
    else:
        last_batch = None
        for s, b, t, *_ in reversed(history):
            if t == "campaign_started":
                break
            if s in reverted:
                continue
            if last_batch is None:
                last_batch = b
            elif b != last_batch:
                break
            seqs.append(s)
            restores = restores or t == "reverted"
    if not seqs:
        raise Refused("nothing to undo" + (" after that seq" if to is not None else ""), "undo", state.step)
    seqs.reverse()
    # What the undo takes out of force: its own seqs, and, where it takes back a revert that itself
    # took back an undo (undoing a redo), what that earlier undo took back comes out of force again.
    crosses = any(_left_2_8(state, s) for s in _taken_out(state, reverted, seqs, history))
    if crosses and not force:
        raise Refused("that undo crosses a firefight's commencement (2.8); give --force to do it anyway "
                      "(the log records it)", "2.8", state.step)
    return [ev.Reverted(seqs=tuple(seqs), reason=reason.strip(), force=bool(force and crosses),
                        restores=restores)]


def _left_2_8(state: CampaignState, seq: int) -> bool:
    return seq in state.commencements


def _taken_out(state: CampaignState, reverted: set[int], seqs: list[int], history: list[tuple]) -> set[int]:
    """The seqs in force now that a revert of `seqs` would take out of force (reverts of reverts
    included: the log's reverts, from state.reverts, with the new one after them)."""
    after = history[-1][0] + 1 if history else 1
    records = [(s, None, "reverted", {"seqs": list(took)}) for s, took, *_ in state.reverts]
    records.append((after, None, "reverted", {"seqs": seqs}))
    return reverted_seqs(records) - reverted
