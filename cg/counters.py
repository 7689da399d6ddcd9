"""The counter table: what the ledger knows of each counter a card names (ruling R34).

For the nationalities the cards use (german, american, british, russian, japanese, finnish, italian):
each Multi-Man Counter's half-squad, its ELR replacement (A19.13) and its Battle Hardening counter
(A15.3), its class, whether it is a squad, half-squad or crew; each Support Weapon's PP; each leader's
modifier and rank (PL 2.72 lets only a Corporal, Sergeant or Lieutenant lead a patrol). A card adds or
corrects counters in `[counters.<nationality>]`; `validate_overrides` reports what is wrong there.
A result that needs a counter the table lacks asks for it (`--to COUNTER`): every `None` here means
"not known: ask", never a guess.

Pure: standard library and attrs only; no I/O.

Sources (public material; the rules text is not pasted here)
------------------------------------------------------------
MMC: the VASL module's counter definitions (github vasl-developers/vasl, dist/buildFile.xml, module
  6.7.0, stored commit fe43174a; cross-checked against the 2020 dist/buildFile at the fork
  michalxo/vasl, commit aea9860c). Each squad piece there carries an "ELR"/"BH" layer that steps down
  (ELR Replacement) or up (Battle Hardening) one counter of a chain, a parallel "SQ/HS" layer with each
  step's half-squad, and class marks (E, 1, 2, G, C) on each step. `_CHAINS` below transcribes those
  chains, one tuple (squad, its HS, class) per step, best first. VASL and the chains agree with the
  ASLRB as published on aslerb.com ("ASL Rulebook Updated and Erraticized", chapter A25): A25.1, the
  German 4-6-8 needs three ELR Replacements to become Inexperienced, the 5-4-8 two
  (4-6-8 > 4-6-7 > 4-4-7 > 4-3-6; 5-4-8 > 4-4-7 > 4-3-6); A25.11, SS 6-5-8/3-4-8 are Elite.
  A19.11 (aslerb chapter A19): crews, Commissars and heroes are never Replaced; so crews and
  commissars have no `replaced`. A19.12: a squad/HS/6+1 leader that cannot be Replaced by a lower
  quality unit is Disrupted instead; so `replaced` is None at the foot of every chain, and a caller
  reads None with class green/conscript (or a 6+1) as "Disrupted", None otherwise as "ask".
Leaders: the same VASL pieces chain every leader of a nationality for ELR and BH (general:
  10-3 10-2 9-2 9-1 8-1 8-0 7-0 6+1; japanese: 10-2 10-1 10-0 9-1 9-0 8-0 8+1; finnish: 10-1 10-0 9-1
  9-0 8-0; the Russian Commissars 10-0 9-0 8+1). Japanese leaders are never Replaced (vasl-templates,
  github pacman-ghost/vasl-templates, vasl_templates/webapp/data/default-template-pack/
  national-capabilities.json: Japanese "Leaders: Replacement NA"), so they have no `replaced`.
  The modifier is the counter's (ruling R30): the number after the sign of "M-L" / "M+L".
SW PP: VASL's rules-data table (vasl-developers/vasl as mirrored in michalxo/vasl, branch
  feature/vasldougreg, dist/fullrulesdata/SuppWTable.xml, commit 76ca06d0, attribute PortageCost) for
  british, german, american, russian and japanese weapons. A 76-82mm mortar in its dismantled state
  ("dm 81* MTR") is portaged as a 5 PP SW (aslerb chapter C9.2). SW names are VASL's piece names.

Where the sources are silent or disagree (chosen here, not found)
---------------------------------------------------------------
- Leader ranks: no public source found assigns ranks to leader counters (PL 2.5 names the ranks in
  2.72 but gives no table; none was found in the ASL material searched). Convention chosen: a leader's rank follows the best PL 2.361 Leader Table
  row it can be rolled on in its nationality's column, >11 Corporal, 9-10 Sergeant, 7-8 and 5-6
  Lieutenant, 4 Captain, 3 Major, <2 (and anything better) Lieutenant Colonel. So 6+1 Corporal, 7-0
  Sergeant, 8-0/8-1 Lieutenant, 9-1 Captain, 9-2 Major, 10-2/10-3 Lieutenant Colonel (general column);
  the Japanese 8+1 is a Sergeant, 9-0 a Lieutenant, 10-0 a Major; the Finnish 8-0 a Sergeant, 9-0 a
  Lieutenant. Commissars have no rank (None: ask). A card sets `rank` where it knows better.
  Rules revision 3 reads this convention no more (ruling R52, `card_rank`): only a card's `rank` is known.
- A counter name that two chains of one nationality share takes each field the chains agree on. Where
  they differ, ELR Replacement takes the candidate of the next lower class and Battle Hardening the
  one of the next higher class (A15.3: "the next higher quality"); a tie is left None (ask). So the
  German 4-4-7 hardens to 4-6-7 (1st Line), not 5-4-8 (Elite); the Russian 4-2-6 (5-2-7 or 4-4-7), the
  Italian 3-3-6 and the Finnish 2-3-8 HS (1st Line from a 5-4-8, Green from a 6-4-8) are left None.
- The top counter of a chain: Elite hardens to Fanatic (ruling R34: the counter stays, a flag is set);
  a non-Elite top (Finnish 6-4-8 and 5-4-8, American 4-4-7) has no known BH counter (None: ask),
  except where VASL names one outside the chain (Italian 3-4-7 > 4-4-7, its HS 1-3-7 > 2-4-7).
- VASL gives no ELR chain for some Elite squads (German 8-3-8, 6-5-8; American 7-4-7; British 6-4-8;
  Finnish 8-3-8); their `replaced` is None (ask). US Marine squads carry only their HS (no class).
- Japanese squads also have striped (Step Reduction) counters; they are not modelled.
- PP: LMG, FT and DC are 1 PP, Radio 1 and Field Phone 0 for every nationality the PP table lists;
  they are taken as the same for italian and finnish (and the american LMG, absent there). MMG/HMG
  PP differ by nationality, so the italian and finnish ones are left None, as are light mortars
  (the table's mortar rows carry calibre as FP and implausible ranges: not trusted).
- Names are matched as written, nothing is stripped but a leading count ("3x "). Cards name
  half-squads "<name> HS" and crews "<name> crew" (the project's R18; "1x 2-2-8 crew"), so every HS
  and crew is listed under both spellings. Crews share some names with half-squads (american and
  italian 1-2-6, a Green/Conscript HS and a vehicle crew): the bare name is the HS, the crew is
  "1-2-6 crew". Vehicles and Guns are not in the table: a card adds them with their `kind`.
- Nationality aliases: us/usa/u.s./u.s.a. = american; soviet/soviets/ussr/russia = russian;
  uk/britain/commonwealth = british (Commonwealth forces use British counters); finn/finns/finland =
  finnish; japan = japanese; italy = italian; germany = german (plurals too). Others (french, chinese,
  ...) have no table: only card overrides and leaders (modifier from the name) are known for them.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType

import attrs

from events import records

CLASSES = ("elite", "first_line", "second_line", "green", "conscript")
_CLASS_RANK = {"elite": 3, "first_line": 2, "second_line": 1, "green": 0, "conscript": 0}
KINDS = ("squad", "half_squad", "crew", "leader", "commissar", "hero", "sw",
         "gun", "afv", "vehicle", "aircraft", "fortification", "other")
RANKS = ("Corporal", "Sergeant", "Lieutenant", "Captain", "Major", "Lieutenant Colonel", "Colonel")
PATROL_RANKS = frozenset({"Corporal", "Sergeant", "Lieutenant"})  # 2.72
HS_EQUIVALENT = MappingProxyType({"squad": 2, "half_squad": 1, "crew": 1})  # ruling R26
NATIONALITIES = ("german", "american", "british", "russian", "japanese", "finnish", "italian")
OVERRIDE_KEYS = ("hs", "replaced", "hardened", "pp", "rank", "leadership", "kind")


def _opt(choices):
    return attrs.validators.optional(attrs.validators.in_(choices))


@records.frozen
class Counter:
    """One counter as the ledger knows it; None where not applicable or not known (then: ask)."""

    name: str
    kind: str | None = attrs.field(default=None, validator=_opt(KINDS))
    hs: str | None = None  # its half-squad (squads only)
    replaced: str | None = None  # A19.13 ELR Replacement counter
    hardened: str | None = None  # A15.3 Battle Hardening counter (an Elite MMC turns Fanatic instead)
    klass: str | None = attrs.field(default=None, validator=_opt(CLASSES))
    pp: int | None = None  # SW portage points
    leadership: int | None = None  # leader modifier (ruling R30)
    rank: str | None = attrs.field(default=None, validator=_opt(RANKS))

    @property
    def fanatic_on_hardening(self) -> bool:
        """Ruling R34: Battle Hardening an Elite MMC makes it Fanatic; the counter stays."""
        return self.klass == "elite" and self.kind in ("squad", "half_squad")


# ---------------------------------------------------------------------------------------------
# Data. The class of each step is VASL's class mark (E, 1, 2, G, C).
_E, _L1, _L2, _G, _C = "elite", "first_line", "second_line", "green", "conscript"

# One chain per VASL squad piece: (squad, its HS, class), best first; ELR steps down, BH steps up.
_CHAINS: dict[str, tuple[tuple[tuple[str, str, str | None], ...], ...]] = {
    "german": (
        (("4-6-8", "2-4-8", _E), ("4-6-7", "2-4-7", _L1), ("4-4-7", "2-3-7", _L2), ("4-3-6", "2-3-6", _C)),
        (("5-4-8", "2-3-8", _E), ("4-4-7", "2-3-7", _L2), ("4-3-6", "2-3-6", _C)),
        (("8-3-8", "3-3-8", _E),),
        (("6-5-8", "3-4-8", _E),),  # SS (A25.11)
    ),
    "american": (
        (("6-6-7", "3-4-7", _E), ("6-6-6", "3-4-6", _L1), ("5-4-6", "2-3-6", _L2), ("5-3-6", "2-2-6", _G)),
        (("4-4-7", "2-3-7", _L2), ("3-3-6", "1-2-6", _G)),
        (("7-4-7", "3-3-7", _E),),
        (("7-6-8", "3-4-8", None),),  # US Marines: VASL gives the HS only
        (("6-6-8", "3-4-8", None),),
        (("5-5-8", "2-3-8", None),),
        (("4-5-8", "2-4-8", None),),
    ),
    "british": (
        (("4-5-8", "2-4-8", _E), ("4-5-7", "2-4-7", _L1), ("4-4-7", "2-3-7", _L2), ("4-3-6", "2-2-6", _G)),
        (("6-4-8", "3-3-8", _E),),
    ),
    "russian": (
        (("6-2-8", "3-2-8", _E), ("5-2-7", "2-2-7", _L1), ("4-2-6", "2-2-6", _C)),
        (("4-5-8", "2-4-8", _E), ("4-4-7", "2-3-7", _L1), ("4-2-6", "2-2-6", _C)),
    ),
    "japanese": (
        (("4-4-8", "2-3-8", _E), ("4-4-7", "2-3-7", _L1), ("3-4-7", "1-3-7", _L2), ("3-3-6", "1-2-6", _C)),
    ),
    "finnish": (
        (("6-4-8", "2-4-8", _L1), ("5-3-8", "2-3-8", _G)),
        (("5-4-8", "2-3-8", _L1), ("4-4-7", "2-3-7", _L2), ("4-3-7", "2-2-7", _C)),
        (("8-3-8", "3-3-8", _E),),
    ),
    "italian": (
        (("4-4-7", "2-4-7", _E), ("3-4-6", "1-3-6", _L1), ("3-3-6", "1-2-6", _C)),
        (("3-4-7", "1-3-7", _L1), ("3-3-6", "1-2-6", _C)),
    ),
}

# BH links VASL gives outside a chain (a replace to another piece), per counter name.
_EXTRA_HARDENED: dict[str, dict[str, str]] = {
    "italian": {"3-4-7": "4-4-7", "1-3-7": "2-4-7"},
}

# Crews: (infantry crew, vehicle crew, ...), VASL "Icr"/"Vcr"/"Mcr" pieces.
_CREWS: dict[str, tuple[str, ...]] = {
    "german": ("2-2-8", "1-2-7"),
    "american": ("2-2-7", "1-2-6", "2-2-8"),  # 2-2-8: US Marine crew
    "british": ("2-2-8", "1-2-7"),
    "russian": ("2-2-8", "1-2-7"),
    "japanese": ("2-2-8", "1-2-7"),
    "finnish": ("2-2-8", "1-2-7"),
    "italian": ("2-2-7", "1-2-6"),
}

_GENERAL_LEADERS = ("10-3", "10-2", "9-2", "9-1", "8-1", "8-0", "7-0", "6+1")
# Leader ELR/BH chains, best first (VASL); `replaces` False where leaders are never Replaced.
_LEADERS: dict[str, tuple[tuple[str, ...], bool]] = {
    "german": (_GENERAL_LEADERS, True),
    "american": (_GENERAL_LEADERS, True),
    "british": (_GENERAL_LEADERS, True),
    "russian": (_GENERAL_LEADERS, True),
    "italian": (_GENERAL_LEADERS, True),
    "japanese": (("10-2", "10-1", "10-0", "9-1", "9-0", "8-0", "8+1"), False),
    "finnish": (("10-1", "10-0", "9-1", "9-0", "8-0"), True),
}
_COMMISSARS: dict[str, tuple[str, ...]] = {"russian": ("10-0", "9-0", "8+1")}  # A19.11: never Replaced

# Ranks by the chosen convention (see the module docstring): the best 2.361 row of each leader.
_LTC, _MAJ, _CPT, _LT, _SGT, _CPL = ("Lieutenant Colonel", "Major", "Captain", "Lieutenant",
                                     "Sergeant", "Corporal")
_GENERAL_RANKS = {"10-3": _LTC, "10-2": _LTC, "9-2": _MAJ, "9-1": _CPT, "8-1": _LT, "8-0": _LT,
                  "7-0": _SGT, "6+1": _CPL}
_RANKS: dict[str, dict[str, str]] = {
    "german": _GENERAL_RANKS, "american": _GENERAL_RANKS, "british": _GENERAL_RANKS,
    "russian": _GENERAL_RANKS, "italian": _GENERAL_RANKS,
    "japanese": {"10-2": _LTC, "10-1": _LTC, "10-0": _MAJ, "9-1": _CPT, "9-0": _LT, "8-0": _LT,
                 "8+1": _SGT},
    "finnish": {"10-1": _LTC, "10-0": _MAJ, "9-1": _CPT, "9-0": _LT, "8-0": _SGT},
}

# SW portage points (SuppWTable.xml PortageCost; * = the same for every nationality listed there).
_UNIFORM_PP = {"LMG": 1, "FT": 1, "DC": 1, "Radio": 1, "Field Phone": 0}
_SW_PP: dict[str, dict[str, int]] = {
    "german": {**_UNIFORM_PP, "MMG": 3, "HMG": 4, "ATR": 1, "PSK": 1, "dm 81* MTR": 5},
    "american": {**_UNIFORM_PP, "MMG": 3, "HMG": 5, ".50-cal": 5, "BAZ43": 1, "BAZ44": 1,
                 "BAZ45": 1, "dm 81* MTR": 5},
    "british": {**_UNIFORM_PP, "MMG": 4, "HMG": 5, ".50-cal": 5, "MMG(a)": 3, "HMG(a)": 5,
                ".50-cal(a)": 5, "ATR": 1, "PIAT": 1, "BAZ44(a)": 1, "dm 76* MTR": 5, "dm 81* MTR": 5},
    "russian": {**_UNIFORM_PP, "MMG": 5, "HMG": 5, ".50-cal": 5, "ATR": 1, "MOL-P": 2, "dm 82* MTR": 5},
    "japanese": {**_UNIFORM_PP, "MMG": 3, "HMG": 4, "dm 81* MTR": 5},
    "finnish": {**_UNIFORM_PP},
    "italian": {**_UNIFORM_PP, "dm 81* MTR": 5},
}
# Other spellings of the same SW names, as cards write them.
_SW_SPELLINGS = {"BAZ 43": "BAZ43", "BAZ 44": "BAZ44", "BAZ 45": "BAZ45", ".50cal": ".50-cal"}

_ALIASES = {
    "german": "german", "germans": "german", "germany": "german",
    "american": "american", "americans": "american", "us": "american", "usa": "american",
    "u.s.": "american", "u.s.a.": "american",
    "british": "british", "uk": "british", "britain": "british", "commonwealth": "british",
    "russian": "russian", "russians": "russian", "russia": "russian", "soviet": "russian",
    "soviets": "russian", "ussr": "russian",
    "japanese": "japanese", "japan": "japanese",
    "finnish": "finnish", "finn": "finnish", "finns": "finnish", "finland": "finnish",
    "italian": "italian", "italians": "italian", "italy": "italian",
}

_LEADER_RE = re.compile(r"(\d{1,2})([+-])(\d)")
_COUNT_RE = re.compile(r"(\d+)[xX]\s+(\S.*)")


# ---------------------------------------------------------------------------------------------
# Building the table from the data above.
_UNKNOWN = object()  # a chain gives no value (top of a non-Elite chain)
_NONE = None  # a chain's explicit "no counter" (foot of a chain: A19.12 Disrupts)


def _resolve(candidates: list, klass: str | None, direction: int, classes: dict[str, str | None]):
    """One value from the chains' candidates: agreed, else the next class down (-1) / up (+1)."""
    values = {c for c in candidates if c is not _UNKNOWN}
    if len(values) <= 1:
        return next(iter(values), None)
    if klass is None or _NONE in values:
        return None
    mine = _CLASS_RANK[klass]
    ranked = [(_CLASS_RANK[k], v) for v in values if (k := classes.get(v)) is not None]
    if len(ranked) != len(values):
        return None
    ranked = [(r, v) for r, v in ranked if (r - mine) * direction > 0]
    if not ranked:
        return None
    best = (max if direction < 0 else min)(r for r, _ in ranked)
    picks = [v for r, v in ranked if r == best]
    return picks[0] if len(picks) == 1 else None


