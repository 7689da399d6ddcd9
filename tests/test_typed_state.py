"""The typed CampaignState (issue 22 item 2): the RePh record, the step's Done records and play by
email are typed parts of the state (cg/state.py), stored in the form the snapshot and the replay
digest always had, and no part takes an attribute it does not declare."""
from __future__ import annotations

import attrs
import orjson
import pytest

import cli
from cg import snapshot
from cg.state import SIDES, BySide, CampaignState, Done, Ground, Pbem, Position, Reph, What
from cg.units import Kind, Status
from conftest import cli_run
from projections.digest import digest

# each record as the fold makes it, and the text it was kept as when records were strings
RECORDS = [
    (Done("end"), "end"), (Done("weather"), "weather"), (Done("cp", "axis"), "cp:axis"),
    (Done("set", "allied", "I1-2.3"), "set:allied:I1-2.3"), (Done("evacuate", None, "I2-1.4"), "evacuate:I2-1.4"),
    (Done("disease-owed", "axis", 3), "disease-owed:axis:3"), (Done("oba-roll", "axis", (7, "O1-1")), "oba-roll:axis:7:O1-1"),
    (Done("cr-owed", "allied", "B5"), "cr-owed:allied:B5"), (Done("repair", "axis", "I3-1.2:MMG"), "repair:axis:I3-1.2:MMG"),
]


@pytest.mark.parametrize("record,text", RECORDS, ids=[t for _d, t in RECORDS])
def test_a_done_record_is_stored_as_its_old_text_and_read_back(record, text):
    assert str(record) == text
    assert Done.parse(text) == record and type(Done.parse(text).of) is type(record.of)
    assert type(Done.parse(text).what) is What and type(str(record)) is str


def test_play_by_email_is_stored_as_the_dict_it_replaced():
    d = {"keys": {"axis": "ed25519:a", "allied": "ed25519:b"}, "dice_policy": "two-party",
         "signed": {s: None for s in SIDES}, "proposal": None, "requests": {}, "sealing": False, "seals": {},
         "points": [], "cp_sealed": {s: False for s in SIDES}, "leaders_made": {s: 0 for s in SIDES},
         "revealed_n": {s: 0 for s in SIDES}}
    pb = Pbem.of_data(d)
    assert pb.data() == d  # no `provisional` key until one was ever set, no `stale` until true
    pb.provisional = None
    assert pb.data() == {**d, "provisional": None}
    pb.stale = True
    assert Pbem.of_data(pb.data()) == pb


@pytest.mark.parametrize("part", [CampaignState(card=None, seed="s"), Reph(), Pbem(keys={}), Ground(), Position()],
                         ids=["CampaignState", "Reph", "Pbem", "Ground", "Position"])
def test_no_part_takes_an_attribute_it_does_not_declare(part):
    with pytest.raises(AttributeError):
        part.cleared_this_step = set()  # an ad hoc field: refused (slots)
    assert attrs.has(type(part)) and type(part).__doc__


def test_a_played_reph_holds_typed_records_and_its_snapshot_reads_back_the_same(campaign):
    c = campaign()
    c.advance(1, "3.47")
    c.run("elr", side="axis")
    path = c.path
    c.close()
    led = cli.Ledger(path)
    folded = led.state(use_snapshot=False)
    assert Done("elr", "axis") in folded.reph.done and all(type(k) is Done for k in folded.reph.done)
    assert all(type(k.what) is What for k in folded.reph.done)  # issue 33 item 8: Done.what an enum
    assert all(type(k) is tuple for k in [*folded.reph.cleared, *folded.reph.patrol_units, *folded.reph.repairs_owed])
    data = snapshot.state_data(folded)
    assert all(type(x) is str for x in data["done"])  # the stored form: the old text
    loaded = cli.Ledger(path).state()  # from the stored snapshot
    assert loaded.reph == folded.reph and digest(loaded) == digest(folded)
    assert all(type(k.what) is What for k in loaded.reph.done)


def _folded(campaign, firefight: int, step: str, plan: dict | None = None):
    """(the file of a campaign played to `step` of `firefight`, its state folded from the log)."""
    c = campaign(plan=plan)
    c.advance(firefight, step)
    path = c.path
    c.close()
    return path, cli.Ledger(path).state(use_snapshot=False)


