"""Provider faults against the recording stub: retries, key errors, context errors, cut streams.
The command line in this process (tests/cli.py)."""

from __future__ import annotations

import socket

from tests.conftest import TEST_KEY, user_texts


def test_429_with_retry_after_is_retried_visibly(cli, llm):
    # 3 s: longer than the client's own first back-off (0.5-1 s), so only honouring it explains the gap
    llm.push({"status": 429, "body": {"error": {"message": "rate limited"}}, "headers": {"Retry-After": "3"}})
    r = cli("--new", input="안녕\n", env={"MCP_CHAT_TEST_BACKOFF_SCALE": None})  # the real wait
    assert r.code == 0, r.err
    assert "다시 시도합니다" in r.out + r.err
    assert len(llm.chat_requests()) == 2
    assert "답변 2: 안녕" in r.out
    assert "3.0초 후 다시 시도합니다" in r.out + r.err
    gap = llm.arrivals[1] - llm.arrivals[0]
    assert gap >= 3.0, gap  # the retry waited as long as the server asked


def test_5xx_three_times_gives_one_line_and_the_session_goes_on(cli, llm):
    for _ in range(3):
        llm.push({"status": 503, "body": {"error": {"message": "overloaded"}}})
    r = cli("--thread", "s5", input="첫째\n둘째\n")
    assert r.code == 0, r.err
    errors = [ln for ln in (r.out + r.err).splitlines() if "오류가 발생했습니다" in ln]
    assert len(errors) == 1 and "503" in errors[0]
    assert "Traceback" not in r.err
    assert user_texts(llm.chat_requests()[-1]) == ["첫째", "둘째"]  # the failed turn's message stays, no answer


def test_connection_error_is_retried_then_reported(cli, llm):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nothing listens here
    r = cli("--new", input="안녕\n종료\n", env={"CLOVA_STUDIO_BASE_URL": f"http://127.0.0.1:{port}/v1"})
    assert r.code == 0
    assert (r.out + r.err).count("다시 시도합니다") == 2
    assert "connection error" in r.out + r.err


def test_rejected_key_exits_2_at_start_without_retry(cli, llm):
    llm.require_key = "the-right-key"
    r = cli("--new", input="안녕\n")
    assert r.code == 2
    assert "API 키" in r.err and len(r.err.strip().splitlines()) == 1
    assert TEST_KEY not in r.err + r.out
    assert llm.chat_requests() == []


def test_key_rejected_mid_session_exits_2(cli, llm):
    llm.push({"text": "첫 답"}, {"status": 401, "body": {"error": {"message": "expired"}}})
    r = cli("--new", input="하나\n둘\n셋\n")
    assert r.code == 2
    assert len(llm.chat_requests()) == 2  # no retry after 401
    assert [ln for ln in r.err.splitlines() if "키를 거부" in ln] == [
        "CLOVA Studio가 API 키를 거부했습니다 (HTTP 401). CLOVA_STUDIO_API_KEY를 확인하세요."]
    assert r.err.rstrip().endswith("CLOVA_STUDIO_API_KEY를 확인하세요.")  # the last word: the session ended there
    assert "Traceback" not in r.err and TEST_KEY not in r.out + r.err
    assert "답변" not in r.out.split("첫 답", 1)[1]  # nothing was answered after the rejection


def test_context_length_error_retries_once_with_less_history(cli, llm):
    r = cli("--thread", "ctx", "--context", "none", input="하나\n둘\n셋\n")
    llm.clear()
    llm.push({"status": 400, "body": {"status": {"code": "40003", "message": "Input token limit exceeded"},
                                       "error": {"code": "40003", "message": "context length exceeded"}}})
    r = cli("--thread", "ctx", "--context", "none", "--max-input-tokens", "3000", input="넷\n")
    assert r.code == 0, r.err
    first, second = llm.chat_requests()
    assert len(second["messages"]) < len(first["messages"])
    assert user_texts(second)[-1] == "넷"


def test_cut_stream_is_never_kept_as_complete(cli, llm):
    for _ in range(3):
        llm.push({"text": "이 답은 중간에 끊기는 긴 답입니다. " * 5, "cut": True})
    r = cli("--thread", "cut", input="질문\n다음\n")
    assert r.code == 0, r.err
    assert "incomplete response" in r.out + r.err
    doc = cli.sub("export", "cut").out
    assert "끊기는" not in doc and "질문" in doc  # the cut answer is gone, the user's message stays
    assert user_texts(llm.chat_requests()[-1]) == ["질문", "다음"]


def test_cut_stream_then_success_keeps_only_the_full_answer(cli, llm):
    llm.push({"text": "잘린 답 " * 10, "cut": True})
    r = cli("--thread", "cut2", input="질문\n")
    assert r.code == 0, r.err
    doc = cli.sub("export", "cut2").out
    assert "잘린 답" not in doc and "답변 2: 질문" in doc


def test_request_timeout_never_hangs(cli, llm):
    for _ in range(3):
        llm.push({"stall": 5, "text": "늦은 답"})
    r = cli("--new", "--timeout", "1", input="안녕\n", timeout=60)
    assert r.code == 0
    assert "timeout" in r.out + r.err
