"""Fork and rewind (issue 40), in-process on each backend, read on the wire: what the recording stub
model receives from a fork, a fork of a fork and a rewound thread; the original unchanged; memory
counted once across forks and deletes; a fork taken while a background summary is pending."""

from __future__ import annotations

import asyncio
import json
import threading

import pytest

from client.core.config import Settings
from client.core.context.policy import ContextSettings
from client.engine.forks import fork_thread
from client.engine.store import StoreError
from client.engine.store.codec import encode
from tests.conftest import TEST_KEY
from tests.sessions import Sessions, run_turn, search_tool

pytestmark = pytest.mark.storage  # copies of transcript rows and checkpoints: both backends

TOOL = '[tool:web_search {"query": "부산 날씨"}] 날씨 검색'
TEXTS = ["첫 질문 사과", TOOL, "셋째 질문 배", "넷째 질문 감", "다섯째 질문 귤", "여섯째 질문 밤"]


@pytest.fixture
async def sessions():
    opened = Sessions()
    yield opened
    await opened.close()


def settings(db: str, llm, **kw) -> Settings:
    base = dict(db=db, api_key=TEST_KEY, base_url=llm.base_url, model="stub", user="kim", max_input_tokens=8_000,
                context=ContextSettings("summarize", 2, 3), interactive=False)
    return Settings(**{**base, **kw})


async def play(s, llm, texts) -> list[list[dict]]:
    """Run the turns; per turn, the messages of its first request with tools (the one the turn sent)."""
    sent = []
    for text in texts:
        before = len(llm.chat_requests())
        await run_turn(s, text)
        sent.append(llm.chat_requests()[before]["messages"])
    return sent


async def rows(s, tid: str) -> list[tuple[int, str]]:
    return [(t, encode(m)) for t, m in await s.store.transcript(tid)]


async def settled(s) -> None:
    """The background summary the last answer started (for the thread just left) has finished."""
    p = s.summaries.pending
    if p is not None:
        await asyncio.wait([p.task])


def users(messages: list[dict]) -> list[str]:
    return [m["content"] for m in messages if m["role"] == "user"]


async def test_a_fork_at_turn_n_sends_what_the_original_sent_at_turn_n_plus_1(db_url, llm, sessions):
    """Summaries (made at turns 5 and 6 here), a tool pair and the system prompt carried as they were:
    the fork's next request is byte for byte the one the original sent after turn N; no summary is
    made again; the original's transcript is unchanged."""
    s = await sessions.open(settings(db_url, llm), tools=[search_tool()])
    await s.open("src")
    sent = await play(s, llm, TEXTS)
    assert any(users(q)[0] == "지금까지의 대화를 요약해 주세요." for q in sent)  # the thread has summaries
    src_rows = await rows(s, "src")
    for n in (1, 2, 4, 5):
        new = await fork_thread(s.store, "src", owner=s.threads.user, at=n)
        await s.open(new)
        await settled(s)  # the previous thread's background summary is counted before, never during, the turn
        summaries = len(llm.summary_requests())
        [got] = await play(s, llm, [TEXTS[n]])
        assert got == sent[n], n
        assert len(llm.summary_requests()) == summaries  # the fork holds the summary turn n+1 was sent with
        info = await s.threads.info()
        assert (info.turns, info.parent_id, info.parent_turn, info.kind) == (n + 1, "src", n, "fork")
    assert await rows(s, "src") == src_rows  # the original is untouched


