"""The CG's verdict in words (contract: `victory` in `status --json` / `roster --json`; text status, roster,
the AAR): who won the CG and why, and each Victory Condition of the card with where it stands."""
from __future__ import annotations

from cg import victory as vc
from projections.words import SIDE


def _condition_words(c: dict) -> str:
    who = SIDE[c["side"]]
    if c["kind"] == "hold":
        held = f" (holds {', '.join(c['held'])})" if c["held"] and not c["met"] else ""
        return f"{who} controls {', '.join(c['hexes'])} at the CG's end{held}"
    if c["kind"] == "tvp":
        return f"{who} has at least {c['at_least']} CG TVP at the CG's end (has {c['has']})"
    if c["kind"] == "cvp_ratio":
        return (f"{who} inflicts at least {c['ratio']} CVP for each CVP lost over the CG "
                f"(inflicted {c['inflicted']}, lost {c['lost']})")
    needs = []
    if c["hexes"]:
        needs.append(f"controls {', '.join(c['hexes'])}")
    if c["at_least"] is not None:
        needs.append(f"has at least {c['at_least']} CG TVP")
    return f"CG Objective {c['when']}: {who} " + " and ".join(needs) + " (ends the CG, 1.3)"


def conditions(st) -> list[dict]:
    """Every Victory Condition of the card, each with `words` and `met` (None: not yet checked)."""
    v = st.card.victory
    if v is None:
        return []
    rows = vc.end_conditions(st) + vc.objective_rows(st)
    default = {"kind": "default", "side": v.default, "when": "end", "met": None}
    rows.append(default)
    for r in rows:
        r["words"] = _condition_words(r) if r["kind"] != "default" else _default_words(v.default)
    return rows


def _default_words(default: str | None) -> str:
    if default in ("axis", "allied"):
        return f"otherwise {SIDE[default]} wins"
    if default == "tvp":
        return "otherwise the side with the higher CG TVP Total wins (equal totals: a draw)"
    return "otherwise the CG is a draw"


def victory(st) -> dict:
    """`{"winner", "why", "conditions"}`: winner None until the CG has ended, or where the card states
    no Victory Conditions and no side conceded."""
    conds = conditions(st)
    if not st.ended:
        if st.card.victory is None:
            why = "the CG Card states no CG Victory Conditions: plcg cannot name a winner (1.3)"
        else:
            standing, basis = vc.decide(st, "last firefight")
            why = "the CG goes on (1.3); were it to end now: " + _why(st, standing, basis, conds)
            if vc.objectives_fulfilled(st):  # ruling R74: checked when `next` leaves this firefight's 3.52
                why += (f"; a CG Objective after firefight {st.firefight} is fulfilled as things stand: "
                        "the CG ends when `next` leaves 3.52")
        return {"winner": None, "why": why, "conditions": conds}
    winner, basis = vc.decide(st, st.end_reason)
    return {"winner": winner, "why": _why(st, winner, basis, conds), "conditions": conds}


def _why(st, winner, basis: str, conds: list[dict]) -> str:
    name = "a draw" if winner == "draw" else f"{SIDE[winner]} wins" if winner else "no winner"
    if basis == "concession":
        return f"{SIDE[winner]} wins: {SIDE[st.conceded_by]} conceded (1.3)"
    if basis == "no conditions":
        return "the CG Card states no CG Victory Conditions: plcg cannot name a winner (1.3)"
    if basis == "objective":
        met = [c for c in conds if c["kind"] == "objective" and c["after"] == st.firefight and c["side"] == winner]
        return f"{name}: " + "; ".join(c["words"] for c in met)
    met = [c for c in conds if c["kind"] not in ("default", "objective") and c["met"]]
    if basis == "both":
        return f"{name}: both sides meet a condition (ruling R74): " + "; ".join(c["words"] for c in met)
    if basis == "condition":
        return f"{name}: " + "; ".join(c["words"] for c in met if c["side"] == winner)
    v = st.card.victory
    if v.default in ("axis", "allied"):
        return f"{name}: no side meets a Victory Condition; the card gives the CG to {SIDE[v.default]} then"
    if v.default == "tvp":
        return (f"{name}: no side meets a Victory Condition; then the higher CG TVP Total wins: "
                f"Axis {st.sides['axis'].tvp_total}, Allied {st.sides['allied'].tvp_total}")
    return f"{name}: no side meets a Victory Condition"


def victory_line(st) -> str:
    """One line for text status, roster and the AAR."""
    return f"CG verdict: {victory(st)['why']}"


def card_lines(card) -> list[str]:
    """The card's Victory Conditions for `card show` and the AAR: its printed text, then what plcg decides."""
    v = card.victory
    if v is None:
        return ["CG Victory Conditions (1.3): the card states none; plcg names no winner but by concession"]
    out = ["CG Victory Conditions (1.3, ruling R74):"]
    if v.text:
        out.append(f"  as printed: {v.text}")
    for side in ("axis", "allied"):
        if side in v.hold:
            out.append(f"  {SIDE[side]} wins controlling {', '.join(v.hold[side])} at the CG's end")
        if side in v.tvp:
            out.append(f"  {SIDE[side]} wins with at least {v.tvp[side]} CG TVP at the CG's end")
        if side in v.cvp_ratio:
            out.append(f"  {SIDE[side]} wins inflicting at least {v.cvp_ratio[side]} CVP for each CVP lost over the CG")
    out.append(f"  {_default_words(v.default)}")
    for o in v.objectives:
        needs = ([f"controls {', '.join(o.hold)}"] if o.hold else []) + \
            ([f"has at least {o.tvp} CG TVP"] if o.tvp is not None else [])
        out.append(f"  CG Objective after firefight {o.after}: {SIDE[o.side]} " + " and ".join(needs)
                   + " — the CG ends at once" + (f" ({o.text})" if o.text else ""))
    return out
