"""Play by email's records typed (issue 22 item 2): the entries of Pbem.requests (two-party dice, rulings R44,
R67, R83), Pbem.seals (sealed secrets, ruling R47) and Pbem.anchors (chains of answers, ruling R83) are attrs
classes of cg/state.py, stored in the form the dicts they replaced had, key for key and in the same order.

tests/fixtures/pbem-records/ is the axis player's copy of a campaign by email written by the code before the
records were typed (tests/helpers/make_pbem_fixture.py, tests/fixtures/README.md), with the replay digest and
the stored `pbem` part of every row's state as that code gave them, folded with and without the axis key."""
from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

import attrs
import orjson
import pytest

from cg.app.ledger import Ledger
from cg.app.keys import load_private
from cg.state import AnswerChain, DiceRequest, Pbem, Proposal, RevealPoint, Seal
from projections.digest import digest

FIXTURE = Path(__file__).parent / "fixtures" / "pbem-records"

# the stored forms, key by key in order, as the untyped fold wrote them
REQUEST = ["side", "command", "nonce", "answer"]  # ruling R44 (a sealed one's nonce None: its box holds it)
REQUEST_CHAINED = REQUEST + ["value", "chain", "anchor"]  # ruling R83
REQUEST_WITHHELD = REQUEST + ["withheld"]  # ruling R67: signed over its answer unrevealed
SEAL = ["side", "what", "ff", "step", "seq", "nonce", "box", "opened", "opens", "closes"]
CHAIN = ["side", "anchor", "nonce", "length", "next", "last", "reverts"]


@pytest.fixture(scope="module")
def states(tmp_path_factory):
    """(view, seq, state) for every row of the fixture, folded without a key and with the axis key."""
    path = tmp_path_factory.mktemp("pbem-records") / "axis.plcg"
    shutil.copyfile(FIXTURE / "axis.plcg", path)  # opening a WAL-mode file makes side files: keep them out of git
    out = []
    for view, key in (("none", None), ("axis", load_private(str(FIXTURE / "axis.key")))):
        led = Ledger(str(path), key=key)
        try:
            out += [(view, seq, led.state(at=seq, use_snapshot=False)) for seq in range(1, led.store.head()[0] + 1)]
        finally:
            led.close()
    return out


def test_every_state_of_a_campaign_by_email_is_stored_as_the_untyped_code_stored_it(states):
    want = json.loads((FIXTURE / "expected.json").read_text(encoding="utf-8"))["states"]
    assert len(states) == len(want)
    for view, seq, st in states:
        stored = orjson.dumps(st.pbem.data())  # as the snapshot writes it: keys in their order
        assert [digest(st)["digest"], hashlib.sha256(stored).hexdigest()] == want[f"{view}:{seq}"], \
            (view, seq, orjson.loads(stored))


def test_the_stored_records_read_back_typed_and_store_again_byte_for_byte(states):
    shapes = {"requests": set(), "seals": set(), "anchors": set()}
    seen = {"sealed request": 0, "unopened seal": 0, "opened seal": 0, "seal opening dice": 0, "seal closing": 0}
    for view, seq, st in states:
        pb = st.pbem
        assert all(type(r) is DiceRequest for r in pb.requests.values())
        assert all(type(r) is Seal for r in pb.seals.values()) and all(type(r) is AnswerChain for r in pb.anchors.values())
        stored = orjson.dumps(pb.data())
        back = Pbem.of_data(orjson.loads(stored))  # the snapshot's way back
        assert back == pb and orjson.dumps(back.data()) == stored, (view, seq)
        d = orjson.loads(stored)
        for part in shapes:
            shapes[part] |= {tuple(r) for r in d.get(part, {}).values()}
        seen["sealed request"] += sum(r.command.get("name") == "sealed" and r.nonce is None for r in pb.requests.values())
        seen["unopened seal"] += sum(not r.opened for r in pb.seals.values())
        seen["opened seal"] += sum(r.opened for r in pb.seals.values())
        seen["seal opening dice"] += sum(r.opens is not None for r in pb.seals.values())
        seen["seal closing"] += sum(r.closes is not None for r in pb.seals.values())
        assert all(type(p) is RevealPoint for p in pb.points)
        assert all(x is None or type(x) is Proposal for x in (pb.proposal, pb.provisional))
        seen["reveal point"] = seen.get("reveal point", 0) + len(pb.points)
        seen["proposal"] = seen.get("proposal", 0) + (pb.proposal is not None)
        seen["provisional"] = seen.get("provisional", 0) + (pb.provisional is not None)
    # the fixture holds every form a record is stored in (else the test above would prove little)
    assert shapes == {"requests": {tuple(REQUEST), tuple(REQUEST_CHAINED), tuple(REQUEST_WITHHELD)},
                      "seals": {tuple(SEAL)}, "anchors": {tuple(CHAIN)}}
    assert all(seen.values()), seen


