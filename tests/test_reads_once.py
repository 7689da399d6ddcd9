"""The read commands do their reading once (issue 28), and say the same as before.

Counted, not timed: how often the After Action Report reads a firefight's rows, how many commands
`log --json` parses, and whether the map of a firefight walks the units settled long before it.
The reports themselves are checked by test_aar*.py and test_log_words.py; these only pin the work.
"""
from __future__ import annotations

from collections import Counter

import pytest

from cg import state as cg_state
from events.store import Store
from projections import aar
from tests.conftest import cli_run

def test_the_report_reads_each_firefights_rows_once(r1, monkeypatch):
    """Each firefight's section needs its rows five times (sequence, events, setup tables, counters,
    results): read from the log once, not once for each."""
    reads = Counter()
    real = Store.read_rows

    def counted(self, since=0, until=None, columns=("seq",), chunk=4096, parse=False):
        if (since or 0) > 0:  # a firefight's run of rows (the whole-log walks start at 0)
            reads[(since, until)] += 1
        return real(self, since, until, columns, chunk, parse)

    monkeypatch.setattr(Store, "read_rows", counted)
    for fmt in ("md", "html"):
        reads.clear()
        r = cli_run(r1, "export", "--format", fmt)
        assert r.code == 0, r.err
        assert reads, "the report read no firefight's rows: the count looks in the wrong place"
        assert max(reads.values()) == 1, {k: v for k, v in reads.items() if v > 1}


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
