"""Keys never reach the database, exports, logs, debug output or error text."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import TEST_KEY


def test_no_secret_in_any_file_or_output(chat, llm, naver, tmp_path):
    naver.client_secret = "naver-secret-XYZ-987"
    naver.client_id = "naver-id-ABC-123"
    env = {"NAVER_CLIENT_ID": naver.client_id, "NAVER_CLIENT_SECRET": naver.client_secret}
    outputs = []
    r = chat("--thread", "sec", "--debug", input="서울 검색\n/export out.md\n/export out.json\n", env=env)
    outputs += [r.out, r.err]
    llm.push({"status": 500, "body": {"error": {"message": f"echo {TEST_KEY}"}}})  # a provider echoing the key
    llm.push({"status": 500, "body": {"error": {"message": f"echo {TEST_KEY}"}}})
    llm.push({"status": 500, "body": {"error": {"message": f"echo {TEST_KEY}"}}})
    r = chat("--thread", "sec", "--debug", input="또\n", env=env)
    outputs += [r.out, r.err]
    for sub in (("export", "sec"), ("export", "sec", "--format", "json"), ("threads",)):
        res = chat.sub(*sub)
        outputs += [res.out, res.err]
    secrets = [TEST_KEY, naver.client_secret, naver.client_id]
    for text in outputs:
        for s in secrets:
            assert s not in text
    produced = [p for p in Path(chat.tmp).rglob("*") if p.is_file()]
    assert any(p.name == "out.json" for p in produced)
    for p in produced:
        blob = p.read_bytes()
        for s in secrets:
            assert s.encode() not in blob, p
    assert naver.requests and naver.requests[0]["headers"]["x-naver-client-secret"] == naver.client_secret