def _mmc_entries(nat: str) -> dict[str, Counter]:
    seen: dict[str, dict[str, list]] = {}

    def add(name, kind, klass, hs, down, up):
        e = seen.setdefault(name, {"kind": [], "klass": [], "hs": [], "replaced": [], "hardened": []})
        e["kind"].append(kind)
        e["klass"].append(klass)
        e["hs"].append(hs)
        e["replaced"].append(down)
        e["hardened"].append(up)

    for chain in _CHAINS.get(nat, ()):
        for i, (squad, hs, klass) in enumerate(chain):
            below = chain[i + 1] if i + 1 < len(chain) else None
            above = chain[i - 1] if i > 0 else None
            top_up = _NONE if klass == _E else _UNKNOWN  # Elite: Fanatic, no counter (ruling R34)
            add(squad, "squad", klass, hs, below[0] if below else _NONE, above[0] if above else top_up)
            add(hs, "half_squad", klass, None, below[1] if below else _NONE,
                above[1] if above else top_up)
    for name, up in _EXTRA_HARDENED.get(nat, {}).items():
        seen[name]["hardened"].append(up)

    def agreed(values):
        values = set(values)
        return values.pop() if len(values) == 1 else None

    classes = {name: agreed(e["klass"]) for name, e in seen.items()}
    out: dict[str, Counter] = {}
    for name, e in seen.items():
        klass = classes[name]
        split = len(set(e["klass"])) > 1  # one name, two classes: its ELR/BH steps are unknown
        out[name] = Counter(
            name=name, kind=agreed(e["kind"]), klass=klass, hs=agreed(e["hs"]),
            replaced=None if split else _resolve(e["replaced"], klass, -1, classes),
            hardened=None if split else _resolve(e["hardened"], klass, +1, classes),
        )
    return out


