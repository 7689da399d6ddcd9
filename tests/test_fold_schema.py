"""One schema per event (issue 22.3): the fold's handlers (`@on`, beside each step in cg/steps/, and cg/evolve.py) take the event classes of
events/types.py, built from the stored payload by a constructor made for each type
(events/stored.py), and read nothing but the fields of their class."""
from __future__ import annotations

import ast
import inspect
import textwrap

import attrs
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cg import evolve, seal
from cg.steps.registry import FOLDS
from events.convert import unstructure
from events.stored import build
from events.types import REGISTRY
from test_events import builds


def _reads(fn) -> tuple[set[str], set[str]]:
    """(the attributes a handler reads of its event, the keys it reads of it as a dict)."""
    func = ast.parse(textwrap.dedent(inspect.getsource(fn))).body[0]
    params = [a.arg for a in func.args.args]
    if len(params) < 2:
        return set(), set()
    p = params[1]
    attrs_read, keys = set(), set()
    for node in ast.walk(func):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == p:
            attrs_read.add(node.attr)
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == p:
            keys.add(ast.unparse(node.slice))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == p:
            keys.add(ast.unparse(node.args[0]) if node.args else "")
    return attrs_read, keys


def test_every_handled_type_has_its_class_and_its_fold():
    assert set(FOLDS) <= set(REGISTRY), set(FOLDS) - set(REGISTRY)
    assert set(evolve.handler_table()) == set(FOLDS)


@pytest.mark.parametrize("etype", sorted(FOLDS))
def test_a_handler_reads_only_the_fields_of_its_event_class(etype):
    fields = {f.name for f in attrs.fields(REGISTRY[etype])}
    read, keys = _reads(FOLDS[etype])
    assert read <= fields, f"{etype}: the fold reads {sorted(read - fields)}, not fields of {REGISTRY[etype].__name__}"
    assert not keys, f"{etype}: the fold reads its event as a dict ({sorted(keys)}), not as {REGISTRY[etype].__name__}"


def test_the_check_sees_a_field_the_class_lacks_and_a_dict_read():
    def _probe(st, p):
        return p.side, p.nonsense, p["side"]

    assert _reads(_probe) == ({"side", "nonsense"}, {"'side'"})


@pytest.mark.parametrize("name", sorted(REGISTRY))
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_fold_builds_each_event_class_from_its_stored_payload(name, data):
    """What the fold is given is the event as it was decided: its class, every field (nested Rolls,
    unit references... as their classes), the payload it was built from left as it was stored."""
    event = data.draw(builds(REGISTRY[name]))
    stored = orjson.loads(orjson.dumps(unstructure(event)))
    before = orjson.dumps(stored)
    got = build(REGISTRY[name], stored)
    assert type(got) is REGISTRY[name]
    assert orjson.dumps(unstructure(got)) == orjson.dumps(unstructure(event))
    for f in attrs.fields(REGISTRY[name]):  # a nested value is its class (a tuple of plain values stays a list)
        v, w = getattr(event, f.name), getattr(got, f.name)
        if attrs.has(type(v)):
            assert type(w) is type(v), f.name
        elif isinstance(v, tuple) and v and attrs.has(type(v[0])):
            assert [type(x) for x in w] == [type(x) for x in v], f.name
    assert orjson.dumps(stored) == before


def test_a_key_its_writer_left_out_takes_the_class_default_and_a_missing_field_fails_where_read():
    got = build(REGISTRY["leader_rolled"], {"side": "axis", "purchase": None, "unit": None, "generated": True,
                                            "roll": {"dice": [3], "drm": [], "final": 3, "table": "3.45", "row": "3",
                                                     "outcome": None}})
    assert got.hex is None and got.roll.source is None  # omitted when None (events/convert.py, ruling R32)
    bare = build(REGISTRY["unit_set_up"], {"side": "axis", "hex": "A1", "hip": False})
    with pytest.raises(AttributeError):
        bare.unit  # noqa: B018 (an edited row: the handler's read fails, and the fold names the row)


def _calls_of(module, name: str) -> list[int]:
    """The lines of `module` calling `name` (parsed, not searched as text)."""
    tree = ast.parse(inspect.getsource(module))
    return [n.lineno for n in ast.walk(tree)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == name]


def test_the_fold_reads_no_field_with_getattr():
    """Issue 33 item 4: the schema says what a row may leave out (its default), so no handler guesses."""
    assert _calls_of(evolve, "getattr") == []


def test_there_is_one_fold_loop():
    """Issue 33 item 4: replay's chunks, `fold`'s records, one event (`evolve`) and a seal's opened events all
    pass through fold_stored: the only function of cg/evolve.py that calls a handler in a loop over rows."""
    tree = ast.parse(inspect.getsource(evolve))
    looping = set()
    for fn in tree.body:
        if isinstance(fn, ast.FunctionDef):
            for loop in (n for n in ast.walk(fn) if isinstance(n, ast.For)):
                if any(isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == "handler"
                       for c in ast.walk(loop)):
                    looping.add(fn.name)
    assert looping == {"fold_stored"}


