"""Moving through the campaign: `next` (what a step records when it is left), concession, the CG's end."""
from __future__ import annotations


from cg import revision, tables
from events.errors import BadInput, Refused
from cg.state import SIDES, CampaignState, active_units, other, expand_units
from cg.steps import next_step, pending
from events import types as ev
from cg.card import BURNABLE
from cg.items import Kept
from cg.commands.base import Ctx, PRODUCT, RULES, at, command, counter_table, side_arg
from cg import revision, terrain, victory
from cg.units import Kind, PRESENT
from cg.revision import CURRENT
from cg.rules import mlr_of, stranded_fate


DICE_POLICIES = ("any", "no-typed")


def start_event(card, card_ref: str, card_dict: dict, seed: str | None, redeployment: str | None, version: str,
                dice_policy: str = "any", pbem: dict | None = None, rules_revision: int | None = None,
                conventions: int | None = None):
    """`seed` None: the ledger rolls from the OS random source (ruling R31). `conventions`: the ledger's
    conventions a new campaign records (CONVENTIONS); None, as a campaign started before them (a walk
    recorded then and played again: tests/test_explorer.py's Replay)."""
    if redeployment is not None and redeployment not in ("A", "B"):
        raise BadInput(f"--redeployment {redeployment!r}: A or B")
    if dice_policy not in DICE_POLICIES:
        raise BadInput(f"--dice-policy {dice_policy!r}: {' or '.join(DICE_POLICIES)}")
    rev = CURRENT if rules_revision is None else rules_revision
    if rev not in range(1, CURRENT + 1):
        raise BadInput(f"--rules-revision {rules_revision!r}: this plcg decides revisions 1 to {CURRENT}")
    return ev.CampaignStarted(product=PRODUCT, product_version=version, rules=RULES, seed=seed or "",
                              card_ref=card_ref, card=card_dict, redeployment=redeployment, rules_revision=rev,
                              dice="ledger" if seed is None else "seeded", dice_policy=dice_policy,
                              pbem=pbem, conventions=conventions)


@command("rules-upgrade", "*")
def _rules_upgrade(ctx: Ctx, cmd: dict):
    """Ruling R32: move the campaign to the current rules revision from the next firefight's 2.1 on."""
    st = ctx.state
    at(st, "rules-upgrade")
    planned = max([st.rules_revision] + [to for _ff, to in st.rules_upgrades])
    if planned >= CURRENT:
        when = "" if revision.revision(st) >= CURRENT else \
            f" from firefight {max(ff for ff, _to in st.rules_upgrades)}'s 2.1 on"
        raise Refused(f"the campaign is decided under rules revision {CURRENT}{when} already", "R32", st.step)
    if st.last_firefight:
        raise Refused(f"firefight {st.firefight} is the CG's last: no later 2.1 for rules revision {CURRENT} "
                      "to start at", "R32", st.step)
    return [ev.RulesUpgraded(revision=CURRENT, from_firefight=st.firefight + 1)]


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
        # ruling R74: a CG Objective fulfilled after this firefight ends the CG (1.3)
        out.append(_cg_end(st, "CG Objectives" if victory.objectives_fulfilled(st) else "last firefight"))
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
        iso = [ev.SideUnit(u.side, u.id) for u in active_units(st)[0]  # the units not settled, in order
               if u.status in PRESENT and u.hex and mc.hexes[u.hex].isolated == u.side]
        if revision.of(st).immobilized_stays:  # ruling R48: the units that could not redeploy

            wrecked, stay = stranded_fate(st)
            for rule in ("3.214", "3.23"):
                units = tuple(ev.SideUnit(s, u) for s, u, r in wrecked if r == rule)
                if units:
                    out.append(ev.UnitsStranded(units=units, rule=rule))
            gone = {(s, u) for s, u, _ in wrecked}
            iso = [x for x in iso if (x.side, x.unit) not in gone] + \
                [ev.SideUnit(s, u) for s, u, _ in stay if ev.SideUnit(s, u) not in iso]
        if iso:
            out.append(ev.IsolatedMarked(units=tuple(iso)))
    elif step == "3.3":
        changes = _fire_3_31(st)
        if changes:
            out.append(ev.TerrainChanged(rule="3.31", changes=tuple(changes),
                                         note="Flames/Blazes/Burning Wrecks between firefights"))
        out.append(_tvp(st))
    elif step == "3.42" and revision.of(st).regroup_and_heroes:
        out += _regroup(st)
    elif step == "3.43" and revision.of(st).regroup_and_heroes:
        for side in SIDES:  # 3.43, ruling R62: "Remove any Heroes that cannot combine until each side has <1 (at most one)"
            heroes = [u.id for u in st.side_units(side) if u.hero and u.kind != Kind.LEADER
                      and u.status in PRESENT]
            if len(heroes) > 1:
                out.append(ev.HeroesRemoved(side=side, units=tuple(heroes[1:])))
    elif step == "3.51":
        for side in SIDES:
            before = st.sides[side].san
            out.append(ev.SanAdjusted(side=side, before=before, after=tables.san_adjust(before)))
    return out


