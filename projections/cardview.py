"""`plcg card show`: a CG Card in words or as JSON (sides, RGs with cost, limits and availability, the OB
given, firefights, map). Reads the card values only (cg/card.py)."""
from __future__ import annotations

from cg import tables
from cg.card import Card, card_to_dict, describe
from projections.verdict import card_lines


def _forts(limits: dict) -> str:
    """A fortifications table: each kind and its limit; a Dummy Minefield's price said as one (ruling R22)."""
    said = [f"{k} {v}" for k, v in limits.items() if k != "dummy_minefield_fp"]
    if "dummy_minefield_fp" in limits:
        said.append(f"a dummy minefield costs {limits['dummy_minefield_fp']} FP (ruling R22)")
    return ", ".join(said) or "none"


def card_json(card: Card) -> dict:
    d = card_to_dict(card)
    d["description"] = describe(card)
    for side, spec in card.sides.items():
        for rg, out in zip(spec.rg, d["sides"][side]["rg"]):
            out["costs"] = {m: tables.setup_cost(rg.kind, rg.id, m, rg.cost)[0] for m in ("entry", "on-map", "reserve")}
            out["availability"] = rg.availability()
    return d


DRMS = (("cp_drm", "CP", "2.12"), ("leader_drm", "leader", "2.361"), ("oba_drm", "OBA", "2.351"),
        ("historical_drm", "historical", "2.351, 2.361, 3.41, 3.44, 3.47"), ("promotion_drm", "promotion", "3.44"))


def _side_lines(spec, n_firefights: int) -> list[str]:
    """A side's DRMs, the CP the card gives instead of the 2.12 roll, and its own third-round limits."""
    out = ["  DRMs: " + ", ".join(f"{word} {getattr(spec, key):+d} ({rule})" for key, word, rule in DRMS)]
    if spec.cp_provided:
        given = ", ".join(f"firefight {i} {cp}" for i, cp in enumerate(spec.cp_provided, 2))
        rolled = " (2.12 roll for the rest)" if len(spec.cp_provided) < n_firefights - 1 else ""
        out.append(f"  CP given by the card instead of the 2.12 roll (2.1 EXC): {given}{rolled}")
    if not spec.reserve:
        out.append("  buys nothing In Reserve (2.33)")
    if spec.booby_traps is not None:
        bt = {"none": "not allowed", "allowed": "allowed"}.get(spec.booby_traps, f"allowed, level {spec.booby_traps}")
        out.append(f"  Booby Traps {bt} (CG12, B28.9)")
    if spec.fortifications is not None:
        out.append("  fortifications (2.38, whole CG): " + _forts(spec.fortifications))
    return out


def _contents(rg) -> str:
    """What an RG brings, its OBA strength and leader DRs (2.36), in one line."""
    bits = [", ".join(rg.units) if rg.units else ("no units" if rg.kind != "fortification_points" else f"{rg.fp} FP")]
    if rg.kind == "fortification_points" and rg.units:
        bits.append(f"{rg.fp} FP")
    if rg.strength:
        bits.append(f"strength {rg.strength}" + (" (2.35)" if rg.kind == "oba" else ""))
    if rg.leader_drs:
        bits.append(f"{rg.leader_drs} leader DR (2.36)")
    return "brings " + "; ".join(bits)


