"""`plcg dice-stats`: every roll of the CG against fair dice.

Each roll recorded in the log counts, undone ones too (a player who undoes until the dice are kind
shows here as in the audit's notes): its side, its kind (the command that rolled it: `elr`, `cp`,
`leader`, ...; a two-party roll decided by a reveal, a claim or an answer counts as the command it
decides), and its dice, each die counted apart (a DR's white and colored die, a dr's die). A dr's total is
uniform on 1-6, a DR's (white + colored) triangular on 2-12. For each, counts per total against
the expected counts, and Pearson's chi-square with its p-value: the probability that fair dice
stray at least this far. The p-value is the chi-square survival function Q(df/2, x/2), the
regularized upper incomplete gamma function, computed here (series below a+1, Lentz's continued
fraction above; Numerical Recipes 6.2) rather than importing scipy for one number.
"""
from __future__ import annotations

import math
import textwrap

from events.roll import roll_source  # the one home of a roll's source (the audit in cg/app reads it too)

# the chance of each total: a dr 1..6, a DR 2..12
DR_P = {t: (6 - abs(t - 7)) / 36 for t in range(2, 13)}
DR1_P = {t: 1 / 6 for t in range(1, 7)}


def gamma_q(a: float, x: float) -> float:
    """The regularized upper incomplete gamma function Q(a, x) = Γ(a, x) / Γ(a)."""
    if a <= 0:
        raise ValueError("a must be positive")
    if x <= 0:
        return 1.0
    lead = math.exp(-x + a * math.log(x) - math.lgamma(a))
    if x < a + 1:  # the series for P(a, x) converges fast here
        term = total = 1.0 / a
        ap = a
        for _ in range(10000):
            ap += 1
            term *= x / ap
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * lead)
    tiny = 1e-300  # the continued fraction for Q(a, x), modified Lentz
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return min(1.0, lead * h)


def chi_square_p(x: float, df: int) -> float:
    """P(X >= x) for X chi-square with df degrees of freedom."""
    return gamma_q(df / 2, x / 2)


def rolls_of(rows, opener=None) -> list[dict]:
    """Every roll of the log: rows as (seq, batch, type, payload, command or None) in seq order.
    opener(commitment, nonce, box): a sealed secret's opening, where this copy holds it (ruling R47):
    its rolls count; a seal it cannot open counts as nothing yet."""
    rolls = Rolls(opener)
    add = rolls.add
    for row in rows:
        add(*row)
    return rolls.out


class Rolls:
    """rolls_of one row at a time (`add`), for a reader that walks the log for more than its rolls (the
    report's one pass, issue 36): `out` holds the rolls of the rows added so far."""

    def __init__(self, opener=None):
        self.opener = opener
        self.out: list[dict] = []
        self.cmd: dict = {}
        self.committed: dict[str, str] = {}  # two-party dice: commitment -> the command it is for
        self.deciding = None  # the committed command a dice_revealed of this batch decides (its rolls are that kind)

    def add(self, seq, batch, etype, p, command) -> None:
        """One row (its command, or None after a batch's first row); a sealed one this copy opens is its
        opening's events (with its command)."""
        self.add_rows((seq,), (etype,), (p,), (command,))

    def add_rows(self, seqs, types, payloads, commands) -> None:
        """add() for rows given as their columns (seqs, types, payloads as stored, commands parsed or None),
        the report's walk reads them so: one call a chunk."""
        asked, opener, one = _ASKED, self.opener, self._add
        for seq, etype, p, command in zip(seqs, types, payloads, commands):
            if etype not in asked and type(p) is dict and "roll" not in p and "rolls" not in p:
                if command is not None:  # most rows: a command kept, no roll, nothing two-party (what _add does)
                    self.cmd = command if isinstance(command, dict) else {}
                    self.deciding = None
                continue
            if etype == "sealed" and opener is not None and isinstance(p, dict):
                o = opener(p.get("commitment"), p.get("nonce"), p.get("box"))
                if o is not None:
                    first = True
                    for t, q in o.get("events") or ():
                        one(seq, t, q, o["command"] if first else None)
                        first = False
                    continue
            one(seq, etype, p, command)

    def _add(self, seq, etype, p, command) -> None:
        if command is not None:
            self.cmd = command if isinstance(command, dict) else {}
            self.deciding = None
        if not isinstance(p, dict):  # a row edited against its schema: the audit reports it
            return
        committed = self.committed
        if etype == "dice_committed" and isinstance(p.get("command"), dict):
            committed[str(p.get("commit"))] = p["command"].get("name")
        if etype == "dice_revealed":  # a reveal, a claim (R67), a chain's answer (R83) or a command that
            # answers first (R84): the rolls that follow are the committed command's
            self.deciding = committed.get(str(p.get("request")))
        roll, rolls = p.get("roll"), p.get("rolls")
        if roll is None and rolls is None:  # most rows: no roll
            return
        found = [roll] if isinstance(roll, dict) else \
            [r for r in rolls if isinstance(r, dict) and "dice" in r] if isinstance(rolls, list) else []
        if not found:
            return
        cmd = self.cmd
        name = self.deciding or cmd.get("name")
        if name in DECIDERS:  # a two-party roll decided by a command that is no kind of roll
            name = committed.get(str(cmd.get("request")), name)
        for r in found:
            dice = r.get("dice")
            if not _as_rolled(dice):
                continue  # not dice as rolled: the audit's finding
            side = p.get("side")
            self.out.append({"seq": seq, "side": side if isinstance(side, str) else None, "kind": str(name or etype),
                             "dice": dice, "source": roll_source(r, cmd)})