async def test_a_fork_at_the_end_copies_the_context_and_forks_of_forks_hold_their_own_turns(db_url, llm, sessions):
    s = await sessions.open(settings(db_url, llm), tools=[search_tool()])
    await s.open("src")
    await play(s, llm, TEXTS[:4])
    src_state = await s.threads.state()
    f1 = (await s.fork()).thread_id  # /fork: all turns, from the open thread
    await s.open(f1)
    assert [m.model_dump() for m in await s.threads.state()] == [m.model_dump() for m in src_state]
    [in_f1] = await play(s, llm, ["포크 하나의 질문"])
    f2 = await fork_thread(s.store, f1, owner=s.threads.user)  # a fork of the fork, at its end
    f3 = await fork_thread(s.store, f1, owner=s.threads.user, at=2)  # and at an earlier turn
    await s.open(f2)
    [in_f2] = await play(s, llm, ["포크 둘의 질문"])
    assert users(in_f2) == users(in_f1) + ["포크 둘의 질문"]  # its source's own turn, not the original's later ones
    await s.open(f3)
    [in_f3] = await play(s, llm, ["포크 셋의 질문"])
    assert users(in_f3) == [TEXTS[0], TEXTS[1], "포크 셋의 질문"]
    await s.open("src")
    [in_src] = await play(s, llm, ["포크 하나의 질문"])
    assert in_src == in_f1  # the same context: the same request
    everything = json.dumps(llm.chat_requests()[-1], ensure_ascii=False)
    assert "포크 둘" not in everything and "포크 셋" not in everything  # no fork reaches its source
    listed = {th.thread_id: (th.parent_id, th.parent_turn, th.turns) for th in await s.threads.list()}
    assert listed[f1] == ("src", 4, 5) and listed[f2] == (f1, 5, 6) and listed[f3] == (f1, 2, 3)
    doc = await s.store.transcript(f2)
    assert [m.content for t, m in doc if t == 5 and m.type == "human"] == ["포크 하나의 질문"]  # its own history


async def test_rewind_takes_the_last_turns_out_of_the_next_request_and_keeps_them(db_url, llm, sessions):
    s = await sessions.open(settings(db_url, llm), tools=[search_tool()])
    await s.open("t")
    texts = [TEXTS[0], "둘째 질문 무", "셋째 질문 배", "넷째 질문 감", TOOL]
    sent = await play(s, llm, texts)
    done = await s.rewind(1)
    assert (done.kept, done.taken, done.tools) == (4, 1, ["web_search"])
    [after] = await play(s, llm, ["다시 묻는 질문"])
    assert TOOL not in users(after) and "검색 결과" not in json.dumps(after, ensure_ascii=False)
    assert after[:-1] == sent[4][:-1]  # exactly the context the rewound turn was sent with
    done = await s.rewind(3)  # back across the summary made before turn 5: rebuilt from the transcript
    assert done.kept == 2 and done.tools == []
    [again] = await play(s, llm, [texts[2]])
    assert again == sent[2]
    info = await s.threads.info()
    assert info.turns == 3 and info.thread_id == "t"
    kept = {th.thread_id: th for th in await s.threads.list() if th.kind == "rewind"}
    assert len(kept) == 2 and all(th.parent_id == "t" for th in kept.values())
    [first] = [th for th in kept.values() if any(m.content == TOOL for _, m in await s.store.transcript(th.thread_id))]
    assert first.turns == 5 and first.parent_turn == 2  # cut back again, t shares two turns with it now
    await s.open(first.thread_id)
    [back] = await play(s, llm, ["되돌아온 질문"])
    assert TOOL in users(back)  # recoverable: resumed, it goes on where the user was
    with pytest.raises(StoreError) as e:
        await s.rewind(7)
    assert e.value.key == "rewind_bad_turns"


async def test_memory_counts_once_across_a_fork_and_either_delete(db_url, llm, sessions):
    async def bullets() -> list[tuple[str, str]]:
        return sorted((b.text, b.thread_id) for b in await s.store.memory_list("kim"))

    s = await sessions.open(settings(db_url, llm), memory_user="kim")
    await s.open("src")
    await run_turn(s, "나는 채식주의자야")
    await s.end()  # a batch folds the thread at its end
    assert [t for t, _ in await bullets()] and all(tid == "src" for _, tid in await bullets())
    before = await bullets()
    fork = (await s.fork()).thread_id
    await s.open(fork)
    assert await s.store.memory_turn(fork) == 1  # the copied turn is the source's to fold
    extractions = len([q for q in llm.memory_requests() if "장기 기억 후보" in str(q["messages"][0]["content"])])
    await run_turn(s, "나는 부산에 살아")
    await s.end()
    new = [q for q in llm.memory_requests() if "장기 기억 후보" in str(q["messages"][0]["content"])][extractions:]
    assert new and all("채식" not in json.dumps(q, ensure_ascii=False) for q in new)  # its own turn only
    after = await bullets()
    assert [b for b in after if "채식" in b[0]] == [b for b in before if "채식" in b[0]]  # not doubled
    assert any("부산" in text and tid == fork for text, tid in after)
    await s.threads.delete("src")  # the fork still holds turn 1: what it gave memory stays, now the fork's
    assert sorted(t for t, _ in await bullets()) == sorted(t for t, _ in after)
    assert all(tid == fork for _, tid in await bullets())
    assert (await s.threads.info(fork)).parent_id == ""  # it came from a thread that is gone
    await s.open(None)
    await s.threads.delete(fork)
    assert await bullets() == []