def test_the_ground_is_one_frozen_part_stored_as_the_three_keys_it_was(campaign):
    path, folded = _folded(campaign, 1, "2.3")
    assert folded.ground.control  # the card's initial control (1.4)
    with pytest.raises(AttributeError):
        folded.ground.control = {}  # frozen: the fold changes its values in place, never replaces them
    data = snapshot.state_data(folded)
    assert "ground" not in data and {"control", "terrain", "fortifications"} <= set(data)
    assert data["control"] == folded.ground.control
    loaded = cli.Ledger(path).state()  # from the stored snapshot
    assert type(loaded.ground) is Ground and loaded.ground == folded.ground and digest(loaded) == digest(folded)
    copied = folded.copy()
    assert copied.ground == folded.ground and copied.ground.control is not folded.ground.control


def _string_records(tree) -> list[int]:
    """Lines where a string (a literal or an f-string) is tested against, added to or taken from a
    `done` set: the records are Done values now, so such a test would never match."""
    import ast

    def is_text(n) -> bool:
        return isinstance(n, ast.JoinedStr) or (isinstance(n, ast.Constant) and isinstance(n.value, str))

    def is_done(n) -> bool:
        return isinstance(n, ast.Attribute) and n.attr == "done"

    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and is_text(node.left) and any(
                isinstance(op, (ast.In, ast.NotIn)) and is_done(c) for op, c in zip(node.ops, node.comparators)):
            out.append(node.lineno)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and is_done(node.func.value) \
                and node.func.attr in ("add", "discard", "remove") and node.args and is_text(node.args[0]):
            out.append(node.lineno)
    return out


def test_no_code_looks_for_a_string_record_in_done():
    """A merged branch that still writes `"end" in st.done` is found here: it reads `Done("end") in
    st.reph.done` now (the mechanical rewrite that typed the state, tools/typed_rewrite.py, is in the
    history of this round, commit 6151f79)."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    found = []
    for path in [root / "cli.py", *(root / "cg").rglob("*.py"), *(root / "projections").rglob("*.py")]:
        found += [f"{path.relative_to(root)}:{n}" for n in _string_records(ast.parse(path.read_text(encoding="utf-8")))]
    assert found == []
    assert _string_records(ast.parse('if f"cp:{side}" in st.reph.done: st.reph.done.add("end")')) == [1, 1]


# module-level mutable values of the fold's modules, each with why the fold may hold it: registries filled
# at import and constants (the memos of pure functions and of the card map live in the ledger's caches,
# cg/caches.py: issue 33 item 7)
MODULE_MUTABLES = {
    "cg.evolve": {"HANDLERS": "registry", "FOLDS": "registry (cg/steps/registry.py's)"},
    "cg.steps.registry": {"FOLDS": "registry", "WORDS": "registry"},
    # each phase's steps, with the folds and words of their events (the words' tables: constants)
    "cg.steps.purchase": {},
    "cg.steps.before": {"_SETUP": "constant Done records", "_REDEPLOY_25": "constant Done records",
                        "SIDE": "constant words", "SITUATION": "constant words", "TYPE": "constant words"},
    "cg.steps.end": {"SIDE": "constant words"}, "cg.steps.reph": {}, "cg.steps.changes": {},
    "cg.steps.anywhere": {"SIDE": "constant words"},
    "cg.state": {"_CLONES": "registry"},
}


@pytest.mark.parametrize("module", sorted(MODULE_MUTABLES))
def test_the_fold_keeps_no_module_level_state_of_its_own(module):
    # issue 22 item 2: the kept terrain's verdicts (once a module-level epoch that every fold of terrain
    # moved on) live on the state, emptied by terrain_changed(st)
    import importlib

    mod = importlib.import_module(module)
    found = {k for k, v in vars(mod).items() if type(v) in (dict, list, set) and not k.startswith("__")}
    assert found == set(MODULE_MUTABLES[module])


def test_a_terrain_change_drops_the_verdicts_of_that_state_alone(campaign):
    from cg.state import terrain_changed

    c = campaign()
    a, b = c.state(), c.state().copy()
    a.strategic(), b.strategic()
    a._grown, b._grown = (a.ground.terrain, frozenset()), (b.ground.terrain, frozenset())
    terrain_changed(b)
    assert a._grown is not None and b._grown is None and b._strategic is None
    c.close()


def test_units_and_purchases_are_keyed_by_side_and_id_and_stored_as_the_text_they_were(campaign):
    # issue 22 item 2: no "side:id" string keys; the snapshot and the digest keep the text form
    path, folded = _folded(campaign, 2, "2.3", plan={1: {"buy": [("axis", "I1"), ("allied", "I1")]}})
    assert folded.units and folded.purchases and folded.purchase_count
    assert all(k == (u.side, u.id) for k, u in folded.units.items())
    assert all(k == (p.side, p.id) for k, p in folded.purchases.items())
    assert all(type(k) is tuple and k[0] in SIDES for k in folded.purchase_count)
    data = snapshot.state_data(folded)
    assert set(data["purchase_count"]) == {f"{s}:{rg}" for s, rg in folded.purchase_count}
    loaded = cli.Ledger(path).state().load_all()  # from the stored snapshot, its settled part merged
    assert list(loaded.units) == list(folded.units) and loaded.purchase_count == folded.purchase_count
    assert digest(loaded) == digest(folded)
    u = next(iter(folded.units.values()))
    assert folded.unit(u.id, u.side) is folded.units[(u.side, u.id)]


def _string_keys(tree) -> list[int]:
    """Lines where a string (a literal or an f-string) is looked up in, stored in or tested against the
    state's units, purchases or purchase_count: their keys are (side, id) tuples (cg.state.key)."""
    import ast

    def is_text(n) -> bool:
        return isinstance(n, ast.JoinedStr) or (isinstance(n, ast.Constant) and isinstance(n.value, str))

    def is_table(n) -> bool:
        return isinstance(n, ast.Attribute) and n.attr in ("units", "purchases", "purchase_count")

    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and is_table(node.value) and is_text(node.slice):
            out.append(node.lineno)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and is_table(node.func.value) \
                and node.func.attr in ("get", "pop", "setdefault") and node.args and is_text(node.args[0]):
            out.append(node.lineno)
        elif isinstance(node, ast.Compare) and is_text(node.left) and any(
                isinstance(op, (ast.In, ast.NotIn)) and is_table(c) for op, c in zip(node.ops, node.comparators)):
            out.append(node.lineno)
    return out


