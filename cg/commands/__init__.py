"""One `decide` per command: check the input (BadInput, exit 2), then the step order and the rules
(Refused, exit 3), and return the events the command records. Pure: no I/O, the state is not mutated.

A command is a plain dict as the CLI parsed it ({"name": "cp", "side": "axis", "dice": "3,4"}); the
log keeps it with its events so the audit can decide it again against the same history.

The commands live in files named after their step group:

| file | steps |
|---|---|
| `base.py` | the registry (a step group's module imported when one of its commands runs), `decide`, argument checks |
| `flow.py` | `next`, `concede`, the CG's end, what a step records when it is left |
| `purchase.py` | 2.1 CP, 2.2 weather, 2.3 purchases (2.31 patrols, 2.35 OBA, 2.36 leaders, 2.38 FP, Attack Option) |
| `determination.py` | 2.41 firefight type, 2.42 night |
| `deployment.py` | 2.5 / 3.2 redeployment and its Option, 2.6 setup |
| `patrols.py` | 2.7 patrols |
| `firefight_end.py` | 2.9 the firefight's end |
| `casualties.py` | 3.1 casualties, 3.17 Encircled, 3.19 Shock |
| `reorganization.py` | 3.32 evacuation, 3.41-3.47 |
| `clearance.py` | 3.52 clearance, CG5 rubble and flames |
| `undo.py` | undo |
| `pbem.py` | play by email: signed heads, two-party dice answers and reveals (cg/pbem.py) |
"""
import importlib

from cg.commands.base import HANDLERS, STEPS_OF, decide, side_arg  # noqa: F401

# a step group is imported when one of its commands runs (cg/commands/base.py's registry, by the specs'
# `module`); these names are read here, each from its own module, when first asked for
_FROM = {"CLEAR_ITEMS": "clearance", "start_event": "flow", "decide_all": "pbem", "decide_undo": "undo"}


def __getattr__(name: str):
    if name in _FROM:
        return getattr(importlib.import_module(f"cg.commands.{_FROM[name]}"), name)
    raise AttributeError(f"module 'cg.commands' has no attribute {name!r}")
