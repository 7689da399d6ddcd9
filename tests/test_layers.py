"""The house reads one way: events <- cg (the rules) <- cg.app (the application layer) <- projections <- cli
(docs/architecture.md).

Every import of every module is walked, those inside functions too (a lazy import is still a
dependency): none may reach a layer above its own, and no files may import each other in a circle.
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("events", "cg", "cg.app", "projections", "cli")
PACKAGES = ("events", "cg", "projections")  # the directories walked (cg/app/ is inside cg/)


def modules() -> dict[str, Path]:
    found = {"cli": ROOT / "cli.py"}
    for top in PACKAGES:
        for path in sorted((ROOT / top).rglob("*.py")):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


def imports(name: str, path: Path, known: dict) -> set[str]:
    """The project modules `name` imports, anywhere in the file (relative imports resolved)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            targets = [base] + [f"{base}.{a.name}" for a in node.names]
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["USES"]:
            targets = [v.value for v in node.value.values]  # cli.py: what a command imports when it runs
        for t in targets:
            hit = max((m for m in known if t == m or t.startswith(m + ".")), key=len, default=None)
            if hit and hit != name:
                out.add(hit)
    return out


def layer(module: str) -> int:
    """The layer of `module`: the longest layer name it is, or sits inside (cg.app.ledger: cg.app)."""
    return max(i for i, name in enumerate(LAYERS) if module == name or module.startswith(name + "."))


def graph() -> dict[str, set[str]]:
    known = modules()
    return {m: imports(m, p, known) for m, p in known.items()}


def test_no_module_imports_a_layer_above_its_own():
    upward = sorted(f"{m} imports {d}" for m, deps in graph().items() for d in deps if layer(d) > layer(m))
    assert upward == []


def test_the_rules_never_import_the_application_layer():
    """Issue 33 item 5: cg/app/ sits at the top of cg; nothing else in cg (nor events) imports it, and it holds
    the ledger, the audit service, the demo, history and the key files."""
    g = graph()
    below = sorted(f"{m} imports {d}" for m, deps in g.items() for d in deps
                   if layer(m) < layer("cg.app") and layer(d) == layer("cg.app"))
    assert below == []
    assert {"cg.app.ledger", "cg.app.audit", "cg.app.demo", "cg.app.history", "cg.app.keys"} <= set(g)
    assert layer("cg.app.audit") == 2 and layer("cg.state") == 1 and layer("projections.web.app") == 3


def test_no_circle_of_files():
    g = graph()
    # Tarjan's strongly connected components: any component of two or more files is a circle
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    circles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(g[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                circles.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            visit(v)
    assert circles == []


def test_the_walk_sees_lazy_and_relative_imports():
    """The walk itself: a function-level import and a relative one are both found (else the two
    tests above could pass on a house they never looked at)."""
    g = graph()
    assert "cg.control" in g["cg.state"]  # imported inside CampaignState.map_control
    assert "events.codec" in g["events.store"]  # `from .codec import ...`
    assert "cg.app.ledger" in g["cli"]


def sql_outside_the_store(path: Path) -> list[str]:
    """Where a module outside events/ reaches for the database itself: an attribute `.conn`, or a call of
    `.execute`/`.executemany`/`.executescript` (issue 33 item 6: the store runs the only SQL)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Attribute) and node.attr in ("conn", "execute", "executemany", "executescript"):
            found.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_sql_runs_only_in_the_store():
    found = [hit for name, path in modules().items() if not name.startswith("events")
             for hit in sql_outside_the_store(path)]
    assert found == []


def test_the_sql_walk_finds_a_connection_used_outside_the_store(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("def f(store):\n    return store.conn.execute('SELECT 1')\n")
    assert len(sql_outside_the_store(probe)) == 2


def test_generated_code_lives_in_one_module():
    """Issue 33 item 7: the constructors and clones written at run time (exec) are all in events/stored.py."""
    found = sorted(name for name, path in modules().items()
                   for node in ast.walk(ast.parse(path.read_text()))
                   if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("exec", "eval"))
    assert set(found) == {"events.stored"}


def test_every_package_is_installed():
    """`pip install .` installs only the packages pyproject.toml names: a package missing from that list imports
    from the work tree in the tests and fails in a player's install (cg.steps did: `plcg demo` an ImportError)."""
    import tomllib

    named = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for top in PACKAGES for p in (ROOT / top).rglob("__init__.py")}
    assert found == named


def test_the_command_line_stays_at_most_800_lines():
    """Issue 33 item 5: cli.py is click only, at most 800 lines (the status view, the log's streaming, the sync
    medium and the audit's words are read models in projections/, the application in cg/app/)."""
    lines = (ROOT / "cli.py").read_text(encoding="utf-8").count("\n")
    assert lines <= 800, f"cli.py has {lines} lines"