def test_no_code_keys_a_unit_or_purchase_by_a_string():
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    found = []
    for path in [root / "cli.py", *(root / "cg").rglob("*.py"), *(root / "projections").rglob("*.py")]:
        found += [f"{path.relative_to(root)}:{n}" for n in _string_keys(ast.parse(path.read_text(encoding="utf-8")))]
    assert found == []
    sample = 'st.units[f"{side}:{uid}"] = u\nst.purchase_count.get(f"{s}:{rg.id}", 0)\nif "axis:I1" in st.purchases: pass'
    assert _string_keys(ast.parse(sample)) == [1, 2, 3]


def test_where_the_campaign_stands_is_one_frozen_value_stored_as_the_six_keys_it_was(campaign):
    # issue 22 item 2, the step part: firefight, step, option, ended... are one Position, replaced by the fold
    path, folded = _folded(campaign, 2, "2.3")
    assert type(folded.position) is Position and (folded.firefight, folded.step) == (2, "2.3")
    assert (folded.position.firefight, folded.position.step) == (2, "2.3")
    with pytest.raises(AttributeError):
        folded.step = "2.9"  # read-only: only the fold moves the campaign, by a new Position
    with pytest.raises(AttributeError):
        folded.position.step = "2.9"  # frozen
    data = snapshot.state_data(folded)
    assert "position" not in data
    assert {k: data[k] for k in ("firefight", "step", "option", "ended", "end_reason", "conceded_by")} == \
        attrs.asdict(folded.position)
    loaded = cli.Ledger(path).state()  # from the stored snapshot
    assert loaded.position == folded.position and digest(loaded) == digest(folded)
    moved = folded.copy()
    moved.position = moved.position.to(step="2.4")
    assert folded.step == "2.3" and moved.step == "2.4"