def _build(nat: str) -> Mapping[str, Counter]:
    table = _mmc_entries(nat)
    for hs in [c for c in table.values() if c.kind == "half_squad"]:
        table[f"{hs.name} HS"] = attrs.evolve(hs, name=f"{hs.name} HS")  # the cards' spelling (R18)
    for crew in _CREWS.get(nat, ()):
        c = Counter(name=f"{crew} crew", kind="crew")
        table[c.name] = c
        table.setdefault(crew, attrs.evolve(c, name=crew))
    chain, replaces = _LEADERS.get(nat, ((), True))
    for i, name in enumerate(chain):
        table[name] = Counter(
            name=name, kind="leader", leadership=leader_modifier(name), rank=_RANKS[nat].get(name),
            replaced=chain[i + 1] if replaces and i + 1 < len(chain) else None,
            hardened=chain[i - 1] if i > 0 else None,
        )
    commissars = _COMMISSARS.get(nat, ())
    for i, name in enumerate(commissars):
        table[name] = Counter(name=name, kind="commissar", leadership=leader_modifier(name),
                              hardened=commissars[i - 1] if i > 0 else None)
    for name, pp_ in _SW_PP.get(nat, {}).items():
        table[name] = Counter(name=name, kind="sw", pp=pp_)
    for spelling, name in _SW_SPELLINGS.items():
        if name in table:
            table[spelling] = attrs.evolve(table[name], name=spelling)
    return MappingProxyType(table)


