"""End to end: a real ``hermes`` chat turn (Hermes Agent's own command line, one-shot mode) with MemLens
installed as its memory provider, against the project's local OpenAI-compatible test server, whose
scripted answer calls the memory tool. What reached the memory file is checked with MemLens itself."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from engine import Memory, config_path_for, load_settings
from tests.llm_server import ScriptedLLM

HERMES = shutil.which("hermes", path=str(Path(sys.executable).parent))
FACT = "Lena's team ships the data platform release every second Thursday at 10:00 CET."
PROFILE_LINE = "Release notes go to the #platform channel before noon."
SAID = "Remember: the data platform release ships every second Thursday, after the review meeting."


@pytest.mark.slow
@pytest.mark.skipif(HERMES is None, reason="hermes-agent is not installed (pip install -e '.[dev]')")
def test_a_hermes_chat_turn_writes_through_the_memlens_tool(tmp_path: Path, db_path: Path, embedder) -> None:
    home = tmp_path / "hermes-home"
    llm = ScriptedLLM()
    try:
        llm.answer(("tool_call", ("memlens_absorb", {"facts": [FACT], "scope": "user"})),
                   ("content", "Noted: I will remember that."))
        env = {**os.environ, "HERMES_HOME": str(home), "HOME": str(tmp_path), "OPENAI_API_KEY": "unused-locally"}
        installed = subprocess.run([sys.executable, "-m", "engine.faces.cli.main", "--db", str(db_path), "hermes",
                                    "install"], env=env, capture_output=True, text=True, timeout=120)
        assert installed.returncode == 0, installed.stderr
        assert installed.stdout.strip().splitlines()[-1] == "hermes config set memory.provider memlens"
        (home / "memories").mkdir(parents=True, exist_ok=True)
        (home / "memories" / "MEMORY.md").write_text(f"{PROFILE_LINE}\n", encoding="utf-8")
        (home / "config.yaml").write_text(f"model:\n  provider: custom\n  base_url: {llm.base_url}\n"
                                          f"  default: scripted\nmemory:\n  provider: memlens\n", encoding="utf-8")
        chat = subprocess.run([HERMES, "-z", SAID], env=env, cwd=tmp_path, capture_output=True, text=True,
                              timeout=300)
    finally:
        llm.close()
    assert chat.returncode == 0, chat.stderr[-2000:]
    assert chat.stdout.strip() == "Noted: I will remember that."
    completions = [r["body"] for r in llm.requests if r["path"].endswith("/chat/completions")]
    assert len(completions) == 2  # the tool call, then the answer after the tool's result
    assert "memlens_absorb" in {t["function"]["name"] for t in completions[0]["tools"]}
    system = completions[0]["messages"][0]["content"]
    assert "# Memory snapshot" in system  # the session's frozen snapshot is in Hermes's system prompt
    assert system.count(PROFILE_LINE) == 1  # the profile once: Hermes's own memory block, not again in ours
    tool_result = json.loads(next(m["content"] for m in completions[1]["messages"] if m["role"] == "tool"))
    assert tool_result["status"] == "applied" and tool_result["items"][0]["outcome"] == "new"

    with Memory(db_path, load_settings(config_path_for(db_path)), embedder=embedder, create=False) as memory:
        stored = {f.text: f for f in memory.facts(range(1, 10)).values()}
        assert stored[FACT].scope == "user" and stored[FACT].status == "active"
        assert stored[SAID].scope == "run"  # the user's statement, absorbed after the turn (sync_turn)
        assert {e.actor for e in memory.journal() if e.action == "absorb"} == {"hermes"}
        assert memory.profile_folder.resolve() == (home / "memories").resolve()