def _regroup(st: CampaignState) -> list:
    """3.42 (ruling R62): "All same-type half-squads in the same Friendly MLR must Recombine ..., leaving <= 1 of each
    type": pairs of one counter in one MLR (a unit with no recorded hex is in its friendly MLR), into the
    squad of the RG's card whose HS it is, else the one squad of the counter table (where two share the HS,
    the pair is left as it is: the table cannot tell which)."""
    from cg import counters  # lazy: cg.counters (~2.3 ms) only for a card with [counters] (ruling R34)

    out = []
    for side in SIDES:
        nat, over = counter_table(st, side)
        groups: dict = {}
        for u in st.side_units(side):
            if u.kind != Kind.HALF_SQUAD or u.status not in PRESENT:
                continue
            part = mlr_of(st, side, u.hex) if u.hex else "its MLR"
            if part is not None:
                groups.setdefault((part, u.name), []).append(u)
        for (_part, name), hs in groups.items():
            pur = st.purchase(hs[0].purchase, side) if hs[0].purchase else None
            rg = st.card.sides[side].group_by_id(pur.rg) if pur is not None else None
            listed = [n for n in expand_units(rg.units) if counters.half_squad(nat, n, over) == name] if rg else []
            to = listed[0] if listed else counters.squad_of(nat, name, over)
            if to is None:
                continue
            out += [ev.HalfSquadsRecombined(side=side, keep=a.id, gone=b.id, to=to) for a, b in zip(hs[0::2], hs[1::2])]
    return out


_BURNING = frozenset(map(Kept, ("flame", "blaze", "burning_wreck")))  # 3.31, 3.311: each as kept, no side


def _fire_3_31(st: CampaignState) -> list:
    if not any(i in _BURNING for items in st.ground.terrain.values() for i in items):
        return []
    nxt = st.card.firefights[st.firefight] if st.firefight < len(st.card.firefights) else None
    same_date = nxt is not None and nxt.date == st.ff.date
    grid = st.grid()
    buildings = set(st.card.map.buildings)
    # ruling R20: a Flame spreads into building hexes; ruling R35: and into the burnable terrain a card
    # of the second round maps (woods, orchard, brush, grain: 3.31); a first-format card maps none
    m = st.card.map
    burnable = buildings | {h for key in BURNABLE for h in getattr(m, key)}
    raw = terrain.resolve_3_31({h: list(map(str, v)) for h, v in st.ground.terrain.items()}, buildings, same_date,
                               grid.neighbours, burnable=burnable.__contains__)
    return [ev.TerrainChange(h, c, i) for h, c, i in raw]


def _tvp(st: CampaignState):
    """3.33: TVP of each card TVP hex to the side that controls it now. # ruling R46: Strategic Terrain the
    campaign grows (1.4, switch strategic_grows) is controlled and counts for CTHC and MLR, but only the
    CG Card gives a Location a TVP value (1.4 TVP), so it adds none; a card TVP hex keeps its value."""
    tvp = {"axis": 0, "allied": 0}
    for hx, value in st.card.map.tvp.items():
        side = st.ground.control.get(hx)
        if side:
            tvp[side] += value
    total = {s: st.sides[s].tvp_total + tvp[s] for s in SIDES}
    return ev.TvpAwarded(tvp=tvp, total=total)


def _cg_end(st: CampaignState, reason: str):
    tot = {s: st.sides[s].tvp_total for s in SIDES}
    winner = None
    if reason == "concession":
        winner = other(st.conceded_by) if st.conceded_by else None
    elif revision.of(st).cg_objectives:  # ruling R74: the card's Victory Conditions name the winner
        winner = victory.decide(st, reason)[0]
    return ev.CgEnded(reason=reason, winner=winner, tvp=tot)


@command("concede", "*")
def _concede(ctx, cmd):
    side = side_arg(cmd)
    st = ctx.state
    at(st, "concede")
    next_step(st, "concede")
    return [ev.Conceded(side=side), ev.StepLeft(step=st.step, to="end", firefight=st.firefight),
            ev.CgEnded(reason="concession", winner=other(side), tvp={s: st.sides[s].tvp_total for s in SIDES})]
