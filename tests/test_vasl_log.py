"""Issue 37 item 11: `plcg end ... --vasl-log FILE` records the firefight's evidence, each VASL log's file name
and SHA-256, in the end event (an optional field: an end without it is stored as before), and the log's words
and the After Action Report show it. Played by email: the other copy reads it from the bundle."""
from __future__ import annotations

import hashlib
import json

from conftest import cli_run
from helpers.pbem import OTHER, Game
from cg.app.ledger import Ledger


def _end_payloads(db: str) -> list[dict]:
    led = Ledger(db)
    try:
        return [r.payload for r in led.store.read() if r.type == "firefight_ended"]
    finally:
        led.close()


def test_the_vasl_logs_of_a_firefight_are_its_evidence(workdir):
    g = Game(workdir, policy=None, sealed=False)
    g.play_to(1, "2.9")
    logs = [workdir / "ff1-turn1-4.vlog", workdir / "ff1-turn5.vlog"]
    logs[0].write_bytes(b"VASL log, turns 1-4" * 1000)
    logs[1].write_bytes(b"VASL log, turn 5")
    digests = [hashlib.sha256(p.read_bytes()).hexdigest() for p in logs]
    end = ["end", "--turn", "5", "--cvp-lost", "axis=4", "--cvp-lost", "allied=6"]
    missing = g.cli(g.holder, *end, "--vasl-log", str(workdir / "nowhere.vlog"))
    assert missing.code == 2
    said = g.do(g.holder, *end, "--vasl-log", str(logs[0]), "--vasl-log", str(logs[1])).out
    assert f"played in ff1-turn1-4.vlog (SHA-256 {digests[0]})" in said  # the end stated, in words
    other = OTHER[g.holder]
    g.send(g.holder)
    (p,) = _end_payloads(g.db[other])
    assert p["vasl_logs"] == [{"name": p_.name, "sha256": d} for p_, d in zip(logs, digests)]
    words = [x["summary"] for x in map(json.loads, cli_run(g.db[other], "log", "--json").out.splitlines())
             if x["type"] == "firefight_ended"]
    assert words and f"played in ff1-turn1-4.vlog (SHA-256 {digests[0]}), ff1-turn5.vlog (SHA-256 {digests[1]})" \
        in words[0]
    md = cli_run(g.db[other], "export", "--format", "md")
    assert md.code == 0, md.err
    assert f"ff1-turn5.vlog (SHA-256 {digests[1]})" in md.out and "VASL logs:" in md.out
    for db in g.db.values():
        assert cli_run(db, "audit").code == 0


def test_an_end_without_vasl_logs_is_stored_as_before(workdir):
    """The field is left out where no log is given: an old log's end decides again to the same text."""
    g = Game(workdir, policy=None, sealed=False)
    g.play_to(1, "2.9")
    g.do(g.holder, "end", "--turn", "5", "--cvp-lost", "axis=4", "--cvp-lost", "allied=6")
    (p,) = _end_payloads(g.db[g.holder])
    assert "vasl_logs" not in p