def _as_rolled(dice) -> bool:
    """Dice as rolled: a list of whole numbers. A dr's or a DR's (most rolls: ~50,000 at 100k) is told without
    the generator of the general check."""
    if type(dice) is list and 0 < len(dice) < 3 and type(dice[0]) is int and type(dice[-1]) is int:
        return True
    return isinstance(dice, list) and all(isinstance(d, int) for d in dice)


_ASKED = frozenset(("sealed", "dice_committed", "dice_revealed"))  # the types Rolls.add looks at without a roll

DECIDERS = ("reveal", "answer", "claim")  # play by email: they decide another command's two-party roll


def dice_of(values: list[int]) -> list[tuple[str, int]]:
    """Each die of a roll by its name: a dr's one die, a DR's white and colored (cg/dice.py: (white,
    colored)), three dice a dr then white and colored."""
    names = {1: ("dr",), 2: ("white", "colored"), 3: ("dr", "white", "colored")}.get(len(values))
    if names is None:
        return [("die", v) for v in values]
    return list(zip(names, values))


def tally(rolls: list[dict]) -> dict:
    """What `dice-stats` and the AAR both count, from rolls_of: every roll recorded (undone ones too) per
    source and side ("both" for a roll of no side: the Dual Attack's), and each die per die, side and kind."""
    by_source: dict[str, int] = {}
    by_side_source: dict[tuple[str, str], int] = {}
    for r in rolls:
        side = r["side"] or "both"
        by_source[r["source"]] = by_source.get(r["source"], 0) + 1
        by_side_source[(r["source"], side)] = by_side_source.get((r["source"], side), 0) + 1
    return {"rolls": len(rolls), "dice": sum(len(r["dice"]) for r in rolls), "sources": by_source,
            "by_source_side": by_side_source}


COUNTED = ("a roll is one dr or DR recorded in the log, undone ones too, sealed ones once revealed (and, with a"
           " player's key, his own); its kind is the command that rolled it, a two-party roll's the command its"
           " answer or reveal decided; its side is the rolling side's, 'both' for a roll of no side")


def _test(totals: list[int], probs: dict[int, float]) -> dict:
    n = len(totals)
    observed = {t: 0 for t in probs}
    for t in totals:
        if t in observed:
            observed[t] += 1
    expected = {t: n * p for t, p in probs.items()}
    out = {"rolls": n, "observed": {str(t): v for t, v in observed.items()},
           "expected": {str(t): round(v, 3) for t, v in expected.items()}, "df": len(probs) - 1,
           "chi_square": None, "p_value": None}
    if n:
        x = sum((observed[t] - expected[t]) ** 2 / expected[t] for t in probs)
        out["chi_square"] = round(x, 4)
        out["p_value"] = round(chi_square_p(x, len(probs) - 1), 6)
        out["mean"] = round(sum(totals) / n, 3)
        out["expected_mean"] = round(sum(t * p for t, p in probs.items()), 3)
        out["small_sample"] = min(expected.values()) < 5  # chi-square wants 5 or more expected per total
    return out


def _faces(sel: list[dict]) -> dict:
    """Each die's faces, white and colored apart: {"white": [n1..n6], "colored": [...], "dr": [...]}."""
    out: dict[str, list[int]] = {}
    for r in sel:
        for name, v in dice_of(r["dice"]):
            if 1 <= v <= 6:
                out.setdefault(name, [0] * 6)[v - 1] += 1
    return {k: out[k] for k in ("white", "colored", "dr", "die") if k in out}


