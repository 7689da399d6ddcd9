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
    measured = ("import resource, sys\nsys.argv = ['plcg', *sys.argv[2:]]\nimport cli\ntry:\n    cli.main()\n"
                "finally:\n    open(PEAK, 'w').write(str(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss))\n")
    child = subprocess.run([sys.executable, "-c", measured.replace("PEAK", repr(str(peak))), "--",
                            "--db", str(db), "receive", str(bomb)], cwd=ROOT, capture_output=True, text=True)
    assert child.returncode == 2, child.stderr
    assert said in child.stderr
    assert db.read_bytes() == before
    peak_kb = int(peak.read_text())  # the process's own peak resident size
    assert peak_kb < 256 * 1024, f"the refusal peaked at {peak_kb // 1024} MB"
