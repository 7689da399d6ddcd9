"""Map control (1.4): CTHC, No Man's Land, MLR, Isolated Locations and Uncontrolled Terrain.

`classify` builds the control picture of a card map from its Strategic Terrain hexes, who controls
them and each side's Friendly Map Edge (FME). The MLR is built exactly this way:

1. CTHC(side) = every hex within distance 0, 1 or 2 of a Strategic Terrain hex the side controls
   (1.4 CTHC, ruling R1).
2. No Man's Land (first kind, 1.4 NML) = every non-strategic hex in both sides' CTHC; it is taken out
   of both CTHCs. A strategic hex in both stays in its controller's CTHC only; an uncontrolled strategic
   hex in both is No Man's Land too (ruling R21: it has no controller to keep it).
3. Clusters = the connected groups (by hex adjacency) of each side's remaining CTHC hexes.
4. Fronts: the side's clusters are joined to each other (never to the map edge) as a minimum spanning
   forest (Kruskal):
   a. Pair distance = the least hex distance between a hex of one cluster and a hex of the other. The
      pair's closest hexes = of the pairs of hexes at that distance, the one whose hex in the first
      cluster (the earlier in grid order) comes first in grid order (column, then row), then whose hex in
      the second comes first.
   b. Joining path = the shortest hex line (`Grid.line`) between the closest hexes. A joining path never
      enters the enemy's CTHC (1.4 MLR: the perimeter is friendly CTHC hexes and the uncontrolled hexes
      between them): where the line would, the path is the shortest way around the enemy CTHC instead,
      found by a breadth-first walk out of every hex of the first cluster through hexes not in enemy
      CTHC (each layer taken in grid order, a hex keeping the first hex that reached it), ending at the
      second cluster's hex reached in the fewest steps (then first in grid order); the pair's distance
      is then that path's number of steps. A pair with no such path is never joined.
   c. Pairs are taken shortest first (ties: the grid order of the path's first hex, then of its last
      hex) and each is joined unless its two clusters are already connected.
   d. Each connected group of clusters, with the joining paths between them, is one front; a cluster
      joined to nothing is a front by itself. Fronts are ordered by their first cluster.
5. Each front is closed against the side's Friendly Map Edge (FME):
   a. Its two ends = the front hexes (clusters and joining paths) outermost along the FME: for a west or
      east FME the hex with the smallest row and the hex with the largest row; for a north or south FME
      the hex in the westernmost column and the hex in the easternmost column. Ties go to the hex nearer
      the FME (fewer columns from a west/east FME, fewer rows from a north/south FME), then to grid order.
   b. From each end an edge path runs to the FME hex straight behind it (the same row for a west/east
      FME, the same column for a north/south FME) along `Grid.line`; where that line would enter enemy
      CTHC, it is the shortest way around instead (the walk of 4b from the end hex alone) to the FME hex
      reached in the fewest steps (then first in grid order). An end with no such way stays open.
   c. The FME hexes from one landing hex to the other (both included) are added; with one end open,
      only the landing hex of the other.
   Perimeter P = the fronts + their edge paths + these FME hexes. A front cut off from the FME on both
   sides (e.g. a cluster surrounded by the enemy's CTHC) is P by itself.
6. MLR(side) = P + every hex P encloses: flood-fill from the hexes along the three map edges other than
   the FME that are not in P, moving only through hexes not in P; every hex the fill does not reach is
   inside the side's MLR.
7. No Man's Land (second kind) = every hex in neither CTHC that lies inside both sides' MLRs.
8. Isolated Location = a hex of a side's CTHC inside the enemy MLR (by step 6 for the enemy).
   Uncontrolled Terrain = a hex outside every MLR and every CTHC that is not No Man's Land.

MLRs may cross: a hex can be in both sides' MLRs (`HexControl.mlr`). A side that controls no strategic
hex has no CTHC and no MLR.
"""
from __future__ import annotations

import heapq
from collections import deque

import attrs

from cg import caches
from cg.hexgrid import EDGES, Grid
from events import records

