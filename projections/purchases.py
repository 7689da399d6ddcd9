"""The RG Purchase Record (1.4): each RG bought, per side. `plcg purchases SIDE` is SIDE's record; a viewer
of the other side sees its purchases once revealed (set up, entered, or the firefight played), or with
--reveal (ruling R10). The viewer is the side of the player's key, or `--as`; without either, SIDE itself."""
from __future__ import annotations
from cg.items import DISGUISED
from cg.units import Kind


def purchase_rows(st, side: str, reveal: bool = False, viewer: str | None = None) -> list[dict]:
    """SIDE's purchases as `viewer` may see them (None: SIDE itself, its own record; ruling R79)."""
    st.load_all()  # the settled units too (a state loaded for a command lacks them)
    rows = []
    units = st.units
    names: dict = {}  # (side, RG id) -> the RG's name: a thousand purchases of a dozen RGs
    own = viewer is None or viewer == side
    for p in st.purchases.values():
        if p.side != side or not (own or p.revealed or reveal):  # whose record: SIDE's (issue 27 item 11)
            continue
        name = names.get((p.side, p.rg))
        if name is None:
            rg = st.card.sides[p.side].group_by_id(p.rg)
            name = names[(p.side, p.rg)] = rg.name if rg else p.rg
            names[(p.side, p.rg, "strength")] = getattr(rg, "strength", None)
        rows.append({
            "side": p.side, "purchase": p.id, "rg": p.rg, "name": name, "firefight": p.firefight,
            "mode": p.mode, "cost": p.cost, "oba": p.oba, "leaders": list(p.leaders), "fp": p.fp,
            # the leaders are the `leaders` column's, not units (issue 27 item 5)
            "units": [units[(p.side, u)].name for u in p.units
                      if (p.side, u) in units and units[(p.side, u)].kind != Kind.LEADER],
            "revealed": p.revealed, "lost_idle": p.lost_idle,
            "strength": names[(p.side, p.rg, "strength")],  # the card's OBA strength (cg-card.md: `strength`)
        })
    if st.pbem is not None:  # ruling R47: a purchase this copy cannot open shows as sealed
        for c, r in st.pbem.seals.items():
            if r.side == side and r.what == "purchase" and not r.opened:
                rows.append({"side": side, "purchase": None, "rg": None, "name": None, "firefight": r.ff,
                             "mode": None, "cost": None, "oba": None, "leaders": None, "fp": None, "units": None,
                             "revealed": False, "lost_idle": None, "sealed": True, "commitment": c[:16]})
    return rows


def fortification_rows(st, side: str, reveal: bool = False, viewer: str | None = None,
                       reader: str | None = None) -> list[dict]:
    """2.38: what FP SIDE spent on (type, strength, hex, HIP): all of it for SIDE itself; for a viewer of
    the other side, once its firefight was played or with --reveal (ruling R10). `reader`: the player whose
    copy it is (by email, the side of the key), who reads the other side's Dummy Minefields as Known Minefields
    as a viewer does (ruling R22)."""
    played = {ff.n for ff in st.firefights if ff.turn is not None}
    own = viewer is None or viewer == side
    rows = [f.data() for f in st.ground.fortifications if f.side == side and (own or reveal or f.firefight in played)]
    if (viewer or reader) in (None, side) or st.ended:
        return rows
    # ruling R22: the other side's Dummy Minefields read as Known Minefields, whose strength and FP it does not read
    # (--reveal shows what was bought, not what a dummy is: that waits for the CG's end)
    return [{**r, "kind": "known_minefield", "cost": None, "detail": {}} if r["kind"] in DISGUISED else r
            for r in rows]
