"""2.9: the firefight's end (CVP, winner, control, casualties, terrain)."""
from __future__ import annotations

import re
from typing import Any

import attrs

from cg import counters, items
from cg.rules import END_CVP_CHECK, conventions, rules_for
from cg import tables
from events.errors import BadInput, Refused
from cg.state import SIDES, loss_cvp
from events import types as ev
from cg.commands.base import at, command, counter_table, hex_arg, in_play, int_arg, side_arg, unit_arg
from cg.units import IN_PLAY, PERSONNEL, Kind, article
from cg.card_boards_and_ob import entry_hexes
from cg.state import Done


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


def _vasl_logs(cmd) -> tuple:
    """`end --vasl-log FILE`: each VASL log's name and SHA-256 as the command line read them (issue 37 item 11)."""
    logs = cmd.get("vasl_logs") or ()
    if not isinstance(logs, (list, tuple)):
        raise BadInput("vasl_logs: a list of {name, sha256}")
    out = []
    for x in logs:
        name, digest = (x.get("name"), x.get("sha256")) if isinstance(x, dict) else (None, None)
        if not (isinstance(name, str) and 0 < len(name) <= 255 and isinstance(digest, str)
                and re.fullmatch(r"[0-9a-f]{64}", digest)):
            raise BadInput(f"--vasl-log: {x!r} is not a file name and its SHA-256 (64 hex digits)")
        out.append(ev.VaslLog(name, digest))
    return tuple(out)


