"""What a player reads: no Python words (None, True, False) in any command's output, text or JSON, over
a whole played demo campaign; one wording of table rows and of dice errors; --help lists the choices
and the options that repeat; unit ids are case-insensitive like sides and RGs."""
from __future__ import annotations

import json
import re

import pytest

import cli
from cg.app.demo import play
from cg import tables
from conftest import Campaign, cli_run

PYTHON_WORDS = re.compile(r"\b(None|True|False)\b")


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """The demo played whole; `status` (text and JSON) taken at every step it stood at on the way."""
    path = str(tmp_path_factory.mktemp("words") / "demo.plcg")
    outputs: dict[str, str] = {}
    seen: set = set()

    def around(led, cmd, run):
        st = led.state()
        key = (st.firefight, st.step)
        if key not in seen:
            seen.add(key)
            d = cli.status_dict(st)
            outputs[f"status --json ff{st.firefight} {st.step}"] = json.dumps(d, ensure_ascii=False)
            outputs[f"status ff{st.firefight} {st.step}"] = cli.status_text(d)
        return run(cmd)

    lines: list[str] = []
    play(path, echo=lines.append, around=around)
    outputs["demo output"] = "\n".join(lines)
    return path, outputs


READS = [
    ("status",), ("status", "--json"), ("log",), ("log", "--json"), ("roster",), ("roster", "--json"),
    ("purchases", "axis"), ("purchases", "allied", "--json", "--reveal"), ("oob", "axis"), ("oob", "allied", "--json"),
    ("map",), ("map", "--json"), ("audit",), ("audit", "--json"), ("replay",), ("replay", "--json"),
    ("export", "--format", "md"), ("export", "--format", "html"), ("export", "--format", "jsonl"),
    ("roster", "--at", "100"), ("oob", "axis", "--at", "60"), ("map", "--at", "40"), ("cards",), ("cards", "--json"),
]


def test_no_python_words_in_any_output_of_a_played_demo(played, tmp_path):
    path, outputs = played
    for args in READS:
        r = cli_run(path, *args)
        assert r.code == 0, (args, r.err)
        outputs[" ".join(args)] = r.out + r.err
    for name in cli.main.list_commands(None):  # every command's --help, and the step diagram
        r = cli_run(path, name, "--help")
        assert r.code == 0, (name, r.err)
        outputs[f"{name} --help"] = r.out
    outputs["diagram"] = cli_run(path, "diagram", "--markdown").out
    svg = tmp_path / "m.svg"
    assert cli_run(path, "map", "--svg", str(svg)).code == 0
    outputs["map --svg"] = svg.read_text(encoding="utf-8")
    for name, text in outputs.items():
        m = PYTHON_WORDS.search(text)
        assert m is None, (name, text[max(0, m.start() - 120):m.end() + 60])
    assert len([n for n in outputs if n.startswith("status --json")]) > 60  # every step of six firefights


def test_text_status_at_every_step_of_a_campaign_names_no_python_word(tmp_path):
    c = Campaign(tmp_path / "s.plcg", plan={1: {"buy": [("axis", "I1")], "end": {"cvp_lost": {"axis": 4, "allied": 2}}}})
    texts = []
    for step in ("2.3", "2.6", "2.9", "3.2", "3.44", "3.52"):
        c.advance(1, step)
        c.led.close()
        r = cli_run(c.path, "status")
        assert r.code == 0, r.err
        texts.append(r.out)
        c.led = cli.Ledger(c.path, write=True)
    c.close()
    for t in texts:
        assert PYTHON_WORDS.search(t) is None, t


def test_table_rows_and_results_read_one_way_everywhere(played):
    path, _outputs = played
    log = cli_run(path, "log").out
    rows = re.findall(r", row (\S+) of ", log)
    assert rows and not [r for r in rows if re.match(r"[<>][^=]", r)]
    assert re.search(r"row <=\d+ of ", log) and re.search(r"row >=\d+ of ", log)
    md = cli_run(path, "export", "--format", "md").out
    assert not re.search(r", row [<>][^=]", md)
    # and in words, not the ledger's keys: "redeploys replaced", "cleared open ground", "enemy MLR"
    snake = re.findall(r"\b[a-z]+_[a-z_]+\b", log)
    assert not snake, sorted(set(snake))


