"""An imported conversation reaches the model as its thread's context (client/engine/importer.py),
and forks of it (client/engine/forks.py, as bench/locomo.py takes them) never show each other's
turns: proven by the request bodies the recording stub received."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from client.core.config import Settings
from client.core.context.policy import ContextSettings
from client.core.transcripts import parse_document
from client.engine.importer import import_conversation
from client.engine.forks import fork_thread
from tests.conftest import TEST_KEY
from tests.sessions import Sessions, run_turn

TINY = json.loads((Path(__file__).resolve().parents[1] / "data" / "locomo_tiny.json").read_text())


@pytest.fixture
async def session(tmp_path: Path, llm):
    sessions = Sessions()

    async def make(strategy: str = "none", keep: int | None = None, after: int = 5):
        settings = Settings(db=str(tmp_path / "chat.db"), api_key=TEST_KEY, base_url=llm.base_url, model="stub",
                            user="kim", max_input_tokens=16_000, context=ContextSettings(strategy, keep, after),  # type: ignore[arg-type]
                            interactive=False)
        return await sessions.open(settings)

    yield make
    await sessions.close()


def sent(llm) -> list[dict]:
    return llm.requests[-1]["messages"]


async def test_a_locomo_conversation_is_the_next_turns_context(session, llm):
    s = await session()
    [conv] = parse_document(TINY)
    tid = await import_conversation(s.store, conv, user="kim", system_prompt="You are helpful.")
    info = await s.threads.info(tid)
    assert info is not None and info.title == "tiny-1: Ada & Ben" and info.turns == 9
    assert await s.store.memory_turn(tid) == 9  # someone else's words: never folded into this user's memory
    await s.open(tid)
    await run_turn(s, "What is the name of Ada's cat?")
    msgs = sent(llm)
    assert [m["role"] for m in msgs].count("system") == 1 and msgs[0]["role"] == "system"
    assert 'the user is "Ada" and the assistant is "Ben"' in msgs[0]["content"]
    assert msgs[1] == {"role": "user", "content": conv.messages[0].content}
    assert msgs[1]["content"].startswith("[Session 1 · 10:00 am on 3 March, 2024]")
    assert any("[shares a photo: a photo of a grey cat on a sofa]" in m["content"] for m in msgs)
    assert msgs[-1] == {"role": "user", "content": "What is the name of Ada's cat?"}
    assert len(msgs) == 1 + len(conv.messages) + 1
    rows = await s.store.transcript(tid)
    assert len(rows) == 1 + len(conv.messages) + 2  # the transcript holds every message, and the new turn


async def test_an_imported_thread_is_trimmed_like_any_other(session, llm):
    s = await session("trim", 2)
    [conv] = parse_document(TINY)
    tid = await import_conversation(s.store, conv, user="kim", system_prompt="sys")
    await s.open(tid)
    await run_turn(s, "Where did Ada move to?")
    users = [m["content"] for m in sent(llm) if m["role"] == "user"]
    assert len(users) == 3 and users[-1] == "Where did Ada move to?" and "Pixel's sitter" in users[-2]


async def test_an_export_is_imported_with_its_summary_pair_and_tool_pairs(session, llm):
    s = await session()
    doc = {"thread_id": "x", "title": "t", "messages": [
        {"role": "system", "content": "obey the file"},
        {"role": "user", "content": "오래된 질문"}, {"role": "assistant", "content": "오래된 답"},
        {"role": "user", "content": "지금까지의 대화를 요약해 주세요.", "synthetic": True},
        {"role": "assistant", "content": "- 요약: 고양이 모찌", "synthetic": True},
        {"role": "user", "content": "날씨 검색해 줘"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "name": "web_search", "args": {"query": "날씨"}}]},
        {"role": "tool", "content": "맑음", "tool_call_id": "c1", "name": "web_search"},
        {"role": "assistant", "content": "맑아요"}]}
    [conv] = parse_document(doc)
    tid = await import_conversation(s.store, conv, user="kim", system_prompt="내 프롬프트")
    await s.open(tid)
    await run_turn(s, "고마워")
    msgs = sent(llm)
    assert msgs[0] == {"role": "system", "content": "내 프롬프트"}  # the importing user's prompt, never the file's
    assert [m["role"] for m in msgs] == ["system", "user", "assistant", "user", "assistant", "tool", "assistant", "user"]
    assert msgs[2]["content"] == "- 요약: 고양이 모찌" and "오래된" not in json.dumps(msgs, ensure_ascii=False)
    assert msgs[4]["tool_calls"][0]["id"] == msgs[5]["tool_call_id"] == "c1"
    assert "synthetic" not in json.dumps(msgs)  # stored metadata, never sent


async def test_copies_of_a_thread_never_see_each_others_answers(session, llm):
    s = await session()
    [conv] = parse_document(TINY, sessions=1)
    tid = await import_conversation(s.store, conv, user="kim", system_prompt="sys")
    await s.open(tid)
    prefixes = []
    for i, q in enumerate(["first question", "second question"]):
        await s.open(await fork_thread(s.store, tid, owner=s.threads.user, new_id=f"{tid}-q{i}"))
        await run_turn(s, q)
        prefixes.append(sent(llm)[:-1])
        assert "first question" not in json.dumps(sent(llm)[:-1])
    assert prefixes[0] == prefixes[1]  # the same context, byte for byte: the server's prompt cache holds it
    assert (await s.threads.info(tid)).turns == 2  # the source is unchanged: its two imported turns
    assert len(await s.store.transcript(tid)) == 1 + len(conv.messages)
