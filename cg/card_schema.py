"""Reading a CG Card: TOML in, every key checked against the card contract (docs/cg-card.md), a
frozen `Card` (cg/card.py) out. `load_card` / `parse_card` return the card or raise one `BadInput`
listing every problem found, one `path: what is wrong` per line.
"""
from __future__ import annotations

import datetime
import re
from types import SimpleNamespace
from pathlib import Path
from typing import Any, NoReturn, cast

from cg.card import (
    Campaign, Card, EDGES, ELR_MAX, Firefight, INTENSITIES, MAX_ROWS, MapSpec, PATROLS_BY_INTENSITY, QUALITIES, RG_KINDS, Rg, SIDES, Side, TIMES, columns_of, describe, split_hex,
)
from cg.card import _hex_sort_key, single_grid
from cg.card_checker import _MISSING, _Checker, _hexes, _show, _type_name, _what
from cg import card_as_printed, card_boards_and_ob
from cg.victory import check_victory
from events.errors import BadInput

_RG_ID_RE = re.compile(r"^[A-Z]+[0-9]+$")
_DATE_RE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")

_TOP_KEYS = ("campaign", "firefights", "map", "sides", "counters", "extra", "victory")  # extra: free-form, never checked
_CAMPAIGN_KEYS = (
    "name",
    "intensity",
    "reserves",
    "patrols_per_reph",
    "max_infantry_platoons",
    "initial_attacker",
    "initial_weather",
    "disease",
    "legacy_leader_drm",
    *card_boards_and_ob.CAMPAIGN_KEYS,
    *card_as_printed.CAMPAIGN_KEYS,
)
_FIREFIGHT_KEYS = ("date", "time", *card_boards_and_ob.FIREFIGHT_KEYS)
_MAP_KEYS = ("columns", "rows", "strategic", "water", "tvp", "friendly_edge", "buildings", "stone",
             *card_boards_and_ob.MAP_KEYS, *card_as_printed.MAP_KEYS)
_SIDE_KEYS = (
    "nationality",
    "elr",
    "san",
    "cp_drm",
    "leader_drm",
    "oba_drm",
    "historical_drm",
    "promotion_drm",
    "initial_cp",
    "attack_cost",
    "patrol_cost",
    "cp_provided",
    "control",
    "rg",
    *card_boards_and_ob.SIDE_KEYS,
    *card_as_printed.SIDE_KEYS,
)
_RG_KEYS = (
    "id",
    "name",
    "kind",
    "quality",
    "leader_drs",
    "platoons",
    "armor_leader",
    "cost",
    "max",
    "fp",
    "units",
    "strength",
    *card_boards_and_ob.RG_KEYS,
    *card_as_printed.RG_KEYS,
)


def _check_campaign(c: _Checker, data: dict) -> Campaign | None:
    path = "campaign"
    tbl = c.table(data, "campaign", "")
    if tbl is None:
        return None
    c.unknown_keys(tbl, _CAMPAIGN_KEYS, path)
    name = c.text(tbl, "name", path)
    intensity = c.text(tbl, "intensity", path, INTENSITIES)
    reserves = c.boolean(tbl, "reserves", path)
    patrols = c.integer(tbl, "patrols_per_reph", path, lo=0, default=None)
    if patrols is None and intensity is not None and tbl.get("patrols_per_reph") is None:
        patrols = PATROLS_BY_INTENSITY[intensity]  # 2.31
    max_platoons = c.integer(tbl, "max_infantry_platoons", path, lo=1, default=3)  # 2.3
    attacker = c.text(tbl, "initial_attacker", path, SIDES)
    weather = c.text(tbl, "initial_weather", path)
    disease = c.boolean(tbl, "disease", path, default=False)  # 3.41
    legacy = c.boolean(tbl, "legacy_leader_drm", path, default=False)  # 2.361
    extra = card_boards_and_ob.check_campaign(c, tbl)
    printed = card_as_printed.check_campaign(c, tbl)
    if name is None or intensity is None or reserves is None or patrols is None or max_platoons is None \
            or attacker is None or weather is None or disease is None or legacy is None or extra is None \
            or printed is None:
        return None
    return Campaign(
        **extra,
        **printed,
        name=name,
        intensity=intensity,
        reserves=reserves,
        patrols_per_reph=patrols,
        max_infantry_platoons=max_platoons,
        initial_attacker=attacker,
        initial_weather=weather,
        disease=disease,
        legacy_leader_drm=legacy,
    )


