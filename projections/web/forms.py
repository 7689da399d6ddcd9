"""The page's forms, built from each command's own definition (issue 34).

The definition is the catalogue `plcg serve` hands the app: for each command of the CLI its parameters
as click declares them (name, argument or option, its flag, type, choices, multiple, required, help),
so a form asks what the command asks, in its words. The step's `pending` and `options` items, taken as
data (cg/specs.py `Item`: the command's spec and its typed arguments, `Choose` where the player chooses),
fill in the values they name; no command line is parsed back. The campaign fills the choices (the
side's units, the RGs it may buy with their cost after 2.34, the card's hexes, the Redeployment Options). A submitted form becomes the command line the CLI would be
given (`argv_of_form`), and a `pending` item's `args` the same (`argv_of_args`): the command then runs
as the CLI runs it.
"""
from __future__ import annotations

from typing import Any

from cg.specs import Choose, Item

SIDES = ("axis", "allied")
_UNIT_PARAMS = ("unit", "leader", "vehicle")
_HEX_PARAMS = {("redeploy", "to"), ("setup", "hex_"), ("position", "hex_"), ("clear", "hex_"), ("fortify", "hex_"),
               ("rubble", "hex_"), ("flame", "hex_"), ("leader", "hex_"), ("patrol", "hex_")}
# the 2.9 end form: what a unit of the order of battle may have become (the option each feeds)
UNIT_FATES = (("lost", "eliminated"), ("reduced", "Casualty Reduction"), ("wounded", "wounded (leader)"),
              ("captured", "captured"), ("exited", "exited (CG8)"), ("encircled", "Encircled (3.17)"),
              ("shocked", "Shock/UK (3.19)"), ("recalled", "Recalled (3.461)"), ("hero", "heroic (3.43)"))
_END_OWN = {"turn", "cvp_lost", "control", "winner"} | {f for f, _ in UNIT_FATES}


def given(item: Item) -> dict[str, Any]:
    """The values an item names, by the command's parameter names (`redeploy axis UNIT --to HEX` ->
    {"side": "axis", "unit": None, "to": None}): None where the player chooses (`Choose`), a repeatable
    option's last value."""
    out: dict[str, Any] = {}
    for a, v in item.given():
        if a.multiple:
            v = v[-1]
        out[a.key] = None if isinstance(v, Choose) else v
    return out


def _opt_key(p: dict) -> str:
    return p["opt"].lstrip("-").replace("-", "_") if p.get("opt") else p["name"]


def _field(cmd: str, p: dict, value, choices: dict, side: str | None) -> dict:
    f = {"param": p["name"], "label": p.get("metavar") or p.get("opt") or p["name"], "help": p.get("help") or "",
         "required": p.get("required", False), "value": "" if value is None or value is True else str(value),
         "input": "text", "choices": None, "list": None, "kind": p["kind"], "multiple": p.get("multiple", False)}
    f["field"] = {"argument": "a:", "flag": "f:"}.get(p["kind"], "o:") + p["name"]
    name = p["name"]
    if p["kind"] == "flag":
        f.update(input="checkbox", checked=value is True)
    elif name == "side" or (p.get("metavar") == "SIDE"):
        f.update(input="select", choices=[(s, s) for s in choices.get("sides", SIDES)])
        if not f["value"] and len(choices.get("sides", SIDES)) == 1:
            f["value"] = choices["sides"][0]
    elif name == "option" and cmd == "option":
        f.update(input="select", choices=[("A", "A: Redeployment Option A (3.2)"), ("B", "B: Option B (3.2)")])
    elif p.get("choices"):
        f.update(input="select", choices=([("", "")] if not p.get("required") and p.get("default") is None else [])
                 + [(c, c) for c in p["choices"]])
        if not f["value"] and p.get("default") is not None:
            f["value"] = str(p["default"])
    elif name == "rg" and side:
        f.update(list=f"rgs-{side}")
    elif (name in _UNIT_PARAMS or (cmd, name) == ("patrol", "units")) and side:
        f.update(list=f"units-{side}")
    elif (cmd, name) in _HEX_PARAMS:
        f.update(list="hexes")
    elif p.get("type") == "int" and not p.get("multiple"):
        f.update(input="number")
    if p.get("multiple"):
        f.update(input="textarea")
    if name == "dice":
        f["placeholder"] = "the ledger rolls"
    return f


