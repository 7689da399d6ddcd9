"""The CG's verdict (1.3, 1.4 "Objectives", ruling R74): the card's `[victory]` table as values, its check,
and who has won by it.

1.3: "The CG concludes when the CG Objectives are fulfilled by one side, one side concedes or upon
completion of the last CG Firefight". A card states its CG Victory Conditions; this module holds the
usual forms as data the ledger can decide (docs/cg-card.md, "Added in the third round"):
  - `tvp = {axis = 20}`: a side holding at least that many CG TVP (3.33) at the CG's end wins;
  - `hold = {allied = ["I5", "H6"]}`: a side controlling every one of those Locations at the end wins;
  - `cvp_ratio = {axis = 2}`: a side whose enemy lost at least that many times the CVP it lost itself
    (over the whole CG, 1.4 CVP) wins;
  - `default`: who wins when no side meets a condition: a side, "draw", or "tvp" (the higher CG TVP
    Total; equal totals are a draw);
  - `[[victory.objectives]]`: CG Objectives that end the CG early: checked when the firefight `after`
    names is complete with its RePh (1.4 CG Firefight End, ruling R16), each with `side` and what it
    needs (`tvp`, `hold`: all of what is given);
  - `text`: the printed wording, kept for the players.
Ruling R74: a side meeting any of its end conditions wins; both sides meeting one is a draw.
"""
from __future__ import annotations

from typing import Any, cast

import attrs

from cg.rules import rules_for
from cg.card import SIDES
from cg.card_checker import _Checker, _show, _type_name
from events import records

DEFAULTS = ("axis", "allied", "draw", "tvp")  # ruling R74: who wins when no condition is met
KEYS = ("text", "tvp", "hold", "cvp_ratio", "default", "objectives")
OBJECTIVE_KEYS = ("after", "side", "tvp", "hold", "text")


@records.frozen
class Objective:
    """A CG Objective (1.3) that ends the CG when fulfilled after firefight `after` (its RePh complete)."""

    after: int
    side: str
    tvp: int | None = None
    hold: tuple[str, ...] = ()
    text: str | None = None


@records.frozen
class Victory:
    """The card's CG Victory Conditions (ruling R74)."""

    text: str | None = None
    tvp: dict = attrs.Factory(dict)  # side -> CG TVP at least
    hold: dict = attrs.Factory(dict)  # side -> (hex, ...) all controlled
    cvp_ratio: dict = attrs.Factory(dict)  # side -> enemy CVP lost / own CVP lost at least
    default: str | None = None  # one of DEFAULTS; None: a draw
    objectives: tuple[Objective, ...] = ()


# -- the card's table ---------------------------------------------------------------------------------
def _hold(c: _Checker, raw: Any, path: str, grid) -> tuple[str, ...] | None:
    if not isinstance(raw, list | tuple) or not raw:
        c.add(path, f"must be a non-empty array of hex ids, not {_type_name(raw)}")
        return None
    out = [c.hex_value(h, f"{path}[{i}]", grid) for i, h in enumerate(raw)]
    return None if None in out else tuple(dict.fromkeys(cast(list[str], out)))  # no None: all read


def _per_side(c: _Checker, tbl: dict, key: str, read) -> dict | None:
    raw = c.table(tbl, key, "victory", default={})
    if raw is None:
        return None
    out = {}
    ok = True
    for side, value in raw.items():
        path = f"victory.{key}.{side}"
        if side not in SIDES:
            c.add(path, "unknown side (the sides are axis and allied)")
            ok = False
            continue
        v = read(value, path)
        if v is None:
            ok = False
        else:
            out[side] = v
    return out if ok else None


def _ratio(c: _Checker, v: Any, path: str):
    if isinstance(v, bool) or not isinstance(v, int | float) or not 0 < v < 1000:  # finite: JSON has no inf
        c.add(path, f"must be a number above 0 (the enemy's CVP lost per CVP lost), not {_show(v)}")
        return None
    return v


def check_victory(c: _Checker, data: dict, grid, n_firefights: int | None) -> Victory | None | bool:
    """The `[victory]` table as a Victory; None when the card has none; False on a problem (added to `c`)."""
    tbl = c.table(data, "victory", "", default=None)
    if tbl is None:
        return False if data.get("victory") is not None else None
    n0 = len(c.problems)
    c.unknown_keys(tbl, KEYS, "victory")
    text = c.text(tbl, "text", "victory", default=None)
    tvp = _per_side(c, tbl, "tvp", lambda v, p: c.integer_value(v, p, lo=0))
    hold = _per_side(c, tbl, "hold", lambda v, p: _hold(c, v, p, grid))
    ratio = _per_side(c, tbl, "cvp_ratio", lambda v, p: _ratio(c, v, p))
    default = c.text(tbl, "default", "victory", DEFAULTS, default=None)
    objectives = []
    for i, item in enumerate(c.array(tbl, "objectives", "victory", default=()) or ()):
        path = f"victory.objectives[{i}]"
        if not isinstance(item, dict):
            c.add(path, f"must be a table, not {_type_name(item)}")
            continue
        c.unknown_keys(item, OBJECTIVE_KEYS, path)
        hi = n_firefights if n_firefights else None
        after = c.integer(item, "after", path, lo=1, hi=hi)
        side = c.text(item, "side", path, SIDES)
        o_tvp = c.integer(item, "tvp", path, lo=0, default=None)
        o_hold = _hold(c, item["hold"], f"{path}.hold", grid) if item.get("hold") else ()
        if item.get("tvp") is None and not item.get("hold"):
            c.add(path, "needs `tvp` or `hold`: what the side must have to fulfil the Objective (1.3)")
        o_text = c.text(item, "text", path, default=None)
        if after is not None and side is not None and o_hold is not None:
            objectives.append(Objective(after=after, side=side, tvp=o_tvp, hold=o_hold, text=o_text))
    if len(c.problems) != n0:
        return False
    # no problem added: every part read (a None is said as a problem)
    return Victory(text=text, tvp=cast(dict, tvp), hold=cast(dict, hold), cvp_ratio=cast(dict, ratio), default=default,
                   objectives=tuple(objectives))