async def memory_request_sent(llm, before: int) -> None:
    """The sign: a memory pass's extraction request has reached the model (the pass is under way)."""
    for _ in range(1000):
        if len(llm.memory_requests()) > before:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("no memory request")


async def test_a_rewind_while_the_threads_memory_pass_runs_waits_for_it_and_memory_counts_once(db_url, llm, sessions):
    """At a terminal the memory pass runs right after an answer in which the user said something about
    themselves. A /rewind of that turn while the pass waits for its extraction waits for the pass:
    what the rewound turn gave memory goes with it to the thread keeping it (deleting that thread
    deletes it), and the thread cut back folds its next turn."""
    s = await sessions.open(settings(db_url, llm, interactive=True), memory_user="kim")
    worker = s.memory_passes.worker
    await s.open("t")
    for text in ("오늘 날씨 어때?", "파이썬 예제 보여 줘"):  # nothing about the user: no pass
        await run_turn(s, text)
    assert not worker.busy and await s.store.memory_turn("t") == 0
    answer = threading.Event()
    llm.push({"for": "memory", "hold": answer, "text": "- [3] 사용자는 채식주의자이다"})
    await run_turn(s, "나는 채식주의자야")
    await memory_request_sent(llm, 0)
    rewinding = asyncio.create_task(s.rewind(1))
    await asyncio.sleep(0.3)
    assert not rewinding.done()  # it waits for the pass of the turn it takes back
    answer.set()
    done = await rewinding
    backup = done.backup
    assert await worker.drain(30)  # nothing of the pass is left to write
    veg = [b for b in await s.store.memory_list("kim") if "채식" in b.text]
    assert veg and all(b.thread_id == backup for b in veg)  # the rewound turn's items went with it
    assert await s.store.memory_turn("t") == 2 and await s.store.memory_turn(backup) == 3
    assert backup not in await s.store.memory_pending("kim")  # turn 3 is folded once, not again
    await run_turn(s, "나는 부산에 살아")  # turn 3 of "t" now: its pass folds it
    assert await worker.drain(30)
    assert await s.store.memory_turn("t") == 3
    assert any("부산" in b.text and b.thread_id == "t" for b in await s.store.memory_list("kim"))
    await s.threads.delete(backup)
    left = await s.store.memory_list("kim")
    assert not any("채식" in b.text for b in left) and any("부산" in b.text for b in left)


async def test_a_fork_while_the_threads_memory_pass_runs_leaves_the_turns_to_the_source(db_url, llm, sessions):
    """/fork right after an answer whose memory pass is still under way: the fork changes nothing the
    pass reads, so the pass folds the copied turn for the source (once), the fork folds only its own,
    and the source stays claimed until the pass ends although the session went on in the fork."""
    s = await sessions.open(settings(db_url, llm, interactive=True), memory_user="kim")
    worker = s.memory_passes.worker
    await s.open("src")
    answer = threading.Event()
    llm.push({"for": "memory", "hold": answer, "text": "- [1] 사용자는 채식주의자이다"})
    await run_turn(s, "나는 채식주의자야")
    await memory_request_sent(llm, 0)
    fork = (await s.fork()).thread_id
    await s.open(fork)  # as /fork does
    assert s.store.holds_thread("src")  # no other client takes it while the pass may still write
    answer.set()
    assert await worker.drain(30)
    assert not s.store.holds_thread("src")  # and let go when it ended
    veg = [b for b in await s.store.memory_list("kim") if "채식" in b.text]
    assert veg and all(b.thread_id == "src" for b in veg)
    assert (await s.store.memory_turn("src"), await s.store.memory_turn(fork)) == (1, 1)
    asked = len(llm.memory_requests())
    await run_turn(s, "나는 부산에 살아")
    assert await worker.drain(30)
    assert all("채식" not in json.dumps(q, ensure_ascii=False) for q in llm.memory_requests()[asked:])
    assert any("부산" in b.text and b.thread_id == fork for b in await s.store.memory_list("kim"))
    assert len([b for b in await s.store.memory_list("kim") if "채식" in b.text]) == len(veg)  # not doubled