def _check_date(c: _Checker, v: Any, path: str) -> str | None:
    if isinstance(v, datetime.datetime):
        c.add(path, "must be a date yyyy-mm-dd, not a date-time")
        return None
    if isinstance(v, datetime.date):  # TOML's bare date: date = 1944-07-14
        return v.isoformat()
    if not isinstance(v, str):
        c.add(path, f"must be a date yyyy-mm-dd, not {_what(v)}")
        return None
    try:
        if not _DATE_RE.match(v.strip()):
            raise ValueError
        return datetime.date.fromisoformat(v.strip()).isoformat()
    except ValueError:
        c.add(path, f"{_show(v)} is not a date yyyy-mm-dd")
        return None


def _check_firefights(c: _Checker, data: dict) -> tuple[Firefight, ...] | None:
    items = c.array(data, "firefights", "")
    if items is None:
        return None
    if not items:
        c.add("firefights", "the card needs at least 1 firefight (1.3: the Initial Firefight)")
        return None
    out: list[Firefight] = []
    ok = True
    previous: str | None = None
    for i, item in enumerate(items):
        path = f"firefights[{i}]"
        if not isinstance(item, dict):
            c.add(path, f"must be a table, not {_type_name(item)}")
            ok = False
            continue
        c.unknown_keys(item, _FIREFIGHT_KEYS, path)
        raw = item.get("date")
        date = _check_date(c, raw, f"{path}.date") if raw is not None else None
        if raw is None:
            c.add(f"{path}.date", "missing")
        time = c.text(item, "time", path, TIMES)
        if date is not None and previous is not None and date < previous:
            c.add(f"{path}.date", f"{date} is before the previous firefight's date {previous}")
        if date is not None:
            previous = date
        extra = card_boards_and_ob.check_firefight(c, item, path, time)
        if date is None or time is None or extra is None:
            ok = False
            continue
        out.append(Firefight(date=date, time=time, **extra))
    return tuple(out) if ok else None


def _check_map(c: _Checker, data: dict) -> tuple[MapSpec | None, tuple | None, set[str] | None]:
    """The map, its grid (for the sides' hexes) and its resolved Strategic Terrain."""
    path = "map"
    tbl = c.table(data, "map", "")
    if tbl is None:
        return None, None, None
    c.unknown_keys(tbl, _MAP_KEYS, path)
    ok = True

    boards = card_boards_and_ob.check_boards(c, tbl)
    if tbl.get("boards") not in (None, [], ()):  # [] (card_to_dict of a single grid): no boards
        for key in ("columns", "rows"):
            if tbl.get(key) is not None:
                c.add(f"map.{key}", "is for a single grid; a map of boards takes its hexes from `boards`")
        return _check_board_map(c, tbl, boards)
    columns = c.text(tbl, "columns", path)
    cols: tuple[str, ...] = ()
    if columns is not None:
        columns = columns.upper()
        cols = columns_of(columns)
        if not cols:
            c.add(
                "map.columns",
                f"{_show(columns)} is not a column range like \"A-R\" "
                "(columns A..Z, then AA, BB, ...; first <= last)",
            )
    rows = c.integer(tbl, "rows", path, lo=1, hi=MAX_ROWS)
    grid = (cols, rows) if cols and rows is not None else None
    if grid is None:
        ok = False

    return _check_map_hexes(c, tbl, grid, ok, columns, rows, None)


def _check_board_map(c: _Checker, tbl: dict, board_grid):
    if board_grid is None:  # the boards' problem is said; their hex ids cannot be checked
        return None, None, None
    if getattr(board_grid, "unchecked", False):  # bad boards: hex ids checked for their form only
        _check_map_hexes(c, tbl, board_grid, False, None, None, None)
        return None, board_grid, None
    return _check_map_hexes(c, tbl, board_grid, board_grid is not None, None, None, board_grid)


