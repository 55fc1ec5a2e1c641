"""The bundled search server without Naver credentials (issue 14): said once at start, and the
model is offered no tool that could only fail (so a small model cannot loop on it)."""

from __future__ import annotations

import pytest

NOTICE = "NAVER_CLIENT_ID/NAVER_CLIENT_SECRET이 설정되지 않아"


pytestmark = pytest.mark.bundled_search  # the default server sees the keys (or their absence)


@pytest.mark.parametrize("unset", [("NAVER_CLIENT_ID", "NAVER_CLIENT_SECRET"), ("NAVER_CLIENT_SECRET",)])
def test_no_naver_keys_no_search_tools_and_one_notice(cli, llm, naver, unset):
    env = {name: None for name in unset}
    r = cli("--new", "--no-memory", input="서울 맛집 검색해줘\n/servers\n/tools\n둘째\n", env=env)
    assert r.code == 0, r.err
    out = r.out + r.err
    assert out.count(NOTICE) == 1
    assert "Traceback" not in out and "연결하지 못했습니다" not in out
    assert len(llm.requests) == 2
    assert all(not q.get("tools") for q in llm.requests)  # nothing offered that can only fail
    assert "답변 1: 서울 맛집 검색해줘" in r.out
    assert "꺼짐 (NAVER_CLIENT_ID/NAVER_CLIENT_SECRET 없음)" in out  # /servers says why
    assert naver.requests == []


def test_no_naver_keys_in_english(cli, llm):
    r = cli("--new", "--no-memory", "--lang", "en", input="hi\n",
             env={"NAVER_CLIENT_ID": None, "NAVER_CLIENT_SECRET": None})
    assert r.code == 0, r.err
    assert (r.out + r.err).count("NAVER_CLIENT_ID/NAVER_CLIENT_SECRET are not set") == 1


def test_with_naver_keys_the_tools_are_offered(cli, llm):
    r = cli("--new", "--no-memory", input="안녕\n")
    assert r.code == 0, r.err
    assert NOTICE not in r.out + r.err
    assert {t["function"]["name"] for t in llm.requests[0]["tools"]} == {"web_search", "news_search", "blog_search"}
