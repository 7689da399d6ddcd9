"""Each event in words: one line for `plcg log`, the step commands' output and the AAR.

An event's words stand with its fold: beside the step that writes it (`@words(type)` in cg/steps/purchase.py,
before.py, end.py, reph.py; an event written at any step, play by email's and a rules upgrade, in
cg/steps/anywhere.py), or, the fold loop's own events, in cg/evolve.py (cg/steps/registry.py: `import
cg.evolve` fills the table). Here is `summary`, which says any event as a reader reads it, with a memo of the
words' constructors for a whole log. The words' pieces (cg/steps/wording.py: SIDE, TYPE, roll_words,
terrain_words, vasl_words, ...) are re-exported here, where the reports import them.
"""
from __future__ import annotations

from typing import Callable

from cg.items import DISGUISED, key_of, kept, seen_by
from cg.steps.anywhere import provisional_words  # noqa: F401  (re-exported: projections/medium.py)
from cg.steps.registry import MAY_BE_SECRET, WORDS, said
from cg.steps.wording import option_words
# re-exported: the reports import the words' pieces from here (projections/aar.py, status.py, maps.py, mapview.py)
from cg.steps.wording import (SIDE, SITUATION, TYPE, changed_by, cp_left_words, drm_words, roll_words,  # noqa: F401
                              row_words, side_words, signed, terrain_words, vasl_words)
# cg.evolve, with the steps' modules it imports, registers every event's words (registry.WORDS)
from cg.evolve import seed_words  # noqa: F401  (re-exported)
from events.stored import build, folder
from events.types import REGISTRY


def generation_why(result: int, lost: int, mmc: int) -> str:
    """Why 3.45 lets a side generate fewer leaders than its dr's result (issue 27 item 11)."""
    may = max(0, min(result, lost - 1, mmc))
    if may >= result:
        return ""
    why = []
    if lost - 1 < result:
        why.append(f"it lost {lost} leader{'s' if lost != 1 else ''} this firefight and generates at most "
                   f"leaders lost - 1 = {max(lost - 1, 0)}")
    if mmc < result:
        why.append(f"it has {mmc} MMC on board, the most it may generate")
    return f"may generate {may}, not {result}: " + "; ".join(why) + " (3.45)"


def summary(etype: str, p: dict, viewer: str | None = None, by: str | None = None) -> str:
    """An event in words; as `viewer` reads it where given (ruling R22: the other side's Dummy Minefields read as
    Known Minefields, whose factors and FP it does not read either). `by`: the side whose command recorded it,
    where the reader knows it (the Redeployment Option names the side that chose it)."""
    if viewer is not None:
        p = _seen(etype, p, viewer)
    if etype == "redeployment_option":
        return option_words(build(REGISTRY[etype], p), by)
    text = _summary(etype, p)
    if " [dice given]" in text:
        text = given_last(text)
    return text


def given_last(text: str) -> str:
    """Manual dice said once, at the end of the line (roll_words marks them after each result)."""
    return text.replace(" [dice given]", "") + " [dice given]"


_SEEN = frozenset(("fortified", "fortification_placed", "firefight_ended", "seals_revealed"))  # what _seen changes


def plain_words(etype: str, viewer: str | None) -> Callable[[None, dict], str] | None:
    """summary(etype, p, viewer, by) as said(None, p) for every payload `p` of `etype`, given_last applied by the
    caller, where neither the viewer (ruling R22), a secret nor the side that chose is read: the constructor and
    words of _summary's memo, called without summary's own tests a row (a whole log's reader: `plcg log`).
    None where summary must say it."""
    if etype == "redeployment_option" or etype in MAY_BE_SECRET or (viewer is not None and etype in _SEEN):
        return None
    return _SAID.get(etype) or _said(etype)


def _seen(etype: str, p: dict, viewer: str) -> dict:
    """The payload as `viewer` reads it (ruling R22, cg/items.seen_by)."""
    if etype in ("fortified", "fortification_placed") and p.get("kind") in DISGUISED and p.get("side") != viewer:
        return {**p, "kind": "known_minefield", "detail": {}, "secret": True}
    if etype == "firefight_ended" and p.get("terrain"):
        return {**p, "terrain": [{**t, "item": str(seen_by(kept(t["item"]), viewer))} for t in p["terrain"]]}
    if etype == "seals_revealed":  # ruling R47: a sealed purchase opened, its events and command
        return {**p, "openings": [{**o, "opening": {
            **o["opening"], "command": seen_command(o["opening"].get("command") or {}, viewer),
            "events": [(t, _seen(t, q, viewer)) for t, q in o["opening"].get("events") or ()]}}
            for o in p["openings"]]}
    return p


def seen_command(cmd: dict, viewer: str | None) -> dict:
    """A command as `viewer` reads it (ruling R22): the other side's `fortify` of a Dummy or Known Minefield as
    a Known Minefield's, without its factors."""
    if viewer is None or cmd.get("name") != "fortify" or cmd.get("side") == viewer:
        return cmd
    if key_of(cmd.get("kind") or "") not in DISGUISED:
        return cmd
    return {**{k: v for k, v in cmd.items() if k != "factors"}, "kind": "known_minefield"}


def _summary(etype: str, p: dict) -> str:
    fast = _SAID.get(etype) or _said(etype)
    if fast is None or (etype in MAY_BE_SECRET and "secret" in p):
        return said(etype, p)  # no words yet, or as the other side reads it (ruling R22: _seen)
    return fast(None, p)


# type name -> said(None, payload): its words, the instance built from the payload in the same call by the
# fold's generated constructor (events/stored.folder), made when the type is first worded
_SAID: dict[str, Callable] = {}


def _said(etype: str) -> Callable | None:
    fn = WORDS.get(etype)
    if fn is None:
        return None
    fast = _SAID[etype] = folder(REGISTRY[etype], lambda _none, e: fn(e))
    return fast
