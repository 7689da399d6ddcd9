"""Input that costs too much (issue 37, F5): a card nested hundreds of levels deep is bad input (exit 2,
one line, nothing written), never an internal error; a gzip bomb posing as a bundle is refused holding a
step of it, not the 256 MB a bundle may inflate to."""
from __future__ import annotations

import subprocess
import sys
import zlib

import pytest

from conftest import ROOT, SAMPLE, cli_run

DEPTHS = (40, 300, 492, 5000)


def _measured(args: list[str], peak) -> subprocess.CompletedProcess:
    """Run plcg in a child that writes its own peak resident size (kB) to `peak` as it exits: the VmHWM of
    /proc/self/status, which starts anew at exec (getrusage's ru_maxrss keeps the forking parent's peak)."""
    code = ("import sys\nsys.argv = ['plcg', *sys.argv[2:]]\nimport cli\ntry:\n    cli.main()\nfinally:\n"
            "    hwm = [x for x in open('/proc/self/status') if x.startswith('VmHWM:')][0].split()[1]\n"
            f"    open({str(peak)!r}, 'w').write(hwm)\n")
    return subprocess.run([sys.executable, "-c", code, "--", *args], cwd=ROOT, capture_output=True, text=True)


def _deep(n: int, kind: str) -> str:
    return "[" * n + "]" * n if kind == "array" else "{a = " * n + "1" + "}" * n


@pytest.mark.parametrize("kind", ["array", "table"])
@pytest.mark.parametrize("depth", DEPTHS)
def test_a_deeply_nested_card_is_bad_input(tmp_path, depth, kind):
    card = tmp_path / "deep.toml"
    card.write_text(SAMPLE.read_text(encoding="utf-8") + f"\n[deep]\nx = {_deep(depth, kind)}\n", encoding="utf-8")
    r = cli_run(tmp_path / "unused.plcg", "card", "check", str(card))
    assert r.code == 2, r.err
    assert len(r.err.strip().splitlines()) >= 1 and "internal error" not in r.err
    db = tmp_path / "c.plcg"
    r = cli_run(db, "new", "--card", str(card))
    assert r.code == 2
    assert "internal error" not in r.err
    assert not db.exists()


@pytest.mark.parametrize("fill, said", [(b"\0", "a line longer than 8 MB"), (b"\n", "inflates to more than 256 MB")])
def test_a_gzip_bomb_is_refused_within_the_bound(tmp_path, fill, said):
    bomb = tmp_path / "bomb.bundle"
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    chunk = fill * 2**20
    bomb.write_bytes(b"".join([*(z.compress(chunk) for _ in range(600)), z.flush()]))  # 600 MB inflated
    db = tmp_path / "c.plcg"
    assert cli_run(db, "new", "--card", "sample", "--seed", "b").code == 0
    before = db.read_bytes()
    peak = tmp_path / "peak"
    child = _measured(["--db", str(db), "receive", str(bomb)], peak)
    assert child.returncode == 2, child.stderr
    assert said in child.stderr
    assert db.read_bytes() == before
    peak_kb = int(peak.read_text())  # the process's own peak resident size
    assert peak_kb < 256 * 1024, f"the refusal peaked at {peak_kb // 1024} MB"


def test_sync_takes_the_real_bundles_from_a_hostile_folder(tmp_path):
    """Issue 37 attack 4: junk, another campaign's bundle, a 300 MB file and a thousand small files lie in
    the shared folder beside the real bundle: each is skipped with one line naming it, the real one is
    taken in, and the process stays under 100 MB."""
    from test_pbem_sync import Players

    g = Players(tmp_path)
    box = tmp_path / "box"
    box.mkdir()
    g.ok("axis", "sync", "--folder", box, "--send")
    g.ok("allied", "sync", "--folder", box)
    g.ok("axis", "weather")
    g.ok("axis", "sync", "--folder", box, "--send")
    (tmp_path / "other").mkdir()
    other = Players(tmp_path / "other")
    other.ok("axis", "weather", "Rain")
    other.ok("axis", "bundle", "--since", "0", "-o", box / "000001-000009-axis.bundle")  # another campaign
    (box / "junk.bundle").write_bytes(b"not a bundle at all\n")
    with open(box / "huge.bundle", "wb") as f:
        f.truncate(300 * 2**20)  # sparse: 300 MB, more than any bundle
    for i in range(1000):
        (box / f"small-{i:04d}.bundle").write_bytes(b'{"plcg_bundle": 1}\n')
    peak = tmp_path / "peak"
    r = _measured(["--db", g.db["allied"], "--key", g.key["allied"], "sync", "--folder", str(box)], peak)
    assert r.returncode == 0, r.stderr
    assert "at-start weather" in r.stdout  # the real bundle, taken in
    assert g.log("allied") == g.log("axis")
    skipped = [x for x in r.stderr.splitlines() if x.startswith("sync: skipped ")]
    assert len(skipped) == len(r.stderr.splitlines()) == 1003
    assert "sync: skipped 000001-000009-axis.bundle: a bundle of another campaign" in skipped
    assert "sync: skipped junk.bundle: is not a plcg bundle (no bundle header on its first line)" in skipped
    assert any(x.startswith("sync: skipped huge.bundle: 300 MB, more than a plcg bundle can be") for x in skipped)
    assert int(peak.read_text()) < 100 * 1024, f"sync peaked at {int(peak.read_text()) // 1024} MB"


def test_a_new_copy_is_made_from_its_own_campaigns_first_bundle(tmp_path):
    """Two campaigns' first bundles in one folder: the copy is made from the one whose keys hold the player's."""
    from test_pbem_sync import Players

    g = Players(tmp_path)
    box = tmp_path / "box"
    box.mkdir()
    (tmp_path / "other").mkdir()
    other = Players(tmp_path / "other")
    other.ok("axis", "bundle", "--since", "0", "-o", box / "000001-000001-axis.bundle")
    g.ok("axis", "sync", "--folder", box, "--send")
    assert len(list(box.iterdir())) == 2
    r = g.cli("allied", "sync", "--folder", box)
    assert r.code == 0, r.err
    assert g.log("allied") == g.log("axis")
    assert "a bundle of another campaign" in r.err
