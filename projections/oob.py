"""The order of battle: every unit by RG with its status (on map, In Reserve, eliminated, ...)."""
from __future__ import annotations
from cg.units import PRESENT, Status


_FLAGS = ("isolated", "encircled", "wounded", "shocked", "recalled", "hip", "concealed", "hero", "fanatic", "exited",
          "abandoned")


def oob_rows(st, side: str) -> list[dict]:
    st.load_all()  # the settled units too (a state loaded for a command lacks them)
    rows = []
    for u in st.units.values():
        if u.side != side:
            continue
        flags = []
        if u.isolated or u.encircled or u.wounded or u.shocked or u.recalled or u.hip or u.concealed or u.hero \
                or u.fanatic or u.exited or u.abandoned:  # most units: none
            flags = [f for f in _FLAGS if getattr(u, f)]
            if u.isolated:  # 3.211: Ammunition Shortage in the next firefight
                flags.insert(flags.index("isolated") + 1, "Ammunition Shortage")
        if u.hardened:
            flags.append(f"hardened x{u.hardened}")
        rows.append({"unit": u.id, "name": u.name, "kind": u.kind, "purchase": u.purchase, "status": u.status,
                     "where": where(u), "hex": u.hex, "flags": flags, "eliminated_in": u.eliminated_in})
    return rows


def where(u) -> str:
    """The unit's status as a player says it."""
    if u.status in PRESENT:
        return f"on map {u.hex}" if u.hex else "off map (enters, or in its MLR)"
    if u.status == Status.RESERVE:
        return f"In Reserve {u.hex}" if u.hex else "In Reserve (off map)"
    if u.status == Status.ELIMINATED:
        return f"eliminated (firefight {u.eliminated_in})" if u.eliminated_in else "eliminated"
    if u.status == Status.EXPENDED:
        return f"expended (firefight {u.eliminated_in}, CG7)"
    return u.status  # captured, evacuated, recalled
