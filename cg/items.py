"""One vocabulary of the terrain and fortification items the campaign keeps in a hex (CG5).

`plcg end --terrain HEX=ITEM`, `plcg fortify`, `plcg clear` and `plcg map` (its marks and the legend's
words) read this one table, so a word means the same thing everywhere: what it is called, the map's
mark for it, whether 3.52 clears it (and as which item), whether it makes its hex Strategic Terrain
(1.4, rules revision 2). The 2.38 items are those of the Fortification Points Table (`cg/tables.py`
FORTIFICATIONS, which holds their costs and notes); the others are the terrain changes CG5 keeps.

An item as the ledger keeps it is a `Kept` value: its key, the side that bought it and a mine's factors
(`fortify`), written in the events, the snapshot and the digest as the text `KEY[:SIDE][:FACTORS]`
(`ap_mine:axis:3`, `foxhole:axis`, `rubble`); `end --terrain` takes the same form (parse_terrain).

Pure data: no I/O, no state.
"""
from __future__ import annotations

from typing import cast

import attrs

from events import records
from cg.card import SIDES
from cg.tables import CLEARABLE, FORTIFICATIONS


@records.frozen
class Item:
    key: str
    words: str  # how the log, the map legend and the AAR say it
    mark: str  # the map's mark in the hex
    rule: str  # PL 2.5 unless it starts with a letter (ASL)
    clear: str | None = None  # the 3.52 clearance item it falls under (tables.CLEARABLE), None: not cleared
    grows: bool = False  # 1.4: its hex becomes Strategic Terrain (rules revision 2, switch strategic_grows)
    in_hex: bool = True  # False: bought for a unit, not a thing in a hex (2.38 HIP)

    @property
    def fortification(self) -> bool:
        """On the 2.38 Fortification Points Table: `plcg fortify` buys it."""
        return self.key in FORTIFICATIONS


ITEMS: dict[str, Item] = {i.key: i for i in (
    # 2.38 Fortification Points Table (its order), bought with `plcg fortify`
    Item("foxhole", "foxhole", "Fx", "2.38 n1; 1.4 entrenchment", grows=True),
    Item("sangar", "sangar", "Sg", "2.38"),
    Item("dummy", 'dummy "?"', "?", "2.38 n2; CG10"),
    Item("hip", "HIP", "HP", "2.38 n3", in_hex=False),
    Item("roadblock", "roadblock", "Rd", "2.38; 3.52", clear="roadblock"),
    Item("wire", "wire", "Wi", "2.38; 3.52", clear="wire"),
    Item("pillbox", "pillbox", "Pb", "2.38 n4; 1.4", grows=True),
    Item("fortified_building", "fortified building", "FB", "2.38 n5"),
    Item("tunnel", "tunnel", "Tu", "2.38"),
    Item("booby_traps", "booby traps", "BT", "2.38 n6; CG12"),  # bought as a level, not placed (ruling R99)
    Item("at_ditch", "A-T ditch", "AD", "2.38; 1.4 entrenchment", grows=True),
    Item("ap_mine", "A-P mines", "Mi", "2.38 n7; 3.52 (all mines one item)", clear="mines"),
    Item("at_mine", "A-T/A-B mines", "Mi", "2.38 n7; 3.52 (all mines one item)", clear="mines"),
    Item("set_dc", "Set DC", "DC", "2.38 n8; A23.7; 3.52", clear="set_dc"),
    Item("known_minefield", "Known Minefield", "Mi", "2.38 (ruling R22); 3.52", clear="mines"),
    Item("dummy_minefield", "dummy minefield", "DM", "2.38; F.7B"),
    Item("cave", "cave", "Cv", "2.38"),
    Item("cave_complex", "cave complex", "CC", "2.38 n9"),
    Item("tetrahedrons", "tetrahedrons", "Te", "2.38"),
    Item("panji", "panji", "Pj", "2.38; 3.52", clear="panji"),
    Item("trip_flares", "trip flares", "TF", "2.38"),
    # CG5: what else a firefight leaves on the map, and the RePh's fire step
    Item("mines", "mines", "Mi", "3.52 (all mines one item, kind not told)", clear="mines"),
    Item("rubble", "rubble", "Rb", "CG5; B24.11; 1.4; 3.52", clear="rubble", grows=True),
    Item("trench", "trench", "Tr", "CG5; B27.51; 1.4 entrenchment", grows=True),
    Item("flame", "flame", "Fl", "CG5; 3.31; 3.52", clear="flame"),
    Item("blaze", "blaze", "Bz", "CG5; 3.31"),
    Item("burning_wreck", "burning wreck", "Wk", "3.311"),
    Item("burnt_out_wreck", "burnt-out wreck", "Wk", "3.311; CG5"),
    Item("wreck", "wreck", "Wk", "CG5"),
    Item("shellhole", "shellhole", "Sh", "CG5; Table 23"),
    Item("trailbreak", "trailbreak", "TB", "CG5; B24.71"),
    Item("mousehole", "mousehole", "Mh", "CG5"),
    Item("breach", "breach", "Br", "CG5"),
    Item("collapsed_hut", "collapsed hut", "CH", "CG5"),
    Item("cleared_open_ground", "burnt out, now Open Ground", "OG", "3.31"),
)}

