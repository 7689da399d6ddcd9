"""2.5, 2.6 and 3.2: the Redeployment Option, redeployment, setup."""
from __future__ import annotations


from cg import drm as drms
from cg import seal
from cg.rules import rules_for
from cg import counters, tables
from events.errors import BadInput, Refused
from cg.rules import ORDER, cannot_redeploy, enters_only, immobilized, redeployment_owed, situation_of
from cg.state import other
from events import types as ev
from cg.commands.base import at, command, counter_table, given_dice, hex_arg, in_play, int_arg, roll, side_arg, unit_arg
from cg.units import OWNERS, Kind, Status, article  # OWNERS, 2.37: a leader with a MMC/AFV, a SW/Gun with a unit
from cg.rules import cthc_clusters, defender_may_redeploy_2_5, nearest_cthc_refusal, redeployment_attacker_at_2_5
from cg.card_as_printed import area_set
from cg.state import Done
from cg.sequence import StepId


@command("option")
def _option(ctx, cmd):
    opt = str(cmd.get("option") or "").upper()
    if opt not in ("A", "B"):
        raise BadInput(f"Redeployment Option {cmd.get('option')!r}: A or B (3.2)")
    st = ctx.state
    at(st, "option")
    if st.option is not None:
        raise Refused(f"Redeployment Option {st.option} is kept for the CG", "3.2", st.step)
    return [ev.RedeploymentOption(option=opt)]


