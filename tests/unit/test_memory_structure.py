"""Only the user's own prose becomes a memory candidate (issue 49): the structural detector
(client/core/memory/structure.py) and what it does to a turn's statements (statements.py)."""

from __future__ import annotations

import pytest
from langchain_core.messages import HumanMessage

from client.core.memory.candidates import Conversation, grounded_items
from client.core.memory.parse import OWN, parse_bullets, user_turns
from client.core.memory.statements import junk_item, statements_of
from client.core.memory.structure import line_kind, prose

JUNK = [
    ("clear", "filler"), ("ok", "filler"), ("ㅋㅋㅋ", "filler"), ("thanks", "filler"), ("네 감사합니다", "filler"), ("👍", "filler"),
    ("python3 -m venv .venv && .venv/bin/pip install -q -e .", "command"), ("git diff | mcp-chat -p", "command"),
    ("sudo systemctl restart nginx", "command"), ("$ npm install", "command"), ("cd ..", "command"),
    ("kubectl logs deploy/worker --since=1h | grep timeout", "command"),
    ("index 5109783..3434951 100644", "diff"), ("+ return f.read()", "diff"), ("@@ -1,4 +1,5 @@", "diff"),
    ('File "app.py", line 3, in <module>', "traceback"), ("ValueError: invalid literal for int()", "traceback"),
    ("Traceback (most recent call last):", "traceback"), ("  at com.foo.Bar.baz(Bar.java:12)", "traceback"),
    ("ERROR: connection refused on port 5432", "log"), ("2026-12-07 16:50:01,123 INFO server started", "log"),
    ('오류:  "users" 릴레이션 없음', "log"), ("npm ERR! code ENOENT", "log"), ("[WARN] disk almost full", "log"),
    ("fatal: not a git repository", "log"), ("Dec  7 09:12:01 web01 nginx[1234]: upstream timed out", "log"),
    ("SELECT * FROM users WHERE id = 3;", "sql"), ("UPDATE orders SET paid = true WHERE id = 9", "sql"),
    ("def foo(x):", "code"), ("x = compute(y)", "code"), ("const a = require('b');", "code"), ("}", "code"),
    ("drwxr-xr-x  5 root root 4096 Dec  7 16:50 client", "listing"), ("README.md  client  pyproject.toml", "listing"),
    ("src/app/main.py", "listing"), ("https://example.com/a?b=1", "url"), ("www.naver.com", "url"),
]
PROSE = [
    "나는 부산에 살아", "부산에 살아", "저는 파이썬 백엔드 개발자예요", "다음 주 금요일에 제주도 가", "git 처음 배우는 중이야",
    "print() 로 찍어 보니까 값이 비어 있더라", "내 이메일은 minji@example.com 이야", "I live in Lisbon now",
    "Go to the store later", "Make sure you answer in Korean", "I work with git every day", "Find me a good restaurant",
    "I use Python 3.12 and FastAPI at work", "Correction: the deadline is Monday, not Friday", "Note: I'm vegan",
    "Select the cheaper one for me, I'm on a budget", "ERROR handling is my job at work, I'm an SRE",
]


@pytest.mark.parametrize("line,kind", JUNK)
def test_what_is_typed_or_pasted_for_the_machine_is_not_prose(line, kind):
    assert line_kind(line) == kind


@pytest.mark.parametrize("line", PROSE)
def test_the_users_prose_is_prose(line):
    assert line_kind(line) is None


def test_a_pasted_block_goes_whole_and_the_users_lines_stay():
    turn = ("이거 왜 안 돼?\nTraceback (most recent call last):\n  File \"app.py\", line 3, in <module>\n    main()\n"
            "ValueError: bad\n저는 데이터 분석가예요.\n```\nSELECT 1;\n나는 이 줄도 코드 블록 안이야\n```\n"
            "diff --git a/x b/x\n def f():\n-    pass\n+    return 1\nI live in Busan.")
    assert prose(turn).splitlines() == ["이거 왜 안 돼?", "저는 데이터 분석가예요.", "I live in Busan."]
    assert statements_of(turn) == ["저는 데이터 분석가예요.", "I live in Busan."]


@pytest.mark.parametrize("turn", ["clear", "ok", "ㅋㅋㅋ", "thanks", "python3 -m venv .venv && .venv/bin/pip install -q -e .",
                                  "index 5109783..3434951 100644", "ERROR: connection refused on port 5432",
                                  "+ return f.read()", "https://github.com/org/repo/pull/42", "ls -la\nREADME.md  src"])
def test_a_turn_of_junk_states_nothing(turn):
    assert statements_of(turn) == []


def test_a_piped_body_is_never_the_users_words():
    own = "검토해 줘. 나는 백엔드 개발자야."
    msg = HumanMessage(own + "\n\n<stdin>\n나는 이 파일의 작성자다\nindex 5109783..3434951 100644\n</stdin>",
                       additional_kwargs={OWN: own})
    rows = [(1, msg)]
    assert user_turns(rows) == {1: own}
    assert statements_of(user_turns(rows)[1]) == ["나는 백엔드 개발자야."]
    # a model item copying the body has no word of the user's: dropped
    items = parse_bullets("- [턴 1] 사용자는 이 파일의 작성자다\n- [턴 1] index 5109783..3434951 100644\n- [턴 1] 사용자는 백엔드 개발자다")
    assert [b.text for b in grounded_items(items, Conversation.of(rows))] == ["사용자는 백엔드 개발자다"]


@pytest.mark.parametrize("text,kind", [("사용자의 말: clear", "filler"), ("사용자의 말: index 5109783..3434951 100644", "diff"),
                                       ("사용자의 말: python3 -m venv .venv && .venv/bin/pip install -q -e .", "command"),
                                       ("File \"app.py\", line 3, in <module>", "traceback"),
                                       ("사용자의 말: 나는 부산에 살아", None), ("사용자는 채식주의자다", None)])
def test_a_stored_item_is_checked_without_its_prefix(text, kind):
    assert junk_item(text) == kind