SIDES = ("axis", "allied")
SITUATIONS = ("enemy_mlr", "isolated", "uncontrolled", "nml", "friendly_mlr")  # 3.212 a-e


def enemy_of(side: str) -> str:
    if side == "axis":
        return "allied"
    if side == "allied":
        return "axis"
    raise ValueError(f"side must be axis or allied, not {side!r}")


@records.frozen(slots=True)
class HexControl:
    hex: str
    controller: str | None  # "axis"/"allied" for a controlled strategic hex, else None
    strategic: bool
    cthc: str | None  # side whose CTHC holds this hex (None: no CTHC, or No Man's Land)
    nml: bool  # No Man's Land (either kind)
    mlr: frozenset[str]  # sides whose MLR holds this hex (both where MLRs cross)
    uncontrolled: bool  # Uncontrolled Terrain: outside every MLR and CTHC, and not NML
    isolated: str | None  # side for which this hex is an Isolated Location


@records.frozen(slots=True)
class MapControl:
    hexes: dict[str, HexControl]  # every hex of the grid, in grid order
    grid: Grid
    clusters: dict[str, tuple[frozenset[str], ...]]  # per side, step 3, in grid order of their first hex
    paths: dict[str, tuple[tuple[str, ...], ...]]  # per side, the step-4 joins of clusters, in join order
    fronts: dict[str, tuple[frozenset[str], ...]]  # per side, step 4: joined clusters + their joining paths
    edge_paths: dict[str, tuple[tuple[str, ...], ...]]  # per side, the step-5 closing paths (FME end last)
    friendly_edge: dict[str, str]
    _near: dict = attrs.field(init=False, factory=dict, eq=False, repr=False)

    def __getitem__(self, hex: str) -> HexControl:
        # the map's own spelling (nearly every call, ~360k in a long audit) is a key as it stands, which is
        # what canonical() would give back for it; any other spelling is canonicalised (or refused) as before
        hc = self.hexes.get(hex)
        return hc if hc is not None else self.hexes[self.grid.canonical(hex)]

    def mlr_hexes(self, side: str) -> frozenset[str]:
        enemy_of(side)
        return frozenset(h for h, hc in self.hexes.items() if side in hc.mlr)

    def cthc_hexes(self, side: str) -> frozenset[str]:
        enemy_of(side)
        key = ("cthc", side)  # worked out once per picture: 3.2 asks it of every unit (ruling R48)
        got = self._near.get(key)
        if got is None:
            got = self._near[key] = frozenset(h for h, hc in self.hexes.items() if hc.cthc == side)
        return got

    def situation(self, hex: str, side: str) -> str:
        """The 3.212 redeployment situation of a `side` unit ending a firefight in `hex`.

        friendly CTHC inside the enemy MLR -> "isolated" (3.215); other friendly CTHC or friendly MLR ->
        "friendly_mlr" (2.5); No Man's Land -> "nml" (3.217); enemy CTHC, or enemy MLR -> "enemy_mlr"
        (3.214); anything else -> "uncontrolled" (3.216).
        """
        enemy = enemy_of(side)
        hc = self[hex]
        if hc.cthc == side:
            return "isolated" if hc.isolated == side else "friendly_mlr"
        if hc.nml:
            return "nml"
        if hc.cthc == enemy:
            return "enemy_mlr"
        if side in hc.mlr:
            return "friendly_mlr"
        if enemy in hc.mlr:
            return "enemy_mlr"
        return "uncontrolled"

    def distance_to_mlr(self, hex: str, side: str) -> int | None:
        """Hexes from `hex` to the nearest hex of the side's MLR (0 inside); None if it has no MLR."""
        enemy_of(side)
        h = self.grid.canonical(hex)
        key = (h, side)
        if key not in self._near:
            inside = side in self.hexes[h].mlr
            self._near[key] = 0 if inside else _nearest(self.grid, h, self._border(side))
        return self._near[key]

    def adjacent_to_enemy_cthc(self, hex: str, side: str) -> bool:
        """3.52 +1 (and 2.32, 3.46): an enemy CTHC hex is adjacent to `hex` (or `hex` is one itself)."""
        enemy = enemy_of(side)
        h = self.grid.canonical(hex)
        return any(self.hexes[n].cthc == enemy for n in [h, *self.grid.neighbours(h)])

    def inside_or_adjacent_mlr(self, hex: str, side: str) -> bool:
        """Redeployment DRM -1: `hex` is in the side's MLR or next to it."""
        enemy_of(side)
        h = self.grid.canonical(hex)
        return any(side in self.hexes[n].mlr for n in [h, *self.grid.neighbours(h)])

    def _border(self, side: str) -> tuple[str, ...]:
        # the MLR hexes with a neighbour outside it: the nearest MLR hex to any outside hex is one of them
        key = ("border", side)
        if key not in self._near:
            inside = self.mlr_hexes(side)
            self._near[key] = tuple(
                h for h in self.hexes if h in inside and not _interior(self.grid, h, inside)
            )
        return self._near[key]


