"""Play by email at the pace of a letter (issue 26): `plcg sync` through a git repository and a
plain folder, bundles of what the other copy lacks, compressed.

Every test drives the real command line; the campaign files stay private, only bundles travel.
"""
from __future__ import annotations

import json
import os
import shutil
from conftest import cli_run
from test_pbem import _git

SIDES = ("axis", "allied")


class Players:
    def __init__(self, tmp, policy: str | None = None):
        self.tmp = tmp
        self.key, pub = {}, {}
        for s in SIDES:
            self.key[s] = str(tmp / f"{s}.key")
            pub[s] = cli_run(tmp / "x.plcg", "keys", "new", "-o", self.key[s]).out.strip()
        self.db = {s: str(tmp / f"{s}.plcg") for s in SIDES}
        args = ["new", "--card", "sample", "--axis-key", pub["axis"], "--allied-key", pub["allied"]]
        r = cli_run(self.db["axis"], *args, *(["--dice-policy", policy] if policy else []))
        assert r.code == 0, r.err

    def cli(self, side, *args):
        return cli_run(self.db[side], "--key", self.key[side], *args)

    def ok(self, side, *args):
        r = self.cli(side, *args)
        assert r.code == 0, (args, r.err)
        return r

    def log(self, side) -> list[dict]:
        return [json.loads(x) for x in cli_run(self.db[side], "log", "--json").out.splitlines()]


def test_sync_through_a_bare_git_repository_and_two_clones(workdir):
    """One command a turn: `sync --git` pulls and takes in what the other player pushed, `sync --git
    --send` bundles what the other copy lacks, commits and pushes."""
    bare = workdir / "shared.git"
    _git(workdir, "init", "-q", "--bare", "-b", "main", str(bare))
    clone = {s: workdir / f"{s}-clone" for s in SIDES}
    for s in SIDES:
        _git(workdir, "clone", "-q", str(bare), str(clone[s]))
    g = Players(workdir)
    sent = g.ok("axis", "sync", "--git", clone["axis"], "--send")
    assert "sent 000001-" in sent.out and "pushed" in sent.out
    got = g.ok("allied", "sync", "--git", clone["allied"])  # the allied copy is made from the first bundle
    assert "received seq 1 to" in got.out and "campaign started" in got.out
    assert "your move (allied)" in got.out and "at-start weather" in got.out
    g.ok("allied", "weather", "Clear")
    g.ok("allied", "next")
    sent = g.ok("allied", "sync", "--git", clone["allied"], "--send")
    assert "pushed" in sent.out
    got = g.ok("axis", "sync", "--git", clone["axis"])
    # the opponent's moves in the log's words, never a signature or an internal name
    assert "[3] at-start weather: Clear" in got.out and "left step 2.2 for 2.3" in got.out
    assert "signed the head" not in got.out
    assert g.log("axis") == g.log("allied")
    # the pushes are in the shared repository's history, one commit a send
    assert len(_git(bare, "log", "--oneline", "main").splitlines()) == 2
    # a sync with nothing new changes nothing
    again = g.ok("axis", "sync", "--git", clone["axis"])
    assert "nothing new" in again.out and g.log("axis") == g.log("allied")
    # the second bundle held only what the axis copy had not acknowledged (the rows from its signature on)
    names = sorted(p.name for p in clone["axis"].glob("*.bundle"))
    assert names[0].startswith("000001-") and names[1].startswith("000003-"), names


def _weather_sent(workdir, leave: bool = False):
    """The axis player sends the campaign through a folder; the allied player records the weather
    (and leaves 2.2) and sends that back."""
    box = workdir / "box"
    box.mkdir()
    g = Players(workdir)
    g.ok("axis", "sync", "--folder", box, "--send")
    g.ok("allied", "sync", "--folder", box)
    g.ok("allied", "weather")
    if leave:
        g.ok("allied", "next")
    g.ok("allied", "sync", "--folder", box, "--send")
    return g, box