@command("end")
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
    why = rules_for(st).control_refusal(control)
    if why:
        raise BadInput(why)
    terrain = []
    for t in cmd.get("terrain") or ():
        if "=" not in str(t):
            raise BadInput(f"--terrain {t!r}: HEX=ITEM, e.g. D5=rubble")
        h, text = str(t).split("=", 1)
        text = text.strip().lower()
        try:  # 2.9: a known item of the one vocabulary (cg/items.py)
            item = rules_for(st).end_terrain_item(text)
        except ValueError as e:
            raise BadInput(f"--terrain {t}: {e}") from None
        terrain.append((hex_arg(st, h, "--terrain hex"), item))
    lost = _pairs(st, cmd.get("lost"), "--lost")
    enc = _pairs(st, cmd.get("encircled"), "--encircled")
    wounded = _pairs(st, cmd.get("wounded"), "--wounded")
    shocked = _pairs(st, cmd.get("shocked"), "--shocked")
    recalled = _pairs(st, cmd.get("recalled"), "--recalled")
    heroes = _pairs(st, cmd.get("hero"), "--hero")
    captured = _pairs(st, cmd.get("captured"), "--captured")
    exited = _pairs(st, cmd.get("exited"), "--exited")
    reduced = [_reduce(st, su, counter) for su, counter in _changes(st, cmd.get("reduced"), "--reduced")]
    replaced = [_replace(st, su, counter) for su, counter in _changes(st, cmd.get("replaced"), "--replaced")]
    positions = _positions(st, cmd.get("position"))
    gone = {(su.side, su.unit) for su in lost + captured} | \
        {(c.side, c.unit) for c in reduced if c.to == "eliminated"}
    for side, u, _hx in positions:
        if (side, u.id) in gone:
            raise BadInput(f"--position {side}:{u.id}: that unit is lost, captured or eliminated by this end")
    repairs = []
    for r in cmd.get("repair") or ():
        m = re.match(r"^(\w+):([^=]+)=(\w+)$", str(r))
        if not m or m.group(3) not in tables.REPAIR:
            raise BadInput(f"--repair {r!r}: SIDE:ITEM=KIND, KIND one of {', '.join(tables.REPAIR)}")
        repairs.append(ev.HexItem(f"{side_arg({'side': m.group(1)})}:{m.group(2)}", m.group(3)))
    oba_used: dict = {}
    for o in cmd.get("oba_used") or ():
        s, _, pid = str(o).partition(":")
        s = side_arg({"side": s})
        pur = st.purchase(pid.strip(), s) or st.purchase(pid.strip().upper(), s)
        if pur is None or pur.side != s or pur.kind != "oba":  # contract: an unknown RG is bad input
            raise BadInput(f"--oba-used {o!r}: SIDE:PURCHASE naming one of {s}'s OBA purchases "
                           f"(plcg purchases {s})")
        if pur.id not in oba_used.setdefault(s, []):  # a module named twice is one module (CG4)
            oba_used[s].append(pur.id)
    at(st, "end")
    if Done("end") in st.reph.done:
        raise Refused("the firefight result is already recorded", "2.9", st.step)
    spec = st.card.firefight(st.firefight)
    if spec is not None and spec.turns is not None and turn > spec.turns:  # a second-round card key only
        raise Refused(f"--turn {turn}: firefight {st.firefight} lasts at most {spec.turns} game turns (CG Card)",
                      "CG2", st.step)
    for flag, units in (("--lost", lost), ("--encircled", enc), ("--wounded", wounded), ("--shocked", shocked),
                        ("--recalled", recalled), ("--hero", heroes), ("--captured", captured),
                        ("--exited", exited), ("--reduced", reduced), ("--replaced", replaced),
                        ("--position", [ev.SideUnit(s, u.id) for s, u, _h in positions])):
        for su in units:
            u = st.unit(su.unit, su.side)
            if u.status not in IN_PLAY:
                raise Refused(f"{flag} {su.side}:{u.id}: that unit is {u.status} already"
                              + (f" (firefight {u.eliminated_in})" if u.eliminated_in else ""), "2.9", st.step)
    _exits_along_a_friendly_edge(st, exited, {(s, u.id): hx for s, u, hx in positions})
    for hx, item in terrain:  # B24.121, Table 23: no rubble in a Water Obstacle
        if item.key == "rubble" and not rules_for(st).rubble_may_fall_in(st.card.map, hx):
            raise Refused(f"--terrain {hx}=rubble: {hx} is a water hex on the CG Card; rubble falls on "
                          "non-Water Obstacle terrain only", "B24.121", st.step)
    for c in control:
        if c.hex not in st.strategic():
            raise Refused(f"{c.hex} is not Strategic Terrain on the CG Card: only those are controlled", "1.33",
                          st.step)
    for s, used in oba_used.items():
        if len(used) > 2:
            raise Refused(f"{s} used {len(used)} OBA modules; at most two per CG Firefight", "CG4", st.step)
    if conventions(st, END_CVP_CHECK):  # issue 38; an old log decides as before
        _check_cvp(st, lost_cvp, lost, captured, reduced)
    if winner_given:
        winner, rule = winner_given, "--winner"
    else:
        probe = attrs.evolve(st.ff, cvp_lost={s: lost_cvp[s] + st.ff.patrol_cvp[s] for s in SIDES})
        winner, rule = rules_for(st).winner_by_cvp(probe)
    return [ev.FirefightEnded(turn=turn, cvp_lost=lost_cvp, winner=winner, winner_rule=rule,
                              control=tuple(control), lost=tuple(lost),
                              terrain=tuple(ev.HexItem(hx, str(item)) for hx, item in terrain),
                              encircled=tuple(enc), wounded=tuple(wounded), shocked=tuple(shocked),
                              recalled=tuple(recalled), repairs=tuple(repairs),
                              oba_used=tuple(ev.SideUnit(s, pid) for s, used in oba_used.items() for pid in used),
                              hero=tuple(heroes), reduced=tuple(reduced), replaced=tuple(replaced),
                              captured=tuple(captured), exited=tuple(exited),
                              vasl_logs=_vasl_logs(cmd))] + \
        [_positioned(st, s, u, hx, False, False, {(s2, h2) for s2, u2, h2 in positions if u2.kind in PERSONNEL})
         for s, u, hx in positions if (s, u.id) not in {(su.side, su.unit) for su in exited}]  # an exited unit's hex only served CG8


UNPRICED = (Kind.GUN, Kind.VEHICLE, Kind.OTHER)  # A26.2 values them by type: the ledger cannot (ruling R58)


