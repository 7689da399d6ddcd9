"""Speed behind one seam (issue 33 item 7; docs/architecture.md, Speed): every memo the rules keep of
what a campaign's data gives again and again (a card map's geometry and its control pictures, the kind a
counter name makes, the players' signature verifiers, the parsed CG Cards) sits in one `Caches`, which
the application layer's ledger owns (`Ledger.caches`, as eventsourcing's repository owns its cache),
never in a module global of its own.

The rules are pure functions of the state: they do not take the ledger as an argument, so they reach
its caches through one context variable (`current()`). A ledger made with `caches=` uses that object;
one made without adopts its context's (so a process that opens one campaign many times, the tests and
the web page, keeps what it learnt), and rules code run with no ledger at all (a test of one rule) gets
a fresh one on first use. A new thread starts with an empty context, so threads never share a table.
Every entry is a pure function of its key: which Caches answers changes only the speed, never a result.
What depends on no campaign (the step machine's shape, the snapshot's fingerprint, the event classes'
defaults) is computed where it is defined, at import, or is built once per Caches (the step machine:
importing `transitions` only for the commands that walk it), or where most commands never need it, once
per process when first asked for (the event classes, the counter tables of cg/counters.py, the state's
generated clones: issue 36 item 2, start-up)."""
from __future__ import annotations

from contextvars import ContextVar
from typing import Any, Callable

LIMIT = 64  # entries of a bounded table before it is emptied (a long-lived process asks of few maps)


class Caches:
    """The memo tables, each named for the module that reads it."""

    def __init__(self) -> None:
        self.layouts: dict = {}  # cg.boards: a board layout -> its Geometry
        self.geometries: dict = {}  # cg.hexgrid: (columns, rows) -> the grid's geometry
        self.grids: dict = {}  # cg.hexgrid: (columns, rows) -> Grid (frozen: one per spec)
        self.board_grids: dict = {}  # cg.hexgrid: a card's boards -> BoardGrid
        self.pictures: dict = {}  # cg.control: (grid, owned, edges) -> steps 1-8 of classify
        self.orders: dict = {}  # cg.control: grid -> {hex: place in grid order}
        # cg.control: id(a base picture's HexControl) -> (it, its copy flagged Strategic); the original is
        # held, so an id is never a freed one's
        self.flags: dict = {}
        self.control: dict = {}  # cg.state: (map, Strategic Terrain, control) -> MapControl
        # cg.state: the last map (a card's: immutable, compared by identity), control and picture asked
        # for, the last map's Grid and its Strategic Terrain: what deciding a run of commands asks again
        self.last_control: list = [None, None, None]
        self.last_grid: list = [None, None]
        self.base: list = [None, frozenset()]
        self.known: list = [None, {}]  # cg.rules redeployment_owed: the last picture, its 3.212 situations
        self.clusters: dict = {}  # cg.rules: (side, cthc_per_hex) -> (picture, grid, its clusters)
        self.kinds: dict = {}  # cg.evolve: (counter name, RG kind) -> unit_kind
        self.leaders: list = [None, []]  # cg.drm: the units not settled last asked about, their leaders
        self.names: dict = {}  # cg.snapshot: a record class met that the import did not list -> its fields
        self.getters: dict = {}  # cg.snapshot: a record class -> the getter of its fields as a tuple
        self.shared: dict | None = None  # cg.snapshot: id(record) -> its dict or tuple, while shared() is open
        self.verifiers: dict = {}  # cg.pbem: a public key line -> its verifier
        self.cards: dict = {}  # cg.app.ledger: the hash of a campaign_started event -> its parsed CG Card
        self.rolling: dict = {}  # cg.app.audit: an event type met -> how its class holds its rolls (None: it holds none)
        self.machine: Any = None  # cg.machine: the step machine, built on first use

    def bounded(self, table: dict, key, make: Callable[[], Any], limit: int = LIMIT):
        """table[key], made by make() the first time; the table emptied when it outgrows `limit`."""
        hit = table.get(key)
        if hit is None:
            if len(table) >= limit:
                table.clear()
            hit = table[key] = make()
        return hit


_CURRENT: ContextVar[Caches] = ContextVar("plcg_caches")


def current() -> Caches:
    """The caches of the ledger working in this context (a new one where none is yet)."""
    c = _CURRENT.get(None)
    if c is None:
        c = Caches()
        _CURRENT.set(c)
    return c


def use(c: Caches) -> Caches:
    """Make `c` the caches the rules reach in this context (a ledger's, as it opens)."""
    _CURRENT.set(c)
    return c