def card_text(card: Card) -> str:
    c = card.campaign
    lines = [f"{c.name} — {describe(card)}"]
    extra = []
    if c.theater:
        extra.append(f"theater {c.theater}" + (" (2.74 PTO DRMs)" if c.pto else ""))
    extra.append(f"Reserves {'allowed' if c.reserves else 'not allowed'} (2.33)")
    extra.append(f"patrols {c.patrols_per_reph} per RePh (2.31)")
    extra.append(f"at most {c.max_infantry_platoons} infantry platoons per purchase (2.3)")
    if c.booby_traps is not None:
        extra.append(f"Booby Traps {'allowed' if c.booby_traps else 'not allowed'} (CG12)")
    if c.disease:
        extra.append("Disease (3.41)")
    lines.append("  " + "; ".join(extra))
    if c.fortifications is not None:
        lines.append("  fortifications (2.38, per side, whole CG): " + _forts(c.fortifications))
    for rule in c.ssr:
        lines.append(f"  SSR: {rule}")
    for side in ("axis", "allied"):
        for i, b in enumerate([b for b in c.balance if b.side == side], 1):
            key = f"{side}:{i}"
            chosen = " (in force)" if key in c.balance_chosen else ""
            lines.append(f"  balance {key} (1.3, plcg new --balance {key}){chosen}: {b.text}")
    lines.append("")
    lines.append("Firefights:")
    for i, ff in enumerate(card.firefights, 1):
        bits = [ff.date, ff.time, f"weather {card.weather_at(i)}"]
        if ff.moon:
            bits.append(f"moon {ff.moon}")
        if ff.turns:
            bits.append(f"{ff.turns} turns")
        if ff.attacker:
            bits.append(f"historical ATTACKER {ff.attacker}")
        lines.append(f"  {i:>2}. " + ", ".join(bits))
        for rule in ff.fsr:
            lines.append(f"      FSR: {rule}")
    m = card.map
    lines.append("")
    lines.append(f"Map: {m.describe()}; friendly edges "
                 + ", ".join(f"{s} {e}" for s, e in m.friendly_edge.items()))
    lines.append(f"  Strategic Terrain (1.4): {', '.join(m.strategic) or 'none'}")
    if m.tvp:
        lines.append("  TVP (3.33): " + ", ".join(f"{h} {v}" for h, v in m.tvp.items()))
    for key in ("buildings", "stone", "woods", "orchard", "brush", "grain", "roads", "bridges", "water", "frozen"):
        hexes = getattr(m, key)
        if hexes:
            lines.append(f"  {key}: {', '.join(hexes)}")
    for side, items in m.entry.items():
        lines.append(f"  {side} Entry Area (1.4): {', '.join(items)}")
    if m.hills:
        lines.append("  hills (level): " + ", ".join(f"{h} {v}" for h, v in m.hills.items()))
    for kind, sides in m.hexsides.items():
        lines.append(f"  {kind} hexsides: {', '.join(sides)}")
    for side, spec in card.sides.items():
        lines.append("")
        lines.append(f"{side}: {spec.nationality}, ELR {spec.elr}, SAN {spec.san}, initial CP {spec.initial_cp}, "
                     f"Attack Option {spec.attack_cost} CP, patrol {spec.patrol_cost} CP; controls "
                     + (", ".join(spec.control) or "nothing"))
        lines.extend(_side_lines(spec, len(card.firefights)))
        for g in spec.ob:
            where = f"sets up in {', '.join(g.hexes)}" if g.setup == "on-map" else f"enters on turn {g.enters}"
            if g.area:
                where = f"sets up in its area {', '.join(g.area)}" + (f" ({', '.join(g.hexes)})" if g.hexes else "")
            lines.append(f"  OB given {g.id} {g.name}: {', '.join((*g.units, *g.leaders))}; {where}; "
                         f"{g.leader_drs} leader DR (2.36)")
        for rg in spec.rg:
            costs = {mode: tables.setup_cost(rg.kind, rg.id, mode, rg.cost)[0] for mode in ("entry", "on-map", "reserve")}
            limits = [f"max {rg.max}"]
            if rg.max_per_reph:
                limits.append(f"{rg.max_per_reph} per RePh")
            if not rg.reserve:
                limits.append("never In Reserve")
            if rg.commissar:
                limits.append("Commissar")
            if rg.assault_engineers:
                limits.append("Assault Engineers (3.52)")
            lines.append(f"  {rg.id:5} {rg.name}: {rg.cost} CP (entry {costs['entry']}, on map {costs['on-map']}, "
                         f"reserve {costs['reserve']}); {', '.join(limits)}; {rg.availability()}")
            lines.append(f"        {_contents(rg)}")
    for nat, entries in card.counters.items():
        lines.append("")
        lines.append(f"Counters of {nat} (ruling R34, over the ledger's table):")
        for name, entry in entries.items():
            lines.append(f"  {name}: " + ", ".join(f"{k} {v}" for k, v in entry.items()))
    lines += ["", *card_lines(card)]  # ruling R74: the card's Victory Conditions, as printed and as decided
    return "\n".join(lines)