def leader_modifier(name: str) -> int | None:
    """The leader modifier printed in an "M-L" / "M+L" counter name: "9-2" -2, "8+1" +1, "8-0" 0.
    None for any other name. Needs no nationality (ruling R30)."""
    if not isinstance(name, str):
        return None
    m = _LEADER_RE.fullmatch(name.strip())
    if not m:
        return None
    value = int(m[3])
    return -value if m[2] == "-" else value


class _Tables(Mapping):
    """Nationality -> its counter table (read-only), each built when first asked for: a command reads the
    tables of the nationalities it meets, most none (start-up, issue 36 item 2: the seven built at import
    were ~0.1x `python -c pass` of every command)."""

    def __init__(self) -> None:
        self._built: dict[str, Mapping[str, Counter]] = {}

    def __getitem__(self, nat: str) -> Mapping[str, Counter]:
        table = self._built.get(nat)
        if table is None:
            if nat not in NATIONALITIES:
                raise KeyError(nat)
            table = self._built.setdefault(nat, _build(nat))
        return table

    def __iter__(self):
        return iter(NATIONALITIES)

    def __len__(self) -> int:
        return len(NATIONALITIES)


TABLES: Mapping[str, Mapping[str, Counter]] = _Tables()
_BY_NAME = {n.upper(): n for n in NATIONALITIES}  # GERMAN, AMERICAN, ...: TABLES["german"], ...