def test_fortifications_and_patrol_teams_are_records_stored_as_the_dicts_they_were(workdir):
    # issue 22 item 2: Ground.fortifications (2.38) and Reph.patrol_units (2.72-2.74, ruling R29) hold typed
    # records; the snapshot keeps the dicts, key for key in order, and reads them back to the same state
    from conftest import cli_run

    from cg.state import Fortification, PatrolTeam

    path = workdir / "demo.plcg"
    assert cli_run(str(path), "demo").code == 0
    led = cli.Ledger(str(path))
    try:
        seen = {"fortification": 0, "patrol": 0}
        for seq in range(1, led.store.head()[0] + 1, 7):
            st = led.state(at=seq, use_snapshot=False)
            assert all(type(f) is Fortification for f in st.ground.fortifications)
            assert all(type(t) is PatrolTeam for t in st.reph.patrol_units.values())
            data = snapshot.state_data(st)
            assert [list(f) for f in data["fortifications"]] == \
                [["side", "kind", "hex", "cost", "detail", "unit", "firefight"]] * len(st.ground.fortifications)
            assert [list(t) for t in data["patrol_units"].values()] == [["team", "kind", "hex"]] * len(st.reph.patrol_units)
            hot, cold = snapshot.dump_split(st.copy(), None)  # as the ledger stores it: its hot and cold parts
            back = snapshot.load(hot, st.card, cold=lambda token, probe=False: cold[1] if token == cold[0] else None)
            assert back.ground.fortifications == st.ground.fortifications
            assert back.reph.patrol_units == st.reph.patrol_units and digest(back) == digest(st)
            twin = st.copy()
            assert all(a == b and a is not b for a, b in zip(twin.ground.fortifications, st.ground.fortifications))
            seen["fortification"] += bool(st.ground.fortifications)
            seen["patrol"] += bool(st.reph.patrol_units)
        assert all(seen.values()), seen  # the demo buys fortifications and sends patrols (revision 2 on)
    finally:
        led.close()


def test_a_units_kind_and_status_are_enums_stored_as_their_words(campaign):
    """Issue 33 item 8: `Unit.kind` is a `Kind` and `Unit.status` a `Status`, folded from the log, read back
    from the snapshot, and after the fold changes them (a squad reduced to its half-squad, 3.52's Casualty
    Reduction given at 2.9; a squad eliminated); the snapshot stores their words, as before."""
    c = campaign(plan={1: {"buy": [("axis", "I1"), ("allied", "I1")]}})
    c.advance(1, "2.9")
    path = c.path
    c.close()
    assert cli_run(path, "end", "--turn", "5", "--cvp-lost", "axis=3", "--cvp-lost", "allied=0",
                   "--reduced", "axis:I1-1.1", "--lost", "axis:I1-1.2").code == 0
    folded = cli.Ledger(path).state(use_snapshot=False)
    units = list(folded.units.values())
    assert all(type(u.kind) is Kind and type(u.status) is Status for u in units)
    assert folded.unit("I1-1.1", "axis").kind is Kind.HALF_SQUAD  # 4-6-7 reduced to its 2-4-7
    assert folded.unit("I1-1.2", "axis").status is Status.ELIMINATED
    rows = orjson.loads(orjson.dumps(snapshot.state_data(folded)["units"]))
    assert [(r[3], r[5]) for r in rows] == [(u.kind.value, u.status.value) for u in units]  # the words
    loaded = cli.Ledger(path).state()  # from the stored snapshot
    loaded.load_all()
    assert all(type(u.kind) is Kind and type(u.status) is Status for u in loaded.units.values())
    assert digest(loaded) == digest(folded)