def _interior(grid: Grid, h: str, group: frozenset[str] | set[str]) -> bool:
    ns = grid.adjacency()[h]
    return len(ns) == 6 and all(n in group for n in ns)


def _nearest(grid: Grid, h: str, targets) -> int | None:
    best = None
    for t in targets:
        d = grid.distance(h, t)
        if best is None or d < best:
            best = d
            if d == 0:
                break
    return best


def _flagged(base: dict, strategic: frozenset) -> dict:
    """The picture's hexes with the Strategic Terrain among them flagged, in grid order: the base copied
    whole (in C) and only the Strategic hexes made again, not a walk over every hex of the map."""
    hexes = dict(base)
    memo = caches.current().flags
    for h in strategic:
        hc = base.get(h)
        if hc is not None:
            hit = memo.get(id(hc))
            if hit is None or hit[0] is not hc:
                if len(memo) > 16384:
                    memo.clear()
                hit = memo[id(hc)] = (hc, attrs.evolve(hc, strategic=True))
            hexes[h] = hit[1]
    return hexes


def classify(
    grid: Grid,
    strategic: frozenset[str],
    control: dict[str, str],
    friendly_edge: dict[str, str],
) -> MapControl:
    """The control picture of the map (see the module docstring for the numbered steps).

    strategic: the Strategic Terrain hexes; control: strategic hex -> "axis"/"allied" for the controlled
    ones; friendly_edge: side -> "north"/"south"/"east"/"west" (needed for a side that controls a hex).
    ValueError names the first bad hex, side or edge.
    """
    strategic = frozenset(grid.canonical(h) for h in strategic)
    owner: dict[str, str] = {}
    for h, side in control.items():
        enemy_of(side)
        hc = grid.canonical(h)
        if hc not in strategic:
            raise ValueError(f"controlled hex {hc} is not Strategic Terrain (1.4 CTHC)")
        owner[hc] = side
    edges: dict[str, str] = {}
    for side, e in friendly_edge.items():
        enemy_of(side)
        if e not in EDGES:
            raise ValueError(f"friendly edge of {side} must be one of {', '.join(EDGES)}, not {e!r}")
        edges[side] = e
    for side in set(owner.values()):
        if side not in edges:
            raise ValueError(f"{side} controls hexes but has no friendly map edge")

    # Steps 1-8 read only who controls what and the edges: a hex that is Strategic Terrain but
    # controlled by no one (a Gun emplaced, rubble: 1.4 revision 2) changes the picture's `strategic`
    # flags alone. The picture without them is kept per control (issue 28: every Gun set up or
    # redeployed grew Strategic Terrain and classified the whole map again).
    key = (grid, frozenset(owner.items()), tuple(sorted(edges.items())))
    c = caches.current()
    base, clusters, paths, fronts, edge_paths = c.bounded(c.pictures, key, lambda: _picture(*key))
    hexes = _flagged(base, strategic)
    return MapControl(
        hexes=hexes,
        grid=grid,
        clusters=dict(clusters),
        paths=dict(paths),
        fronts=dict(fronts),
        edge_paths=dict(edge_paths),
        friendly_edge=dict(edges),
    )