@command("redeploy")
def _redeploy(ctx, cmd):
    side = side_arg(cmd)
    st = ctx.state
    if cmd.get("done"):
        return _redeployment_done(st, side)
    u = unit_arg(st, side, cmd.get("unit"), alive=False)
    to = hex_arg(st, cmd.get("to"), "--to")
    given = given_dice(cmd, 2)
    hs_beyond = int_arg(cmd, "hs", 0, default=0)
    typed = None if cmd.get("leadership") is None else int_arg(cmd, "leadership", -6, 6)
    in_play(st, u)
    at(st, "redeploy")
    if not rules_for(st).redeploys_on_its_own(u):  # ruling R86
        raise Refused(f"{u.id} is a support weapon: it redeploys with the unit that possesses it (3.21: \"Any SW/Gun "
                      "in the unit's new hex/Location may be automatically possessed\"), never on a roll of its own "
                      "(ruling R86)", "3.21", st.step)
    if immobilized(st, u):  # 3.211 (revision 2 on); the same test 3.2's owed redeployments skip by (ruling R48)
        raise Refused(f"{u.id} is Immobilized: it does not redeploy", "3.211", st.step)
    if u.redeployed and not rules_for(st).sets_up_again_at_2_5(st.step, st.option):
        if st.step == StepId.MLR_REDEPLOYMENT:  # ruling R28 holds for Option A; Option B sets up every unit in a FMLR (2.5)
            raise Refused(f"{u.id} redeployed in the last RePh (3.2): one redeployment between two firefights "
                          "(ruling R28)", "3.211", st.step)
        raise Refused(f"{u.id} has already redeployed this RePh", "3.211", st.step)
    mc = st.map_control()
    situation = situation_of(st, u, mc)
    if st.step == StepId.MLR_REDEPLOYMENT:
        if st.option is None:
            raise Refused("choose Redeployment Option A or B first (3.2)", "2.5", st.step)
        if situation != "friendly_mlr":
            raise Refused(f"{u.id} is not in a friendly MLR ({situation})", "2.5", st.step)
        if mc.situation(to, side) != "friendly_mlr":
            raise Refused(f"{to} is not in a friendly MLR", "2.5", st.step)
        if st.option == "B":
            return [ev.Redeployed(side=side, unit=u.id, frm=u.hex, to=to, situation=situation, roll=None,
                                  result="redeploys")]
        if rules_for(st).defender_first_at_2_5(st.option):
            att = redeployment_attacker_at_2_5(st)
            if side != att and Done("redeploy-2.5", att) in st.reph.done:
                raise Refused(f"the Defender ({side}) redeploys first at 2.5 Option A: the Attacker ({att}) has "
                              "begun", "2.5", st.step)
            if side != att and Done("redeploy-2.5-done", side) in st.reph.done:
                raise Refused(f"the Defender ({side}) has done with its 2.5 Option A redeployment (ruling R85)",
                              "2.5", st.step)
            if side == att and defender_may_redeploy_2_5(st, other(att)):  # ruling R85, as R51 at 2.6
                d = other(att)
                raise Refused(f"the Defender ({d}) redeploys first at 2.5 Option A: the Attacker ({att}) redeploys "
                              f"once {d} has begun, or has done (plcg redeploy {d} --done) (ruling R85)", "2.5",
                              st.step)
            clusters = cthc_clusters(st, side)
            another = rules_for(st).is_another_cthc(clusters, u.hex, to)  # ruling R53
            if mc.hexes[to].cthc != side or not another:
                raise Refused(f"{to} is not in another {side} CTHC: Option A redeploys to another CTHC", "2.5",
                              st.step)
    else:
        if st.option is None:
            raise Refused("choose Redeployment Option A or B first (plcg option A|B)", "3.2", st.step)
        owed = redeployment_owed(st)
        owed = rules_for(st).redeploying_first(owed, side, u.id)  # 3.215: Isolated units hold no one up
        mine = [o for o in owed if (o[0], o[1]) == (side, u.id)]
        if not mine:
            raise Refused(*_not_owed(st, u, situation), st.step)
        first = owed[0]
        if (first[2], first[0]) != (mine[0][2], mine[0][0]):
            raise Refused(f"{first[0]} units under {first[2]} redeploy first (3.214-3.217 order)",
                          mine[0][2], st.step)
        if mc.hexes[to].cthc != side:
            raise Refused(f"{to} is not a friendly-controlled hex of {article(side)} CTHC", mine[0][2], st.step)
        why = nearest_cthc_refusal(st, u, to) if rules_for(st).redeploys_to_nearest_cthc(situation) else None
        if why:
            raise Refused(why, mine[0][2], st.step)
    column = "vehicle" if u.kind == Kind.VEHICLE else "infantry"
    # ruling R49: --counter is judged before the dice, never by the result they give
    before_roll = rules_for(st).judges_before_roll("redeploy")
    if before_roll:
        _counter_before_roll(st, u, cmd.get("counter"))
    d = ctx.dice(given, 2)
    dl = drms.redeployment(st, side, u.hex, situation, hs_beyond=hs_beyond,
                           crosses_uncontrolled=bool(cmd.get("crosses_uncontrolled")), unit=u,
                           lead=drms.leadership(st, u, typed, "3.21"))
    r = roll(d, dl, lambda f: tables.redeployment(f, column, d.values))
    result = r.outcome
    if result in ("remains", "remains_reduced") and situation in ("enemy_mlr", "isolated"):
        result = "eliminated"  # 3.214/3.215: failing to redeploy from the enemy MLR eliminates
    change, reduced = rules_for(st).redeployment_change(st, u, result, cmd.get("counter"), strict=not before_roll)
    return [ev.Redeployed(side=side, unit=u.id, frm=u.hex, to=to, situation=situation, roll=r, result=result,
                          change=change, reduced=reduced)]


def _redeployment_done(st, side: str) -> list:
    """`plcg redeploy SIDE --done` (ruling R85): the Defender has done with its 2.5 Option A redeployment, so the
    Attacker may redeploy though the Defender redeployed nothing."""
    at(st, "redeploy")
    if st.step != StepId.MLR_REDEPLOYMENT or not rules_for(st).defender_first_at_2_5(st.option):
        raise Refused("--done ends the Defender's turn to redeploy at 2.5 Option A only", "2.5", st.step)
    att = redeployment_attacker_at_2_5(st)
    if side == att:
        raise Refused(f"{side} is the Attacker for redeployment: it redeploys after the Defender, and nothing "
                      "waits for it to be done", "2.5", st.step)
    if Done("redeploy-2.5-done", side) in st.reph.done or Done("redeploy-2.5", att) in st.reph.done:
        raise Refused(f"the Defender ({side}) is done already at 2.5", "2.5", st.step)
    return [ev.RedeploymentDone(side=side)]


