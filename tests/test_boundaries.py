"""The engine runs without Qt: checked by import-linter and by importing it with Qt blocked."""

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