def _picture(grid: Grid, owned: frozenset, edge_items: tuple) -> tuple:
    """Steps 1-8 of classify for `owned` ((hex, side) of each controlled strategic hex, canonical) and
    `edge_items` ((side, edge) pairs): every hex's HexControl with `strategic` False (classify sets it),
    and the clusters, joining paths, fronts and edge paths of each side. Immutable values only: the
    pictures share them (classify gives each its own dicts of them)."""
    owner = dict(owned)
    edges = dict(edge_items)
    # 1. raw CTHC per side (ruling R1: distance 0, 1, 2)
    raw: dict[str, set[str]] = {s: set() for s in SIDES}
    for h, side in owner.items():
        raw[side].update(grid.within(h, 2))
    # 2. first kind of No Man's Land; contested strategic hexes stay with their controller
    both = raw["axis"] & raw["allied"]
    nml = {h for h in both if h not in owner}
    cthc = {s: {h for h in raw[s] if h not in nml and owner.get(h, s) == s} for s in SIDES}

    mlr: dict[str, set[str]] = {}
    clusters: dict[str, tuple[frozenset[str], ...]] = {}
    fronts: dict[str, tuple[frozenset[str], ...]] = {}
    paths: dict[str, tuple[tuple[str, ...], ...]] = {}
    edge_paths: dict[str, tuple[tuple[str, ...], ...]] = {}
    for side in SIDES:
        mlr[side], clusters[side], fronts[side], paths[side], edge_paths[side] = _mlr(
            grid, cthc[side], edges.get(side), cthc[enemy_of(side)]
        )

    # 7. second kind of No Man's Land
    for h in mlr["axis"] & mlr["allied"]:
        if h not in cthc["axis"] and h not in cthc["allied"]:
            nml.add(h)

    hexes: dict[str, HexControl] = {}
    for h in grid.hexes():
        in_cthc = "axis" if h in cthc["axis"] else "allied" if h in cthc["allied"] else None
        in_mlr = frozenset(s for s in SIDES if h in mlr[s])
        is_nml = h in nml
        isolated = in_cthc if in_cthc is not None and enemy_of(in_cthc) in in_mlr else None  # 8.
        hexes[h] = HexControl(
            hex=h,
            controller=owner.get(h),
            strategic=False,
            cthc=in_cthc,
            nml=is_nml,
            mlr=in_mlr,
            uncontrolled=in_cthc is None and not in_mlr and not is_nml,
            isolated=isolated,
        )
    return hexes, clusters, paths, fronts, edge_paths


def _order(grid: Grid) -> dict[str, int]:
    """hex id -> place in grid order (column, then row): `Grid.index` as a plain dict, for hot loops."""
    c = caches.current()
    return c.bounded(c.orders, grid, lambda: {h: i for i, h in enumerate(grid.hexes())})


def _components(grid: Grid, group: set[str]) -> list[frozenset[str]]:
    """3. connected groups of `group`, each found from its first hex in grid order."""
    adjacent = grid.adjacency()
    seen: set[str] = set()
    out = []
    for h in grid.hexes():
        if h not in group or h in seen:
            continue
        comp = {h}
        todo = [h]
        while todo:
            cur = todo.pop()
            for n in adjacent[cur]:
                if n in group and n not in comp:
                    comp.add(n)
                    todo.append(n)
        seen |= comp
        out.append(frozenset(comp))
    return out


def _closest(
    grid: Grid, a: list[str], b: list[str], pa: list[tuple[int, int]], pb: list[tuple[int, int]]
) -> tuple[int, int, int, str, str]:
    """(distance, grid index of a-hex, grid index of b-hex, a-hex, b-hex) of the closest pair.

    pa, pb: the axial coordinates of a's and b's hexes.
    """
    index = _order(grid).__getitem__
    best_d = None
    pairs: list[tuple[int, int]] = []  # (a place, b place) at best_d
    for jb, (qb, rb) in enumerate(pb):
        for ja, (qa, ra) in enumerate(pa):
            dq, dr = qa - qb, ra - rb
            d = (abs(dq) + abs(dr) + abs(dq + dr)) // 2
            if best_d is None or d < best_d:
                best_d, pairs = d, [(ja, jb)]
            elif d == best_d:
                pairs.append((ja, jb))
    assert best_d is not None
    ia, ib, ha, hb = min((index(a[ja]), index(b[jb]), a[ja], b[jb]) for ja, jb in pairs)
    return best_d, ia, ib, ha, hb


