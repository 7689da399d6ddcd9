"""Issue 33 item 8: the type checker runs on cg/ (with the application layer cg/app/) and events/ at the
strictness pyproject.toml declares ([tool.mypy]), with no errors."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_mypy_finds_no_error_in_the_rules_the_application_layer_and_the_event_store():
    run = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml")],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
