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


def test_readme_documents_every_command():
    readme = (ROOT / "README.md").read_text()
    for name in cli.main.commands:
        assert f"plcg {name}" in readme, f"README does not document plcg {name}"


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
    for page in ("guide", "cg-card", "rulings", "revisions", "promises", "maps", "steps", "architecture",
                 "performance"):
        assert f"(docs/{page}.md)" in readme and (ROOT / "docs" / f"{page}.md").exists(), page
    heads = re.findall(r"^## (.+)$", readme, re.M)
    assert heads == ["Two commands on a fresh machine (Python 3.11)", "A campaign, step by step", "Commands",
                     "More"], heads
    assert len(readme.splitlines()) < 300


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