def __getattr__(name: str) -> Mapping[str, Counter]:
    """`counters.GERMAN` (and each nationality's name in capitals): its table, built when first asked for."""
    if name in _BY_NAME:
        return TABLES[_BY_NAME[name]]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ---------------------------------------------------------------------------------------------
# Lookups.
def nationality(name: str) -> str | None:
    """The table's name for a nationality as a card writes it ("USA" -> "american"); None if unknown."""
    if not isinstance(name, str):
        return None
    return _ALIASES.get(name.strip().lower())


def _table_key(nat: str) -> str:
    return nationality(nat) or (nat.strip().lower() if isinstance(nat, str) else "")


def split_count(unit: str) -> tuple[int, str]:
    """ "3x 4-6-7" -> (3, "4-6-7"); "9-1" -> (1, "9-1"). Only the count is taken off."""
    text = unit.strip()
    m = _COUNT_RE.fullmatch(text)
    return (int(m[1]), m[2].strip()) if m else (1, text)


def overrides_for(counters: Mapping | None, nat: str) -> dict:
    """The card's `[counters]` entries for one nationality, under any of its aliases."""
    out: dict = {}
    key = _table_key(nat)
    for written, entries in (counters or {}).items():
        if _table_key(written) == key and isinstance(entries, Mapping):
            out.update(entries)
    return out


