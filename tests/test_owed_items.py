"""What a step owes or offers is an `Item` (issue 33 item 2): a command's spec with typed arguments, `Choose` where
the player chooses, its rule and words. Its command line is rendered from the spec; these tests hold the rendering
to what the command line parses and runs, step by step of a whole campaign, and the typed argument classes to the
specs they are built from."""
from __future__ import annotations

import shlex

import attrs
import pytest

import cli
from cg import specs
from cg.app.ledger import Ledger
from cg.options import options
from cg.specs import Choose, Item
from cg.steps import STEPS, pending
from conftest import cli_run, copy_db
from helpers.campaigns import SEED, drive


def _parsed(item: Item):
    """The typed arguments click parses from the item's command line (None where a `Choose` stands for a
    whole number: the line names what to type there, `--turn N`, and click rightly refuses N itself)."""
    spec = item.spec
    if any(isinstance(v, Choose) or (isinstance(v, tuple) and any(isinstance(x, Choose) for x in v))
           for a, v in item.given() if a.kind == "int"):
        return None
    ctx = cli.spec_command(spec).make_context(spec.name, item.words()[1:])
    return spec.args(**ctx.params)


def _as_typed(item: Item):
    """The item's arguments as the player types them: each `Choose` as its word."""
    def word(v):
        if isinstance(v, Choose):
            return v.word
        if isinstance(v, tuple):
            return tuple(word(x) for x in v)
        return v
    return attrs.evolve(item.args, **{a.key: word(v) for a, v in item.given()})


def _check(item: Item, path: str, tmp_path, n: int) -> bool:
    """The checks of one item; True where it ran (runnable)."""
    line = item.command if item.then is None else item.command.split(", then ")[0]
    assert shlex.split(line) == ["plcg", *item.words()], item.command  # one word per argument, as typed
    assert item.words()[0] == item.spec.name
    parsed = _parsed(item)
    if parsed is not None:  # the line parses back to the arguments the item holds
        assert parsed == _as_typed(item), item.command
    if not item.runnable:
        return False
    assert not any(isinstance(v, Choose) for _, v in item.given()), item.command  # runs as written: no choice left
    assert item["args"] == item.spec.command(parsed), item.command  # `args`: the command as the line stores it
    copy = copy_db(path, str(tmp_path / f"run{n}.plcg"))
    r = cli_run(copy, *item.words())
    assert r.code == 0, (item.command, r.err)
    return True


def test_every_item_of_a_whole_campaign_renders_what_the_player_types_and_runs_where_runnable(tmp_path):
    """The sample CG played to its end as the demo's players play it: before each command, every item `pending`
    and `options` list (each line once a step) renders one word per argument, parses back (click) to the typed
    arguments it holds, and a runnable one stores the `args` it shows and is accepted by the CLI as written."""
    path = str(tmp_path / "c.plcg")
    led = Ledger.create(path, "sample", SEED, None)
    steps: set = set()
    seen: set = set()
    ran: set = set()
    names: set = set()

    def before_each_command(st) -> bool:
        if st.ended:
            return False
        steps.add(st.step)
        for item in [*pending(st), *options(st)]:
            if (st.firefight, st.step, item.command) in seen:
                continue
            seen.add((st.firefight, st.step, item.command))
            names.add(item.spec.name)
            if _check(item, path, tmp_path, len(seen)):
                ran.add(item.spec.name)
        return False

    try:
        drive(led, before_each_command)
    finally:
        led.close()
    assert {s.id for s in STEPS} - {"end"} <= steps  # every step stood at
    assert ran >= {"cp", "weather", "leader", "determine", "patrol-return", "promote", "leaders", "elr"}
    assert names - ran >= {"end", "buy", "redeploy", "setup", "harden", "casualties"}  # chosen by the player


def test_an_item_names_only_its_commands_arguments():
    with pytest.raises(KeyError):
        Item.of("leader", "2.36", "axis leader DR", side="axis", unit="I1-1")
    with pytest.raises(KeyError):
        Item.of("no-such-command", "2.36", "nothing")


@pytest.mark.parametrize("item, line", [
    (Item.of("patrol-return", "2.74", "axis patrol 2 Return DR", True, side="axis", patrol_n=2),
     "plcg patrol-return axis 2"),
    (Item.of("end", "2.9", "firefight result", False, turn=Choose.N, cvp_lost=Choose.CVP_LOST),
     "plcg end --turn N --cvp-lost axis=N --cvp-lost allied=N"),
    (Item.of("setup", "2.6", "allied still sets up", False, side="allied", unit=Choose.UNIT, hex_=Choose.HEX,
             then=Item.of("next", "2.6", "")), "plcg setup allied UNIT HEX, then plcg next"),
    (Item.of("redeploy", "2.5", "axis, the Defender: done", side="axis", done=True), "plcg redeploy axis --done"),
    (Item.of("sync", "pbem", "allied owes the answer", False, send=True), "plcg sync --send"),
])
def test_the_command_line_is_rendered_from_the_spec(item, line):
    assert item.command == line
    assert item["command"] == line