def _check_map_hexes(c: _Checker, tbl: dict, grid, ok: bool, columns, rows, board_grid):
    path = "map"
    order = board_grid
    strategic = c.hex_list(tbl, "strategic", path, grid)
    water = c.hex_list(tbl, "water", path, grid, default=())
    buildings = c.hex_list(tbl, "buildings", path, grid, default=())
    stone = c.hex_list(tbl, "stone", path, grid, default=())

    tvp: dict[str, int] | None = {}
    tvp_tbl = c.table(tbl, "tvp", path, default={})
    if tvp_tbl is None:
        tvp = None
    else:
        found: dict[str, int] = {}
        tvp = found
        for key, value in tvp_tbl.items():
            kpath = f"map.tvp.{key}"
            h = c.hex_value(key, kpath, grid)
            v = c.integer_value(value, kpath, lo=1)
            if h is not None and h in found:
                c.add(kpath, f"{h} is listed twice")
            elif h is not None and v is not None:
                found[h] = v

    edges: dict[str, str] | None = None
    edge_tbl = c.table(tbl, "friendly_edge", path)
    if edge_tbl is not None:
        edges = {}
        c.unknown_keys(edge_tbl, SIDES, "map.friendly_edge")
        for side in SIDES:
            e = c.text(edge_tbl, side, "map.friendly_edge", EDGES)
            if e is None:
                edges = None
            elif edges is not None:
                edges[side] = e

    terrain = card_boards_and_ob.check_terrain(c, tbl, grid)
    entry = card_boards_and_ob.check_entry(c, tbl, grid)
    frozen = card_boards_and_ob.check_frozen(c, tbl, grid, water)  # ruling R96
    order_key = board_grid.index if board_grid is not None else _hex_sort_key
    hills = card_as_printed.check_hills(c, tbl, grid, order_key)
    hexsides = card_as_printed.check_hexsides(c, tbl, grid, order_key)
    if not ok or strategic is None or water is None or buildings is None or stone is None or tvp is None \
            or edges is None or terrain is None or entry is None or hills is None or hexsides is None or frozen is None:
        # still hand back what the sides' checks can use: the Strategic hexes known to be good
        resolved = set(strategic or ()) | set(tvp or {}) | set(buildings or ()) | set(stone or ())
        return None, grid, resolved if strategic is not None else None

    all_buildings = _hexes([*buildings, *stone], order)
    # 1.4: a building hex and a TVP hex are Strategic Terrain, whether the card's list names them or not;
    # so are bridges and the Woods-Line hexes
    resolved = set(strategic) | set(tvp) | set(all_buildings) | set(terrain["bridges"])
    if terrain["woods"]:
        real_grid = board_grid if board_grid is not None else single_grid(columns, rows)
        resolved |= card_boards_and_ob.woods_line(real_grid, terrain["woods"])
    spec = MapSpec(
        columns=columns,
        rows=rows,
        strategic=_hexes(resolved, order),
        water=_hexes(water, order),
        tvp={h: tvp[h] for h in _hexes(tvp, order)},
        friendly_edge=edges,
        buildings=all_buildings,
        stone=_hexes(stone, order),
        boards=tuple(tuple(str(b) for b in row) for row in board_grid.layout.spec()) if board_grid else (),
        entry=entry,
        hills=hills,
        hexsides=hexsides,
        frozen=_hexes(frozen, order),
        **terrain,
    )
    return spec, grid, resolved


