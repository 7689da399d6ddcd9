"""Function-level imports only where they pay (issue 22 item 6): each says why on its line.

An import inside a function is kept only where `python -X importtime` shows it saves start-up for
a command that does not need the module (`# lazy: <module> (~N ms) ...`), or where a module-level
import would close an import cycle (`# cycle: ...`). Every other import sits at the top of its module.
"""
from __future__ import annotations

import ast

from tests.test_layers import modules


def function_imports() -> list[tuple[str, int, str]]:
    """(module, line, source line) of every import inside a function body."""
    out = []
    for name, path in modules().items():
        lines = path.read_text().splitlines()

        def walk(node, inside: bool) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.Import, ast.ImportFrom)):
                    if inside:
                        out.append((name, child.lineno, lines[child.lineno - 1]))
                else:
                    walk(child, inside or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)))

        walk(ast.parse(path.read_text()), False)
    return out


def test_function_imports_say_why():
    found = function_imports()
    assert found, "the walk found no function-level import at all: it is looking in the wrong place"
    silent = [f"{m}:{n}: {line.strip()}" for m, n, line in found
              if "# lazy:" not in line and "# cycle:" not in line]
    assert not silent, "function-level imports without `# lazy: ...` or `# cycle: ...`:\n" + "\n".join(silent)



CAP = 20  # issue 33 item 7: start-up is kept low by what the CLI imports (the shape of the packages), not by imports
#            inside functions; at most 20 remain


def test_at_most_twenty_function_level_imports():
    found = function_imports()
    listed = "\n".join(f"{m}:{n}: {line.strip()}" for m, n, line in found)
    assert len(found) <= CAP, f"{len(found)} function-level imports (at most {CAP}, issue 33 item 7):\n{listed}"