def stats(rolls: list[dict], side: str | None = None, kind: str | None = None) -> dict:
    """The report `dice-stats --json` prints."""
    sel = [r for r in rolls if (side is None or r["side"] == side) and (kind is None or r["kind"] == kind)]
    drs = [sum(r["dice"]) for r in sel if len(r["dice"]) == 1]
    DRs = [sum(r["dice"]) for r in sel if len(r["dice"]) == 2]
    kinds: dict[str, dict] = {}
    for r in sel:
        k = kinds.setdefault(r["kind"], {"rolls": 0, "dr": 0, "DR": 0, "total": 0})
        k["rolls"] += 1
        k["dr" if len(r["dice"]) == 1 else "DR"] += 1
        k["total"] += sum(r["dice"])
    for name, k in kinds.items():
        k["mean"] = round(k.pop("total") / k["rolls"], 3)
        k["dice"] = _faces([r for r in sel if r["kind"] == name])
    t = tally(sel)
    faces = _faces(sel)
    dice = {}
    for name, counts in faces.items():  # each die against a fair die: 1-6 uniform
        dice[name] = _test([v for v, n in enumerate(counts, 1) for _ in range(n)], DR1_P)
    sides = {}
    for who in ("axis", "allied", None):
        mine = [r for r in sel if r["side"] == who]
        if mine:
            sides[who or "both"] = {"rolls": len(mine), "dice": _faces(mine)}
    return {"side": side, "kind": kind, "counted": COUNTED, "rolls": len(sel), "sources": t["sources"],
            "by_source_side": [{"source": src, "side": who, "rolls": n}
                               for (src, who), n in sorted(t["by_source_side"].items())],
            "dr": _test(drs, DR1_P), "DR": _test(DRs, DR_P), "dice": dice, "sides": sides,
            "kinds": dict(sorted(kinds.items()))}


def section_stats(rolls: list[dict], side: str) -> dict:
    """What the report's dice section reads of stats(rolls, side): its "dr", "DR" and "sources", the same
    figures, without the per-die and per-kind tables it does not show (~50,000 rolls at 100k events)."""
    sel = [r["dice"] for r in rolls if r["side"] == side]
    drs = [sum(d) for d in sel if len(d) == 1]
    DRs = [sum(d) for d in sel if len(d) == 2]
    sources: dict[str, int] = {}
    for r in rolls:
        if r["side"] == side:
            sources[r["source"]] = sources.get(r["source"], 0) + 1
    return {"sources": sources, "dr": _test(drs, DR1_P), "DR": _test(DRs, DR_P)}


def stats_text(d: dict) -> str:
    who = " ".join(x for x in (d["side"], d["kind"]) if x) or "all sides, all kinds"
    lines = [f"dice of the CG ({who}): {d['rolls']} rolls"
             + (" — " + ", ".join(f"{v} {k}" for k, v in sorted(d["sources"].items())) if d["sources"] else "")]
    for name, label in (("DR", "DR (2 dice)"), ("dr", "dr (1 die)")):
        t = d[name]
        if not t["rolls"]:
            continue
        lines.append(f"{label}: {t['rolls']} rolls, mean {t['mean']} (fair: {t['expected_mean']})")
        lines.append("  total     " + "".join(f"{k:>6}" for k in t["observed"]))
        lines.append("  observed  " + "".join(f"{v:>6}" for v in t["observed"].values()))
        lines.append("  expected  " + "".join(f"{v:>6.1f}" for v in t["expected"].values()))
        lines.append(f"  chi-square {t['chi_square']:.2f} on {t['df']} df, p = {t['p_value']:.3f}"
                     + (" (few rolls: under 5 expected for some totals, read with care)" if t["small_sample"] else ""))
    if d["dice"]:
        lines.append("each die (white and colored apart; a dr's die alone), faces 1-6:")
        lines.append("  " + " " * 22 + "".join(f"{k:>5}" for k in range(1, 7)) + "   chi-square")
        for name, t in d["dice"].items():
            counts = [t["observed"][str(k)] for k in range(1, 7)]
            lines.append(f"  {DIE_LABEL.get(name, name):<22}" + "".join(f"{v:>5}" for v in counts)
                         + f"   {t['chi_square']:.2f}, p = {t['p_value']:.3f}")
        for who, v in d["sides"].items():
            for name, counts in v["dice"].items():
                lines.append(f"  {who + ' ' + DIE_LABEL.get(name, name):<22}" + "".join(f"{c:>5}" for c in counts))
    if d["kinds"]:
        lines.append("per kind of command that rolled:")
        for k, v in d["kinds"].items():
            dice = "; ".join(f"{DIE_LABEL.get(n, n)} " + " ".join(str(c) for c in counts)
                             for n, counts in v["dice"].items())
            lines.append(f"  {k}: {v['rolls']} roll{'s' if v['rolls'] != 1 else ''} (mean {v['mean']}), faces 1-6: {dice}")
    lines += textwrap.wrap(f"(counted: {d['counted']})", 80)
    return "\n".join(lines)


DIE_LABEL = {"white": "white die", "colored": "colored die", "dr": "dr die", "die": "die"}