def _record(cls):
    return {DiceRequest: {"side": "axis", "command": {"name": "leader"}, "nonce": "n", "answer": None},
            Seal: {"side": "axis", "what": "purchase", "ff": 1, "step": "2.3", "seq": 9, "nonce": "n", "box": "00",
                   "opened": False, "opens": None, "closes": None},
            AnswerChain: {"side": "allied", "anchor": "a" * 64, "nonce": "n", "length": 1024, "next": 1,
                          "last": [0, "a" * 64], "reverts": 0}}[cls]


@pytest.mark.parametrize("cls", [DiceRequest, Seal, AnswerChain])
def test_a_record_refuses_a_key_or_an_attribute_it_does_not_declare(cls):
    d = _record(cls)
    assert cls.of_data(d).data() == d
    with pytest.raises(TypeError):
        cls.of_data({**d, "opened_by": "axis"})  # a key no field holds: refused, never carried along
    with pytest.raises(TypeError):
        Pbem.of_data({"keys": {}, "requests": {}, "seals": {}, "anchors": {},
                      {DiceRequest: "requests", Seal: "seals", AnswerChain: "anchors"}[cls]: {"c": {**d, "x": 1}}})
    rec = cls.of_data(d)
    with pytest.raises(AttributeError):
        rec.cleared_this_step = True  # slots: no ad hoc attribute
    assert attrs.has(cls) and re.search(r"rulings?\s+R\d+", cls.__doc__)  # the rules that write it


def test_a_seal_is_frozen_and_a_request_without_a_chain_stores_no_chain_keys():
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        Seal.of_data(_record(Seal)).opened = True  # the fold never changes a seal: a copy shares it
    r = DiceRequest.of_data(_record(DiceRequest))
    r.answer = "b" * 64
    assert list(r.data()) == REQUEST  # no value/chain/anchor (ruling R44), no withheld until true
    r.withheld = True
    assert list(r.data()) == REQUEST_WITHHELD


def test_a_copy_of_the_state_clones_the_records_the_fold_changes_and_shares_the_seals(states):
    view, seq, st = next(x for x in states if x[2].pbem.requests and x[2].pbem.seals and x[2].pbem.anchors)
    before = orjson.dumps(st.pbem.data())
    cp = st.copy()
    assert cp.pbem == st.pbem
    assert all(cp.pbem.seals[c] is r for c, r in st.pbem.seals.items())  # frozen: shared
    for c, r in cp.pbem.requests.items():
        assert r is not st.pbem.requests[c] and r.command is not st.pbem.requests[c].command
        r.answer, r.withheld = "changed", True
        r.command["name"] = "changed"
    for a in cp.pbem.anchors.values():
        a.next += 5
        a.last[0] = 999
    assert orjson.dumps(st.pbem.data()) == before  # the original untouched


@pytest.mark.parametrize("point,text", [(RevealPoint(3, "2.4", "axis"), "3:2.4:axis"),
                                        (RevealPoint(12, "3.44", "allied"), "12:3.44:allied"),
                                        (RevealPoint(None, "end", "axis"), "end:axis")])
def test_a_reveal_point_is_stored_as_its_old_text_and_read_back(point, text):
    assert str(point) == text and RevealPoint.parse(text) == point


def test_a_proposal_is_frozen_and_stored_as_the_dict_it_replaced():
    d = {"side": "axis", "command": {"name": "next", "step": "2.3", "provisional": 41}}
    prop = Proposal.of_data(d)
    assert prop.data() == d and Proposal.of_data(None) is None
    with pytest.raises(AttributeError):
        prop.side = "allied"
    with pytest.raises(TypeError):
        Proposal.of_data({**d, "seq": 3})
