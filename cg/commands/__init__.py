"""One `decide` per command: check the input (BadInput, exit 2), then the step order and the rules
(Refused, exit 3), and return the events the command records. Pure: no I/O, the state is not mutated.

A command is a plain dict as the CLI parsed it ({"name": "cp", "side": "axis", "dice": "3,4"}); the
log keeps it with its events so the audit can decide it again against the same history.

The commands live in files named after their step group:

| file | steps |
|---|---|
| `base.py` | the registry, `decide`, argument checks shared by every command |
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
from cg.commands import (  # noqa: F401  (importing a step group registers its commands)
    casualties, clearance, deployment, determination, firefight_end, flow, patrols, pbem, purchase,
    reorganization,
)
from cg.commands.base import HANDLERS, STEPS_OF, decide, side_arg  # noqa: F401
from cg.commands.clearance import CLEAR_ITEMS  # noqa: F401
from cg.commands.flow import start_event  # noqa: F401
from cg.commands.pbem import decide_all  # noqa: F401
from cg.commands.undo import decide_undo  # noqa: F401
