"""`companion/` is standard library only (README): it must run where only Python is installed."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "companion"
ALLOWED = set(sys.stdlib_module_names) | {"companion"}


def outside_imports(source: str) -> list[tuple[int, str]]:
    """(line, module) of every import, at any depth (lazy ones too), that is neither stdlib nor our own."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:  # a relative import stays in the package
            names = [node.module or ""]
        else:
            continue
        found += [(node.lineno, name) for name in names if name.split(".")[0] not in ALLOWED]
    return found


def test_the_check_finds_a_third_party_import_even_inside_a_function():
    source = ("import os.path\nimport tomllib\nfrom . import coaching\nfrom companion.errors import CompanionError\n"
              "def f():\n    import numpy as np\n    from cv2 import imread\n    from web import create_app\n")
    assert outside_imports(source) == [(6, "numpy"), (7, "cv2"), (8, "web")]


def test_companion_imports_only_the_standard_library():
    files = sorted(PACKAGE.rglob("*.py"))
    assert PACKAGE / "coach.py" in files
    bad = [f"companion/{f.relative_to(PACKAGE)}:{line} imports {name}"
           for f in files for line, name in outside_imports(f.read_text(encoding="utf-8"))]
    assert not bad, "companion/ is standard library only (README), but: " + "; ".join(bad)