def _not_owed(st, u, situation: str) -> tuple[str, str]:
    """Why 3.2 owes `u` no redeployment (message, rule): it stands in its friendly MLR, or (ruling R48) its side
    holds no friendly-controlled hex to redeploy to."""
    if situation == "friendly_mlr":
        return (f"{u.id} stands in its friendly MLR: 3.2 owes it no redeployment (a unit in a friendly MLR "
                "redeploys at 2.5)", "3.21")
    rule = dict(ORDER)[situation]
    if cannot_redeploy(st, u):
        fate = {"enemy_mlr": "is eliminated (3.214)", "isolated": "stays where it is, Isolated"}.get(
            situation, f"stays where it is, Isolated ({rule})")
        return (f"{u.id} cannot redeploy: {u.side} holds no friendly-controlled hex to redeploy to, so 3.2 owes it "
                f"none; when 3.2 is left it {fate} (ruling R48)", rule)
    return f"{u.id} owes no redeployment at 3.2 ({situation.replace('_', ' ')})", rule


def _counters_needed(st, u) -> list[tuple[str, str | None]]:
    """(what, the table's counter, or None where the table lacks it) for each counter a 3.21 result may ask of
    the unit: its A19.13 replacement (Replaced; "" where there is no lower counter, note 2: Casualty Reduced)
    and, for a squad, its half-squad (Reduced)."""
    if u.kind == Kind.VEHICLE:
        return []
    nat, over = counter_table(st, u.side)
    out = []
    if u.kind in (Kind.SQUAD, Kind.HALF_SQUAD, Kind.LEADER):
        c = counters.lookup(nat, u.name, over)
        known = c is not None and (c.replaced is not None or (c.klass or "") in ("green", "conscript")
                                   or u.name == "6+1")
        out.append(("replacement", (counters.replacement(nat, u.name, over) or "") if known else None))
    if u.kind == Kind.SQUAD:
        out.append(("half-squad", counters.half_squad(nat, u.name, over)))
    return out


def _counter_before_roll(st, u, given) -> None:
    """Ruling R49: `redeploy --counter` judged before the roll. Asked for (exit 2) where the table lacks a
    counter some result would need; refused (exit 3) where the table has every one of them."""
    given = (str(given).strip() or None) if given else None
    needs = _counters_needed(st, u)
    lacking = [what for what, to in needs if to is None]
    if lacking and not given:
        raise BadInput(f"{u.id} ({u.name}): the counter table has no {' or '.join(lacking)} for it, which a 3.21 "
                       "result may need: give it with --counter COUNTER before the roll (rulings R34, R49)")
    if given and needs and not lacking and given not in [to for _, to in needs if to]:
        raise Refused(f"{u.id} ({u.name}): the counter table gives its {', '.join(f'{w} {to}' for w, to in needs)}; "
                      f"--counter {given} is for counters the table lacks (rulings R34, R49)", "R34", st.step)


def _ob_area(st, side: str, u, hx: str) -> None:
    """1.2: a unit of the OB given whose card group prints a setup area sets up in it for the Initial
    Firefight (third-round card key `area`; a card without it decides as before; ruling R78)."""
    if not st.initial or not u.purchase or not u.purchase.endswith(f"-{side}"):
        return
    group = next((g for g in st.card.sides[side].ob if f"{g.id}-{side}" == u.purchase), None)
    if group is None or not group.area:
        return

    if hx not in area_set(group.area, st.grid()):
        raise Refused(f"{hx} is outside the setup area of {group.id} ({', '.join(group.area)}, CG Card)", "1.2",
                      st.step)


def _may_set_up(st, side: str) -> bool:
    """Whether SIDE has a unit in play still to place that may set up on the map at 2.6 (ruling R51: one with no
    hex yet, not an entering one, ruling R50; an OB given the card places has its hexes). By email, a purchase of
    this firefight still sealed counts as such units (ruling R117): each copy answers the same, the one that
    cannot open it as the one that can."""
    if seal.unrevealed_purchases(st, side):
        return True
    return any(u.hex is None and not enters_only(st, u) for u in st.side_units(side))


