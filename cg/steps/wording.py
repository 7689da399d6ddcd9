"""The words the events' words are made of (cg/steps/registry.py `@words`): a side, a roll and its DRMs, a
table row, a terrain item, the CP left. Used by the steps' words (cg/steps/) and re-exported by
projections/words.py, where the reports read them."""
from __future__ import annotations

import re
from typing import cast

from cg.items import ITEMS, Kept, kept
from cg.tables import COMMISSAR_ROWS
from cg.units import article
from events.roll import Drm, Roll
from events.stored import value_builder

SIDE = {"axis": "Axis", "allied": "Allied", None: "-"}
TYPE = {"axis_assault": "Axis Assault", "allied_assault": "Allied Assault", "dual": "Dual Attack",
        "idle": "Idle Firefight"}


SITUATION = {"friendly_mlr": "friendly MLR", "enemy_mlr": "enemy MLR", "isolated": "Isolated",
             "uncontrolled": "Uncontrolled Terrain", "nml": "No Man's Land"}  # 3.212


def signed(v: int) -> str:
    return f"+{v}" if v > 0 else str(v)


def roll_words(r: Roll | dict, column: str | None = None) -> str:
    """'DR 7 (4+3), -1 for 10 CVP lost (2.12) = 6 on Low: 12'. r: the event's Roll (a stored roll's dict is
    built into one)."""
    if isinstance(r, dict):
        r = _roll(r)
    dice = r.dice
    kind = "DR" if len(dice) == 2 else "dr" if len(dice) == 1 else "dice"
    parts = [f"{kind} {sum(dice)}" + (f" ({'+'.join(map(str, dice))})" if len(dice) > 1 else "")]
    for d in r.drm:
        parts.append(drm_words(d))
    text = ", ".join(parts)
    if r.drm:
        text += f" = {r.final}"
    where = f" on {column}" if column else ""
    out = r.outcome
    if isinstance(out, str):
        out = out.replace("_", " ")  # "redeploys_replaced" -> "redeploys replaced"
    if r.rolled not in (None, r.outcome):
        out = f"{r.rolled} -> {out} ({changed_by(r)})"
    who = "" if not r.manual else " [dice given]"
    return f"{text}{where}, row {row_words(r.row)} of {r.table}: {out if out is not None else 'none'}{who}"


def _roll(d: dict) -> Roll:
    return cast(Roll, value_builder(Roll)(d))  # typed here: cg/ is type-checked (projections/ is not)


def changed_by(r: Roll) -> str:
    """The rule that changed a table's result (`rolled` -> `outcome`), ruling R92: on the starred rows of
    2.361 it is a Commissar taken (2.361 *, A25.22; the leaders of those rows, 8-1 and 8-0 or a
    Finnish/Japanese 9-x, are never among the two top types 2.362 limits), elsewhere the 2.362 limit."""
    if r.table == "2.361" and r.row in COMMISSAR_ROWS:
        return "Commissar, 2.361 * / A25.22"
    return "2.362"


def row_words(label) -> str:
    """A table row as the ledger says it everywhere: '<2' -> '<=2', '>12' -> '>=12' (ruling R1: the
    extracted rules' '<' is 'or less'), '5-6' and '7' as printed."""
    text = str(label)
    if text[:1] in "<>" and text[1:2] != "=":
        return text[0] + "=" + text[1:]
    return text


def option_words(e, by: str | None) -> str:
    """3.2: the Redeployment Option, chosen once for the CG and for both sides; who chose it where known
    (a keyed campaign's command names its side), else the players (one file, both at the table)."""
    who = f"{SIDE[by]} chose" if by in ("axis", "allied") else "the players chose"
    return f"{who} Redeployment Option {e.option} for the CG, both sides (3.2)"


def drm_words(d: Drm) -> str:
    """One DRM as '-1 for won firefight 1 (3.44)'. The 2.361 Legacy drm (recorded as 'legacy nationality drm
    (german, 1943)') is said by what the rule gives it for: the nationality and the year."""
    reason = d.reason
    m = _LEGACY.fullmatch(reason)
    if m is not None:
        nat, year = m.group(1), m.group(2)
        why = ("pre-1945 German" if d.value < 0 else "US/British" if d.value == 0
               else "1945 German" if nat.lower() == "german" else "any other nationality")
        return f"{signed(d.value)} for {article(nat.capitalize())} side in {year} ({d.rule} nationality drm: {why})"
    return f"{signed(d.value)} for {reason} ({d.rule})"


_LEGACY = re.compile(r"legacy nationality drm \(([^,]+), (\d+)\)")


def vasl_words(logs) -> str:
    """The firefight's VASL logs (`end --vasl-log`, issue 37 item 11): each name and SHA-256."""
    return ", ".join(f"{x.get('name')} (SHA-256 {x.get('sha256')})" for x in logs)


def cp_left_words(left: int | None, what: str = "left") -> str:
    """", N CP left"; nothing where a sealed secret's opening leaves the balance out (ruling R47)."""
    return f", {left} CP {what}" if left is not None else ""


def side_words(e) -> str:
    """The event's side in words ("Axis"), as it is stored where the table has no word for it."""
    return SIDE.get(e.side, e.side)


def terrain_words(item: Kept | str) -> str:
    """A terrain item as the ledger keeps it (a cg/items.Kept, or its text in an event), in the one
    vocabulary's words: 'ap_mine:axis:3' -> 'A-P mines, 3 factors (Axis)'; 'foxhole:axis' -> 'foxhole
    (Axis)'; a word a revision 1 campaign kept as typed stays the player's ('A-P mines 6')."""
    k = kept(item)
    kind = k.key.strip()
    side, strength = k.said()
    name = ITEMS[kind].words if kind in ITEMS else kind.replace("_", " ")
    if strength:
        name += f", {strength} factor{'s' if strength != '1' else ''}"
    return name + (f" ({SIDE[side]})" if side else "")

