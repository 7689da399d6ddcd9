"""Each event in words: one line for `plcg log`, the step commands' output and the AAR.

An event's words stand beside the step that writes it (`@words(type)` in cg/steps/purchase.py, before.py,
end.py, reph.py; an event written at any step, play by email's and a rules upgrade, in cg/steps/anywhere.py:
cg/steps/registry.py, which `import cg.steps` fills); here are the words of the fold loop's own events (the
campaign's start, `step_left`, undo, a sealed secret and its opening), and `summary`, which says any event
as a reader reads it. The words' pieces (cg/steps/wording.py: SIDE, TYPE,
roll_words, terrain_words, vasl_words, ...) are re-exported here, where the reports import them.
"""
from __future__ import annotations

from typing import Callable

import cg.steps  # noqa: F401  (the steps' modules register their events' words: registry.WORDS)
from cg.items import DISGUISED, key_of, kept, seen_by
from cg.sequence import StepId
from cg.steps.anywhere import command_words
from cg.steps.anywhere import provisional_words  # noqa: F401  (re-exported: projections/medium.py)
from cg.steps.registry import WORDS, words
from cg.steps.wording import SIDE, option_words, side_words, vasl_words  # noqa: F401  (SIDE, vasl_words re-exported)
# re-exported: the reports import the words' pieces from here (projections/aar.py, status.py, maps.py, mapview.py)
from cg.steps.wording import (SITUATION, TYPE, changed_by, cp_left_words, drm_words, roll_words,  # noqa: F401
                              row_words, signed, terrain_words)
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
    if " [dice given]" in text:  # said once, at the end of the line
        text = text.replace(" [dice given]", "") + " [dice given]"
    return text


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


def seed_words(e) -> str:
    """campaign_started's dice: the seed, or what makes the dice when there is none (rulings R31, R44)."""
    if e.seed:
        return f"seed {e.seed!r}"
    if (e.pbem or {}).get("dice_policy") == "two-party":
        return "no seed: two-party dice, made by both players together (ruling R44)"
    return "no seed: the ledger's dice come from the operating system's random source, unforeseeable (ruling R31)"


def _opened_words(opening: dict) -> str:
    """A sealed secret revealed (ruling R47): its events as the log words them, else its command."""
    evs = opening.get("events") or []
    said = [_summary(t, q) for t, q in evs if t not in ("dice_committed", "dice_revealed")]
    if said:
        return "; ".join(said)
    cmd = opening.get("command") or {}
    return "its two-party dice" if cmd.get("name") == "reveal" else command_words(cmd)


_MAY_BE_SECRET = frozenset(("fortified", "fortification_placed"))  # _seen marks the other side's Dummy Minefield


def _summary(etype: str, p: dict) -> str:
    said = _SAID.get(etype) or _said(etype)
    if said is None:
        return etype.replace("_", " ")  # an event this release has no words for yet: at least not snake_case
    if etype in _MAY_BE_SECRET and "secret" in p:  # ruling R22: as the other side reads it (_seen)
        return WORDS[etype](build(REGISTRY[etype], {k: v for k, v in p.items() if k != "secret"}), True)
    return said(None, p)


# type name -> said(None, payload): its words, the instance built from the payload in the same call by the
# fold's generated constructor (events/stored.folder), made when the type is first worded
_SAID: dict[str, Callable] = {}


def _said(etype: str) -> Callable | None:
    fn = WORDS.get(etype)
    if fn is None:
        return None
    said = _SAID[etype] = folder(REGISTRY[etype], lambda _none, e: fn(e))
    return said


@words("campaign_started")
def _started(e) -> str:
    return f"campaign started: {e.card.get('campaign', {}).get('name', e.card_ref)} ({e.rules}, " \
           f"{e.product} {e.product_version}, rules revision {e.rules_revision}), {seed_words(e)}"


@words("sealed")
def _sealed(e) -> str:  # ruling R47
    s = side_words(e)
    what = {"cp": "its CP DR (2.1)", "purchase": "a purchase (2.3)", "promote": "its promotion dr (3.44)",
            "harden": "a hardening (3.44)", "attack": "its Attack Option choice, yes or no (2.3)",
            "hidden": "a HIP unit or mines placed (2.6; revealed at 2.9, ruling R112)",
            "concealed": f"a concealed unit set up: a \"?\" in {e.hex} (2.6, A12.1; revealed at 2.9, ruling R112)",
            }.get(e.what, e.what)
    return f"{s} sealed {what} ({e.commitment[:8]})"


@words("seals_revealed")
def _seals_revealed(e) -> str:
    s = side_words(e)
    n = len(e.openings)
    return f"{s} revealed {n} sealed secret{'s' if n != 1 else ''} at " + (
        "the CG's end" if e.point == StepId.END else f"{e.point}") + (
        f": {'; '.join(_opened_words(o['opening']) for o in e.openings)}" if n else "")


@words("step_left")
def _step_left(e) -> str:
    return f"left step {e.step} for {e.to}" + (f" of firefight {e.firefight}" if e.to == StepId.CP else "")


@words("reverted")
def _reverted(e) -> str:
    f = " (forced across a commencement)" if e.force else ""
    return f"undo of seq {', '.join(map(str, e.seqs))}: {e.reason}{f}"


