"""docs/performance.md keeps ONE current table, the bench's own (issue 36 item 4): the table between its
markers, parsed as a Markdown table, names every row `python -m bench.run` prints (bench/targets.ROWS), in
its order, each once; and the bench's table has a row for each of them. No timing here."""
from __future__ import annotations

from pathlib import Path

from bench import targets

DOC = Path(__file__).resolve().parent.parent / "docs" / "performance.md"
NAMES = [name for name, _goal in targets.ROWS]


def _fig(cpu: float) -> dict:
    return {"cpu_s": cpu, "wall_s": cpu, "wall_min_s": cpu, "rss_mb": 50.0, "runs": [[cpu, cpu]]}


def _measured() -> dict:
    """A measurement of the shape bench/targets.measure returns (figures made up: only the rows' names count)."""
    commands = [name for name, _ in targets.PER_EVENT] + ["import", "undo", "row scan", "payload scan", "chain floor"]
    files = {label: {name: _fig(1.0) for name in commands} for label in ("big", "small")}
    five = {name: _fig(0.1) for name in ("python -c pass", "status", "status floor", "setup", "next", "undo", "buy",
                                         "write floor", "stack floor")}
    slider = {"events": 9330, "moves": 15, "api_state_p90_s": 0.01, "page_p90_s": 0.1, "api_state_cpu_p90_s": 0.01,
              "page_cpu_p90_s": 0.1, "api_state_ratio": 0.01, "page_ratio": 0.1, "cli_roster_at_p90_s": 1.0}
    return {"events": {"big": 9330, "small": 4742, "five": 4742}, "runs": 1, "python -c pass": _fig(0.02),
            "import cli": _fig(0.1), **files, "five": five, "signed": {"signed": _fig(1.3), "unsigned": _fig(1.0),
                                                                     "events": 12150},
            "slider": slider, "write floor audit": {"exit": 0, "findings": 0}}


def test_the_bench_prints_a_row_for_every_target_in_order():
    rows = targets.rows(_measured())
    assert [r[0] for r in rows] == NAMES
    assert all(len(r) == len(targets.HEAD) for r in rows)


def test_the_doc_holds_one_bench_table_with_every_row_the_bench_prints():
    text = DOC.read_text()
    assert text.count(targets.BEGIN) == 1 and text.count(targets.END) == 1
    assert targets.doc_rows(text) == NAMES


def test_the_doc_table_is_parsed_not_searched():
    """A row name that appears only in the prose, not as a row of the table, does not count."""
    md = targets.markdown([[n, "", "", "", "", ""] for n in NAMES[1:]], "head")
    text = f"prose naming {NAMES[0]}\n{targets.BEGIN}\n{md}\n{targets.END}\n"
    assert targets.doc_rows(text) == NAMES[1:]
