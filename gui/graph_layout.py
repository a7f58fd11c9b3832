"""Positions for the entity-graph view: a networkx spring layout, cached per memory file.

Computed off the UI thread (it takes ~1 s for 2,000 nodes). Pinned nodes keep
the place a person dragged them to, and the cache remembers both, so reopening
a file shows the same picture.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from pathlib import Path

import networkx as nx
import numpy as np
import platformdirs

Positions = dict[str, tuple[float, float]]
SEED = 7


def compute(nodes: list[str], edges: list[tuple[str, str]], known: Positions, pinned: set[str]) -> Positions:
    """Spring layout; nodes with a known position start there, pinned nodes do not move."""
    if not nodes:
        return {}
    graph = nx.Graph()
    graph.add_nodes_from(nodes)
    graph.add_edges_from((a, b) for a, b in edges if a != b)
    start = {n: known[n] for n in nodes if n in known}
    fixed = [n for n in pinned if n in start]
    if len(start) < len(nodes):
        start = None if not start else {**_ring(nodes, start), **start}
    # k scales with 1/sqrt(n) by default; a little more room keeps labels apart.
    k = 1.6 / math.sqrt(len(nodes))
    iterations = 60 if len(nodes) < 800 else 35
    placed = nx.spring_layout(graph, pos=start, fixed=fixed or None, k=k, iterations=iterations, seed=SEED)
    return {n: (float(x), float(y)) for n, (x, y) in placed.items()}


def _ring(nodes: list[str], known: Positions) -> Positions:
    """Starting places for new nodes: a ring around the known ones."""
    missing = [n for n in nodes if n not in known]
    angles = np.linspace(0, 2 * math.pi, len(missing), endpoint=False)
    return {n: (1.2 * math.cos(a), 1.2 * math.sin(a)) for n, a in zip(missing, angles)}


def cache_file(memory_path: Path) -> Path:
    digest = hashlib.sha256(str(memory_path.resolve()).encode()).hexdigest()[:24]
    return Path(platformdirs.user_cache_dir("memlens")) / "layouts" / f"{digest}.json"


def load(memory_path: Path) -> tuple[Positions, set[str]]:
    """Cached positions and pins; anything unreadable counts as no cache."""
    try:
        data = json.loads(cache_file(memory_path).read_text(encoding="utf-8"))
        positions = {str(k): (float(v[0]), float(v[1])) for k, v in data["positions"].items()}
        return positions, {str(p) for p in data.get("pinned", []) if p in positions}
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return {}, set()


def save(memory_path: Path, positions: Positions, pinned: set[str]) -> None:
    target = cache_file(memory_path)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".partial")
    partial.write_text(json.dumps({"positions": positions, "pinned": sorted(pinned)}), encoding="utf-8")
    os.replace(partial, target)