def test_the_rephs_values_by_side_are_records_stored_as_the_dicts_they_replaced(campaign):
    """Issue 33 item 8: the RePh's per-side values (3.44 promotions, 3.45 leader results, the 2.7 patrols
    done...) are `BySide` records read and written by side, kept by the snapshot and the digest as the
    {"axis": ..., "allied": ...} dicts they replaced, key for key and in order, and read back as records."""
    c = campaign()
    c.advance(1, "3.45")
    path = c.path
    c.close()
    folded = cli.Ledger(path).state(use_snapshot=False)
    r = folded.reph
    by_side = ("patrols_done", "patrols_to_return", "hardened_now", "promotions", "leader_result", "generated",
               "may_generate")
    assert all(type(getattr(r, k)) is BySide for k in by_side)
    data = snapshot.state_data(folded)
    for k in by_side:
        assert list(data[k]) == list(SIDES) and all(type(data[k][s]) in (int, list) for s in SIDES), k
    assert data["promotions"] == {s: r.promotions[s] for s in SIDES}
    loaded = cli.Ledger(path).state()  # from the stored snapshot
    assert all(type(getattr(loaded.reph, k)) is BySide for k in by_side)
    assert loaded.reph == r and digest(loaded) == digest(folded)
    copied = folded.copy()
    copied.reph.hardened_now["axis"].append("a unit of the copy")
    copied.reph.patrols_done["allied"].add(9)
    assert "a unit of the copy" not in r.hardened_now["axis"]
    assert 9 not in r.patrols_done["allied"]  # a copy's per-side lists and sets are its own


def _per_side_dicts(path) -> list[str]:
    """The fields of the state's record classes whose default is a dict keyed by both sides: a dict literal
    {"axis": ..., "allied": ...} or a comprehension over SIDES, in the field's default (attrs.Factory's lambda)."""
    import ast

    def keyed_by_side(node) -> bool:
        for n in ast.walk(node):
            if isinstance(n, ast.Dict) and {getattr(k, "value", None) for k in n.keys} == {"axis", "allied"}:
                return True
            if isinstance(n, ast.DictComp) and any(isinstance(g.iter, ast.Name) and g.iter.id == "SIDES"
                                                   for g in n.generators):
                return True
        return False

    tree = ast.parse(path.read_text())
    helpers = {f.name for f in tree.body if isinstance(f, ast.FunctionDef) and keyed_by_side(f)}  # _per_side(...)
    found = []
    for cls in (c for c in tree.body if isinstance(c, ast.ClassDef)):
        for stmt in cls.body:
            if isinstance(stmt, ast.AnnAssign) and stmt.value is not None and (
                    keyed_by_side(stmt.value) or any(isinstance(n, ast.Call) and getattr(n.func, "id", None) in helpers
                                                     for n in ast.walk(stmt.value))):
                found.append(f"{cls.name}.{stmt.target.id}")
    return found


def test_the_state_keeps_no_per_side_dict():
    """Issue 33 item 8: per-side records (BySide) replace the {"axis": ..., "allied": ...} dicts of the state's
    classes (the firefight record's ten, play by email's four, the RePh's seven before them)."""
    from pathlib import Path

    assert _per_side_dicts(Path(snapshot.__file__).parent / "state.py") == []


def test_the_per_side_walk_finds_both_forms(tmp_path):
    """The walk above sees a dict literal keyed by the sides and a helper that builds one over SIDES."""
    sample = tmp_path / "sample.py"
    sample.write_text('def _per_side(v):\n    return attrs.Factory(lambda: {s: v for s in SIDES})\n\n\n'
                      'class A:\n    x: dict = attrs.Factory(lambda: {"axis": 0, "allied": 0})\n'
                      '    y: dict = _per_side(0)\n    z: dict = attrs.Factory(dict)\n')
    assert _per_side_dicts(sample) == ["A.x", "A.y"]


def test_the_firefight_record_and_play_by_email_are_stored_as_the_dicts_they_replaced(tmp_path):
    """A BySide field is stored as its dict, axis first, and read back as a BySide (the snapshot's tuple row)."""
    from cg.state import FirefightRecord

    ff = FirefightRecord(n=1, date="d", time="day", initial=True)
    ff.cvp_lost["allied"] += 3
    ff.platoons["axis"]["elite"] = 1
    stored = snapshot._as_dict(ff)
    assert list(stored["cvp_lost"].items()) == [("axis", 0), ("allied", 3)]  # the dict's keys in its order
    assert stored["platoons"] == {"axis": {"elite": 1}, "allied": {}}
    back = FirefightRecord.of_row(orjson.loads(orjson.dumps(tuple(stored.values()))))
    assert back == ff and type(back.tvp) is BySide
