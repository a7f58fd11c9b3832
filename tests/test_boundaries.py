"""The engine runs without Qt: checked by import-linter and by importing it with Qt blocked.
The faces (CLI, HTTP, MCP) and the GUI reach the engine only through ``engine``: import-linter.
Only engine/store/ runs SQL: checked by walking the AST of every engine module."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

BLOCK_QT = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in ('PySide6', 'pyqtgraph', 'gui'):
            raise ImportError('blocked: ' + name)
sys.meta_path.insert(0, Block())
import importlib, pkgutil, engine
for found in pkgutil.walk_packages(engine.__path__, 'engine.'):
    importlib.import_module(found.name)
print(sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph', 'gui')))
"""


def test_engine_imports_with_qt_blocked() -> None:
    result = subprocess.run([sys.executable, "-c", BLOCK_QT], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_import_linter_contracts_hold() -> None:
    lint = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run([str(lint)], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "KEPT" in result.stdout


def test_the_faces_contract_forbids_every_internal_module() -> None:
    """A module added to engine/ later is internal too: the faces may not import it directly."""
    import pkgutil
    import tomllib

    import engine

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]["contracts"]
    faces = [c for c in contracts if c.get("source_modules") == ["engine.faces"]]
    assert len(faces) == 1 and faces[0]["type"] == "forbidden"
    internal = {f"engine.{m.name}" for m in pkgutil.iter_modules(engine.__path__) if m.name != "faces"}
    assert set(faces[0]["forbidden_modules"]) == internal


SQL_CALLS = frozenset({"execute", "executemany", "executescript"})


def sql_calls() -> dict[bool, list[str]]:
    """``module:line .attribute()`` of every call of ``<anything>.execute*(...)`` under engine/,
    split by whether the module is in engine/store/ (True) or not (False)."""
    import ast

    found: dict[bool, list[str]] = {True: [], False: []}
    for path in sorted((ROOT / "engine").rglob("*.py")):
        relative = path.relative_to(ROOT)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(relative))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in SQL_CALLS:
                found[relative.parts[:2] == ("engine", "store")].append(f"{relative}:{node.lineno} .{node.func.attr}()")
    return found


def test_sql_runs_only_in_the_store_layer() -> None:
    """Capability modules call typed functions of engine/store/ (its query modules); only the store runs SQL."""
    found = sql_calls()
    assert found[True], "the scan found no SQL in engine/store/ at all: it is not looking where it should"
    assert found[False] == [], "SQL outside engine/store/:\n" + "\n".join(found[False])
