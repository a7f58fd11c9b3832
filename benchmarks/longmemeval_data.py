"""LongMemEval's development half as one pooled memory (``../shared/eval/README.md``, ``longmemeval/``).

Every turn of every session in ``dev.json`` is one fact (source ``"{session_id}#{turn index}"``,
the session's date as its time, scope user, kind episodic, text cut at 3,900 characters); each
question with at least one ``has_answer`` turn is asked against the whole pool at the last
question date + 1 day. The data is read from the shared folder and never copied here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

EVAL_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "eval" / "longmemeval"
MAX_CHARS = 3900
DAY = 86_400.0


def parse_date(text: str) -> float:
    """'2023/05/20 (Sat) 02:21' -> epoch seconds (UTC)."""
    day, _, clock = text.split(" ")
    return datetime.strptime(f"{day} {clock}", "%Y/%m/%d %H:%M").replace(tzinfo=timezone.utc).timestamp()


@dataclass
class Turn:
    source: str
    text: str
    role: str
    has_answer: bool


@dataclass
class Session:
    session_id: str
    when: float
    turns: list[Turn]


@dataclass
class Question:
    qid: str
    kind: str  # question_type
    question: str
    asked: float  # the question's own date
    expected: list[str]  # sources of its has_answer turns


@dataclass
class Pool:
    sessions: list[Session]  # oldest first
    questions: list[Question]  # the answerable ones
    asked_at: float  # last question date + 1 day

    @property
    def turns(self) -> list[Turn]:
        return [t for s in self.sessions for t in s.turns]


def available() -> bool:
    return (EVAL_DIR / "dev.json").is_file()


def load(path: Path | None = None) -> Pool:
    rows = json.loads((path or EVAL_DIR / "dev.json").read_text(encoding="utf-8"))
    sessions: dict[str, Session] = {}
    questions = []
    for row in rows:
        expected = []
        for sid, date, turns in zip(row["haystack_session_ids"], row["haystack_dates"], row["haystack_sessions"]):
            if sid not in sessions:
                sessions[sid] = Session(sid, parse_date(date), [
                    Turn(f"{sid}#{k}", turn["content"][:MAX_CHARS], turn["role"], bool(turn.get("has_answer")))
                    for k, turn in enumerate(turns)])
            expected += [f"{sid}#{k}" for k, turn in enumerate(turns) if turn.get("has_answer")]
        if expected:
            questions.append(Question(row["question_id"], row["question_type"], row["question"],
                                      parse_date(row["question_date"]), list(dict.fromkeys(expected))))
    ordered = sorted(sessions.values(), key=lambda s: (s.when, s.session_id))
    asked_at = max(parse_date(row["question_date"]) for row in rows) + DAY
    return Pool(ordered, questions, asked_at)
