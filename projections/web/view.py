"""What the page shows of a campaign as of one seq: the same read models the CLI prints (status,
roster, order of battle, RG Purchase Record, map, log words), the forms of what the step owes and
accepts, and what changed between two seqs."""
from __future__ import annotations

import re

from cg.evolve import reverted_seqs
from cg.state import active_units
from cg.units import IN_PLAY, PRESENT, Kind
from cg.seal import concealed_stacks
from cg.specs import Item
from projections.maps import map_json, map_svg
from projections.oob import oob_rows
from projections.purchases import fortification_rows, purchase_rows
from projections.roster import TYPE, roster_rows, totals
from projections.status import step_items, viewer_side
from projections.words import summary
from projections.web import forms

LOG_LINES = 200  # the log lines shown up to the seq: the slider and the links reach the rest
OOB_ALL = 300  # an order of battle longer than this shows the units not settled, the rest on asking
PURCHASES_ALL = 60  # an RG Purchase Record longer than this shows this firefight's and the last's

def api_state(st, status_of) -> dict:
    """`GET /api/state`: each part as the CLI's JSON at that seq (cli-contract.md, fourth round)."""
    rows = roster_rows(st)
    from projections import verdict  # lazy: as the CLI's roster

    return {"seq": st.seq, "status": status_of(st),
            "roster": {"rows": rows, "totals": totals(rows), "victory": verdict.victory(st)},
            "oob": {side: oob_rows(st, side) for side in forms.SIDES}, "map": map_json(st)}


def _choices(st, offered: list[Item], mj: dict, me: str | None) -> dict:
    sides = (me,) if me else forms.SIDES
    rgs: dict[str, list] = {side: [] for side in forms.SIDES}
    for o in offered:  # 2.3's RGs to buy, each with its cost per setup mode
        if o.cost is not None and o.side in rgs:
            rgs[o.side].append((o.args.rg, o.what if not o.cost else
                                f"{o.what.split(':')[0]}: " + ", ".join(f"{m} {c} CP" for m, c in o.cost.items())))
    for side in forms.SIDES:  # the RGs bought (leader and OBA DRs name them), where 2.3 offers none
        have = {r for r, _ in rgs[side]}
        for p in st.purchases.values():
            if p.side == side and p.id not in have:
                rgs[side].append((p.id, f"{p.rg} bought in firefight {p.firefight}"))
                have.add(p.id)
    units, in_play = {}, {}
    for side in forms.SIDES:
        mine = sorted((u for u in st.units.values() if u.side == side and u.status in PRESENT), key=lambda u: u.id)
        units[side] = [(u.id, f"{u.name}" + (f" in {u.hex}" if u.hex else "")) for u in mine]
        in_play[side] = [{"id": u.id, "name": u.name, "leader": u.kind == Kind.LEADER, "hex": u.hex or ""}
                         for u in mine]
    return {"sides": sides, "rgs": rgs, "units": units, "in_play": {s: in_play[s] for s in forms.SIDES},
            "hexes": sorted(mj["hexes"], key=_natural),
            "strategic": [(h, mj["control"].get(h, "")) for h in st.card.map.strategic]}