def listed_cvp(st, lost, captured, reduced) -> dict[str, dict]:
    """The CVP of the units an `end` lists lost, per side, as ruling R39 values them (A26.2 as the ledger
    counts it: a squad 2, a HS or crew 1, a leader 1 plus its leadership, a squad reduced to its HS 1, a
    wound none): {"priced": N, "units": ["I1-1.1 4-6-7: 2", ...], "unpriced": [vehicles, Guns...]}."""
    out: dict[str, dict[str, Any]] = {s: {"priced": 0, "units": [], "unpriced": []} for s in SIDES}
    listed = [(su.side, su.unit, "eliminated") for su in lost] + [(su.side, su.unit, "captured") for su in captured] \
        + [(c.side, c.unit, c.to) for c in reduced]
    for side, uid, to in listed:
        u = st.unit(uid, side)
        if u.kind in UNPRICED:
            out[side]["unpriced"].append(f"{u.id} {u.name}")
            continue
        v = loss_cvp(u, to)
        if v:
            out[side]["priced"] += v
            out[side]["units"].append(f"{u.id} {u.name}: {v}")
    return out


def _check_cvp(st, lost_cvp: dict, lost, captured, reduced) -> None:
    """Ruling R104 (issue 38): `--cvp-lost` may not be less than the CVP of the units the end lists lost (A26.2 as
    ruling R39 values them); a vehicle or Gun the ledger cannot price only adds to what they must account for."""
    for side, d in listed_cvp(st, lost, captured, reduced).items():
        if lost_cvp[side] < d["priced"]:
            raise Refused(f"--cvp-lost {side}={lost_cvp[side]} is less than the {d['priced']} CVP of the {side} units"
                          f" it lists lost ({', '.join(d['units'])}; A26.2 as ruling R39 values them: a squad 2, a HS"
                          " or crew 1, a leader 1 plus its leadership, a squad reduced to its HS 1; ruling R104)",
                          "A26", st.step)


def cvp_words(st, cmd: dict) -> list[str]:
    """What an `end` command's CVP lost say beyond the units it lists (issue 38), per side, in words: how many
    CVP no listed unit accounts for, and the vehicles and Guns the ledger cannot price. `st`: the state the
    command is decided in."""
    lost = _pairs(st, cmd.get("lost"), "--lost")
    captured = _pairs(st, cmd.get("captured"), "--captured")
    reduced = [_reduce(st, su, counter) for su, counter in _changes(st, cmd.get("reduced"), "--reduced")]
    out = []
    for side, d in listed_cvp(st, lost, captured, reduced).items():
        given = int((cmd.get("cvp_lost") or {}).get(side) or 0)
        left = given - d["priced"]
        if left <= 0 and not d["unpriced"]:
            continue
        if d["units"]:
            said = f"{side.capitalize()} lost {given} CVP: the units listed account for {d['priced']}" \
                   f" ({', '.join(d['units'])})" + (f"; {left} CVP no listed unit accounts for" if left > 0 else "")
        else:
            said = f"{side.capitalize()} lost {given} CVP and lists no unit lost the ledger can price: {left} CVP no" \
                   " listed unit accounts for, and its order of battle keeps every unit"
        if d["unpriced"]:
            said += (f"; the ledger cannot price {', '.join(d['unpriced'])} (A26.2 values vehicles and Guns by type,"
                     " ruling R58)")
        out.append(said + (" (A26.2, as ruling R39 values units; ruling R104)" if d["units"] else ""))
    return out


def _exits_along_a_friendly_edge(st, exited, ends: dict) -> None:
    """CG8: a unit exits only from a hex along a Friendly Map Edge; 1.4 Entry Area: the edges and hexes
    the card names for its side count as such. Judged where the unit's hex is known (its end position,
    else its last recorded hex); a unit with no hex is taken at its word (ruling R33)."""
    if not exited:
        return

    grid = st.grid()
    for su in exited:
        u = st.unit(su.unit, su.side)
        hx = ends.get((su.side, u.id)) or u.hex
        if not hx:
            continue
        edge = st.card.map.friendly_edge.get(su.side)
        allowed = set(grid.edge(edge)) if edge else set()
        allowed |= set(entry_hexes(st.card.map.entry.get(su.side, ()), grid))
        if hx not in allowed:
            where = f"the {edge} edge" if edge else "no edge"
            extra = " or its Entry Area" if st.card.map.entry.get(su.side) else ""
            raise Refused(f"--exited {su.side}:{u.id}: it stands in {hx}, not along {where}{extra} "
                          f"(a unit exits only from a hex along a Friendly Map Edge)", "CG8", st.step)


def _changes(st, values, what):
    """SIDE:UNIT or SIDE:UNIT=COUNTER, each to (SideUnit, counter or None)."""
    out = []
    for v in values or ():
        text, _, counter = str(v).partition("=")
        su = _pairs(st, [text], what)[0]
        out.append((su, counter.strip() or None))
    return out