DISGUISED = frozenset({"dummy_minefield", "known_minefield"})  # seen_by: one look for the other side (ruling R22)
FORTIFICATION_ITEMS = tuple(k for k, i in ITEMS.items() if i.fortification)  # 2.38, `plcg fortify`
IN_HEX = tuple(k for k, i in ITEMS.items() if i.in_hex)  # what `end --terrain HEX=ITEM` takes
GROWS_STRATEGIC = frozenset(k for k, i in ITEMS.items() if i.grows)  # 1.4
CLEAR_ITEMS = tuple(c for c in CLEARABLE if any(i.clear == c for i in ITEMS.values()))  # 3.52, `plcg clear`
MINES = frozenset(k for k, i in ITEMS.items() if i.clear == "mines")  # 3.52: all mines are one item


def key_of(word: str) -> str:
    """A word as typed ("Set DC", "ap-mine", "booby traps") to the form of the table's keys."""
    return str(word).strip().lower().replace("-", "_").replace(" ", "_")


_BY_WORDS = {key_of(i.words): i for i in ITEMS.values()}


def find(word: str) -> Item | None:
    """The entry a player's word names: its key ("set_dc", "set-dc") or its words ("Set DC", "A-P mines")."""
    k = key_of(word)
    return ITEMS.get(k) or _BY_WORDS.get(k)


def _said(parts) -> tuple[str | None, str | None]:
    """The side and the factors among an item's parts after its key, wherever they stand."""
    return (next((p for p in parts if p in SIDES), None), next((p for p in parts if p.isdigit()), None))