async def test_a_thread_deleted_while_its_memory_pass_runs_keeps_nothing_of_that_pass(db_url, llm, sessions):
    """The pass of a thread the user deletes meanwhile (here after /fork, from the fork) writes
    nothing: the fork, which still holds the turn, folds it, once."""
    s = await sessions.open(settings(db_url, llm, interactive=True), memory_user="kim")
    worker = s.memory_passes.worker
    await s.open("src")
    answer = threading.Event()
    llm.push({"for": "memory", "hold": answer, "text": "- [1] 사용자는 채식주의자이다"})
    await run_turn(s, "나는 채식주의자야")
    await memory_request_sent(llm, 0)
    fork = (await s.fork()).thread_id
    await s.open(fork)
    await s.threads.delete("src")
    answer.set()
    assert await worker.drain(30)
    assert await s.store.memory_list("kim") == []  # nothing for a thread that is gone
    assert fork in await s.store.memory_pending("kim")  # the turn is the fork's to fold now
    await run_turn(s, "나는 부산에 살아")
    assert await worker.drain(30)
    got = sorted((b.text, b.thread_id) for b in await s.store.memory_list("kim"))
    assert [tid for _, tid in got] == [fork] * len(got)
    assert len([t for t, _ in got if "채식" in t]) == 1 and any("부산" in t for t, _ in got)


async def test_deleting_a_fork_leaves_its_sources_memory(db_url, llm, sessions):
    s = await sessions.open(settings(db_url, llm), memory_user="kim")
    await s.open("src")
    await run_turn(s, "나는 채식주의자야")
    await s.end()
    before = await s.store.memory_list("kim")
    fork = await fork_thread(s.store, "src", owner=s.threads.user)
    await s.threads.delete(fork)
    assert await s.store.memory_list("kim") == before


async def test_a_fork_while_a_background_summary_is_pending_gets_it_whole_or_not_at_all(db_url, llm, sessions):
    """At a terminal the summary is made in the background after the answer and applied at the next
    turn's start: a fork taken in between holds the stored context (no pair half applied), takes the
    finished summary along when it holds the same context, and the original makes its own later."""
    s = await sessions.open(settings(db_url, llm, interactive=True), tools=[search_tool()])
    await s.open("src")
    for text in TEXTS[2:6]:
        await run_turn(s, text)
    pending = s.summaries.pending
    assert pending is not None and pending.thread_id == "src"
    stored = await s.threads.state()
    later = (await s.fork(2)).thread_id  # an earlier turn: not the context the summary was made for
    fork = (await s.fork()).thread_id
    assert s.summaries.pending is pending and pending.thread_id == fork
    await s.open(fork)
    assert [m.id for m in await s.threads.state()] == [m.id for m in stored]  # as stored: no pair in it
    await asyncio.wait([pending.task])  # the sign: the summary is ready
    made = len(llm.summary_requests())
    [sent] = await play(s, llm, ["포크에서 묻기"])
    assert users(sent) == ["지금까지의 대화를 요약해 주세요.", TEXTS[4], TEXTS[5], "포크에서 묻기"]
    assert len(llm.summary_requests()) == made  # made once, for the context both held
    await s.open(later)
    [early] = await play(s, llm, ["이른 포크에서"])
    assert users(early) == [TEXTS[2], TEXTS[3], "이른 포크에서"]
    await s.open("src")
    assert not any(m.additional_kwargs.get("synthetic") for m in await s.threads.state())  # the original untouched


async def test_fork_refusals(db_url, llm, sessions):
    s = await sessions.open(settings(db_url, llm))
    await s.open("src")
    await run_turn(s, "첫 질문")
    for kwargs, key in (({"at": 2}, "fork_bad_turn"), ({"at": 0}, "fork_bad_turn"), ({"new_id": "src"}, "thread_exists"),
                        ({"new_id": "bad id"}, "bad_thread_id")):
        with pytest.raises(StoreError) as e:
            await fork_thread(s.store, "src", owner=s.threads.user, **kwargs)
        assert e.value.key == key, kwargs
    with pytest.raises(StoreError) as e:
        await fork_thread(s.store, "missing", owner=s.threads.user)
    assert e.value.key == "no_thread"
    assert await fork_thread(s.store, "src", owner=s.threads.user, new_id="named") == "named"
    assert [th.thread_id for th in await s.threads.list()].count("named") == 1
