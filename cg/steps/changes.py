"""What several steps' events do alike to the state (cg/steps/registry.py `@on`): a unit's counter changed or
eliminated, a RePh loss counted (3.11), the SWs a unit carries moved with it (ruling R86), a fortification
standing in its hex; and the members the folds set a unit's status and kind to."""
from __future__ import annotations

from typing import TYPE_CHECKING

from cg.items import Kept
from cg.rules import CVP_RULES, rules_for
from cg.state import loss_cvp, terrain_changed
from cg.units import PRESENT, Kind, Status

if TYPE_CHECKING:
    from events.types import UnitChange

# the members a handler sets a unit's status (_W) and kind (_K) to, and compares them with (str enums: the
# snapshot and the digest store their words, cg/snapshot.py _SCALARS; module constants: `Status.RESERVE` is
# a lookup through the enum's class, ~70 ns on 3.11, paid per event and per unit in _ended's walk of every unit)
ON_MAP_W, AVAILABLE_W, RESERVE_W = Status.ON_MAP, Status.AVAILABLE, Status.RESERVE
ELIMINATED_W, CAPTURED_W, EVACUATED_W = Status.ELIMINATED, Status.CAPTURED, Status.EVACUATED
EXPENDED_W, RECOMBINED_W, RECALLED_W = Status.EXPENDED, Status.RECOMBINED, Status.RECALLED
LEADER_K, SQUAD_K = Kind.LEADER, Kind.SQUAD


def in_hex(st, side: str, kind: str, hx: str, detail) -> None:
    strength = (detail or {}).get("factors")
    st.ground.terrain.setdefault(hx, []).append(Kept(kind, side, str(strength) if strength else None))
    terrain_changed(st)


def follow(u, carried) -> None:
    """Ruling R86: the SWs a unit possessed stand where it now stands, hidden as it is (a unit eliminated
    drops them where they were)."""
    if u.status not in PRESENT:
        return
    for w in carried:
        w.hex, w.hip, w.concealed = u.hex, u.hip, u.concealed


def unit_change(st, c: UnitChange, reduced: bool) -> None:
    """Casualty Reduction or ELR replacement: a new counter, a wound, or the unit eliminated."""
    u = st.unit(c.unit, c.side)
    if c.to == "eliminated":
        u.status, u.eliminated_in = ELIMINATED_W, st.firefight
        st.ff.lost.append([c.side, c.unit])
    elif c.to == "wounded":
        u.wounded = True
    else:
        u.name = c.to
        if reduced and u.kind == Kind.SQUAD:
            u.kind = Kind.HALF_SQUAD


def reph_loss(st, u, to: str) -> None:
    """3.11 "All RePh losses count for the previous firefight for all purposes" (revision 3, ruling R58): a
    loss the ledger decides in the RePh (3.17, 3.19, 3.21, 3.52) adds its CVP (ruling R39's values, taken
    before the counter changes) to the firefight's, and a winner decided by 1.31 is decided again."""
    if not rules_for(st).reph_loss_counts(st.step):
        return
    ff = st.ff
    ff.cvp_lost[u.side] += loss_cvp(u, to)
    if ff.winner_rule in CVP_RULES:
        ff.winner, ff.winner_rule = rules_for(st).winner_by_cvp(ff)

