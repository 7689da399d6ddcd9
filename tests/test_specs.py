"""One definition per command (issue 33 item 2): the click commands of the step commands, the play-by-email
lists, the words of a `pending` command and the help sections are generated from cg/specs.py, and the
command line, the help and the stored command are what they were when each was written by hand."""
from __future__ import annotations

import json
import re
from pathlib import Path

import click
import pytest

import cli
from cg import pbem, specs
from cg.items import IN_HEX

FIXTURES = Path(__file__).resolve().parent / "fixtures"
# every command with its options, as the CLI contract has it (docs/commands.md)
CONTRACT = (Path(__file__).resolve().parent.parent / "docs" / "commands.md").read_text()


def _signature(p: click.Parameter) -> list:
    t = "Path" if isinstance(p.type, click.Path) else repr(p.type)
    d = repr(None if p.default is getattr(click.core, "UNSET", object()) or "Sentinel" in repr(p.default)
             else p.default)
    return [type(p).__name__, repr(p.name), repr(p.opts), t, repr(p.required), repr(getattr(p, "multiple", False)),
            repr(getattr(p, "is_flag", None)), d, repr(p.metavar), repr(getattr(p, "help", None)),
            repr(getattr(p, "show_default", None))]


def test_generated_commands_are_those_written_by_hand():
    """tests/fixtures/command_signatures.json: every command's parameters as the hand-written click decorators
    of a8bd811 made them (name, flags, type, required, repeatable, default, metavar, help), and its help."""
    before = json.loads((FIXTURES / "command_signatures.json").read_text())
    made = {s.name for s in specs.SPECS if s.cli and not s.group}
    assert made == set(before)
    for name in sorted(made):
        cmd = cli.main.get_command(None, name)
        assert cmd.help == before[name]["help"], name
        assert [_signature(p) for p in cmd.params] == before[name]["params"], name


def test_generated_commands_take_every_option_the_contract_names():
    uses = re.findall(r"`plcg ([a-z-]+)([^`]*)`", CONTRACT)
    named: dict[str, set] = {}
    for name, rest in uses:
        named.setdefault(name, set()).update(re.findall(r"--[a-z][a-z-]*", rest))
    checked = 0
    for s in specs.SPECS:
        if s.cli and not s.group and s.name in named:
            takes = {o for p in cli.main.get_command(None, s.name).params for o in getattr(p, "opts", ())}
            assert named[s.name] <= takes, s.name
            checked += 1
    assert checked >= 50  # the contract names nearly every command


def test_the_lists_of_play_by_email_are_the_specs():
    assert (pbem.SIDED, pbem.SHARED, pbem.SHARED_3, pbem.OWN) == (specs.SIDED, specs.SHARED, specs.SHARED_3,
                                                                  specs.OWN)
    assert "end" in pbem.SHARED
    assert "buy" in pbem.SIDED
    assert "option" in pbem.SHARED_3
    assert "sign" in pbem.OWN


def test_terrain_help_names_every_item_a_map_names():
    assert specs.IN_HEX_WORDS == ", ".join(IN_HEX)


def test_help_sections_list_the_commands_as_before():
    """The listing of `plcg --help` of a8bd811 (HELP_SECTIONS written by hand)."""
    assert cli.help_sections() == (
        ("Start a campaign, cards", ("new", "cards", "card", "demo", "import", "rules-upgrade")),
        ("Where it stands, what happened", ("status", "next", "log", "roster", "purchases", "oob", "map", "head",
                                            "export", "dice-stats", "dice-check", "diagram")),
        ("2.1-2.3 Purchases", ("cp", "weather", "buy", "patrols", "attack", "oba", "leader", "fortify")),
        ("2.4-2.8 Before the firefight", ("determine", "night", "redeploy", "moves-first", "setup", "patrol",
                                          "patrol-return")),
        ("2.9 The firefight's end", ("end", "position", "rubble", "flame", "concede")),
        ("3.1-3.52 Refit Phase", ("casualties", "option", "encircled", "shock", "evacuate", "disease", "harden",
                                  "promote", "leaders", "repair", "recall", "elr", "clear")),
        ("Play by email", ("keys", "sync", "bundle", "receive", "reveal", "claim", "confirm", "reject")),
        ("Checking and repair", ("audit", "replay", "undo")),
        ("The web page", ("serve",)),
    )