@command("setup")
def _setup(ctx, cmd):
    side = side_arg(cmd)
    st = ctx.state
    u = unit_arg(st, side, cmd.get("unit"), alive=False)
    hx = hex_arg(st, cmd.get("hex"))
    if cmd.get("hip") and cmd.get("concealed"):
        raise BadInput(f"{u.id} sets up HIP or concealed, not both (A12.3 hides what concealment, A12.1, shows)")
    in_play(st, u)
    at(st, "setup")
    if rules_for(st).setup_closed(st.ff):
        raise Refused(f"{st.ff.move_first} moves first: the moves-first dr is made after all setup, so setup is "
                      "complete (ruling R54)", "2.41", st.step)
    first = st.ff.setup_first
    if rules_for(st).sets_up_no_more(first, side, Done("setup", other(side)) in st.reph.done):
        raise Refused(f"{side} sets up first (2.41) and {other(side)} has begun setting up", "2.6", st.step)
    if rules_for(st).left_in_place(st, u, hx, Done("set", side, u.id) in st.reph.done):
        raise Refused(f"{u.id} stands in {u.hex}: under Option A units are left in place (3.34) and move by a 2.5 "
                      "redeployment only", "2.5", st.step)
    _ob_area(st, side, u, hx)
    if rules_for(st).waits_for_first_side(first, side, Done("setup", first) in st.reph.done) \
            and _may_set_up(st, first):  # ruling R51
        raise Refused(f"{first} sets up first (2.41): {side} sets up once {first} has begun (plcg setup {first} UNIT "
                      f"HEX; a unit given no hex is in its friendly MLR)", "2.6", st.step)
    mc = st.map_control()
    pur = st.purchase(u.purchase, side) if u.purchase else None
    if enters_only(st, u):  # ruling R50
        raise Refused(f"{u.id} belongs to {u.purchase}, which enters during the firefight (bought --mode entry, "
                      "2.34, or an OB given that enters): it does not set up on the map", "2.34", st.step)
    reserve = rules_for(st).in_reserve_at_setup(st, u, pur)  # 2.33
    why = rules_for(st).setup_hex_refusal(hx, side, mc.situation(hx, side))
    if why:
        raise Refused(why, "2.32", st.step)
    if reserve:
        enemy = [h for h, s in st.ground.control.items() if s == other(side)]
        g = st.grid()
        if any(g.distance(hx, e) < 7 for e in enemy):
            raise Refused(f"{u.id} is In Reserve: it sets up 7 or more hexes from enemy-controlled "
                          "Strategic Terrain", "2.33", st.step)
    elif mc.situation(hx, side) != "friendly_mlr" and not st.initial:
        raise Refused(f"{hx} is not inside the {side} MLR", "2.32", st.step)
    if rules_for(st).sets_up_with_its_rg(st, u, pur):  # 2.37
        _with_its_rg(st, u, pur, hx)
    still_hip = rules_for(st).keeps_hip_at_setup(u, hx)  # 3.24
    why = rules_for(st).hip_refusal(st, u, still_hip) if cmd.get("hip") else None
    if why:
        raise Refused(why, "2.38", st.step)
    return [ev.UnitSetUp(side=side, unit=u.id, hex=hx, hip=bool(cmd.get("hip")))]


def _with_its_rg(st, u, pur, hx: str) -> None:
    """2.37 (revision switch rg_ownership): in the first firefight its RG takes part in (the one it was bought
    for; one kept off map or bought for an Idle Firefight is past it, 2.37 EXC), a leader sets up stacked with
    a MMC/AFV of its RG and a SW/Gun with a unit of its RG, set up in that hex first."""
    mates = [st.unit(x, u.side) for x in pur.units if x != u.id]
    if not any(m is not None and m.hex == hx and m.kind in OWNERS[u.kind] and m.status in (Status.ON_MAP, Status.RESERVE)
               for m in mates):
        what = "a MMC/AFV" if u.kind == Kind.LEADER else "a unit"
        raise Refused(f"{u.id} ({u.name}) sets up with {what} of its RG {pur.id} in its first firefight: set one up "
                      f"in {hx} first", "2.37", st.step)
