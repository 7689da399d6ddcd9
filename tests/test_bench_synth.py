"""The bench's campaign generator (bench/synth.py) plays through the real commands and reads the state the
way a fold leaves it: a small build of it, on one copy and signed by email, runs whole and audits clean, so
a change of the state's shape that the generator still reads the old way fails here, not in the next
100k bench run (a typed Fortification read as a dict did, unnoticed by the suite)."""
from __future__ import annotations

import pytest

from bench import synth
from conftest import cli_run


@pytest.mark.parametrize("signed", [False, True], ids=["one-copy", "signed"])
def test_a_small_bench_campaign_builds_and_audits_clean(tmp_path, signed):
    path = tmp_path / "synth.plcg"
    figures = synth.build(str(path), 2, 80, "plcg-bench-test", None, signed=signed)
    assert figures["firefight"] == 2 and figures["refused"] == 0
    assert (figures["signatures"] > 0) == signed
    r = cli_run(str(path), "audit")
    assert r.code == 0 and "audit clean" in r.out, r.out
