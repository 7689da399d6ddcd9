"""3.52 Fortification Clearance, and the terrain the campaign keeps (CG5: rubble, flames)."""
from __future__ import annotations


from cg import dice as dicemod
from cg import drm as drms
from cg import items
from cg.rules import rules_for
from cg import tables
from events.errors import BadInput, Refused
from events import types as ev
from events.roll import Drm, Roll
from cg.commands.base import at, command, given_dice, hex_arg, int_arg, roll, side_arg
from cg.items import CLEAR_ITEMS
from cg.rules import clear_refusal
from cg import terrain
from cg.units import article


@command("clear")
def _clear(ctx, cmd):
    side = side_arg(cmd)
    st = ctx.state
    hx = hex_arg(st, cmd.get("hex"))
    entry = items.find(cmd.get("item") or "")  # the one vocabulary (cg/items.py): ap_mine clears as "mines"
    if entry is None or entry.clear is None:
        raise BadInput(f"item {cmd.get('item')!r}: one of {', '.join(CLEAR_ITEMS)}")
    item = entry.clear
    given = given_dice(cmd, 1)
    at(st, "clear")
    mc = st.map_control()
    if not (mc.hexes[hx].cthc == side or side in mc.hexes[hx].mlr):
        raise Refused(f"{hx} is not in {article(side)} CTHC or MLR", "3.52", st.step)
    refusal = clear_refusal(st, hx, item)
    if refusal:
        raise Refused(refusal[0], refusal[1], st.step)
    d = ctx.dice(given, 1)
    r = roll(d, drms.clearance(st, side, hx, item), tables.clearance)
    cr = r.outcome == "no effect" and tables.clearance_cr(d.values[0], item)
    if cr and not rules_for(st).original_6_reduces(item, st.ground.terrain.get(hx, [])):  # 3.52 dagger
        cr = False
    return [ev.ClearanceRolled(side=side, hex=hx, item=item, roll=r, casualty_reduction=cr)]


@command("rubble")
def _rubble(ctx, cmd):
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
        d = ctx.dice(given, count)  # the dice policy (ruling R31)
        values, manual, source = d.values, True, d.source
    else:
        d = ctx.dice(None, 1)
        values = d.values + (ctx.dice(None, 2).values if count == 3 else ())
        manual, source = False, d.source
    g = st.grid()
    res = terrain.resolve_rubble(hx, kia, stone, level, values, g.neighbour)
    into_water = res.fell_into is not None \
        and not rules_for(st).rubble_may_fall_in(st.card.map, res.fell_into)  # B24.121: non-Water Obstacle only
    rolls = [Roll(dice=values[:1], drm=((Drm("B24.11", "stone building", 1),) if stone else ()),
                  final=values[0] + (1 if stone else 0), table="B24.11",
                  row=f"<={kia}" if res.created else f">{kia}", outcome="rubble" if res.created else "no rubble",
                  manual=manual, source=source)]
    if count == 3 and res.created:
        rolls.append(Roll(dice=values[1:], drm=((Drm("B24.12", f"{res.levels} level(s) rubbled", res.levels),)
                                                if res.levels else ()),
                          final=values[2] + res.levels, table="B24.12", row=">=7" if res.fell else "<7",
                          outcome=(f"{res.fell_into} (Water Obstacle: no rubble, B24.121)" if into_water
                                   else res.fell_into or "off map") if res.fell else "stays", manual=manual,
                          source=source))
    changes = tuple(ev.TerrainChange(h, "add", i) for h, i in res.changes
                    if not (into_water and h == res.fell_into))
    return [ev.TerrainChanged(rule="B24.11", changes=changes, rolls=tuple(rolls),
                              note=f"HE KIA {kia} vs {'stone' if stone else 'wooden'} building level {level}")]


@command("flame")
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
