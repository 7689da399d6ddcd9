"""The README, `plcg --help` and the contract agree; docs/steps.md is the machine's own drawing."""
from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

import cli
from helpers.markdown import code_lines, code_spans, headings, images, links, named, section, tables

ROOT = Path(__file__).resolve().parent.parent
CONTRACT = ["new", "cards", "status", "next", "log", "undo", "replay", "audit", "roster", "export", "import",
            "demo", "cp", "weather", "buy", "patrols", "oba", "leader", "fortify", "attack", "determine", "night",
            "redeploy", "setup", "patrol", "patrol-return", "end", "encircled", "shock", "evacuate", "disease",
            "promote", "leaders", "repair", "recall", "elr", "clear", "concede", "rubble", "flame"]


def test_help_lists_every_contract_command_and_the_exit_codes():
    out = CliRunner().invoke(cli.main, ["--help"]).output
    for name in CONTRACT:
        assert re.search(rf"^\s+{re.escape(name)}\s", out, re.M), f"plcg --help does not list {name}"
    said = re.search(r"Exit codes: (.+?)\.\n\n", out, re.S)[1]  # the main help's paragraph
    codes = dict(re.fullmatch(r"(\d) (.+)", part).groups() for part in " ".join(said.split()).split("; "))
    assert {int(n): words.split()[0] for n, words in codes.items()} == {  # shared/docs/cli-contract.md
        0: "done", 1: "audit", 2: "bad", 3: "refused", 4: "another", 5: "internal"}


def test_readme_lists_every_command_and_docs_commands_has_a_row_for_each():
    """Issue 38 item 6: the README's Commands section names every command (by phase); docs/commands.md, the
    reference, has every one in a table row with its options."""
    listed = named(section((ROOT / "README.md").read_text(), "Commands"))
    rows = [row for table in tables((ROOT / "docs" / "commands.md").read_text()) for row in table]
    documented = set().union(*(named(" ".join(row.values())) for row in rows))
    for name in set(cli.main.list_commands(None)) | set(CONTRACT):
        assert name in listed, f"the README's Commands section does not list plcg {name}"
        assert name in documented, f"docs/commands.md has no table row for plcg {name}"


def _rulings() -> list[int]:
    """The rulings docs/rulings.md lists, in its order: each list item `- **Rn** ...`."""
    return [int(n) for n in re.findall(r"^- \*\*R(\d+)\*\*", (ROOT / "docs" / "rulings.md").read_text(), re.M)]


def test_the_rulings_list_has_every_ruling_the_code_cites():
    cited = set()
    for path in [*(ROOT / "cg").rglob("*.py"), *(ROOT / "projections").rglob("*.py"), *(ROOT / "events").rglob("*.py"),
                 ROOT / "cli.py"]:
        cited |= {int(n) for n in re.findall(r"ruling R(\d+)", path.read_text())}
    assert sorted(cited - set(_rulings())) == []  # docs/rulings.md lacks none the code cites


def test_the_rulings_are_listed_once_each_in_order():
    numbers = _rulings()
    assert numbers == sorted(set(numbers)) and numbers[:3] == [1, 2, 3]


def test_the_readme_is_for_players_and_links_every_doc():
    """Issue 27 item 12: the README holds install, a campaign step by step, play by email and the
    commands; the rest is in docs/, each page linked from it and there."""
    readme = (ROOT / "README.md").read_text()
    linked = set(links(readme))
    for page in ("guide", "commands", "cg-card", "rulings", "revisions", "promises", "maps", "steps", "explorer",
                 "architecture", "performance"):
        assert f"docs/{page}.md" in linked and (ROOT / "docs" / f"{page}.md").exists(), page
    heads = headings(readme)
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
    commands = [line for line in code_lines(first) if line.startswith("python3 -m venv")]
    assert commands == [
        "python3 -m venv .venv && . .venv/bin/activate && pip install . && plcg demo",
        "python3 -m venv .venv && . .venv/bin/activate && pip install '.[test]' && python -m pytest"]
    ci = [line.split("#")[0].split() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert ["python", "-m", "pip", "install", "-q", "'.[test]'"] in ci  # the README's test command, as CI runs it
    assert ["python", "-m", "pytest", "-p", "no:cacheprovider"] in ci
    assert "serve" in named(first) and images(first) == ["docs/img/serve.png"]
    # the explorer's run counts live in docs/explorer.md, never in the README
    figures = ("bench.explore", "commands in", "campaigns (")
    assert [line for line in readme.splitlines() if any(f in line for f in figures)] == []
    assert "python -m bench.explore --size big" in code_spans((ROOT / "docs" / "explorer.md").read_text())


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

    assert guide.GUIDE.read_text() == guide.markdown(guide.run_guide(), guide.by_email_run())
