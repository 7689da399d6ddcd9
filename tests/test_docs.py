"""The README, `plcg --help` and the contract agree; docs/steps.md is the machine's own drawing."""
from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

import cli

ROOT = Path(__file__).resolve().parent.parent
CONTRACT = ["new", "cards", "status", "next", "log", "undo", "replay", "audit", "roster", "export", "import",
            "demo", "cp", "weather", "buy", "patrols", "oba", "leader", "fortify", "attack", "determine", "night",
            "redeploy", "setup", "patrol", "patrol-return", "end", "encircled", "shock", "evacuate", "disease",
            "promote", "leaders", "repair", "recall", "elr", "clear", "concede", "rubble", "flame"]


def test_help_lists_every_contract_command_and_the_exit_codes():
    out = CliRunner().invoke(cli.main, ["--help"]).output
    for name in CONTRACT:
        assert re.search(rf"^\s+{re.escape(name)}\s", out, re.M), f"plcg --help does not list {name}"
    for code in ("0 done", "1 audit", "2 bad input", "3 refused", "4 another writer"):
        assert code in " ".join(out.split()), code


def _section(text: str, head: str) -> str:
    """The body of the Markdown section `## head` (up to the next `## `)."""
    return text.split(f"\n## {head}\n", 1)[1].split("\n## ", 1)[0]


def _named(text: str) -> set[str]:
    """The commands a text names in code spans: `plcg NAME ...` gives NAME (`plcg --db X NAME` too)."""
    out = set()
    for span in re.findall(r"`([^`\n]+)`", text):
        words = span.split()
        if words and words[0] == "plcg":
            words = words[1:]
            while words and words[0].startswith("--"):  # global options before the command
                words = words[2:] if words[0] in ("--db", "--key") else words[1:]
            if words:
                out.add(words[0])
    return out


def _table_rows(text: str) -> list[list[str]]:
    """The body rows of every Markdown table in `text`, each as its cells (a `\\|` inside a cell kept)."""
    rows, lines = [], text.splitlines()
    for i, line in enumerate(lines):
        if not line.startswith("|") or re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", line):
            continue
        if i + 1 < len(lines) and re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", lines[i + 1]):
            continue  # a header row
        rows.append([c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]])
    return rows


def test_readme_lists_every_command_and_docs_commands_has_a_row_for_each():
    """Issue 38 item 6: the README's Commands section names every command (by phase); docs/commands.md, the
    reference, has every one in a table row with its options."""
    readme = _section((ROOT / "README.md").read_text(), "Commands")
    listed = _named(readme)
    rows = _table_rows((ROOT / "docs" / "commands.md").read_text())
    documented = set().union(*(_named(" ".join(row)) for row in rows))
    for name in set(cli.main.list_commands(None)) | set(CONTRACT):
        assert name in listed, f"the README's Commands section does not list plcg {name}"
        assert name in documented, f"docs/commands.md has no table row for plcg {name}"


def test_the_rulings_list_has_every_ruling_the_code_cites():
    readme = (ROOT / "docs" / "rulings.md").read_text()
    cited = set()
    for path in [*(ROOT / "cg").rglob("*.py"), *(ROOT / "projections").rglob("*.py"), *(ROOT / "events").rglob("*.py"),
                 ROOT / "cli.py"]:
        cited |= set(re.findall(r"ruling (R\d+)", path.read_text()))
    for r in sorted(cited):
        assert re.search(rf"\*\*{r}\b", readme), f"docs/rulings.md lacks {r}"


def test_the_rulings_are_listed_once_each_in_order():
    text = (ROOT / "docs" / "rulings.md").read_text()
    numbers = [int(n) for n in re.findall(r"^- \*\*R(\d+)\*\*", text, re.M)]
    assert numbers == sorted(set(numbers)) and numbers[:3] == [1, 2, 3]


def test_the_readme_is_for_players_and_links_every_doc():
    """Issue 27 item 12: the README holds install, a campaign step by step, play by email and the
    commands; the rest is in docs/, each page linked from it and there."""
    readme = (ROOT / "README.md").read_text()
    for page in ("guide", "commands", "cg-card", "rulings", "revisions", "promises", "maps", "steps", "explorer",
                 "architecture", "performance"):
        assert f"(docs/{page}.md)" in readme and (ROOT / "docs" / f"{page}.md").exists(), page
    heads = re.findall(r"^## (.+)$", readme, re.M)
    assert heads == ["Two commands on a fresh machine (Python 3.11)", "The campaign as a web page",
                     "A campaign, step by step", "Playing by email", "The After Action Report", "Commands",
                     "More"], heads
    assert len(readme.splitlines()) <= 250  # issue 38 item 6


def test_the_readmes_first_screen_says_what_the_ledger_does_with_the_two_commands_and_the_web_page():
    """Issue 38 item 6: the first screen (40 lines) is for a player: what the ledger does, the two commands
    (install and demo; install and the tests, the command .ci/run runs) and the web page with its picture;
    the explorer's and the bench's figures are in docs/."""
    readme = (ROOT / "README.md").read_text()
    first = "\n".join(readme.splitlines()[:40])
    commands = [line.strip() for line in first.splitlines() if line.startswith("    python3 -m venv")]
    assert commands == [
        "python3 -m venv .venv && . .venv/bin/activate && pip install . && plcg demo",
        "python3 -m venv .venv && . .venv/bin/activate && pip install '.[test]' && python -m pytest"]
    ci = (ROOT / ".ci" / "run").read_text()
    assert "pip install -q '.[test]'" in ci and re.search(r"^python -m pytest\b", ci, re.M)
    assert "serve" in _named(first) and "(docs/img/serve.png)" in first
    for figure in ("bench.explore", "commands in", "campaigns ("):  # the explorer's run counts
        assert figure not in readme, figure
    assert "bench.explore --size big" in (ROOT / "docs" / "explorer.md").read_text()


def test_steps_doc_is_generated_from_the_machine():
    assert (ROOT / "docs" / "steps.md").read_text() == cli.steps_doc()


def test_mermaid_ids_are_plain():
    from cg.machine import mermaid

    text = mermaid()
    for line in text.splitlines():
        m = re.match(r"\s*(\S+) --> (\S+):", line)
        if m:
            assert re.fullmatch(r"s[\w]+", m.group(1)) and re.fullmatch(r"s[\w]+:?", m.group(2)), line


def test_the_players_guide_shows_what_its_commands_print():
    """docs/guide.md is one whole firefight and RePh played by the real commands; run again, they print
    what it shows (regenerate with `python tests/helpers/guide.py` after a change of wording)."""
    from helpers import guide

    assert guide.GUIDE.read_text() == guide.markdown(guide.run_guide())