def _reach(grid: Grid, src: frozenset[str], blocked: set[str]) -> dict[str, tuple[int, str | None]]:
    """Breadth-first walk from `src` through hexes not in `blocked`: hex -> (steps, hex it came from).

    Layers are walked in grid order and a hex keeps the first hex that reached it, so paths are
    deterministic.
    """
    adjacent = grid.adjacency()
    order = _order(grid).__getitem__
    frontier = sorted(src, key=order)
    seen: dict[str, tuple[int, str | None]] = {h: (0, None) for h in frontier}
    step = 0
    while frontier:
        step += 1
        nxt = []
        for h in frontier:
            for n in adjacent[h]:
                if n not in seen and n not in blocked:
                    seen[n] = (step, h)
                    nxt.append(n)
        frontier = sorted(nxt, key=order)
    return seen


def _join(
    grid: Grid, closest: tuple[int, int, int, str, str], reach_a, b: frozenset[str], blocked: set[str]
) -> tuple[tuple[int, int, int], tuple[str, ...]] | None:
    """Step 4b: (sort key, joining path) between two clusters, or None if the enemy CTHC cuts them apart.

    `closest` is the clusters' closest pair; reach_a() gives the first cluster's `_reach` map, needed
    only when the straight line between that pair is blocked.
    """
    d, ia, ib, ha, hb = closest
    line = tuple(grid.line(ha, hb))
    if not any(h in blocked for h in line):
        return (d, ia, ib), line
    seen = reach_a()
    hits = [(seen[h][0], grid.index(h), h) for h in b if h in seen]
    if not hits:
        return None
    _steps, _i, end = min(hits)
    path = [end]
    while (prev := seen[path[-1]][1]) is not None:
        path.append(prev)
    path.reverse()
    return (len(path) - 1, grid.index(path[0]), grid.index(path[-1])), tuple(path)


def _extremes(grid: Grid, front: frozenset[str], edge: str) -> tuple[str, ...]:
    """Step 5a: the front's two ends (its extreme hexes along the FME; one if they coincide).

    West/east FME: smallest row, then largest row; north/south FME: smallest column, then largest.
    Ties go to the hex nearer the FME (fewer columns/rows from it), then to grid order.
    """
    last_col, last_row = grid.width - 1, grid.rows
    place, index = grid.parse, grid.index

    def keys(h: str) -> tuple[int, int, int]:
        col, row = place(h)
        if edge in ("west", "east"):
            along, off = row, col if edge == "west" else last_col - col
        else:
            along, off = col, row - 1 if edge == "north" else last_row - row
        return along, off, index(h)

    ranked = [(keys(h), h) for h in front]
    low = min(ranked)[1]
    high = min(ranked, key=lambda kh: (-kh[0][0], kh[0][1], kh[0][2]))[1]
    return (low,) if low == high else (low, high)


def _to_edge(grid: Grid, h: str, edge: str, blocked: set[str]) -> tuple[str, ...] | None:
    """Step 5b: the edge path from a front's end to the FME (FME end last), or None if cut off.

    The straight `Grid.line` to the FME hex in the same row (west/east) or column (north/south); if it
    enters the enemy CTHC, the shortest path around it to the nearest FME hex instead (fewest steps,
    then the first landing hex in grid order; `_reach` fixes the hexes in between).
    """
    target = grid.edge_hex(h, edge)
    if target in grid.edge(edge):  # a half hex's row may end short of the edge (a row 0): then step 5b's search
        line = tuple(grid.line(h, target))
        if not any(x in blocked for x in line):
            return line
    seen = _reach(grid, frozenset({h}), blocked)
    hits = [(seen[x][0], grid.index(x), x) for x in grid.edge(edge) if x in seen]
    if not hits:
        return None
    path = [min(hits)[2]]
    while (prev := seen[path[-1]][1]) is not None:
        path.append(prev)
    path.reverse()
    return tuple(path)