def _natural(h: str) -> tuple:
    """A hex id in reading order: A2 before A10, 24E4 before 24E10."""
    return tuple((0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.findall(r"\d+|\D+", h))


def _forms(items: list[Item], catalogue: dict, choices: dict, st, me: str | None, theirs: bool = True) -> list[dict]:
    """The forms of `items`; by email (`me`), the other player's shown without a form where `theirs`
    (what the step owes), else left out (what it accepts)."""
    out = []
    for item in items:
        other = bool(me) and item.by not in (None, me)
        if other and not theirs:
            continue  # play by email: the other player's to do, shown, not offered
        if item.spec.name == "end":
            spec = st.card.firefight(st.firefight)
            f = forms.end_form(catalogue, choices, spec.turns if spec else None)
        else:
            f = forms.form(item, catalogue, choices)
        if f is None:
            continue
        f.update(title=item.what, rule=item.rule, text=item.command, other=other,
                 runnable=item.runnable is not False, side=item.by,
                 waits=list(item.waits_for))  # ruling R112: given once these sides have revealed
        out.append(f)
    return out


def log_lines(led, at: int, limit: int = LOG_LINES) -> dict:
    """The log up to `at` in the CLI's words (each roll with its dice and DRMs), the last `limit` lines;
    undone events marked with the undo's seq and reason."""
    reverts = led.store.reverts(until=at)
    undone = reverted_seqs(reverts)
    why: dict = {}
    for seq, _b, _t, p in reverts:
        for s in p.get("seqs", ()):
            if s in undone:
                why[s] = (seq, p.get("reason", ""))
    since = max(0, at - limit)
    lines = []
    for r in led.store.read(since=since, until=at):
        line = {"seq": r.seq, "firefight": r.firefight, "step": r.step, "type": r.type,
                "words": summary(r.type, r.payload), "undone": r.seq in undone}
        if r.seq in why:
            line["undone_by"], line["undone_why"] = why[r.seq]
        if r.type == "reverted":
            line["reason"] = r.payload.get("reason", "")
        lines.append(line)
    return {"lines": lines, "from": since + 1, "undone": len(undone)}


def _width(svg: str) -> float:
    """The drawn map's width (its `width` attribute): a map of boards side by side is scrolled, not shrunk."""
    m = re.search(r'width="([0-9.]+)"', svg[:400])
    return float(m.group(1)) if m else 0.0


def svg_key(st) -> tuple:
    """What the map's SVG is drawn from (projections/maps.map_svg): two seqs with the same draw the same."""
    units = tuple(sorted((u.hex, u.side, u.name) for u in st.units.values() if u.hex and u.status in IN_PLAY))
    terrain = tuple(sorted((h, tuple(map(str, items))) for h, items in st.ground.terrain.items()))
    hidden = tuple(sorted((h, tuple(sides)) for h, sides in concealed_stacks(st).items()))  # ruling R112: "?" stacks
    return (st.card.campaign.name, st.firefight, st.step, tuple(sorted(st.ground.control.items())), terrain, units,
            tuple(sorted(st.strategic())), hidden)


def _oob(st, side: str, everything: bool) -> tuple[list, int]:
    """SIDE's order of battle as the CLI lists it; of a long campaign (over OOB_ALL units) unless
    `everything`, only the units not settled (in play, or lost in this firefight or the last: what a
    player looks for), and how many are left out."""
    rows = oob_rows(st, side)
    if everything or len(rows) <= OOB_ALL:
        return rows, 0
    live = {u.id for u in active_units(st)[0] if u.side == side}
    shown = [r for r in rows if r["unit"] in live]
    return shown, len(rows) - len(shown)


def _purchases(st, side: str, viewer, everything: bool) -> dict:
    """SIDE's RG Purchase Record and Fortification Points as `plcg purchases` shows them; of a long campaign
    (over PURCHASES_ALL rows) unless `everything`, this firefight's and the last's, and how many are left out."""
    rows, forts = purchase_rows(st, side, False, viewer), fortification_rows(st, side, False, viewer)
    if everything or len(rows) + len(forts) <= PURCHASES_ALL:
        return {"rows": rows, "forts": forts, "hidden": 0}
    recent = st.firefight - 1
    shown = [r for r in rows if (r["firefight"] or 0) >= recent]
    kept = [f for f in forts if (f.get("firefight") or 0) >= recent]
    return {"rows": shown, "forts": kept, "hidden": len(rows) + len(forts) - len(shown) - len(kept)}


def page(st, led, status_of, catalogue: dict, key=None, svg=map_svg, everything: bool = False) -> dict:
    """Everything the page shows of `st` (the campaign as of st.seq); `svg(st)` draws the map;
    `everything`: every unit of a long campaign's order of battle."""
    me = viewer_side(st, key)
    owes, offered = step_items(st, me)  # worked out once: the status shown and the forms (a form only where
    status = status_of(st, (owes, offered))  # the catalogue has the command: forms.form)
    mj = map_json(st)
    choices = _choices(st, offered, mj, me)
    rows = roster_rows(st)
    viewer = me if (st.pbem is not None and not st.pbem.sealing) else None  # as `plcg purchases` with a key
    owed = {p.command for p in owes}  # `end` is owed and offered: shown once
    oob = {side: _oob(st, side, everything) for side in forms.SIDES}
    return {
        "status": status, "where": f"FF {st.firefight} · {st.step}" if not st.ended else f"FF {st.firefight} · end",
        "type_words": TYPE.get(status["type"], status["type"] or ""),
        "roster": rows, "totals": totals(rows), "me": me,
        "oob": {side: rows for side, (rows, _n) in oob.items()},
        "oob_hidden": {side: n for side, (_rows, n) in oob.items()},
        "purchases": {side: _purchases(st, side, viewer, everything) for side in forms.SIDES},
        "map_svg": (drawn := svg(st)), "map": mj, "map_wide": _width(drawn) > 1600, "choices": choices,
        "pending": _forms(owes, catalogue, choices, st, me),
        "options": _forms([o for o in offered if o.command not in owed], catalogue, choices, st, me, theirs=False),
        "log": log_lines(led, st.seq),
    }


def diff(a, b, status_of) -> dict:
    """What changed from state `a` to state `b`: each side's CP, ELR, SAN and CG TVP, control, units."""
    sa, sb = status_of(a), status_of(b)
    sides = []
    for side in forms.SIDES:
        for k, label in (("cp", "CP"), ("elr", "ELR"), ("san", "SAN"), ("tvp_total", "CG TVP"), ("fp", "FP")):
            x, y = sa["sides"][side].get(k), sb["sides"][side].get(k)
            if x != y:
                sides.append({"side": side, "what": label, "from": x, "to": y})
    ca, cb = dict(a.ground.control), dict(b.ground.control)
    control = [{"hex": h, "from": ca.get(h) or "", "to": cb.get(h) or ""}
               for h in sorted(set(ca) | set(cb)) if ca.get(h) != cb.get(h)]
    units = []
    for side in forms.SIDES:
        ua = {r["unit"]: r for r in oob_rows(a, side)}
        ub = {r["unit"]: r for r in oob_rows(b, side)}
        for uid in sorted(set(ua) | set(ub)):
            x, y = ua.get(uid), ub.get(uid)
            if x is None:
                units.append({"side": side, "unit": uid, "name": y["name"], "from": "", "to": y["where"]})
            elif y is None:
                units.append({"side": side, "unit": uid, "name": x["name"], "from": x["where"], "to": "gone (undone)"})
            elif (x["where"], x["name"], x["flags"]) != (y["where"], y["name"], y["flags"]):
                units.append({"side": side, "unit": uid, "name": y["name"],
                              "from": " ".join([x["name"], x["where"], *x["flags"]]),
                              "to": " ".join([y["name"], y["where"], *y["flags"]])})
    where = [f"FF {s['firefight']} · {s['step']}" for s in (sa, sb)]
    return {"from": a.seq, "to": b.seq, "where": where, "sides": sides, "control": control, "units": units}
