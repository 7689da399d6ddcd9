"""The text tables of `plcg roster`, `purchases` and `oob` (tabulate, ~30 ms at import): only their text output
imports this module (cli.py's USES); their --json and the AAR read the rows alone."""
from __future__ import annotations

from tabulate import tabulate

from projections.roster import TYPE, totals


def _sealed(x):
    return "sealed" if x is None else x


def roster_text(st, rows: list[dict]) -> str:
    table = []
    for r in rows:
        table.append([
            r["firefight"] if r["side"] == "axis" else "", r["date"] if r["side"] == "axis" else "",
            r["time"] if r["side"] == "axis" else "", TYPE.get(r["type"], r["type"]) if r["side"] == "axis" else "",
            r["side"], r["elr"] if r["elr"] is not None else "", r["san"] if r["san"] is not None else "",
            *("sealed" if r[k] is None else r[k] for k in ("cp_gained", "cp_spent", "cp_left")),
            "" if r["cvp_lost"] is None else r["cvp_lost"],
            r["tvp"], r["cg_tvp"], "won" if r["winner"] == r["side"] else "",
        ])
    head = ["FF", "date", "time", "type", "side", "ELR", "SAN", "CP+", "CP-", "CP left", "CVP lost", "TVP",
            "CG TVP", "result"]
    t = totals(rows)
    foot = "\n".join(
        f"{side}: CP gained {_sealed(v['cp_gained'])}, spent {_sealed(v['cp_spent'])}, CVP lost {v['cvp_lost']}, "
        f"firefights won {v['wins']}, CG TVP {v['cg_tvp']}" for side, v in t.items())
    return f"CG Roster — {st.card.campaign.name}\n" + tabulate(table, headers=head) + "\n" + foot


def purchase_text(rows: list[dict], forts: list[dict] | None = None) -> str:
    if not rows:
        return "no purchases to show"
    extra = ""
    if forts:
        extra = "\n\nFortifications (2.38):\n" + tabulate(
            [[f["firefight"], f["side"], f["kind"], f["hex"] or "(placed at setup)", f["cost"],
              " ".join(f"{k}={v}" for k, v in f["detail"].items()), f["unit"] or ""] for f in forts],
            headers=["FF", "side", "kind", "hex", "FP", "detail", "HIP unit"])
    table = [[r["firefight"], r["side"], f"(sealed {r['commitment'][:8]})", "(sealed until revealed, R47)", "", "",
              "", "", "", ""] if r.get("sealed") else
             [r["firefight"], r["side"], r["purchase"], r["name"], r["mode"], r["cost"],
              " ".join(str(x) for x in (r.get("strength"), r["oba"]) if x),
              " ".join(r["leaders"]), r["fp"] or "", ", ".join(r["units"])] for r in rows]
    return tabulate(table, headers=["FF", "side", "id", "RG", "setup", "CP", "OBA", "leaders", "FP", "units"]) + extra


def oob_text(rows: list[dict]) -> str:
    if not rows:
        return "no units yet"
    return tabulate([[r["unit"], r["name"], r["kind"], r["where"], " ".join(r["flags"])]
                      for r in rows], headers=["unit", "counter", "kind", "status", ""])
