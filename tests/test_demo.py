"""`plcg demo` run again replaces the demo file it made, so the README's first command works twice; it
never replaces a campaign it did not make, even one of the same card and seed."""
from __future__ import annotations

import hashlib

from conftest import cli_run


def _digest(path) -> str:
    r = cli_run(str(path), "replay", "--json")
    assert r.code == 0, r.err
    return r.out


def test_the_demo_run_twice_replaces_its_own_file_with_the_same_campaign(workdir):
    path = workdir / "demo.plcg"
    first = cli_run(str(path), "demo")
    assert first.code == 0, first.err
    before = _digest(path)
    again = cli_run(str(path), "demo")
    assert again.code == 0, again.err
    assert again.out.startswith(f"replacing the earlier demo campaign in {path}\n")
    assert _digest(path) == before  # the same seeded campaign, played once: not appended twice
    r = cli_run(str(path), "audit")
    assert r.code == 0 and "audit clean" in r.out, r.out


def test_the_demo_never_replaces_a_campaign_it_did_not_make(workdir):
    mine = workdir / "mine.plcg"
    r = cli_run(str(mine), "new", "--card", "sample", "--seed", "plcg-demo")  # the demo's card and seed
    assert r.code == 0, r.err
    other = workdir / "notes.txt"
    other.write_text("my notes\n", encoding="utf-8")
    for path in (mine, other):
        before = hashlib.sha256(path.read_bytes()).hexdigest()
        r = cli_run(str(path), "demo")
        assert r.code == 2 and r.out == ""
        assert r.err.strip() == (f"plcg: {path} exists and is not a demo campaign: give --db NEWFILE "
                                 "(the demo replaces only a file it made)")
        assert hashlib.sha256(path.read_bytes()).hexdigest() == before
