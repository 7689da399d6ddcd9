"""Map timings that used to sit in the test suite as wall-clock asserts (issue 22: timing belongs here).

    python -m bench.maps

prints the cost of building a 2x2 map of geomorphic boards (uncached) and of `cg.control.classify` on a
30x20 grid, for a sparse map and for a checkerboard of CTHC clusters (the slow case), each as the best of
five, and the slow case as a ratio of the sparse one measured in the same run.
"""
from __future__ import annotations

import time

from cg import boards, caches
from cg.control import classify
from cg.hexgrid import Grid

WEST_EAST = {"axis": "west", "allied": "east"}


def best_of(fn, runs: int = 5) -> float:
    best = float("inf")
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    square = [["24", "23"], ["12", "13"]]

    def build():
        caches.use(caches.Caches())  # built anew: the memo lives in the ledger's caches (cg/caches.py)
        boards.geometry(square)

    g = Grid.from_spec("A-DD", 20)  # 30 x 20
    hs = g.hexes()
    sparse = frozenset(hs[::13])
    sparse_control = {h: ("axis" if g.parse(h)[0] < 14 else "allied") for h in sorted(sparse)[::2]}
    board = {f"{g.columns[c]}{r}": ("axis" if (c // 3 + r // 3) % 2 else "allied")
             for c in range(0, 30, 3) for r in range(1, 21, 3)}
    t_build = best_of(build)
    t_sparse = best_of(lambda: classify(g, sparse, sparse_control, WEST_EAST))
    t_board = best_of(lambda: classify(g, frozenset(board), board, WEST_EAST))
    print(f"2x2 geomorphic map built:          {t_build * 1000:8.1f} ms")
    print(f"classify, sparse 30x20:            {t_sparse * 1000:8.1f} ms")
    print(f"classify, checkerboard of CTHC:    {t_board * 1000:8.1f} ms  ({t_board / t_sparse:.1f}x the sparse map)")


if __name__ == "__main__":
    main()