def _override_problems(path: str, entry: object) -> list[str]:
    if not isinstance(entry, Mapping):
        return [f"{path}: must be a table (keys: {', '.join(OVERRIDE_KEYS)})"]
    problems = []
    for key, value in entry.items():
        where = f"{path}.{_key(key)}"
        if key not in OVERRIDE_KEYS:
            problems.append(f"{where}: unknown key (allowed: {', '.join(OVERRIDE_KEYS)})")
        elif key in ("pp", "leadership"):
            if isinstance(value, bool) or not isinstance(value, int):
                problems.append(f"{where}: must be a whole number")
            elif key == "pp" and value < 0:
                problems.append(f"{where}: must be 0 or more")
        elif not isinstance(value, str):
            problems.append(f"{where}: must be text")
        elif not value.strip():
            problems.append(f"{where}: must not be empty")
        elif key == "kind" and value not in KINDS:
            problems.append(f"{where}: {value!r} is not a kind ({', '.join(KINDS)})")
        elif key == "rank" and value not in RANKS:
            problems.append(f"{where}: {value!r} is not a rank ({', '.join(RANKS)})")
    return problems


def _key(key: object) -> str:
    """A TOML path segment: bare where TOML allows it, else quoted."""
    text = str(key)
    return text if re.fullmatch(r"[A-Za-z0-9_-]+", text) else '"' + text.replace('"', '\\"') + '"'


