"""2.9: the firefight's end (CVP, winner, control, casualties, terrain)."""
from __future__ import annotations

import re

import attrs

from cg import tables
from events.errors import BadInput, Refused
from cg.rules import winner_by_cvp
from cg.state import SIDES
from events import types as ev
from cg.commands.base import at, command, hex_arg, int_arg, side_arg, unit_arg



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
        pur = st.purchase(pid.strip(), s) or st.purchase(pid.strip().upper(), s)
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
            u = st.unit(su.unit, su.side)
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
