"""`plcg dice-stats` (issue 16, item 7) and the AAR's dice section: counts per total and kind,
expected vs observed, and a chi-square p-value computed without scipy."""
from __future__ import annotations

import json
import math

import pytest

from conftest import cli_run

from projections.dicestats import chi_square_p, gamma_q


def _q_integer(k: int, x: float) -> float:
    """Q(k, x) for a whole k in closed form: e^-x * sum_{i<k} x^i / i!."""
    return math.exp(-x) * sum(x ** i / math.factorial(i) for i in range(k))


@pytest.mark.parametrize("k", [1, 2, 3, 5, 6])
@pytest.mark.parametrize("x", [0.01, 0.5, 1.0, 2.5, 4.0, 6.0, 9.0, 15.0, 30.0])
def test_gamma_q_matches_the_closed_form_on_both_branches(k, x):
    assert gamma_q(k, x) == pytest.approx(_q_integer(k, x), rel=1e-10, abs=1e-300)


@pytest.mark.parametrize("x, df, p", [
    (3.841458820694124, 1, 0.05),  # the textbook critical values
    (6.634896601021214, 1, 0.01),
    (11.070497693516351, 5, 0.05),
    (15.08627246938899, 5, 0.01),
    (18.307038053275146, 10, 0.05),
    (23.209251158954356, 10, 0.01),
    (0.0, 10, 1.0),
])
def test_chi_square_p_at_known_critical_values(x, df, p):
    assert chi_square_p(x, df) == pytest.approx(p, rel=1e-9)


def test_chi_square_p_for_half_integer_shapes():
    # df = 1: P(X >= x) = erfc(sqrt(x/2)); df = 3: erfc(sqrt(x/2)) + sqrt(2x/pi) e^(-x/2)
    for x in (0.2, 1.0, 3.0, 8.0, 20.0):
        assert chi_square_p(x, 1) == pytest.approx(math.erfc(math.sqrt(x / 2)), rel=1e-10)
        want = math.erfc(math.sqrt(x / 2)) + math.sqrt(2 * x / math.pi) * math.exp(-x / 2)
        assert chi_square_p(x, 3) == pytest.approx(want, rel=1e-10)


@pytest.fixture(scope="module")
def demo(module_workdir):
    path = module_workdir / "demo.plcg"
    r = cli_run(path, "demo")
    assert r.code == 0, r.err
    return path


def _log_rolls(path):
    out = []
    for line in cli_run(path, "log", "--json").out.splitlines():
        x = json.loads(line)
        for r in x.get("rolls") or ([x["roll"]] if "roll" in x else []):
            out.append((x["side"], x["type"], r["dice"]))
    return out


def test_dice_stats_counts_every_roll_of_the_log(demo):
    r = cli_run(demo, "dice-stats", "--json")
    assert r.code == 0, r.err
    d = json.loads(r.out)
    rolls = _log_rolls(demo)
    assert d["rolls"] == len(rolls)
    DRs = [sum(x[2]) for x in rolls if len(x[2]) == 2]
    drs = [sum(x[2]) for x in rolls if len(x[2]) == 1]
    assert d["DR"]["rolls"] == len(DRs) and d["dr"]["rolls"] == len(drs)
    for t in range(2, 13):
        assert d["DR"]["observed"][str(t)] == DRs.count(t)
        assert d["DR"]["expected"][str(t)] == pytest.approx(len(DRs) * (6 - abs(t - 7)) / 36, abs=1e-3)
    x = sum((DRs.count(t) - len(DRs) * (6 - abs(t - 7)) / 36) ** 2 / (len(DRs) * (6 - abs(t - 7)) / 36)
            for t in range(2, 13))
    assert d["DR"]["chi_square"] == pytest.approx(x, abs=1e-3) and d["DR"]["df"] == 10
    assert d["DR"]["p_value"] == pytest.approx(chi_square_p(x, 10), abs=1e-5)
    assert sum(k["rolls"] for k in d["kinds"].values()) == len(rolls)
    assert d["kinds"]["elr"]["DR"] == sum(1 for x in rolls if x[1] == "elr_rolled")


def test_dice_stats_by_side_and_kind(demo):
    d = json.loads(cli_run(demo, "dice-stats", "--side", "axis", "--kind", "elr", "--json").out)
    rolls = [x for x in _log_rolls(demo) if x[0] == "axis" and x[1] == "elr_rolled"]
    assert d["rolls"] == len(rolls) > 0 and list(d["kinds"]) == ["elr"]
    text = cli_run(demo, "dice-stats", "--side", "allied")
    assert text.code == 0 and "chi-square" in text.out and "p = " in text.out
    bad = cli_run(demo, "dice-stats", "--kind", "nonsense")
    assert bad.code == 2 and "no roll of that kind" in bad.err
    side = cli_run(demo, "dice-stats", "--side", "russians")
    assert side.code == 2


def test_the_html_aar_has_a_dice_chart_per_side(demo, module_workdir):
    out = module_workdir / "aar.html"
    assert cli_run(demo, "export", "--format", "html", "-o", out).code == 0
    html = out.read_text()
    assert 'id="dice"' in html
    for side in ("axis", "allied"):
        assert f"dice-{side}-DR" in html
    assert "chi-square" in html and "fair dice" in html