def _mlr(grid: Grid, cthc: set[str], edge: str | None, blocked: set[str]) -> tuple[
    set[str],
    tuple[frozenset[str], ...],
    tuple[frozenset[str], ...],
    tuple[tuple[str, ...], ...],
    tuple[tuple[str, ...], ...],
]:
    """Steps 3-6 for one side; `blocked` is the enemy CTHC.

    Returns (MLR hexes, clusters, fronts, joining paths, edge paths).
    """
    comps = _components(grid, cthc)
    if not comps or edge is None:
        return set(), tuple(comps), (), (), ()
    # only hexes on a cluster's rim can be a closest hex (an inner hex has a nearer neighbour)
    rims = [sorted((h for h in c if not _interior(grid, h, c)), key=grid.index) for c in comps]
    rim_axial = [[grid.axial(h) for h in rim] for rim in rims]

    # 4. Kruskal over the clusters only. The hex distance of a pair is a lower bound of its joining
    # distance (key (d, -1, -1) sorts before every real key (d, ...)); a pair's line or detour is drawn
    # only when it comes up, then pushed back with its real key.
    k = len(comps)
    reach_cache: dict[int, dict] = {}

    def reach(i: int):
        def get():
            if i not in reach_cache:
                reach_cache[i] = _reach(grid, comps[i], blocked)
            return reach_cache[i]

        return get

    heap: list[tuple] = []
    for i in range(k):
        for j in range(i + 1, k):
            c = _closest(grid, rims[i], rims[j], rim_axial[i], rim_axial[j])
            heap.append(((c[0], -1, -1), i, j, c, None))
    heapq.heapify(heap)
    parent = list(range(k))

    def root(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    joins: list[tuple[int, tuple[str, ...]]] = []  # (a cluster of the pair, joining path)
    while heap:
        _key, i, j, c, line = heapq.heappop(heap)
        ri, rj = root(i), root(j)
        if ri == rj:
            continue
        if line is None:
            link = _join(grid, c, reach(i), comps[j], blocked)
            if link is not None:
                heapq.heappush(heap, (link[0], i, j, c, link[1]))
            continue
        parent[max(ri, rj)] = min(ri, rj)
        joins.append((i, line))

    # the fronts: each group of joined clusters with its joining paths, in order of its first cluster
    members: dict[int, set[str]] = {}
    for i in range(k):
        members.setdefault(root(i), set()).update(comps[i])
    for i, line in joins:
        members[root(i)].update(line)
    fronts = tuple(frozenset(members[r]) for r in sorted(members))

    # 5. close each front against the FME
    edge_list = sorted(grid.edge(edge), key=grid.index)
    edge_at = {h: n for n, h in enumerate(edge_list)}
    perimeter: set[str] = set()
    edge_paths: list[tuple[str, ...]] = []
    for front in fronts:
        perimeter |= front
        landings = []
        for end in _extremes(grid, front, edge):
            path = _to_edge(grid, end, edge, blocked)
            if path is None:
                continue  # this end stays open
            edge_paths.append(path)
            perimeter.update(path)
            landings.append(edge_at[path[-1]])
        if landings:
            perimeter.update(edge_list[min(landings) : max(landings) + 1])

    # 6. flood from the other three edges through hexes not in P; what it misses is the MLR
    seeds: set[str] = set()
    for other in EDGES:
        if other != edge:
            seeds |= grid.edge(other)
    reached = {h for h in seeds if h not in perimeter}
    todo = deque(reached)
    adjacent = grid.adjacency()
    while todo:
        cur = todo.popleft()
        for n in adjacent[cur]:
            if n not in perimeter and n not in reached:
                reached.add(n)
                todo.append(n)
    inside = {h for h in grid.hexes() if h not in reached}
    return inside, tuple(comps), fronts, tuple(line for _i, line in joins), tuple(edge_paths)