def validate_overrides(mapping: object) -> list[str]:
    """Every problem of a card's `[counters]` table, as `path: what is wrong`; [] when it is sound."""
    if mapping is None:
        return []
    if not isinstance(mapping, Mapping):
        return ["counters: must be a table of nationalities"]
    problems: list[str] = []
    first: dict[str, str] = {}
    for nat, entries in mapping.items():
        path = f"counters.{_key(nat)}"
        if not isinstance(nat, str) or not nat.strip():
            problems.append(f"{path}: a nationality name must be text")
            continue
        canonical = _table_key(nat)
        if canonical in first:
            problems.append(f"{path}: same nationality as counters.{_key(first[canonical])}")
        first.setdefault(canonical, nat)
        if not isinstance(entries, Mapping):
            problems.append(f"{path}: must be a table of counters")
            continue
        for name, entry in entries.items():
            where = f"{path}.{_key(name)}"
            if not isinstance(name, str) or not name.strip():
                problems.append(f"{where}: a counter name must not be empty")
                continue
            if _COUNT_RE.fullmatch(name.strip()):
                problems.append(f"{where}: a counter name, without a count (not {name!r})")
                continue
            problems += _override_problems(where, entry)
    return problems


def lookup(nat: str, name: str, overrides: Mapping | None = None) -> Counter | None:
    """The counter `name` ("4-6-7", or "3x 4-6-7": only the count is taken off) of nationality `nat`,
    with the card's `[counters.<nationality>]` entries (`overrides`) added or replacing fields.
    A leader form ("M-L"/"M+L") is known in any nationality by its modifier. None if unknown.
    Raises ValueError when the override for this counter is malformed (see validate_overrides)."""
    _, name = split_count(name)
    base = TABLES.get(_table_key(nat), {}).get(name)
    if base is None and (mod := leader_modifier(name)) is not None:
        base = Counter(name=name, kind="leader", leadership=mod)
    entry = (overrides or {}).get(name)
    if entry is None:
        return base
    problems = _override_problems(f"counters.{_key(_table_key(nat))}.{_key(name)}", entry)
    if problems:
        raise ValueError("; ".join(problems))
    return attrs.evolve(base or Counter(name=name), **dict(entry))