def _values(name: str, **given) -> dict:
    """The parsed values of `plcg NAME` with `given`: the defaults click gives the rest."""
    cmd = cli.main.get_command(None, name)
    ctx = cmd.make_context(name, [], resilient_parsing=True)
    return {**ctx.params, **given}


# the stored form of a command: keys and their order as the hand-written `_step(ctx, {...})` dicts of a8bd811
@pytest.mark.parametrize("name, given, stored", [
    ("leader", {"side": "axis", "rg": "I1", "hex_": "G5", "commissar": True, "dice": "3,4"},
     {"name": "leader", "side": "axis", "rg": "I1", "commissar": True, "dice": "3,4", "hex": "G5"}),
    ("redeploy", {"side": "axis", "unit": "u1", "to": "G5", "hs": 2, "counter": "4-6-7", "dice": "1,2"},
     {"name": "redeploy", "side": "axis", "unit": "u1", "to": "G5", "hs": 2, "counter": "4-6-7", "dice": "1,2"}),
    ("redeploy", {"side": "axis", "done": True}, {"name": "redeploy", "side": "axis", "done": True}),
    ("patrol", {"side": "axis", "kind": "recon", "units": "a, b,", "hex_": "G5", "elite": 0},
     {"name": "patrol", "side": "axis", "type": "recon", "units": ["a", "b"], "hex": "G5", "elite": 0}),
    ("patrol-return", {"side": "axis", "patrol_n": "1", "trip_flares": True, "pinned": True, "dice": "2,2"},
     {"name": "patrol-return", "side": "axis", "patrol": "1", "pinned": True, "dice": "2,2", "trip_flares": True}),
    ("repair", {"side": "axis", "item": "G5", "drm": 0, "leadership": -1},
     {"name": "repair", "side": "axis", "item": "G5", "leadership": -1}),
    ("rubble", {"hex_": "G5", "kia": 2, "level": 1}, {"name": "rubble", "hex": "G5", "kia": 2, "level": 1}),
    ("casualties", {"side": "axis", "lost": ("u1", "u2")}, {"name": "casualties", "side": "axis", "lost": ["u1", "u2"]}),
    ("buy", {"side": "axis", "rg": "I1"}, {"name": "buy", "side": "axis", "rg": "I1", "mode": "entry"}),
    ("end", {"turn": 0, "cvp_lost": ("axis:3", "allied=4"), "lost": ("axis=u1",), "position": ("axis=u1:G5",)},
     {"name": "end", "turn": 0, "cvp_lost": {"axis": "3", "allied": "4"}, "lost": ["axis:u1"],
      "position": ["axis:u1=G5"]}),
])
def test_the_stored_command_is_unchanged(name, given, stored):
    got = specs.BY_NAME[name].command(_values(name, **given))
    assert list(got.items()) == list(stored.items())


@pytest.mark.parametrize("name, given, said", [
    ("leader", {"side": "axis"}, "name the RG (2.36) or give --generated (3.45)"),
    ("redeploy", {"side": "axis", "done": True, "unit": "u1"}, "--done takes no UNIT and no --to"),
    ("redeploy", {"side": "axis", "unit": "u1"}, "give UNIT and --to HEX (or --done at 2.5 Option A)"),
])
def test_arguments_that_do_not_fit_together_are_a_usage_error(name, given, said):
    with pytest.raises(specs.Usage, match=re.escape(said)):
        specs.BY_NAME[name].command(_values(name, **given))