def _check_rg(c: _Checker, item: Any, path: str, n_firefights: int | None = None) -> Rg | None:
    if not isinstance(item, dict):
        c.add(path, f"must be a table, not {_type_name(item)}")
        return None
    c.unknown_keys(item, _RG_KEYS, path)
    rg_id = c.text(item, "id", path)
    if rg_id is not None:
        rg_id = rg_id.upper()
        if not _RG_ID_RE.match(rg_id):
            c.add(f"{path}.id", f"{_show(rg_id)} must be letters then digits, such as I1, HW2, A1, O1, F1")
            rg_id = None
    name = c.text(item, "name", path)
    kind = c.text(item, "kind", path, RG_KINDS)
    quality: str | None = None
    if item.get("quality") is not None:
        quality = c.text(item, "quality", path, QUALITIES)
        if quality is not None and kind is not None and kind != "infantry":
            c.add(f"{path}.quality", "is for infantry RGs only (3.47)")
    elif kind == "infantry":
        c.add(f"{path}.quality", f"missing (infantry: {' | '.join(QUALITIES)})")
    # 2.36 leader DRs: an infantry, heavy weapons or AFV RG says how many; a Gun, OBA, FP, air or other RG
    # brings no leader unless the card says so (third round: `leader_drs` optional there, default 0; ruling R77)
    leaderless = kind is not None and kind not in ("infantry", "heavy_weapons", "afv")
    leader_drs = c.integer(item, "leader_drs", path, lo=0, default=0 if leaderless else _MISSING)
    platoons = c.integer(item, "platoons", path, lo=0, default=None)
    if platoons is None and item.get("platoons") is None and kind is not None and leader_drs is not None:
        # ruling R12: an infantry RG with a leader DR is a platoon; one without (a section) is not
        platoons = 1 if kind == "infantry" and leader_drs > 0 else 0
    armor_leader = c.boolean(item, "armor_leader", path, default=False)
    cost = c.integer(item, "cost", path, lo=1)
    max_ = c.integer(item, "max", path, lo=1)
    fp = c.integer(item, "fp", path, lo=0, default=0)
    if fp is not None and kind == "fortification_points" and fp == 0:
        c.add(f"{path}.fp", "must be 1 or more for a fortification_points RG (2.38)")
        fp = None
    elif fp and kind is not None and kind != "fortification_points":
        c.add(f"{path}.fp", "is for fortification_points RGs only (2.38)")
        fp = None
    units = c.texts(item, "units", path)
    strength = c.text(item, "strength", path, default=None) if item.get("strength") is not None else None
    bad_strength = item.get("strength") is not None and strength is None
    extra = card_boards_and_ob.check_rg_extra(c, item, path, n_firefights, None)
    printed = card_as_printed.check_rg(c, item, path)
    if rg_id is None or name is None or kind is None or leader_drs is None or platoons is None \
            or armor_leader is None or cost is None or max_ is None or fp is None or units is None or extra is None \
            or printed is None or (kind == "infantry" and quality is None) or bad_strength:
        return None
    if quality is not None and kind != "infantry":
        return None
    return Rg(
        id=rg_id,
        name=name,
        kind=kind,
        quality=quality,
        leader_drs=leader_drs,
        platoons=platoons,
        armor_leader=armor_leader,
        cost=cost,
        max=max_,
        fp=fp,
        units=tuple(units),
        strength=strength,
        **extra,
        **printed,
    )


