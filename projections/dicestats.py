"""`plcg dice-stats`: every roll of the CG against fair dice.

Each roll recorded in the log counts, undone ones too (a player who undoes until the dice are kind
shows here as in the audit's notes): its side, its kind (the command that rolled it: `elr`, `cp`,
`leader`, ...; a two-party reveal counts as the command it reveals), and its dice. A dr's total is
uniform on 1-6, a DR's (white + colored) triangular on 2-12. For each, counts per total against
the expected counts, and Pearson's chi-square with its p-value: the probability that fair dice
stray at least this far. The p-value is the chi-square survival function Q(df/2, x/2), the
regularized upper incomplete gamma function, computed here (series below a+1, Lentz's continued
fraction above; Numerical Recipes 6.2) rather than importing scipy for one number.
"""
from __future__ import annotations

import math

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


def roll_source(roll: dict, cmd: dict) -> str:
    """Where a roll's dice came from (log --json `source`): a two-party reveal's, typed in, the ledger's."""
    if roll.get("source") is not None:  # recorded with the roll (ruling R31): ledger, seeded, typed, two-party
        return roll["source"]
    if cmd.get("name") == "reveal":
        return "two-party"
    return "typed" if roll.get("manual") else "seeded"


def rolls_of(rows, opener=None) -> list[dict]:
    """Every roll of the log: rows as (seq, batch, type, payload, command or None) in seq order.
    opener(commitment, nonce, box): a sealed secret's opening, where this copy holds it (ruling R47):
    its rolls count; a seal it cannot open counts as nothing yet."""
    out = []
    cmd: dict = {}
    committed: dict[str, str] = {}  # two-party dice: commitment -> the command it is for
    for seq, _batch, etype, p, command in _opened(rows, opener):
        if command is not None:
            cmd = command if isinstance(command, dict) else {}
        if not isinstance(p, dict):  # a row edited against its schema: the audit reports it
            continue
        if etype == "dice_committed" and isinstance(p.get("command"), dict):
            committed[str(p.get("commit"))] = p["command"].get("name")
        name = cmd.get("name")
        if name == "reveal":
            name = committed.get(str(cmd.get("request")))
        rolls = p.get("rolls")
        found = [p["roll"]] if isinstance(p.get("roll"), dict) else \
            [r for r in rolls if isinstance(r, dict) and "dice" in r] if isinstance(rolls, list) else []
        for r in found:
            dice = r.get("dice")
            if not isinstance(dice, list) or not all(isinstance(d, int) for d in dice):
                continue  # not dice as rolled: the audit's finding
            side = p.get("side")
            out.append({"seq": seq, "side": side if isinstance(side, str) else None, "kind": str(name or etype),
                        "dice": dice, "source": roll_source(r, cmd)})
    return out


def _opened(rows, opener):
    """The rows, each sealed one this copy opens followed by its opening's events (with its command)."""
    for row in rows:
        seq, batch, etype, p, command = row
        if etype == "sealed" and opener is not None and isinstance(p, dict):
            o = opener(p.get("commitment"), p.get("nonce"), p.get("box"))
            if o is not None:
                first = True
                for t, q in o.get("events") or ():
                    yield seq, batch, t, q, o["command"] if first else None
                    first = False
                continue
        yield row


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
    for k in kinds.values():
        k["mean"] = round(k.pop("total") / k["rolls"], 3)
    sources: dict[str, int] = {}
    for r in sel:
        sources[r["source"]] = sources.get(r["source"], 0) + 1
    return {"side": side, "kind": kind, "rolls": len(sel), "sources": sources,
            "dr": _test(drs, DR1_P), "DR": _test(DRs, DR_P), "kinds": dict(sorted(kinds.items()))}


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
    if d["kinds"]:
        lines.append("per kind: " + "; ".join(f"{k} {v['rolls']} (mean {v['mean']})" for k, v in d["kinds"].items()))
    return "\n".join(lines)