@pytest.mark.parametrize("args,takes", [
    (("cp", "axis", "--dice", "7,1"), "two dice (a DR: white,colored), e.g. --dice 3,5"),
    (("cp", "axis", "--dice", "x"), "two dice (a DR: white,colored), e.g. --dice 3,5"),
    (("cp", "axis", "--dice", "3"), "two dice (a DR: white,colored), e.g. --dice 3,5"),
    (("determine", "--dice", "0"), "one die (a dr), e.g. --dice 4"),
    (("rubble", "C3", "--kia", "1", "--level", "1", "--dice", "3"),
     "three dice (a dr, then white,colored), e.g. --dice 4,3,5"),
])
def test_dice_errors_read_one_way(tmp_path, args, takes):
    path = str(tmp_path / "d.plcg")
    assert cli_run(path, "new", "--card", "sample").code == 0
    r = cli_run(path, *args)
    assert r.code == 2
    assert r.err == f"plcg: --dice {args[-1]}: this roll takes {takes}; each die shows 1-6\n"


def test_help_lists_the_choices_and_says_which_options_repeat():
    buy = cli_run("x.plcg", "buy", "--help").out
    assert "--mode [on-map|reserve|entry]" in buy
    fortify = cli_run("x.plcg", "fortify", "--help").out
    for kind in tables.FORTIFICATIONS:  # a Dummy Minefield too: at the card's price (ruling R22)
        assert kind in fortify, kind
    end = cli_run("x.plcg", "end", "--help").out
    for opt in ("--cvp-lost", "--control", "--lost", "--terrain", "--wounded"):
        block = end[end.index(opt):]
        block = block[:block.index("\n  --", 3) if "\n  --" in block[3:] else len(block)]
        assert "Repeatable." in " ".join(block.split()), opt
    for name in cli.main.list_commands(None):
        for p in cli.main.get_command(None, name).params:
            if getattr(p, "multiple", False) and not p.nargs == -1:
                assert "repeatable" in (p.help or "").lower(), (name, p.name)


def test_unit_ids_are_case_insensitive_like_sides_and_rgs(tmp_path):
    c = Campaign(tmp_path / "u.plcg")
    c.advance(1, "2.3")
    c.close()
    assert cli_run(c.path, "buy", "AXIS", "i1", "--mode", "On-Map").code == 0
    st = cli.Ledger(c.path).state()
    [u] = [u for u in st.units.values() if u.side == "axis" and u.kind == "squad"][:1]
    assert u.id != u.id.lower()
    c = Campaign.attach(c.path)
    c.advance(1, "2.6")
    c.close()
    r = cli_run(c.path, "setup", "Axis", u.id.lower(), "l4")
    assert r.code == 0, r.err
    rows = [x for x in cli.Ledger(c.path).store.read() if x.type == "unit_set_up"]
    assert rows[-1].payload["unit"] == u.id and rows[-1].payload["hex"] == "L4"
    r = cli_run(c.path, "setup", "axis", "nosuch-1.1", "L4")
    assert r.code == 2 and "unknown axis unit 'nosuch-1.1'" in r.err


def test_a_repair_flagged_at_2_9_is_found_whatever_the_case_of_its_id(tmp_path):
    c = Campaign(tmp_path / "r.plcg", plan={1: {"buy": [("axis", "HW1")]}})
    c.advance(1, "2.9")
    hmg = next(u.id for u in c.state().units.values() if u.side == "axis" and u.name == "HMG")
    c.run("end", turn=5, cvp_lost={"axis": 2, "allied": 3}, repair=[f"axis:{hmg}=malfunction"])
    c.advance(1, "3.46")
    c.close()
    r = cli_run(c.path, "repair", "axis", hmg.lower(), "--dice", "3")
    assert r.code == 0, r.err
    rows = [x for x in cli.Ledger(c.path).store.read() if x.type == "repair_rolled"]
    assert [x.payload["item"] for x in rows] == [hmg]