def _check_side(
    c: _Checker, tbl: dict, side: str, grid, strategic: set[str] | None, n_firefights: int | None
) -> Side | None:
    path = f"sides.{side}"
    c.unknown_keys(tbl, _SIDE_KEYS, path)
    nationality = c.text(tbl, "nationality", path)
    if nationality is not None:
        nationality = nationality.lower()
    elr = c.integer(tbl, "elr", path, lo=0, hi=ELR_MAX)  # 3.47
    san = c.integer(tbl, "san", path, lo=0)
    drms = {k: c.integer(tbl, k, path) for k in ("cp_drm", "leader_drm", "oba_drm", "historical_drm", "promotion_drm")}
    initial_cp = c.integer(tbl, "initial_cp", path, lo=0)
    attack_cost = c.integer(tbl, "attack_cost", path, lo=0)
    patrol_cost = c.integer(tbl, "patrol_cost", path, lo=0, default=1)  # 2.31

    cp_provided: list[int] | None = None
    raw_cp = c.array(tbl, "cp_provided", path, default=())
    if raw_cp is not None:
        cp_provided = []
        for i, v in enumerate(raw_cp):
            n = c.integer_value(v, f"{path}.cp_provided[{i}]", lo=0)
            if n is None:
                cp_provided = None
            elif cp_provided is not None:
                cp_provided.append(n)
        if n_firefights is not None and len(raw_cp) > n_firefights - 1:
            c.add(
                f"{path}.cp_provided",
                f"{len(raw_cp)} entries, but only {n_firefights - 1} firefights follow the Initial one (2.1 EXC)",
            )
            cp_provided = None

    control = None
    raw_control = c.array(tbl, "control", path)
    if raw_control is not None:
        control = []
        for i, v in enumerate(raw_control):
            cpath = f"{path}.control[{i}]"
            h = c.hex_value(v, cpath, grid)
            if h is None:
                continue
            if h in control:
                c.add(cpath, f"{h} is listed twice")
            elif strategic is not None and h not in strategic:
                c.add(cpath, f"{h} is not Strategic Terrain (1.32: only Strategic Terrain is controlled)")
            else:
                control.append(h)

    rgs: list[Rg] | None = None
    raw_rg = c.array(tbl, "rg", path)
    if raw_rg is not None:
        rgs = []
        ids: dict[str, int] = {}
        for i, item in enumerate(raw_rg):
            rg = _check_rg(c, item, f"{path}.rg[{i}]", n_firefights)
            if rg is not None and rg.id in ids:
                c.add(f"{path}.rg[{i}].id", f"{rg.id} is already used by RG #{ids[rg.id] + 1}")
                rg = None
            elif rg is not None:
                ids[rg.id] = i
            if rg is None:
                rgs = None
            elif rgs is not None:
                rgs.append(rg)

    ob = card_boards_and_ob.check_ob(c, tbl, side, grid, None, grid if hasattr(grid, "canonical") else None)
    printed = card_as_printed.check_side(c, tbl, path)
    card_as_printed.check_commissars(c, tbl, path, nationality)
    c.partial[side] = (control, ob)  # for the 1.32 check of the OB's hexes, whatever else is wrong
    if nationality is None or elr is None or san is None or any(v is None for v in drms.values()) \
            or initial_cp is None or attack_cost is None or patrol_cost is None or cp_provided is None \
            or control is None or rgs is None or ob is None or printed is None:
        return None
    return Side(
        nationality=nationality,
        elr=elr,
        san=san,
        initial_cp=initial_cp,
        attack_cost=attack_cost,
        patrol_cost=patrol_cost,
        cp_provided=tuple(cp_provided),
        control=_hexes(control, grid if hasattr(grid, "canonical") else None),
        rg=tuple(rgs),
        ob=ob,
        **cast(dict[str, Any], drms),  # every one an int (checked above)
        **printed,
    )


def _check_sides(c: _Checker, data: dict, grid, strategic, n_firefights) -> dict[str, Side] | None:
    tbl = c.table(data, "sides", "")
    if tbl is None:
        return None
    for key in tbl:
        if key not in SIDES:
            c.add(f"sides.{key}", "unknown side (the sides are axis and allied)")
    sides: dict[str, Side] | None = {}
    for side in SIDES:
        side_tbl = c.table(tbl, side, "sides")
        s = _check_side(c, side_tbl, side, grid, strategic, n_firefights) if side_tbl is not None else None
        if s is None:
            sides = None
        elif sides is not None:
            sides[side] = s
    # each Strategic hex has at most one controller at the start (1.32)
    axis_tbl, allied_tbl = tbl.get("axis"), tbl.get("allied")
    if isinstance(axis_tbl, dict) and isinstance(allied_tbl, dict):
        axis_control = axis_tbl.get("control")
        allied_control = allied_tbl.get("control")
        if isinstance(axis_control, list) and isinstance(allied_control, list):
            axis_hexes = {split_hex(h) for h in axis_control if isinstance(h, str)} - {None}
            for i, h in enumerate(allied_control):
                parts = split_hex(h) if isinstance(h, str) else None
                if parts is not None and parts in axis_hexes:
                    c.add(f"sides.allied.control[{i}]", f"{parts[0]}{parts[1]} is also controlled by axis (1.32)")
                    sides = None
    return sides