@records.frozen
class Kept:
    """An item as the campaign keeps it in a hex (Ground.terrain, CG5): the vocabulary's key, the side that
    bought it and a mine's factors as recorded (2.38 `fortify`; `end --terrain` ITEM[:SIDE][:FACTORS]).

    Its text form, `str(kept)`, is what the events carry and the snapshot and the digest store:
    `ap_mine:axis:3`, `foxhole:axis`, `rubble`. `Kept.parse` reads every text back to a value whose text is
    the same, so the text is kept to the letter: a word a revision 1 campaign kept as typed is its key
    ("a-p mines 6"), and what follows a first ':' that is not [SIDE][:FACTORS] stays as typed in `tail`
    ("x:3:axis": key "x", tail "3:axis"; "foxhole:": tail "")."""

    key: str
    side: str | None = None
    factors: str | None = None  # digits, as recorded ("3")
    tail: str | None = None  # revision 1: the text after the key's ':' when it is not [SIDE][:FACTORS]

    @classmethod
    def parse(cls, text: str) -> Kept:
        """The value of an item's text form; `str()` of it gives the text back."""
        key, *rest = str(text).split(":")
        if not rest:
            return cls(key)
        if len(rest) == 1:
            p = rest[0]
            if p in SIDES:
                return cls(key, p)
            if p.isdigit():
                return cls(key, None, p)
        elif len(rest) == 2 and rest[0] in SIDES and rest[1].isdigit():
            return cls(key, rest[0], rest[1])
        return cls(key, tail=":".join(rest))

    def __str__(self) -> str:
        parts = [self.key]
        if self.side is not None:
            parts.append(self.side)
        if self.factors is not None:
            parts.append(self.factors)
        if self.tail is not None:
            parts.append(self.tail)
        return ":".join(parts)

    @property
    def item(self) -> Item | None:
        """The vocabulary's entry, None for a word it lacks (a revision 1 campaign kept `end --terrain` words
        as typed)."""
        return ITEMS.get(self.key)

    @property
    def grows(self) -> bool:
        """1.4: it makes its hex Strategic Terrain (rules revision 2, switch strategic_grows)."""
        return self.key in GROWS_STRATEGIC

    @property
    def clears_as(self) -> str | None:
        """The 3.52 item it falls under (all mines are one item); a word the vocabulary lacks: its key."""
        entry = ITEMS.get(self.key)
        return entry.clear if entry is not None else self.key

    @property
    def mine(self) -> bool:
        """3.52: one of the mines, which clear as one item."""
        return self.key in MINES

    def said(self) -> tuple[str | None, str | None]:
        """(side, factors) as its words tell them: its own, or those found in a revision 1 tail."""
        if self.tail is None:
            return self.side, self.factors
        return _said(self.tail.split(":"))

    def reads_as(self) -> Item | None:
        """The entry it reads as on the map and in words: its own, else (a word a revision 1 campaign kept
        as typed: "Set DC", "A-P mines 6") the first entry whose key or words it contains."""
        entry = ITEMS.get(self.key) or ITEMS.get(key_of(self.key))
        if entry is not None:
            return entry
        text = " " + " ".join(key_of(str(self)).replace("_", " ").split()) + " "
        for i in ITEMS.values():
            for name in (i.key.replace("_", " "), key_of(i.words).replace("_", " ")):
                if f" {name} " in text or f" {name}s " in text:
                    return i
        return None


def seen_by(item: Kept, viewer: str | None) -> Kept:
    """The item as `viewer` sees it (ruling R22): a Dummy Minefield of the other side shows as that side's Known
    Minefield (F.7B: a dummy looks like the real one), and so the other side's Known Minefields show without
    their factors (which a dummy lacks), until revealed; the caller gives no viewer once they are (the owner,
    the CG's end)."""
    if viewer is None or item.key not in DISGUISED or item.side in (None, viewer):
        return item
    return Kept("known_minefield", item.side)


def kept(item: Kept | str) -> Kept:
    """A kept item as its value: a text form (an event's, a projection's input) read by Kept.parse."""
    return item if type(item) is Kept else Kept.parse(cast(str, item))


def parse_terrain(text: str) -> Kept:
    """`end --terrain` ITEM (rules revision 2): KEY[:SIDE][:FACTORS], KEY from the vocabulary (its key or
    its words, SIDE and FACTORS in either order); the item as kept, or ValueError with one line naming
    what is wrong and the known items."""
    parts = [p.strip() for p in str(text).split(":")]
    entry = find(parts[0])
    if entry is None or not entry.in_hex:
        raise ValueError(f"unknown item {parts[0]!r}; the items are {', '.join(IN_HEX)}")
    key = entry.key
    rest = [p.lower() for p in parts[1:]]
    sides = [p for p in rest if p in SIDES]
    factors = [p for p in rest if p.isdigit() and int(p) > 0]
    if len(sides) > 1 or len(factors) > 1 or len(sides) + len(factors) != len(rest):
        raise ValueError(f"{text!r}: ITEM[:SIDE][:FACTORS], e.g. ap_mine:axis:3")
    return Kept(key, sides[0] if sides else None, factors[0] if factors else None)
