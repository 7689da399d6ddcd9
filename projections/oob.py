"""The order of battle: every unit by RG with its status (on map, In Reserve, eliminated, ...)."""
from __future__ import annotations


def oob_rows(st, side: str) -> list[dict]:
    st.load_all()  # the settled units too (a state loaded for a command lacks them)
    rows = []
    for u in st.units.values():
        if u.side != side:
            continue
        flags = [f for f in ("isolated", "encircled", "wounded", "shocked", "recalled", "hip") if getattr(u, f)]
        if u.hardened:
            flags.append(f"hardened x{u.hardened}")
        rows.append({"unit": u.id, "name": u.name, "kind": u.kind, "purchase": u.purchase, "status": u.status,
                     "hex": u.hex, "flags": flags, "eliminated_in": u.eliminated_in})
    return rows


def oob_text(rows: list[dict]) -> str:
    from tabulate import tabulate

    if not rows:
        return "no units yet"
    return tabulate([[r["unit"], r["name"], r["kind"], r["status"], r["hex"] or "", " ".join(r["flags"])]
                      for r in rows], headers=["unit", "counter", "kind", "status", "hex", ""])