def test_sync_send_refuses_to_fork_when_the_other_player_sent_first(workdir):
    g, box = _weather_sent(workdir)
    g.ok("axis", "weather", "Rain")  # the axis player acts before taking the allied bundle in
    n = len(list(box.iterdir()))
    r = g.cli("axis", "sync", "--folder", box, "--send")
    assert r.code == 2 and "run `plcg sync` first" in r.err and len(list(box.iterdir())) == n
    # and taking it in now is refused as the fork it is, nothing written
    before = g.log("axis")
    r = g.cli("axis", "sync", "--folder", box)
    assert r.code == 2 and "fork" in r.err and g.log("axis") == before


def test_a_plain_folder_with_bundles_arriving_twice_and_out_of_order(workdir):
    box, outbox = workdir / "box", workdir / "outbox"
    box.mkdir()
    outbox.mkdir()
    g = Players(workdir)
    g.ok("axis", "sync", "--folder", box, "--send")
    g.ok("allied", "sync", "--folder", box)
    # the axis player sends two letters; the second (after seq 4) arrives first
    g.ok("axis", "weather")
    first = g.ok("axis", "bundle", "--since", "2", "-o", outbox / "first.bundle")
    assert "seq 3 to" in first.out
    head = json.loads(cli_run(g.db["axis"], "head", "--json").out)["seq"]
    g.ok("axis", "next")
    g.ok("axis", "bundle", "--since", str(head), "-o", outbox / "second.bundle")
    shutil.copy(outbox / "second.bundle", box / "000009-000012-axis.bundle")
    r = g.ok("allied", "sync", "--folder", box)
    assert "nothing new" in r.out and "waiting: 000009-000012-axis.bundle" in r.out
    assert len(g.log("allied")) == 2
    # the first arrives, twice (under two names): taken in once, then the second, in order
    shutil.copy(outbox / "first.bundle", box / "a-letter.bundle")
    shutil.copy(outbox / "first.bundle", box / "the-same-letter-again.bundle")
    r = g.ok("allied", "sync", "--folder", box)
    assert "at-start weather" in r.out and "left step 2.2 for 2.3" in r.out and "waiting" not in r.out
    assert g.log("allied") == g.log("axis")
    again = g.ok("allied", "sync", "--folder", box)
    assert "nothing new" in again.out and g.log("allied") == g.log("axis")
    # a damaged bundle in the folder is refused with its name, nothing written
    (box / "zz-broken.bundle").write_bytes(b"\x1f\x8b" + b"garbage")
    r = g.cli("allied", "sync", "--folder", box)
    assert r.code == 2 and "zz-broken.bundle" in r.err and g.log("allied") == g.log("axis")


def test_sync_needs_a_place_and_a_key(workdir):
    g = Players(workdir)
    assert g.cli("axis", "sync").code == 2
    assert g.cli("axis", "sync", "--folder", workdir / "nowhere").code == 2
    r = g.cli("axis", "sync", "--git", workdir)
    assert r.code == 2 and "not a git clone" in r.err
    r = cli_run(g.db["axis"], "sync", "--folder", workdir)
    assert r.code == 2 and "key" in r.err


def test_a_bundle_holds_what_the_other_copy_lacks_compressed(workdir):
    g, box = _weather_sent(workdir, leave=True)
    g.ok("axis", "sync", "--folder", box)
    g.ok("axis", "buy", "axis", "I1")
    r = g.ok("axis", "bundle", "-o", workdir / "b.bundle")
    first_new = max(x["seq"] for x in g.log("allied") if x["type"] == "head_signed")
    assert f"seq {first_new + 1} to" in r.out  # from the allied copy's own signature on, no earlier row
    data = (workdir / "b.bundle").read_bytes()
    assert data[:2] == b"\x1f\x8b"  # gzip
    whole = g.ok("axis", "bundle", "--since", "0", "-o", workdir / "all.bundle")
    assert "seq 1 to" in whole.out
    assert os.path.getsize(workdir / "b.bundle") < os.path.getsize(workdir / "all.bundle") / 2
    assert cli_run(g.db["allied"], "receive", workdir / "b.bundle").code == 0
    assert g.log("allied") == g.log("axis")