@pytest.mark.parametrize("etype", sorted(seal.BALANCES))
def test_a_sealed_openings_event_without_its_balance_builds_with_the_schemas_default(etype):
    """Ruling R47: an opening leaves the CP balance out (cg/seal.BALANCES); the schema declares it optional,
    None, which the fold derives."""
    field = seal.BALANCES[etype]
    declared = attrs.fields_dict(REGISTRY[etype])[field]
    assert declared.default is None
    payload = {"side": "axis", "roll": None, "gained": 3, "rg": "I1", "purchase": "I1-1", "mode": "on-map",
               "base_cost": 4, "delta": 0, "cost": 4, "platoons": 1, "units": [], "count": 1}
    kept = {f.name for f in attrs.fields(REGISTRY[etype])} - {field}
    got = build(REGISTRY[etype], {k: v for k, v in payload.items() if k in kept})
    assert getattr(got, field) is None


def test_the_first_releases_campaign_started_builds_with_the_schemas_defaults():
    """A campaign_started without the keys later releases added reads as the fold always read it."""
    got = build(REGISTRY["campaign_started"], {"product": "plcg", "rules": "PL 2.5", "seed": "s", "card": {}})
    assert (got.card_ref, got.product_version, got.redeployment, got.rules_revision, got.conventions) == \
        ("", "", None, 1, None)


# ---- a row edited against its schema, the chain recomputed: read by the schema's defaults, found by the audit ---

EDITS = [  # (the row's type, the SQL json edit: a field with a default dropped, a key of no field added)
    ("firefight_ended", "json_remove(json_set(payload, '$.bogus', 1), '$.winner_rule')"),
    ("cp_replenished", "json_remove(json_set(payload, '$.zzz', 'x'), '$.total')"),
]


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    from cg.app.demo import play

    path = tmp_path_factory.mktemp("edited") / "demo.plcg"
    play(str(path), echo=lambda _line: None)
    return path


@pytest.mark.parametrize("etype, edit", EDITS, ids=[e[0] for e in EDITS])
def test_a_field_with_a_default_left_out_beside_a_key_of_no_field_reads_as_its_default(etype, edit):
    """The constructor fills a default by the key's absence, not by the payload's count of keys: a row that
    drops `winner_rule` and carries one key of no field has as many keys as the class has fields, and its
    instance lacked the attribute (exit 2 or 5 where the schema allows the row)."""
    cls = REGISTRY[etype]
    field = {"firefight_ended": "winner_rule", "cp_replenished": "total"}[etype]
    default = attrs.fields_dict(cls)[field].default
    payload = {a.name: None for a in attrs.fields(cls) if a.name != field}
    payload["a_key_of_no_field"] = 1
    assert len(payload) == len(attrs.fields(cls))
    assert getattr(build(cls, payload), field) == default


@pytest.mark.parametrize("etype, edit", EDITS, ids=[e[0] for e in EDITS])
def test_an_edited_row_the_schema_allows_is_read_by_every_command_and_found_by_the_audit(played, tmp_path, etype,
                                                                                      edit):
    """Found by editing the demo with sqlite3 and recomputing the chain: `export --format html` met the row
    without its `winner_rule` (optional since issue 33 item 4) and exited 5 (KeyError), where every other read
    took the schema's default. Every read takes it now (never 5), and the audit names the row (exit 1)."""
    import shutil

    from conftest import cli_run
    from helpers.sandbox import rechain

    db = tmp_path / "edited.plcg"
    shutil.copy(played, db)
    rechain(str(db), f"UPDATE events SET payload = {edit} WHERE seq = (SELECT min(seq) FROM events WHERE type = '{etype}')")
    for args in (["replay"], ["log"], ["log", "--json"], ["status"], ["roster"], ["export", "--format", "md"],
                 ["export", "--format", "html"], ["export", "--format", "bbcode"]):
        r = cli_run(db, *args)
        assert r.code == 0, (args, r.code, r.err)
    r = cli_run(db, "audit")
    assert r.code == 1 and "FINDING seq" in r.out and etype in r.out, (r.code, r.out)


def test_an_events_fold_and_words_stand_beside_the_step_that_writes_it():
    """Issue 33 item 4, one home per event: an event's fold (`@on`) and words (`@words`) stand in one module, its
    step's phase's in cg/steps/ (an event written at any step: cg/steps/anywhere.py), or, the fold loop's own
    events, cg/evolve.py, whose loop begins the campaign (`start`) and skips what an undo takes back."""
    from cg.steps.registry import WORDS

    assert set(FOLDS) <= set(WORDS)  # every folded event has its words
    home = {t: {FOLDS[t].__module__, WORDS[t].__module__} for t in FOLDS}
    assert all(len(modules) == 1 for modules in home.values()), {t: m for t, m in home.items() if len(m) > 1}
    assert set().union(*home.values()) == {"cg.steps.purchase", "cg.steps.before", "cg.steps.end", "cg.steps.reph",
                                           "cg.steps.anywhere", "cg.evolve"}
    assert {t for t, m in home.items() if m == {"cg.evolve"}} == {"step_left", "sealed", "seals_revealed"}
    # the loop's own two besides, folded by the loop itself (no `@on`), worded beside it
    assert set(WORDS) - set(FOLDS) == {"campaign_started", "reverted"}
    assert {WORDS[t].__module__ for t in ("campaign_started", "reverted")} == {"cg.evolve"}
    assert set(WORDS) == set(REGISTRY)  # and every event class has them
