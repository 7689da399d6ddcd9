"""The card checker's tools: a `_Checker` that collects every `path: what is wrong` problem of a card
and reads typed values (cg/card_schema.py and cg/card_boards_and_ob.py use it)."""
from __future__ import annotations

import datetime
from typing import Any

from cg.card import _hex_sort_key, split_hex


def _hexes(ids, order=None) -> tuple[str, ...]:
    """Deduplicated, in map order (column, then row; on a map of boards the geometry's order)."""
    if order is not None:
        return tuple(sorted(set(ids), key=order.index))
    return tuple(sorted(set(ids), key=_hex_sort_key))


_MISSING = object()


def _type_name(v: Any) -> str:
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "float"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list | tuple):
        return "array"
    if isinstance(v, dict):
        return "table"
    if isinstance(v, datetime.datetime):
        return "date-time"
    if isinstance(v, datetime.date):
        return "date"
    if isinstance(v, datetime.time):
        return "time"
    return type(v).__name__


def _join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


class _Checker:
    """Collects every problem; each getter returns None when the value is missing or wrong."""

    def __init__(self) -> None:
        self.problems: list[tuple[str, str]] = []
        self.partial: dict = {}  # side -> (control, ob) as read, for checks joining them to the map

    def add(self, path: str, what: str) -> None:
        self.problems.append((path, what))

    def _get(self, tbl: dict, key: str, path: str, default: Any) -> Any:
        v = tbl.get(key)
        if v is None:  # None: a JSON null from card_to_dict, same as absent
            if default is _MISSING:
                self.add(_join(path, key), "missing")
            return _MISSING
        return v

    def unknown_keys(self, tbl: dict, allowed, path: str) -> None:
        for key in tbl:
            if key not in allowed:
                self.add(_join(path, str(key)), "unknown key")

    def table(self, tbl: dict, key: str, path: str, default: Any = _MISSING) -> dict | None:
        v = self._get(tbl, key, path, default)
        if v is _MISSING:
            return None if default is _MISSING else default
        if not isinstance(v, dict):
            self.add(_join(path, key), f"must be a table, not {_type_name(v)}")
            return None
        return v

    def texts(self, tbl: dict, key: str, path: str, default: Any = _MISSING) -> list[str] | None:
        """An array of texts (None, each bad item said, if any item is not a text)."""
        raw = self.array(tbl, key, path, default)
        if raw is None:
            return None
        out: list[str] | None = []
        for i, v in enumerate(raw):
            t = self.text_value(v, f"{_join(path, key)}[{i}]")
            if t is None:
                out = None
            elif out is not None:
                out.append(t)
        return out

    def array(self, tbl: dict, key: str, path: str, default: Any = _MISSING) -> list | None:
        v = self._get(tbl, key, path, default)
        if v is _MISSING:
            return None if default is _MISSING else list(default)
        if not isinstance(v, list | tuple):
            self.add(_join(path, key), f"must be an array, not {_type_name(v)}")
            return None
        return list(v)

    def integer(
        self, tbl: dict, key: str, path: str, lo: int | None = None, hi: int | None = None, default: Any = _MISSING
    ) -> int | None:
        v = self._get(tbl, key, path, default)
        if v is _MISSING:
            return None if default is _MISSING else default
        return self.integer_value(v, _join(path, key), lo, hi)

    def integer_value(self, v: Any, path: str, lo: int | None = None, hi: int | None = None) -> int | None:
        if isinstance(v, bool) or not isinstance(v, int):  # a bool is not an int here
            self.add(path, f"must be an integer, not {_what(v)}")
            return None
        if lo is not None and hi is not None and not lo <= v <= hi:
            self.add(path, f"must be {lo}..{hi}, not {v}")
            return None
        if lo is not None and v < lo:
            self.add(path, f"must be {lo} or more, not {v}")
            return None
        if hi is not None and v > hi:
            self.add(path, f"must be {hi} or less, not {v}")
            return None
        return v

    def boolean(self, tbl: dict, key: str, path: str, default: Any = _MISSING) -> bool | None:
        v = self._get(tbl, key, path, default)
        if v is _MISSING:
            return None if default is _MISSING else default
        if not isinstance(v, bool):
            self.add(_join(path, key), f"must be true or false, not {_what(v)}")
            return None
        return v

    def text(self, tbl: dict, key: str, path: str, choices=None, default: Any = _MISSING) -> str | None:
        v = self._get(tbl, key, path, default)
        if v is _MISSING:
            return None if default is _MISSING else default
        return self.text_value(v, _join(path, key), choices)

    def text_value(self, v: Any, path: str, choices=None) -> str | None:
        if not isinstance(v, str):
            self.add(path, f"must be a string, not {_what(v)}")
            return None
        v = v.strip()
        if not v:
            self.add(path, "must not be empty")
            return None
        if choices is not None:
            low = v.lower()
            if low not in choices:
                self.add(path, f"{_show(v)} is not one of {' | '.join(choices)}")
                return None
            return low
        return v

    def hex_value(self, v: Any, path: str, grid: Any) -> str | None:  # grid: (columns, rows), a map of boards, or None
        """A hex id, upper case; off-map checks only when the map's columns and rows are known.

        `grid` may be a map of geomorphic boards (cg.boards.Geometry): then the id must carry its board
        and comes back as the map's canonical name of the hex.
        """
        if hasattr(grid, "canonical"):
            if not isinstance(v, str):
                self.add(path, f"must be a board hex id such as \"24J4\", not {_what(v)}")
                return None
            try:
                return grid.canonical(v)
            except ValueError as e:
                self.add(path, str(e))
                return None
        if not isinstance(v, str):
            self.add(path, f"must be a hex id such as \"C4\", not {_what(v)}")
            return None
        parts = split_hex(v)
        if parts is None:
            self.add(path, f"{_show(v)} is not a hex id such as \"C4\" or \"AA10\"")
            return None
        col, row = parts
        hex_id = f"{col}{row}"
        if grid is not None:
            cols, rows = grid
            if col not in cols or not 1 <= row <= rows:
                self.add(path, f"{hex_id} is off the map (columns {cols[0]}-{cols[-1]}, rows 1-{rows})")
                return None
        return hex_id

    def hex_list(self, tbl: dict, key: str, path: str, grid, default: Any = _MISSING) -> list[str] | None:
        items = self.array(tbl, key, path, default)
        if items is None:
            return None
        out = []
        for i, v in enumerate(items):
            h = self.hex_value(v, _join(_join(path, key), i), grid)
            if h is not None:
                out.append(h)
        return out


def _show(v: Any) -> str:
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _what(v: Any) -> str:
    """The type and, for a scalar, the value: 'boolean true', 'string "16"', 'table'."""
    if isinstance(v, dict | list | tuple):
        return _type_name(v)
    return f"{_type_name(v)} {_show(v)}"