# -- deciding -----------------------------------------------------------------------------------------
def _cvp_lost(st) -> dict:
    """1.4 CVP over the CG: each side's CVP lost in every firefight played (RePh and patrol losses in)."""
    return {s: sum(ff.cvp_lost[s] for ff in st.firefights) for s in SIDES}


def _holds(st, side: str, hexes) -> bool:
    return all(st.ground.control.get(h) == side for h in hexes)


def end_conditions(st) -> list[dict]:
    """Each end condition of the card with the figures it reads now and whether it is met now."""
    v = st.card.victory
    if v is None:
        return []
    out = []
    lost = _cvp_lost(st)
    for side in SIDES:
        if side in v.hold:
            hexes = list(v.hold[side])
            out.append({"side": side, "kind": "hold", "when": "end", "hexes": hexes,
                        "held": [h for h in hexes if st.ground.control.get(h) == side], "met": _holds(st, side, hexes)})
        if side in v.tvp:
            has = st.sides[side].tvp_total
            out.append({"side": side, "kind": "tvp", "when": "end", "at_least": v.tvp[side], "has": has,
                        "met": has >= v.tvp[side]})
        if side in v.cvp_ratio:
            enemy = "allied" if side == "axis" else "axis"
            inflicted, own = lost[enemy], lost[side]
            out.append({"side": side, "kind": "cvp_ratio", "when": "end", "ratio": v.cvp_ratio[side],
                        "inflicted": inflicted, "lost": own,
                        "met": inflicted > 0 and inflicted >= v.cvp_ratio[side] * own})
    return out


def objective_met(st, o: Objective) -> bool:
    """1.3: the CG Objective is fulfilled by its side as the state stands."""
    return (_holds(st, o.side, o.hold) and (o.tvp is None or st.sides[o.side].tvp_total >= o.tvp))


def objectives_fulfilled(st) -> list[Objective]:
    """The CG Objectives checked after the current firefight that its side has fulfilled (ruling R74)."""
    return [o for o in rules_for(st).cg_objectives(st.card.victory) if o.after == st.firefight and objective_met(st, o)]


def objective_rows(st) -> list[dict]:
    """Each CG Objective with `met`: True where it ended the CG, False once its firefight is past, else None."""
    v = st.card.victory
    out = []
    for o in (v.objectives if v else ()):
        if st.ended and st.end_reason == "CG Objectives" and o.after == st.firefight:
            met = objective_met(st, o)
        elif st.firefight > o.after or (st.ended and st.firefight >= o.after):
            met = False
        else:
            met = None
        out.append({"side": o.side, "kind": "objective", "when": f"after firefight {o.after}", "after": o.after,
                    "hexes": list(o.hold), "at_least": o.tvp, "text": o.text, "met": met})
    return out


def decide(st, reason: str | None) -> tuple[str | None, str]:
    """(winner, basis) of a CG ending for `reason` ("concession", "CG Objectives", "last firefight") as
    the state stands. basis: "concession", "objective", "condition", "both", "default", "no conditions"."""
    if reason == "concession" and st.conceded_by:
        return ("allied" if st.conceded_by == "axis" else "axis"), "concession"
    v = st.card.victory
    if v is None:
        return None, "no conditions"
    if reason == "CG Objectives":
        met = [o for o in v.objectives if o.after == st.firefight and objective_met(st, o)]
        sides = {o.side for o in met}
        if len(sides) == 1:
            return sides.pop(), "objective"
        return "draw", "both"
    met_by = {c["side"] for c in end_conditions(st) if c["met"]}
    if len(met_by) == 1:
        return met_by.pop(), "condition"
    if len(met_by) == 2:
        return "draw", "both"  # ruling R74
    if v.default in SIDES:
        return v.default, "default"
    if v.default == "tvp":
        a, b = st.sides["axis"].tvp_total, st.sides["allied"].tvp_total
        return ("axis" if a > b else "allied" if b > a else "draw"), "default"
    return "draw", "default"
