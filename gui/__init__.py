"""MemLens desktop app (PySide6 + pyqtgraph).

It reaches the engine only through ``engine``'s public names; every engine
call runs off the UI thread through ``gui.ops``. Start it with ``memlens gui``
or ``python -m gui``.
"""