def parse_card(data: dict, source: str = "card") -> Card:
    """Check a card's data (parsed TOML, or `card_to_dict` output) and return it as values.

    Raises one BadInput listing every problem; the exception's `problems` holds (path, what) pairs.
    """
    c = _Checker()
    if not isinstance(data, dict):
        c.add("card", f"must be a table, not {_type_name(data)}")
        _raise(c, source)
    c.unknown_keys(data, _TOP_KEYS, "")
    campaign = _check_campaign(c, data)
    firefights = _check_firefights(c, data)
    raw_ff = data.get("firefights")
    n_firefights = len(raw_ff) if isinstance(raw_ff, list) and raw_ff else None
    map_spec, grid, strategic = _check_map(c, data)
    sides = _check_sides(c, data, grid, strategic, n_firefights)
    counters = card_boards_and_ob.check_counters(c, data)
    victory = check_victory(c, data, grid, n_firefights)  # ruling R74: the CG Victory Conditions (1.3)
    # every problem in one pass: the checks that join two parts run whenever those parts were read
    if map_spec is not None:
        parts = {s: SimpleNamespace(control=v[0], ob=v[1]) for s, v in c.partial.items() if None not in v}
        if len(parts) == len(SIDES):  # both sides' control and OB read: the map can be classified
            card_boards_and_ob.check_ob_control(c, map_spec, parts)
            if source != "campaign_started":  # a started campaign's card is kept as it was read (ruling R32)
                card_boards_and_ob.check_ob_ownership(c, parts)
    if campaign is not None and firefights is not None:
        card_boards_and_ob.check_attackers(c, campaign, firefights)
    if c.problems or campaign is None or firefights is None or map_spec is None or sides is None or counters is None:
        _raise(c, source, data)
    return Card(campaign=campaign, firefights=firefights, map=map_spec, sides=sides, counters=counters,
                victory=victory or None)


def _raise(c: _Checker, source: str, data: Any = None) -> NoReturn:
    if not c.problems:  # a check returned nothing without saying why: a bug here, not in the card
        raise AssertionError("card check failed without a problem")
    problems = card_as_printed.name_paths(list(dict.fromkeys(c.problems)), data)  # RGs by id, firefights by number
    n = len(problems)
    lines = [f"card {source} has {n} problem{'s' if n != 1 else ''}:"]
    lines += [f"{path}: {what}" for path, what in problems]
    err = BadInput("\n".join(lines))
    err.problems = problems
    raise err


# --------------------------------------------------------------------------------------------------
# Files and shipped cards


def _shipped_dir() -> Path:
    """cg/cards, the package's files beside this module (installed as files, never zipped: pyproject's
    package-data). A path, not importlib.resources, whose import (tempfile, shutil: ~4 ms) every command
    paid for the one that reads a shipped card (issue 36 item 2)."""
    return Path(__file__).resolve().parent / "cards"


def _shipped(name: str):
    stem = name[:-5] if name.endswith(".toml") else name
    if not stem or "/" in stem or "\\" in stem:
        return None
    res = _shipped_dir().joinpath(f"{stem}.toml")
    return res if res.is_file() else None


def _parse_text(text: str, source: str) -> Card:
    try:
        import tomllib  # lazy: only `plcg new` reads a card file; a campaign carries its card in its log

        data = tomllib.loads(text)
        return parse_card(data, source)
    except tomllib.TOMLDecodeError as e:
        raise BadInput(f"card {source} is not valid TOML: {e}") from None
    except RecursionError:  # tomllib parses nested arrays and tables by recursion (issue 37 F5)
        raise BadInput(f"card {source}: arrays or tables nested too deeply for a CG Card") from None


def load_card(ref: str) -> Card:
    """A card from a path to a .toml file, or from the name of a shipped card ("sample")."""
    path = Path(ref)
    if path.is_file():
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise BadInput(f"cannot read card {ref}: {e}") from None
        return _parse_text(text, ref)
    res = _shipped(ref)
    if res is None:
        raise BadInput(f"no such card file or shipped card: {ref} (plcg cards lists the shipped ones)")
    return _parse_text(res.read_text(encoding="utf-8"), res.name)


def shipped_cards() -> list[tuple[str, str, str]]:
    """(name, campaign name, one-line description) for each card shipped in cg/cards, by name."""
    out = []
    for res in sorted(_shipped_dir().iterdir(), key=lambda r: r.name):
        if res.name.endswith(".toml") and res.is_file():
            card = _parse_text(res.read_text(encoding="utf-8"), res.name)
            out.append((res.name[:-5], card.campaign.name, describe(card)))
    return out
