"""A first session on the real local model, in a real terminal (issue 27): tmux, `--provider local`,
a fresh HOME, the client's own llama-server. The user states lasting facts (name, city, job) and
asks for a one-sentence recommendation (the assistant names places the user never mentioned), `/new`, one
turn, `/exit`. Then: exit code 0 within seconds of `/exit`, no error line on the screen, status
lines within 100 columns, the small model's note once; a second run's `/memory` holds the user's
facts and nothing only the assistant said; the new thread's stored system message carries them.

Slow (minutes): run alone, `python -m pytest -m localmodel tests/localmodel/test_first_session.py`.
"""

from __future__ import annotations

import json
import re
import shutil
import time
import unicodedata

import pytest

from tests.localmodel.conftest import FIGURES
from tests.tty.conftest import Pane

pytestmark = [pytest.mark.localmodel, pytest.mark.timeout(1500)]

FACTS = ("김민준", "부산", "개발자")
TURNS = ("안녕하세요! 제 이름은 김민준이에요.", "저는 부산에 살고, 회사에서 개발자로 일해요.",
         "주말에 가 볼 만한 곳 하나만 한 문장으로 추천해 줘.")
AFTER_NEW = "제 이름이 뭐였죠?"
ERROR_KEYS = ("turn_error", "model_unreachable", "model_timeout", "unexpected_error", "memory_failed", "memory_unscored", "mcp_server_failed", "summary_failed", "local_failed",
              "interrupted", "unknown_command")
JOSA = ("에서", "으로", "에게", "님", "을", "를", "이", "가", "은", "는", "에", "의", "로", "와", "과", "도", "요")
MEMORY_LINE = re.compile(r"^\s*\d+\. \[[\d.-]+\] (.*)  \(세션 \S+(?: \".*\")?, 턴 [\d,]+\)$")


def cells(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def stems(text: str) -> set[str]:
    """Words of 2+ letters, trailing particles cut (부산에서 -> 부산)."""
    out = set()
    for word in re.findall(r"[\w가-힣]{2,}", text):
        for josa in JOSA:
            if word.endswith(josa) and len(word) - len(josa) >= 2:
                word = word[: -len(josa)]
                break
        out.add(word)
    return out


def error_prefixes() -> list[str]:
    from client.ui import i18n

    return [i18n.KO[k].split("{")[0].strip() for k in ERROR_KEYS] + ["Traceback"]


def ask(pane: Pane, text: str, timeout: float = 400) -> str:
    n = pane.prompts()
    pane.line(text)
    return pane.wait_prompt(n + 1, timeout)


def test_first_session_keeps_the_users_facts_and_leaves_at_once(own_chat, tmp_path):
    if shutil.which("tmux") is None:
        pytest.fail("tmux is required")
    started = time.monotonic()
    argv = own_chat.argv("--user", "tester")  # --provider local, --db <tmp>/chat.db; HOME is tmp_path
    pane = Pane(tmp_path, {**own_chat.env, "XDG_DATA_HOME": str(tmp_path / "data")}, argv,
                shown="mcp-chat --provider local", width=100)
    try:
        screen = pane.wait_prompt(1, 300)  # a fresh HOME: no stored session, so no picker: a greeting
        assert "안녕하세요. 저는 AI 어시스턴트입니다." in screen and "세션 ID를 입력하세요" not in screen
        first = re.findall(r"현재 세션 ID: (\S+)", screen)[-1]
        for text in TURNS:
            ask(pane, text)
        screen = ask(pane, "/new", 120)
        second = re.findall(r"현재 세션 ID: (\S+)", screen)[-1]
        assert second != first
        ask(pane, AFTER_NEW)
        pane.line("/exit")
        sent = time.monotonic()
        code = pane.exit_status(timeout=20)  # the program leaves within seconds, memory work or not
        FIGURES["first_session_exit_s"] = time.monotonic() - sent
        screen = pane.screen()
    finally:
        pane.close()
    assert code == 0, screen
    for prefix in error_prefixes():
        assert prefix not in screen, (prefix, screen)
    statuses = [ln for ln in screen.splitlines() if " · 세션 " in ln]
    assert len(statuses) == len(TURNS) + 1 and all(cells(ln) <= 100 for ln in statuses), statuses
    assert screen.count("소형 모델") == 1  # the note once at the start, not on every status line

    # the user's words and the assistant's, as stored
    doc = json.loads(own_chat("export", first, "--format", "json", auto=True).out)
    user_text = " ".join(m["content"] for m in doc["messages"] if m["role"] == "user")
    said = " ".join(m["content"] for m in doc["messages"] if m["role"] == "assistant")
    invented = {w for w in stems(said) - stems(user_text) if w not in user_text and not w.isdigit()} - {"사용자"}
    assert invented, said  # the recommendation named something the user never said: the check below bites

    # a second run: what memory holds for this user (passes left at exit are folded in first)
    r = own_chat("--user", "tester", "--new", input="/memory\n", timeout=600)
    assert r.code == 0, r.err
    items = [m.group(1) for m in (MEMORY_LINE.match(ln) for ln in r.out.splitlines()) if m]
    held = " ".join(items)
    for fact in FACTS:
        assert fact in held, (fact, items)
    leaked = sorted(w for w in invented if w in held)
    assert not leaked, (leaked, items)

    # the new thread's system message (stored once, when its first turn began) carries the facts
    new_doc = json.loads(own_chat("export", second, "--format", "json", auto=True).out)
    system = new_doc["messages"][0]
    assert system["role"] == "system"
    for fact in FACTS:
        assert fact in system["content"], (fact, system["content"])
    FIGURES["first_session_s"] = time.monotonic() - started
