"""The PL 2.5 step order (shared/docs/pl25-sequence.md): one `Step` object per step, 2.1 to 3.52, in the
module of its phase (purchase.py 2.1-2.3, before.py 2.4-2.8, end.py 2.9 and the CG's end, reph.py
3.1-3.52) with its events' folds and words (`@on`, `@words`: registry.py; an event written at any step in
anywhere.py), and `pending`, what the current step owes before `plcg next`. Importing this package
registers every fold and words of those modules (cg/evolve.py and projections/words.py import it).

Where `next` goes is the `transitions` machine of cg/machine.py, built from these steps.
"""
from __future__ import annotations

from types import MappingProxyType
from typing import Mapping

from cg.rules import rules_for
from cg.sequence import StepId
from cg.pbem import committed, pending_items
from cg.seal import pending_items as sealed_items
from cg.state import SIDES, CampaignState
from cg.steps import anywhere, before, end, purchase, reph  # noqa: F401  (anywhere: the events of no one step)
from cg.steps.reph import disease_owed  # noqa: F401  (cg/commands/reorganization.py reads it here)
from cg.specs import Item
from cg.steps.step import Owed, Step  # noqa: F401


def leads(steps: tuple[Step, ...]) -> dict[StepId, tuple[tuple, ...]]:
    """Where `next` leads from each step, in order: its own `leads_to` (the edges with conditions), then
    the step declared after it, unless its last edge has no conditions (3.52: 2.1) or it is the last."""
    out = {}
    for i, s in enumerate(steps):
        edges = tuple(s.leads_to)
        if (not edges or len(edges[-1]) > 1) and i + 1 < len(steps):
            edges += ((steps[i + 1].id,),)
        out[s.id] = edges
    return out


# the step order is the order the steps are declared in, phase by phase
STEPS: tuple[Step, ...] = (*purchase.STEPS, *before.STEPS, end.FIREFIGHT_END, *reph.STEPS, end.CG_END)
# a StepId or its stored string: one key (cg/sequence.py); read-only, the fold reads it (no module state)
BY_ID: Mapping[str, Step] = MappingProxyType({s.id: s for s in STEPS})
ORDER = {s.id: i for i, s in enumerate(STEPS)}


def accepted_at(name: str) -> tuple[StepId, ...]:
    """The steps that accept command `name` (their `accepts`), in the step order: what `@command` gives it at
    (cg/commands/base.py). The steps hold it, not the command's spec: a step is the unit of code (adding one
    touches its own module), and cg/specs.py, read at start-up without the steps, cannot import them."""
    return tuple(s.id for s in STEPS if name in s.accepts)


def pending(state: CampaignState, step: Step | None = None) -> list[Item]:
    """Only what the rules make compulsory (cli-contract.md: status `pending`): the current step's
    `owes` (`step`: its Step, looked up by its id unless given), then what play by email owes. Each an
    `Item` (cg/specs.py): a command's spec with its arguments, read as the contract's dict."""
    if state.ended:  # play by email: the secrets left are revealed at the CG's end (ruling R47)
        if state.pbem is not None and state.pbem.sealing:
            return sealed_items(state)
        return []
    step = step or BY_ID.get(state.step)  # None: a step no release knows (cg/sequence.step_id)
    out: list[Item] = step.owes(state, rules_for(state)) if step is not None else []
    if state.pbem is not None:  # play by email: two-party dice committed to owe an answer or a reveal

        out = pending_items(state) + committed(state, out)
    return out


def owed_by(item: Item | dict) -> str | None:
    """The side a `pending` or `options` item is owed by (None: either side may do it, e.g. `plcg end`): an
    `Item` knows it (`Item.by`); a dict is an item as status --json showed it (`plcg status` reads its own)."""
    if isinstance(item, Item):
        return item.by
    side = (item.get("args") or {}).get("side")
    if side in SIDES:
        return side
    first = str(item.get("what", "")).split(" ", 1)[0]
    if first in SIDES:
        return first
    words = str(item.get("command", "")).split()
    return words[2] if len(words) > 2 and words[2] in SIDES else None
