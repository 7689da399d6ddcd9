"""The CG Roster (1.4): one row per firefight and side, and the CG's running totals."""
from __future__ import annotations

from cg.state import SIDES
from cg.seal import public_cp, unknown_figures

TYPE = {"axis_assault": "Axis Assault", "allied_assault": "Allied Assault", "dual": "Dual Attack", "idle": "Idle",
        None: ""}


def roster_rows(st) -> list[dict]:
    st.load_all()  # the settled units too (a state loaded for a command lacks them)
    hidden = unknown_figures(st)  # ruling R47: what this copy cannot know shows as None, "sealed"
    given = public_cp(st)  # sealed CP the card gives: public (issue 38), added where the fold could not
    rows = []
    cg_tvp = {side: 0 for side in SIDES}  # 3.33: the CG total so far; a firefight not yet awarded carries it
    for ff in st.firefights:
        for side in SIDES:
            cg_tvp[side] = max(cg_tvp[side], ff.tvp_total[side])
            rows.append({
                "firefight": ff.n, "side": side, "date": ff.date, "time": ff.time,
                "type": ff.type, "attacker": ff.attacker,
                "elr": ff.elr.get(side), "san": ff.san.get(side),
                "cp_gained": ff.cp_gained[side], "cp_spent": ff.cp_spent[side], "cp_left": ff.cp_left[side],
                "cvp_lost": ff.cvp_lost[side] if ff.turn is not None or ff.winner or ff.type == "idle" else None,  # ended (a draw too: R5)
                "tvp": ff.tvp[side], "cg_tvp": cg_tvp[side],
                "winner": ff.winner,
            })
            if given:
                row = rows[-1]
                if (ff.n, side) in given:
                    row["cp_gained"] = given[(ff.n, side)]
                row["cp_left"] += sum(cp for (n, s), cp in given.items() if s == side and n <= ff.n)
            if hidden:
                gone = [k for k in ("cp_gained", "cp_spent", "cp_left") if (ff.n, side, k) in hidden]
                if gone:
                    rows[-1].update({k: None for k in gone}, sealed=gone)
    return rows


def totals(rows: list[dict]) -> dict:
    out = {}
    for side in SIDES:
        mine = [r for r in rows if r["side"] == side]
        out[side] = {
            "cp_gained": None if any(r["cp_gained"] is None for r in mine) else sum(r["cp_gained"] for r in mine),
            "cp_spent": None if any(r["cp_spent"] is None for r in mine) else sum(r["cp_spent"] for r in mine),
            "cvp_lost": sum(r["cvp_lost"] or 0 for r in mine),
            "wins": len({r["firefight"] for r in mine if r["winner"] == side}),
            "cg_tvp": mine[-1]["cg_tvp"] if mine else 0,
        }
    return out
