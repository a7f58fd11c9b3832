"""How an agent connects to one memory file: the exact configuration for each client, and the
Hermes Agent plugin's installation (``memlens connect``, ``memlens hermes install``, the app's
"Connect an agent…" dialog).

Every path in a snippet is absolute (the memory file and the ``memlens`` executable), since a
client starts the server from a folder and ``PATH`` of its own. A snippet is meant to be pasted
as shown; tests run each one.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from engine.agents.profile import folder_for, replace_file
from engine.config import load_settings
from engine.errors import MemLensError
from engine.paths import config_path_for
from engine.resources import resource_path

PLUGIN_NAME = "memlens"
PLUGIN_FILES = ("__init__.py", "plugin.yaml")
PLUGIN_CONFIG = "memlens.json"
HERMES_CONFIG_LINE = f"hermes config set memory.provider {PLUGIN_NAME}"


@dataclass(frozen=True)
class Snippet:
    """One client's configuration: where it goes, and the text to paste there."""

    client: str
    where: str
    text: str
    language: str  # "json" or "sh": how a front end shows it

    def to_dict(self) -> dict[str, str]:
        return {"client": self.client, "where": self.where, "text": self.text, "language": self.language}


def _absolute(path: Path | str) -> Path:
    """``path`` made absolute with ``..`` and ``.`` folded away (a relative ``--db ../x.sqlite`` must not
    reach a client's configuration as ``/cwd/../x.sqlite``); symlinks are kept as the person named them."""
    return Path(os.path.abspath(Path(path).expanduser()))


def memlens_executable() -> Path:
    """The ``memlens`` command of this installation: the packaged app itself, the script beside
    this Python (a virtual environment), else the one on ``PATH``."""
    if getattr(sys, "frozen", False):
        return Path(sys.executable).resolve()
    folder = Path(sys.executable).parent
    for name in ("memlens", "memlens.exe"):
        if (folder / name).is_file():
            return _absolute(folder / name)
    found = shutil.which("memlens")
    if found:
        return _absolute(found)
    raise MemLensError("cannot find the memlens command beside this Python or on PATH; install MemLens "
                       "(pip install memlens) or run the packaged app")


def default_hermes_home() -> Path:
    return Path(os.environ.get("HERMES_HOME") or Path.home() / ".hermes").expanduser()


def _stdio_server(executable: Path, db: Path) -> dict[str, object]:
    return {"command": str(executable), "args": ["--db", str(db), "mcp"]}


def snippets(db: Path, executable: Path | None = None) -> list[Snippet]:
    """The configuration of Hermes Agent, Claude Code, Claude Desktop and Cursor for ``db``."""
    db = _absolute(db)
    exe = _absolute(executable or memlens_executable())
    servers = json.dumps({"mcpServers": {"memlens": _stdio_server(exe, db)}}, indent=2)
    command = " ".join(shlex.quote(part) for part in (str(exe), "--db", str(db), "mcp"))
    return [
        Snippet("Hermes Agent", "a terminal (installs MemLens as Hermes's memory provider, then selects it)",
                f"{shlex.quote(str(exe))} --db {shlex.quote(str(db))} hermes install\n{HERMES_CONFIG_LINE}", "sh"),
        Snippet("Claude Code", "a terminal (adds an MCP server for your user)",
                f"claude mcp add --scope user memlens -- {command}", "sh"),
        Snippet("Claude Desktop", "claude_desktop_config.json (Settings → Developer → Edit Config)", servers, "json"),
        Snippet("Cursor", "~/.cursor/mcp.json (or .cursor/mcp.json in a project)", servers, "json"),
    ]


def install_hermes_plugin(hermes_home: Path, db: Path, packages: Path) -> Path:
    """Write the provider's folder, ``$HERMES_HOME/plugins/memlens/``: its two files and
    ``memlens.json`` (the memory file and the folder holding MemLens's packages). Files already
    there are replaced, so running it again updates the plugin; nothing else is touched."""
    folder = _absolute(hermes_home) / "plugins" / PLUGIN_NAME
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for name in PLUGIN_FILES:
            shutil.copyfile(resource_path("hermes", PLUGIN_NAME, name), folder / name)
        config = {"db": str(_absolute(db)), "packages": str(_absolute(packages))}
        (folder / PLUGIN_CONFIG).write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    except OSError as err:
        raise MemLensError(f"cannot write the Hermes plugin in {folder}: {err.strerror or err}") from None
    return folder


def use_profile_folder(db: Path, folder: Path) -> str:
    """Make ``folder`` the profile of ``db`` for every front end: ``[memory] profile_dir`` in the
    ``memlens.toml`` beside the memory file (created from the user-wide one if that is what applied,
    so no other setting changes). A file that already names another folder is left alone. Returns
    one line saying what was done."""
    db, folder = _absolute(db), _absolute(folder)
    beside = db.parent / "memlens.toml"
    current = config_path_for(db)
    settings = load_settings(current)
    named = settings.memory.profile_dir
    if named:
        already = folder_for(db, named)
        if already.resolve() == folder.resolve():
            return f"the profile is already {folder} ({current})"
        return (f"left {current} alone: its [memory] profile_dir names {already}; set it to {folder} "
                f"for the app to show Hermes's MEMORY.md and USER.md")
    try:
        text = current.read_text(encoding="utf-8") if current is not None else ""
        line = f"profile_dir = {json.dumps(str(folder))}  # Hermes Agent's own MEMORY.md and USER.md"
        header = re.search(r"(?m)^\[memory\][ \t]*(#.*)?$", text)
        if header:
            text = text[:header.end()] + "\n" + line + text[header.end():]
        else:
            text = (text.rstrip("\n") + "\n\n" if text.strip() else "") + f"[memory]\n{line}\n"
        replace_file(beside, text)
    except OSError as err:
        raise MemLensError(f"cannot write {beside}: {err.strerror or err}") from None
    if load_settings(beside).memory.profile_dir != str(folder):  # never leave a file that says otherwise
        raise MemLensError(f"{beside} did not take the profile folder; set [memory] profile_dir by hand")
    return f"the profile is now {folder} ([memory] profile_dir in {beside})"
