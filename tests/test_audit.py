"""Issue 5: tamper with a campaign file the way a person would, with sqlite3, and `plcg audit`
catches each with the right seq (exit 1); an untouched file audits clean (exit 0)."""
from __future__ import annotations

import json
import shutil
import sqlite3

import pytest
from click.testing import CliRunner

import cli
from cg.app.demo import play


@pytest.fixture(scope="module")
def campaign(tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("audit") / "c.plcg")
    play(path, echo=lambda s: None)
    return path


def _audit(db: str):
    r = CliRunner().invoke(cli.main, ["--db", db, "audit", "--json"])
    return r.exit_code, json.loads(r.output)


def _copy(campaign, tmp_path) -> str:
    db = str(tmp_path / "t.plcg")
    shutil.copyfile(campaign, db)
    return db


def _first(db: str, etype: str):
    c = sqlite3.connect(db)
    seq, payload = c.execute("SELECT seq, payload FROM events WHERE type = ? ORDER BY seq LIMIT 1",
                             (etype,)).fetchone()
    c.close()
    return seq, json.loads(payload)


def _set(db: str, seq: int, payload: dict) -> None:
    c = sqlite3.connect(db)
    c.execute("UPDATE events SET payload = ? WHERE seq = ?",
              (json.dumps(payload, sort_keys=True, separators=(",", ":")), seq))
    c.commit()
    c.close()


def test_an_untouched_campaign_audits_clean(campaign):
    code, report = _audit(campaign)
    assert code == 0 and report["findings"] == [] and report["events"] > 200


def test_a_changed_die_is_caught_at_its_seq(campaign, tmp_path):
    db = _copy(campaign, tmp_path)
    seq, p = _first(db, "elr_rolled")
    p["roll"]["dice"][0] = 1 if p["roll"]["dice"][0] != 1 else 2
    _set(db, seq, p)
    code, report = _audit(db)
    assert code == 1
    rules = {f["rule"] for f in report["findings"] if f["seq"] == seq}
    assert {"chain", "3.47", "seed"} <= rules  # edited row; final no longer follows; not the roller's die


def test_a_die_out_of_range_is_caught(campaign, tmp_path):
    db = _copy(campaign, tmp_path)
    seq, p = _first(db, "cp_replenished")
    p["roll"]["dice"][1] = 9
    _set(db, seq, p)
    code, report = _audit(db)
    assert code == 1
    assert any(f["seq"] == seq and f["rule"] == "dice" for f in report["findings"])


def test_a_changed_purchase_cost_is_caught_with_rule_2_34(campaign, tmp_path):
    db = _copy(campaign, tmp_path)
    seq, p = _first(db, "rg_bought")
    p["cost"] = 1
    _set(db, seq, p)
    code, report = _audit(db)
    assert code == 1
    assert any(f["seq"] == seq and f["rule"] == "2.34" and "cost recorded 1" in f["what"]
               for f in report["findings"])


def test_a_changed_drm_list_is_caught(campaign, tmp_path):
    db = _copy(campaign, tmp_path)
    c = sqlite3.connect(db)
    seq, payload = c.execute("SELECT seq, payload FROM events WHERE type = 'elr_rolled' AND payload LIKE "
                             "'%\"drm\":[{%' ORDER BY seq LIMIT 1").fetchone()
    c.close()
    p = json.loads(payload)
    p["roll"]["drm"] = p["roll"]["drm"][1:]  # "forget" a DRM, keep the final
    _set(db, seq, p)
    code, report = _audit(db)
    assert any(f["seq"] == seq and "DRM list differs" in f["what"] for f in report["findings"])


def test_a_deleted_row_is_caught_at_its_seq(campaign, tmp_path):
    db = _copy(campaign, tmp_path)
    c = sqlite3.connect(db)
    c.execute("DELETE FROM events WHERE seq = 40")
    c.commit()
    c.close()
    code, report = _audit(db)
    assert code == 1
    assert any(f["seq"] == 40 and f["rule"] == "chain" for f in report["findings"])


def test_two_swapped_rows_are_caught_at_their_seqs(campaign, tmp_path):
    db = _copy(campaign, tmp_path)
    c = sqlite3.connect(db)
    cols = "type, version, payload"
    a = c.execute(f"SELECT {cols} FROM events WHERE seq = 30").fetchone()
    b = c.execute(f"SELECT {cols} FROM events WHERE seq = 31").fetchone()
    c.execute("UPDATE events SET type = ?, version = ?, payload = ? WHERE seq = 30", b)
    c.execute("UPDATE events SET type = ?, version = ?, payload = ? WHERE seq = 31", a)
    c.commit()
    c.close()
    code, report = _audit(db)
    assert code == 1
    seqs = {f["seq"] for f in report["findings"] if f["rule"] == "chain"}
    assert {30, 31} <= seqs


def test_an_out_of_order_event_is_caught(campaign, tmp_path):
    """An event whose recorded step is not where the campaign stood (rows edited together with
    their hashes recomputed would still break here: the step order is re-derived)."""
    db = _copy(campaign, tmp_path)
    c = sqlite3.connect(db)
    seq = c.execute("SELECT seq FROM events WHERE type = 'elr_rolled' ORDER BY seq LIMIT 1").fetchone()[0]
    c.execute("UPDATE events SET step = '2.3' WHERE seq = ?", (seq,))
    c.commit()
    c.close()
    code, report = _audit(db)
    assert any(f["seq"] == seq and f["rule"] == "step order" for f in report["findings"])


@pytest.mark.parametrize("edit", [
    "UPDATE events SET payload = 'not json' WHERE seq = {seq}",
    "UPDATE events SET payload = json_remove(payload, '$.unit') WHERE seq = {seq}",
    "UPDATE events SET payload = '[1, 2]' WHERE seq = {seq}",
    "UPDATE events SET payload = json_set(payload, '$.hex', 'ZZ99') WHERE seq = {seq}",
    "UPDATE events SET type = 'weather_set' WHERE seq = {seq}",
], ids=["not JSON", "a key removed", "a list", "a hex off the map", "another type"])
def test_an_edit_against_the_event_schema_is_a_finding_not_a_crash(campaign, tmp_path, edit):
    """The audit reports what it cannot fold or decide at its seq (exit 1; an off-map hex folds, and
    fails where a later command looks at it), with the chain findings, and decides nothing after it;
    it never fails with an internal error (exit 5)."""
    db = _copy(campaign, tmp_path)
    seq, _ = _first(db, "unit_set_up")
    c = sqlite3.connect(db)
    c.execute(edit.format(seq=seq))
    c.commit()
    c.close()
    r = CliRunner().invoke(cli.main, ["--db", db, "audit", "--json"])
    assert r.exit_code == 1, (r.exit_code, r.output, r.exception)
    report = json.loads(r.output)
    findings = report["findings"]
    c = sqlite3.connect(db)
    assert report["events"] == c.execute("SELECT count(*) FROM events").fetchone()[0]  # the unreadable too
    c.close()
    assert {"seq": seq, "rule": "chain"} in [{k: f[k] for k in ("seq", "rule")} for f in findings]
    stop = [f for f in findings if f["rule"] == "format"]  # where folding failed: that row, or a later
    assert len(stop) == 1 and stop[0]["seq"] >= seq and "decided again" in stop[0]["what"], findings
    assert all(f["seq"] <= stop[0]["seq"] for f in findings if f["rule"] != "chain"), findings