def test_an_item_reads_as_the_contracts_dict():
    """cli-contract.md, status `pending`: command, rule, what, runnable, and a runnable command's stored form
    in `args` (a text argument as the command line gives it: the patrol number is the word "2")."""
    item = Item.of("patrol-return", "2.74", "axis patrol 2 Return DR", True, side="axis", patrol_n=2)
    assert dict(item) == {"command": "plcg patrol-return axis 2", "rule": "2.74", "what": "axis patrol 2 Return DR",
                          "runnable": True, "args": {"name": "patrol-return", "side": "axis", "patrol": "2"}}
    assert item.args.patrol_n == "2" and item.by == "axis"
    option = Item.of("casualties", "3.11", "RePh losses", side=Choose.SIDE, cvp=Choose.N)
    assert dict(option) == {"command": "plcg casualties SIDE --cvp N", "rule": "3.11", "what": "RePh losses"}
    assert option.by is None  # SIDE is the player's to choose: either player's option
    bought = Item.of("buy", "2.3", "Rifle Company", side="axis", rg="I1", cost={"entry": 4})
    assert list(bought) == ["command", "rule", "what", "side", "rg", "cost"]
    assert bought["side"] == "axis" and bought["rg"] == "I1" and bought["cost"] == {"entry": 4}


# ---- the typed argument class of each command ----------------------------------------------------------------

def test_each_spec_has_a_typed_argument_class_of_its_args():
    for spec in specs.SPECS:
        fields = attrs.fields(spec.args_class)
        assert [f.name for f in fields] == [a.key for a in spec.params], spec.name
        for f, a in zip(fields, spec.params):
            want = False if a.kind == "flag" else () if a.multiple else a.default
            assert f.default == want, (spec.name, a.key)
            assert f.kw_only
        blank = spec.args()
        with pytest.raises(attrs.exceptions.FrozenInstanceError):
            setattr(blank, "x", 1)


def test_the_class_is_built_when_first_asked_for():
    spec = attrs.evolve(specs.BY_NAME["leader"])  # a spec that has built nothing yet
    assert "args_class" not in vars(spec)
    cls = spec.args_class
    assert vars(spec)["args_class"] is cls is spec.args_class  # once, then kept by the spec
    assert cls.__name__ == "LeaderArgs"


@pytest.mark.parametrize("name, given, stored", [
    ("leader", {"side": "axis", "rg": "I1-1"}, {"name": "leader", "side": "axis", "rg": "I1-1"}),
    ("repair", {"side": "axis", "item": "G5", "kind": "malfunction", "drm": 0},
     {"name": "repair", "side": "axis", "item": "G5", "kind": "malfunction"}),
    ("end", {"turn": 0, "cvp_lost": ["axis:3", "allied=4"], "lost": ["axis=I1-1.1"]},
     {"name": "end", "turn": 0, "cvp_lost": {"axis": "3", "allied": "4"}, "lost": ["axis:I1-1.1"]}),
])
def test_the_stored_command_is_the_same_from_the_typed_arguments_or_from_clicks_values(name, given, stored):
    spec = specs.BY_NAME[name]
    clicks = {a.key: (False if a.kind == "flag" else () if a.multiple else a.default) for a in spec.params}
    clicks.update({k: tuple(v) if isinstance(v, list) else v for k, v in given.items()})
    assert spec.command(clicks) == stored
    assert spec.command(spec.args(**given)) == stored


def test_the_steps_a_command_is_accepted_at_are_read_from_the_steps():
    """`accepted_at` reads each step's `accepts`, in the step order; `@command` gives a command there."""
    from cg.commands import STEPS_OF
    from cg.sequence import StepId
    from cg.steps import accepted_at

    assert accepted_at("leader") == (StepId.PURCHASE, StepId.LEADERS)
    assert accepted_at("casualties") == (StepId.BATTLE_END, StepId.REDEPLOYMENT, StepId.CONSEQUENCES,
                                         StepId.CLEARANCE)
    for spec in specs.SPECS:
        if spec.module is not None and STEPS_OF[spec.name] != ("*",):
            assert STEPS_OF[spec.name] == tuple(s.value for s in accepted_at(spec.name)), spec.name
