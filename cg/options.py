"""The optional commands a step accepts (`status --json` `options`, cli-contract.md): what a player MAY
record now, beside `pending` (what the step owes). Each item is
`{"command": "plcg buy axis I1", "rule": "2.3", "what": "..."}`.

`purchase_options` is the 2.3 part: the RGs each side may buy now, with their cost after 2.34.
"""
from __future__ import annotations

from cg import tables
from cg.state import SIDES


def rg_unavailable(st, side: str, rg, mode: str | None = None) -> tuple[str, str] | None:
    """(why, rule) when the card's availability keys forbid buying `rg` now; None when they allow it.

    Only the second-round card keys (available_from/until, max_per_reph, reserve): a first-format card
    never sets them, so its campaigns decide as before (ruling R32)."""
    n = st.firefight
    if not rg.available_at(n):
        return f"{rg.id} may be bought at {rg.availability()} (CG Card), not at firefight {n}", "2.3"
    if rg.max_per_reph is not None:
        now = sum(1 for p in st.purchases.values() if p.side == side and p.rg == rg.id and p.firefight == n)
        if now >= rg.max_per_reph:
            return f"{rg.id} may be bought {rg.max_per_reph} time(s) per RePh (CG Card) and has been", "2.3"
    if mode == "reserve" and not rg.reserve:
        return f"{rg.id} may not be bought In Reserve (CG Card: reserve = false)", "2.33"
    return None


def _modes(st, rg) -> list[str]:
    modes = ["entry", "on-map"]
    if st.card.campaign.reserves and rg.reserve and tables.rg_type(rg.id) in tables.RESERVE_TYPES:
        modes.append("reserve")  # 2.33
    return modes


def purchase_options(st) -> list[dict]:
    """At 2.3: every RG a side may buy now (the card's max, per-RePh limit and availability, the
    platoon limit of ruling R12, and its CP left), each with its cost per setup mode after 2.34."""
    if st.ended or st.step != "2.3":
        return []
    out = []
    limit = st.card.campaign.max_infantry_platoons
    for side in SIDES:
        s = st.sides[side]
        for rg in st.card.sides[side].rg:
            bought = st.purchase_count.get(f"{side}:{rg.id}", 0)
            if bought >= rg.max or rg_unavailable(st, side, rg) is not None:
                continue
            if rg.platoons and s.platoons + rg.platoons > limit:
                continue
            costs = {m: tables.setup_cost(rg.kind, rg.id, m, rg.cost)[0] for m in _modes(st, rg)}
            costs = {m: c for m, c in costs.items() if c <= s.cp}
            if not costs:
                continue
            priced = ", ".join(f"{c} CP {m}" for m, c in costs.items())
            out.append({
                "command": f"plcg buy {side} {rg.id}", "rule": "2.3",
                "what": f"{rg.name}: {priced} (2.34); bought {bought} of {rg.max}",
                "side": side, "rg": rg.id, "cost": costs,
            })
    return out


def options(st) -> list[dict]:
    """Every optional command the current step accepts that this module knows of."""
    return purchase_options(st)