def form(item: Item, catalogue: dict, choices: dict) -> dict | None:
    """The form of a `pending` or `options` item (None where the CLI has no such command)."""
    name = item.spec.name
    spec = catalogue.get(name)
    if spec is None:
        return None
    values = given(item)
    side = item.side
    fields, more = [], []
    for p in spec["params"]:
        if p["kind"] == "argument":
            f = _field(name, p, values.get(p["name"]), choices, side)
            f["fixed"] = values.get(p["name"]) is not None  # named by the item: shown, not asked
            fields.append(f)
        elif p["name"] in values:
            fields.append(_field(name, p, values[p["name"]], choices, side))
        elif p.get("required") or p["name"] in ("dice", "reason") or p.get("choices"):
            fields.append(_field(name, p, None, choices, side))
        else:
            more.append(_field(name, p, None, choices, side))
    return {"command": name, "title": item.what, "rule": item.rule, "text": item.command,
            "fields": fields, "more": more, "help": spec.get("help", "")}


def end_form(catalogue: dict, choices: dict, turns) -> dict:
    """2.9 the firefight's end as one form: the turn, CVP lost by each side, control changes, and what
    befell each unit of the order of battle; the rest of `end`'s options beneath."""
    spec = catalogue["end"]
    more = [_field("end", p, None, choices, None) for p in spec["params"] if p["name"] not in _END_OWN]
    winner = next(p for p in spec["params"] if p["name"] == "winner")
    return {"command": "end", "title": "the firefight's end", "rule": "2.9", "help": spec.get("help", ""),
            "turns": turns, "strategic": choices.get("strategic", []), "units": choices.get("in_play", {}),
            "fates": UNIT_FATES, "more": more, "winner": _field("end", winner, None, choices, None),
            "sides": choices.get("sides", SIDES)}


def argv_of_form(name: str, data, catalogue: dict) -> list[str]:
    """The command line a submitted form stands for: `data` maps field names to lists of values
    (a:NAME an argument, o:NAME an option, f:NAME a flag; the end form's c:PARAM:SIDE a SIDE=VALUE
    pair, h:PARAM:HEX a SIDE=HEX pair, u:SIDE:UNIT the option naming the unit's fate)."""
    spec = catalogue[name]
    by_name = {p["name"]: p for p in spec["params"]}
    options, arguments = [], []

    def values(field: str) -> list[str]:
        out = []
        for v in data.get(field, ()):
            out += [x.strip() for x in str(v).replace("\r", "").split("\n") if x.strip()]
        return out

    for p in spec["params"]:
        if p["kind"] == "argument":
            arguments += values("a:" + p["name"])[:1]
        elif p["kind"] == "flag":
            if values("f:" + p["name"]):
                options.append(p["opt"])
        else:
            got = values("o:" + p["name"])
            for v in got if p.get("multiple") else got[-1:]:
                options += [p["opt"], v]
    for field in sorted(data):  # the end form's composed values, in a stable order
        parts = field.split(":", 2)
        if len(parts) != 3 or parts[0] not in ("c", "h", "u"):
            continue
        for v in values(field):
            if parts[0] == "c" and parts[1] in by_name:
                options += [by_name[parts[1]]["opt"], f"{parts[2]}={v}"]
            elif parts[0] == "h" and parts[1] in by_name:
                options += [by_name[parts[1]]["opt"], f"{v}={parts[2]}"]
            elif parts[0] == "u" and v in by_name and by_name[v]["kind"] == "option":
                options += [by_name[v]["opt"], f"{parts[1]}:{parts[2]}"]
    return [name, *options, *_positional(arguments)]


def _positional(arguments: list[str]) -> list[str]:
    """The arguments after the options; behind `--` where one starts with `-` (else an option to click)."""
    return ["--", *arguments] if any(a.startswith("-") for a in arguments) else arguments


def argv_of_args(name: str, args: dict, catalogue: dict, positional: dict) -> list[str]:
    """The command line of a `pending` item's `args` (the same names as the command's, cg/steps.py);
    ValueError naming a key the command does not take."""
    spec = catalogue[name]
    left = {k: v for k, v in args.items() if k != "name"}
    options, arguments = [], []
    names = positional.get(name, ())
    i = 0
    for p in spec["params"]:
        keys = [p["name"], p["name"].rstrip("_"), _opt_key(p)]
        if p["kind"] == "argument":
            if i < len(names):
                keys.append(names[i])
            i += 1
        key = next((k for k in keys if k in left), None)
        if key is None:
            continue
        v = left.pop(key)
        if v is None or v is False:
            continue
        if p["kind"] == "argument":
            arguments.append(str(v))
        elif p["kind"] == "flag":
            options.append(p["opt"])
        elif isinstance(v, dict):
            for k, x in v.items():
                options += [p["opt"], f"{k}={x}"]
        elif isinstance(v, (list, tuple)):
            for x in v:
                options += [p["opt"], str(x)]
        else:
            options += [p["opt"], str(v)]
    if left:
        raise ValueError(f"{name} takes no {', '.join(sorted(left))}")
    return [name, *options, *_positional(arguments)]