def _reduce(st, su, counter):
    """Casualty Reduction (A7.302): a squad becomes its HS (the counter table, ruling R34, else the
    counter given), a HS or crew is eliminated, a leader is wounded (eliminated if wounded already)."""
    u = st.unit(su.unit, su.side)
    if u.kind == Kind.SQUAD:
        nat, over = counter_table(st, su.side)
        to = counter or counters.half_squad(nat, u.name, over)
        if to is None:
            raise BadInput(f"--reduced {su.side}:{u.id}: the counter table has no half-squad for {nat} "
                           f"{u.name}; give it: --reduced {su.side}:{u.id}=COUNTER (ruling R34)")
        return ev.UnitChange(su.side, u.id, to)
    if u.kind == Kind.LEADER and not u.wounded:
        return ev.UnitChange(su.side, u.id, "wounded")
    if u.kind in (Kind.HALF_SQUAD, Kind.CREW, Kind.LEADER):
        return ev.UnitChange(su.side, u.id, "eliminated")
    raise Refused(f"--reduced {su.side}:{u.id}: {article(u.kind)} takes no Casualty Reduction", "2.9", st.step)


def _replace(st, su, counter):
    """ELR replacement (A19.13): the counter below it in the table (ruling R34), else the one given."""
    u = st.unit(su.unit, su.side)
    if u.kind not in (Kind.SQUAD, Kind.HALF_SQUAD, Kind.LEADER):
        raise Refused(f"--replaced {su.side}:{u.id}: only MMC and leaders are Replaced (A19.13)", "2.9", st.step)
    nat, over = counter_table(st, su.side)
    to = counter or counters.replacement(nat, u.name, over)
    if to is None:
        raise BadInput(f"--replaced {su.side}:{u.id}: the counter table has no replacement for {nat} {u.name}; "
                       f"give it: --replaced {su.side}:{u.id}=COUNTER (ruling R34)")
    return ev.UnitChange(su.side, u.id, to)


@command("position")
def _position(ctx, cmd):
    """2.9 (contract): where a unit stands at the firefight's end; 3.212 reads it."""
    side = side_arg(cmd)
    st = ctx.state
    u = unit_arg(st, side, cmd.get("unit"), alive=False)
    hx = hex_arg(st, cmd.get("hex"))
    in_play(st, u)
    at(st, "position")
    return [_positioned(st, side, u, hx, bool(cmd.get("hip")), bool(cmd.get("concealed")))]


def _positioned(st, side, u, hx, hip, concealed, given=frozenset()):
    """`given`: the (side, hex) of the MMC and SMC positioned by the same command."""
    if st.idle:
        raise Refused("an Idle Firefight is not played: no unit stands anywhere at its end", "2.41", st.step)
    if not rules_for(st).positioned_on_its_own(u):
        raise Refused(f"{u.id} is a support weapon: it stands with its possessor, give the MMC's or SMC's hex",
                      "2.9", st.step)
    if u.kind == Kind.SW and (side, hx) not in given and \
            not any(x.hex == hx and x.kind in PERSONNEL for x in st.side_units(side)):
        raise Refused(f"{u.id} is a support weapon: it stands with a possessor, and no MMC or SMC of {side} stands in "
                      f"{hx} (give its possessor's position first; a SW moves with its possessor, ruling R86)", "2.9",
                      st.step)
    return ev.UnitPositioned(side=side, unit=u.id, hex=hx, hip=hip, concealed=concealed)


def _positions(st, values) -> list:
    """`end --position SIDE:UNIT=HEX` (repeatable): the same as `plcg position`."""
    out, seen = [], set()
    for v in values or ():
        m = re.match(r"^([^:]+):([^=]+)=(.+)$", str(v))
        if not m:
            raise BadInput(f"--position {v!r}: SIDE:UNIT=HEX, e.g. axis:I1-1.2=M5")
        side = side_arg({"side": m.group(1)})
        u = unit_arg(st, side, m.group(2).strip(), alive=False)
        hx = hex_arg(st, m.group(3), "--position hex")
        if (side, u.id) in seen:
            raise BadInput(f"--position {side}:{u.id}: given twice")
        seen.add((side, u.id))
        out.append((side, u, hx))
    return out