def squad_of(nat: str, hs: str, overrides: Mapping | None = None) -> str | None:
    """3.42 Recombination: the squad whose half-squad `hs` is, where exactly one squad of the table (and the
    card's counters) has it; None otherwise (not known, or two squads share that HS)."""
    name = split_count(hs)[1]
    bare = name[:-3].strip() if name.endswith(" HS") else name
    names = set(TABLES.get(_table_key(nat), {})) | set(overrides or {})
    found = {n for n in names if (c := lookup(nat, n, overrides)) is not None and c.kind == "squad"
             and c.hs in (name, bare)}
    return found.pop() if len(found) == 1 else None


def half_squad(nat: str, name: str, overrides: Mapping | None = None) -> str | None:
    """The squad's HS counter (deployment, R29 "Reduced"); None if unknown."""
    c = lookup(nat, name, overrides)
    return c.hs if c else None


def replacement(nat: str, name: str, overrides: Mapping | None = None) -> str | None:
    """A19.13: the counter that replaces `name` on ELR failure. None: no lower counter (A19.12 Disrupts
    a Green/Conscript MMC or a 6+1) or not known (ask)."""
    c = lookup(nat, name, overrides)
    return c.replaced if c else None


def disrupted_instead(nat: str, name: str, overrides: Mapping | None = None) -> bool:
    """A19.12: `name` has no lower-quality counter (the foot of its chain: a Green or Conscript squad or
    HS, or a 6+1 leader), so an ELR failure Disrupts it instead of Replacing it. False where a lower
    counter is known, or where the table does not know the counter (then: ask)."""
    c = lookup(nat, name, overrides)
    if c is None or c.replaced is not None:
        return False
    if c.kind in ("squad", "half_squad"):
        return c.klass in ("green", "conscript")
    return c.kind == "leader" and split_count(name)[1] == "6+1"


def hardened(nat: str, name: str, overrides: Mapping | None = None) -> str | None:
    """A15.3: the counter `name` is exchanged for on Battle Hardening; None if none is known."""
    c = lookup(nat, name, overrides)
    return c.hardened if c else None


def harden(nat: str, name: str, overrides: Mapping | None = None) -> tuple[str | None, bool]:
    """A15.3 with R34: (new counter, fanatic). An Elite MMC keeps its counter and turns Fanatic:
    (name, True). Otherwise (hardened counter, False); (None, False) when not known: ask (--to)."""
    c = lookup(nat, name, overrides)
    if c is None:
        return None, False
    if c.fanatic_on_hardening and c.hardened is None:
        return c.name, True
    return c.hardened, False


def pp(nat: str, name: str, overrides: Mapping | None = None) -> int | None:
    """A SW's portage points; None if unknown."""
    c = lookup(nat, name, overrides)
    return c.pp if c else None


def leader_rank(nat: str, name: str, overrides: Mapping | None = None) -> str | None:
    """A leader's rank (convention in the module docstring, or the card's); None if unknown."""
    c = lookup(nat, name, overrides)
    return c.rank if c else None


def card_rank(name: str, overrides: Mapping | None = None) -> str | None:
    """A leader's rank as the card's `[counters]` gives it (ruling R52: the only rank known); None if not."""
    entry = (overrides or {}).get(split_count(name)[1])
    return entry.get("rank") if isinstance(entry, Mapping) else None  # `card check` validated the card


def may_lead_patrol(nat: str, name: str, overrides: Mapping | None = None, convention: bool = True) -> bool | None:
    """2.72: only a Corporal, Sergeant or Lieutenant leads a patrol. None when the rank is unknown.
    `convention`: read the table's rank convention (rules revision 2); without it only the card's rank
    counts (ruling R52, revision 3)."""
    rank = leader_rank(nat, name, overrides) if convention else card_rank(name, overrides)
    return None if rank is None else rank in PATROL_RANKS
