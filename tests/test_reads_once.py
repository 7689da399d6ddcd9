"""The read commands do their reading once (issue 28), and say the same as before.

Counted, not timed: how many commands `log --json` parses, and whether the map of a firefight walks the
units settled long before it (that the After Action Report reads the log once, each firefight's rows
included, is tests/test_report_one_pass.py's).
The reports themselves are checked by test_aar*.py and test_log_words.py; these only pin the work.
"""
from __future__ import annotations

from cg import state as cg_state
from projections import aar
from tests.conftest import cli_run


def test_log_json_parses_a_command_only_for_a_roll(r1, monkeypatch):
    """A batch's command is read for a roll's source (and the Redeployment Option's side, issue 38); rows
    without either leave it unparsed."""
    from projections import logview

    parsed = []
    real = logview._command_of
    monkeypatch.setattr(logview, "_command_of", lambda text: parsed.append(text) or real(text))
    r = cli_run(r1, "log", "--json")
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    with_roll = sum(1 for line in lines if '"roll":' in line or '"rolls":' in line)
    options = sum(1 for line in lines if '"type":"redeployment_option"' in line)
    assert parsed, "no command parsed: the rolls' sources were not looked up"
    assert len(parsed) <= with_roll + options < len(lines)


def test_a_map_of_the_report_walks_only_the_units_not_settled(r1, monkeypatch):
    """The map kept at each firefight's end reads the units not settled (cg.state.active_units), not
    every unit ever bought: the latter grew the report's cost per event with the campaign."""
    walked = []
    real = cg_state.active_units

    def spy(st):
        out = real(st)
        walked.append((len(out[0]), len(st.units)))
        return out

    monkeypatch.setattr(aar, "active_units", spy)
    r = cli_run(r1, "export", "--format", "html")
    assert r.code == 0, r.err
    assert walked, "no map took its units from active_units"
    assert any(n < total for n, total in walked), "every unit was still live: the fixture shows nothing"
