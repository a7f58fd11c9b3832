"""Smoke test of the BUILT app (run by `make package`, not collected by `make test`).

``python packaging/smoke_test.py [dist/memlens]`` checks that the bundle holds what it needs, then
starts the frozen binary the way a first-time user would: offscreen, with a fresh HOME and XDG
folders (nothing cached from this machine), no MEMLENS_* variables, and, where ``unshare`` can make
one, in a network namespace with only loopback, so any download attempt fails the test. It

1. renders the demo memory's search pane for one query (the first screenshot: the cold start);
2. imports the demo through the command line and searches it (the model, from the bundle);
3. creates the default memory in the user data folder (``absorb`` without ``--db``);
4. starts ``memlens mcp`` and lists its tools, and ``memlens serve`` until it listens;

and fails unless every step exits 0, the PNG is 1400x900, the model was not unpacked into the user
cache, and nothing in the bundle changed.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

QUERY = "which editor does Maya use"
TIMEOUT = 600  # a shared 2-core machine may be busy; a healthy start takes seconds
REQUIRED = (
    "memlens",
    "_internal/resources/demo/memory.jsonl",
    "_internal/resources/demo/MEMORY.md",
    "_internal/resources/icons/app.svg",
    "_internal/resources/styles/app.qss",
    "_internal/memlens-model/model.onnx",
    "_internal/memlens-model/tokenizer.json",
    "_internal/memlens-model/config.json",
    "share/applications/io.memlens.MemLens.desktop",
    "share/metainfo/io.memlens.MemLens.metainfo.xml",
    "share/icons/hicolor/scalable/apps/io.memlens.MemLens.svg",
    *(f"share/icons/hicolor/{n}x{n}/apps/io.memlens.MemLens.png" for n in (16, 32, 48, 64, 128, 256, 512)),
)
QT_PLUGINS = ("platforms/libqoffscreen.so", "platforms/libqxcb.so", "imageformats/libqsvg.so",
              "iconengines/libqsvgicon.so")


class SmokeFailure(Exception):
    pass


def check_contents(bundle: Path) -> None:
    missing = [p for p in REQUIRED if not (bundle / p).exists()]
    plugins = bundle / "_internal" / "PySide6" / "Qt" / "plugins"
    missing += [f"{plugins.relative_to(bundle)}/{p}" for p in QT_PLUGINS if not (plugins / p).is_file()]
    if missing:
        raise SmokeFailure("the bundle lacks:\n  " + "\n  ".join(missing))


def tree(bundle: Path) -> dict[str, tuple[int, int]]:
    """Every path in the bundle with its size and modification time."""
    return {str(p.relative_to(bundle)): (p.lstat().st_size, p.lstat().st_mtime_ns) for p in bundle.rglob("*")}


def clean_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("MEMLENS_", "PYTHON", "QT_", "XDG_", "HF_", "FASTEMBED_"))}
    env.update(HOME=str(home), XDG_DATA_HOME=str(home / "data"), XDG_CACHE_HOME=str(home / "cache"),
               XDG_CONFIG_HOME=str(home / "config"), XDG_STATE_HOME=str(home / "state"),
               XDG_RUNTIME_DIR=str(home / "runtime"), TMPDIR=str(home / "tmp"), QT_QPA_PLATFORM="offscreen")
    for name in ("runtime", "tmp"):
        (home / name).mkdir(mode=0o700, parents=True)
    return env


def isolation() -> list[str]:
    """A prefix that runs a command without network (loopback only), when this machine allows it."""
    probe = ["unshare", "--net", "sh", "-c", "ip link set lo up"]
    if shutil.which("unshare") and shutil.which("ip") and subprocess.run(probe, capture_output=True).returncode == 0:
        return ["unshare", "--net", "sh", "-c", 'ip link set lo up && exec "$@"', "sh"]
    print("smoke: note: cannot make a network namespace here; running with the machine's network")
    return []


def run(prefix: list[str], argv: list[str], env: dict[str, str], what: str, **kwargs) -> tuple[str, float]:
    started = time.perf_counter()
    try:
        done = subprocess.run([*prefix, *argv], env=env, capture_output=True, text=True, timeout=TIMEOUT, **kwargs)
    except subprocess.TimeoutExpired:
        raise SmokeFailure(f"{what}: no exit after {TIMEOUT} s") from None
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SmokeFailure(f"{what}: exit code {done.returncode}\n--- stdout\n{done.stdout[-3000:]}\n"
                           f"--- stderr\n{done.stderr[-3000:]}")
    return done.stdout, elapsed


def png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        raise SmokeFailure(f"{path} is not a PNG")
    return struct.unpack(">II", head[16:24])


def screenshot(exe: Path, prefix: list[str], env: dict[str, str], out: Path) -> float:
    _, elapsed = run(prefix, [str(exe), "--demo", "--screenshot", str(out), "--pane", "search", "--query", QUERY],
                     env, "the app's demo search screenshot")
    if not out.is_file():
        raise SmokeFailure(f"the app exited 0 but wrote no {out}")
    if png_size(out) != (1400, 900):
        raise SmokeFailure(f"the screenshot is {png_size(out)}, not 1400x900")
    return elapsed


def cli_search(exe: Path, bundle: Path, prefix: list[str], env: dict[str, str], home: Path) -> None:
    db = home / "cli" / "memory.sqlite"
    db.parent.mkdir()
    demo = bundle / "_internal" / "resources" / "demo" / "memory.jsonl"
    run(prefix, [str(exe), "--db", str(db), "import", str(demo)], env, "CLI import of the demo")
    out, _ = run(prefix, [str(exe), "--db", str(db), "search", QUERY, "--top-k", "3", "--json"], env, "CLI search")
    if "Maya" not in out:
        raise SmokeFailure(f"CLI search for {QUERY!r} found nothing about Maya:\n{out[:2000]}")
    run(prefix, [str(exe), "absorb", "The desktop build passed its smoke test."], env, "CLI absorb into the default memory")
    default = home / "data" / "memlens" / "memory.sqlite"
    if not default.is_file():
        raise SmokeFailure(f"the default memory is not in the user data folder ({default})")


def mcp_tools(exe: Path, prefix: list[str], env: dict[str, str], home: Path) -> None:
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "smoke", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    with subprocess.Popen([*prefix, str(exe), "--db", str(home / "mcp.sqlite"), "mcp"], env=env, text=True,
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        try:
            for message in messages:
                proc.stdin.write(json.dumps(message) + "\n")
                proc.stdin.flush()
                if "id" in message:
                    reply = proc.stdout.readline()  # each request is answered before the next is sent
            proc.stdin.close()
            proc.wait(timeout=TIMEOUT)
        except (subprocess.TimeoutExpired, BrokenPipeError):
            proc.kill()
            raise SmokeFailure(f"memlens mcp did not answer: {proc.stderr.read()[-2000:]}") from None
        if "memory_search" not in reply:
            raise SmokeFailure(f"memlens mcp listed no memory_search tool: {reply[:500]!r} "
                               f"{proc.stderr.read()[-2000:]}")


def serve_starts(exe: Path, prefix: list[str], env: dict[str, str], home: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    argv = [*prefix, str(exe), "--db", str(home / "http.sqlite"), "serve", "--port", str(port)]
    with subprocess.Popen(argv, env=env, text=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) as proc:
        deadline = time.monotonic() + TIMEOUT
        seen = []
        while time.monotonic() < deadline:
            line = proc.stderr.readline()
            if not line:
                break
            seen.append(line)
            if "Uvicorn running" in line or "Application startup complete" in line:
                proc.terminate()
                proc.wait(timeout=60)
                return
        proc.kill()
        raise SmokeFailure("memlens serve did not start listening:\n" + "".join(seen[-30:]))


def main(argv: list[str]) -> int:
    sys.stdout.reconfigure(line_buffering=True)  # progress lines in order with the failure on stderr
    bundle = Path(argv[0] if argv else "dist/memlens").resolve()
    exe = bundle / "memlens"
    try:
        check_contents(bundle)
        before = tree(bundle)
        prefix = isolation()
        with tempfile.TemporaryDirectory(prefix="memlens-smoke-") as tmp:
            home = Path(tmp)
            env = clean_env(home)
            seconds = screenshot(exe, prefix, env, home / "search.png")
            print(f"smoke: cold start to the first screenshot (demo absorbed, one search): {seconds:.1f} s")
            _, helped = run(prefix, [str(exe), "--help"], env, "memlens --help")
            print(f"smoke: memlens --help: {helped:.1f} s")
            cli_search(exe, bundle, prefix, env, home)
            print("smoke: CLI import + search + default memory location: ok")
            mcp_tools(exe, prefix, env, home)
            serve_starts(exe, prefix, env, home)
            print("smoke: memlens mcp lists its tools, memlens serve listens: ok")
            unpacked = home / "cache" / "memlens" / "model-minilm-int8"
            if unpacked.exists():
                raise SmokeFailure(f"the model was unpacked into {unpacked} instead of loaded from the bundle")
        after = tree(bundle)
        changed = sorted(set(before) ^ set(after) | {p for p in before.keys() & after.keys() if before[p] != after[p]})
        if changed:
            raise SmokeFailure("the app wrote next to the program:\n  " + "\n  ".join(changed[:40]))
    except SmokeFailure as failure:
        print(f"smoke: FAILED: {failure}", file=sys.stderr)
        return 1
    print(f"smoke: ok ({bundle}{', no network' if prefix else ''}; nothing written in the bundle)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
