"""Keys never reach the database, exports, logs, debug output or error text.

The command line in this process (tests/cli.py), but for the first test: a process, for what
only a whole process prints (the interpreter's own messages at exit, whatever reaches its file
descriptors). On SQLite, but for the database test that runs on both backends."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.backends import contains, is_pg, query
from tests.conftest import TEST_KEY
from tests.e2e.test_mcp_everything import tool_results
from tests.server.helpers import server_env, start_http_server, stop_process


@pytest.mark.bundled_search  # the Naver credentials reach the bundled server through the client's env
def test_no_secret_in_any_file_or_output(chat, llm, naver, tmp_path):  # a process: all it prints
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


@pytest.mark.storage  # what reaches the database: both backends
def test_no_secret_in_the_database_on_either_backend(cli, llm, naver, tmp_path):
    """Every secret the client handles (model key, Naver id/secret, an MCP header token, the
    database password) stays out of the database's rows, the files and every output."""
    token = "hdr-token-QRS-654"
    naver.client_secret = "naver-secret-XYZ-987"
    naver.client_id = "naver-id-ABC-123"
    env = server_env(naver, MCP_SEARCH_TOKEN=token)
    with open(tmp_path / "server.log", "w") as log:
        proc, port = start_http_server(env, tmp_path, log)
    try:
        config = tmp_path / "mcp.json"
        config.write_text(json.dumps({"mcpServers": {"search": {
            "url": f"http://127.0.0.1:{port}/mcp", "headers": {"Authorization": "Bearer ${SEARCH_TOKEN}"}}}}))
        outputs = []
        r = cli("--thread", "sec2", "--debug", "--mcp-config", str(config), "--require-tools",
                 input="서울 검색\n/export out.json\n", env={"SEARCH_TOKEN": token})
        assert r.code == 0, r.err
        outputs += [r.out, r.err]
    finally:
        stop_process(proc)
    assert naver.requests, "the search server was not reached with the token"
    assert "서울" in [m for m in llm.chat_requests()[-1]["messages"] if m["role"] == "tool"][0]["content"]
    for sub in (("export", "sec2"), ("export", "sec2", "--format", "json"), ("threads",)):
        res = cli.sub(*sub)
        outputs += [res.out, res.err]
    secrets = [TEST_KEY, naver.client_secret, naver.client_id, token]
    if is_pg(cli.db):
        password = urlsplit(cli.db).password
        assert password
        secrets.append(password)
    assert contains(cli.db, "서울 검색")  # the probe finds what is stored...
    for s in secrets:
        assert not contains(cli.db, s), s  # ...and none of the secrets, in any table or column
        for text in outputs:
            assert s not in text
        for p in Path(cli.tmp).rglob("*"):
            if p.is_file() and p.name != "mcp.json" and p.name != "server.log":
                assert s.encode() not in p.read_bytes(), (s, p)


# -- secrets that arrive as data: a tool result, the user's own words, a model's echo ----------------
TOKEN = "hdr-token-QRS-654-abcdef"  # an MCP server's Authorization header (from ${SEARCH_TOKEN})
URL_KEY = "urlkey-LITERAL-4242-zzz"  # a credential written into an MCP server's URL
NAVER_SECRET = "naver-secret-XYZ-987-qq"
NOTES = str(Path(__file__).resolve().parents[1] / "stubs" / "notes_server.py")


def _all_files(tmp: Path, skip: tuple[str, ...]) -> list[Path]:
    return [p for p in tmp.rglob("*") if p.is_file() and p.name not in skip and "notes" not in p.parts]


def test_secrets_in_tool_results_user_text_and_echoes_are_masked_everywhere(cli, llm, search_server, tmp_path):
    """A filesystem-like server reads a keys file; the user pastes a key; the model echoes whole keys
    and pieces of them. Nothing of any known secret reaches a table of the database, a file, the
    screen (stdout, stderr, --debug), an export or `threads`; the model gets the tool result masked."""
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "keys.txt").write_text(f"CLOVA={TEST_KEY}\nNAVER={NAVER_SECRET}\nTOKEN={TOKEN}\nURL={URL_KEY}\n")
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {
        "notes": {"command": sys.executable, "args": [NOTES, str(folder)]},
        "search": {"url": f"{search_server.url}?api_key={URL_KEY}", "headers": {"Authorization": "Bearer ${SEARCH_TOKEN}"}},
    }}))
    pieces = [TEST_KEY[:20], TEST_KEY[-14:], TOKEN[3:17], NAVER_SECRET[:14], URL_KEY[2:15]]  # 12+ characters each
    llm.push({"tool_calls": [("read_note", {"name": "keys.txt"})]},
             {"text": f"키는 {TEST_KEY}, 앞부분 {TEST_KEY[:20]}, 토큰 조각 {TOKEN[3:17]}, 끝 {TEST_KEY[-14:]}"})
    lines = [f"제 키는 {TEST_KEY} 입니다. 읽어 주세요", f"다음 {NAVER_SECRET[:14]} 와 {URL_KEY}",
             "/export out.md", "/export out.json", "/servers", "/title 새 제목 " + TOKEN]
    r = cli("--thread", "hyg", "--debug", "--mcp-config", str(config), "--require-tools", input="\n".join(lines) + "\n",
             env={"SEARCH_TOKEN": TOKEN, "NAVER_CLIENT_SECRET": NAVER_SECRET, "XDG_CONFIG_HOME": str(tmp_path / "cfg")})
    assert r.code == 0, r.err
    [result] = tool_results(llm.chat_requests())["read_note"]
    assert result == "CLOVA=***\nNAVER=***\nTOKEN=***\nURL=***"  # the model never sees a key a tool read
    assert "api_key=***" in r.out and "Authorization=***" in r.out  # /servers
    assert "앞부분 ***" in r.out and "토큰 조각 ***" in r.out  # the echo, shown masked
    outputs = {"chat": r.out + r.err}
    for sub in (("export", "hyg"), ("export", "hy", "--format", "json"), ("threads",)):
        res = cli.sub(*sub)
        assert res.code == 0, res.err
        outputs[" ".join(sub)] = res.out + res.err
    assert "제 키는 *** 입니다" in outputs["export hyg"]  # the user's words kept, the key masked
    assert json.loads(outputs["export hy --format json"])["title"] == "새 제목 ***"
    assert contains(cli.db, "제 키는") and contains(cli.db, "keys.txt")  # the probe finds what is stored...
    secrets = [TEST_KEY, NAVER_SECRET, TOKEN, URL_KEY, *pieces]
    for s in secrets:
        assert not contains(cli.db, s), s  # ...and no secret or piece of one, in any table or column
        for name, text in outputs.items():
            assert s not in text, (s, name)
        for p in _all_files(Path(cli.tmp), ("mcp.json",)):
            assert s.encode() not in p.read_bytes(), (s, p)


def test_export_and_threads_mask_what_an_older_client_stored_raw(cli, llm, tmp_path):
    """Rows written before masking (or by another program) hold a key, a model's 26-character echo
    of one, an MCP header token and URL credential: export and threads mask them all, having
    read the user's MCP config (the chat is not running to tell them)."""
    literal = "cfg-literal-token-8080-xyz"
    url_secret = "query-secret-5151-abc"
    cfg = tmp_path / "cfg" / "mcp-chat"
    cfg.mkdir(parents=True)
    (cfg / "mcp.json").write_text(json.dumps({"mcpServers": {"remote": {
        "url": f"https://mcp.example/mcp?token={url_secret}", "headers": {"X-Api-Key": literal}}}}))
    r = cli("--thread", "old-client", "--no-memory", input="안녕\n")
    assert r.code == 0, r.err
    raw = json.dumps({"r": "assistant", "c": f"키 {TEST_KEY[:26]} 헤더 {literal} 주소 {url_secret}"}, ensure_ascii=False)
    query(cli.db, "UPDATE messages SET data=? WHERE thread_id=? AND turn=1 AND data LIKE ?", (raw, "old-client", '{"r":"assistant"%'))
    query(cli.db, "UPDATE threads SET title=? WHERE thread_id=?", (f"제목 {literal}", "old-client"))
    env = {"XDG_CONFIG_HOME": str(tmp_path / "cfg")}
    outs = [cli("export", "old-client", "--db", cli.db, db=False, env=env),
            cli("export", "old", "--format", "json", "--db", cli.db, db=False, env=env),
            cli("threads", "--db", cli.db, db=False, env=env)]
    assert all(o.code == 0 for o in outs), [o.err for o in outs]
    assert "키 *** 헤더 *** 주소 ***" in outs[0].out and "제목 ***" in outs[2].out
    for o in outs:
        for s in (TEST_KEY[:26], TEST_KEY[:12], literal, url_secret):
            assert s not in o.out + o.err, s


# -- the same key in disguise: invisible characters inside it, base64, hex --------------------------
def _looked_through(blob: bytes) -> str:
    """What a reader sees: the text with invisible characters (and their JSON escapes) gone."""
    import re

    from client.core.invisible import INVISIBLE_RE, visible_view

    text = blob.decode("utf-8", "ignore")
    text = re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: "" if INVISIBLE_RE.match(chr(int(m[1], 16))) else m[0], text)
    return visible_view(text)[0]


def test_a_disguised_key_is_masked_in_the_store_exports_the_model_path_and_the_screen(cli, llm, tmp_path):
    """A tool reads a file holding the key with zero-width spaces, with soft hyphens, and in
    base64 and hex; the model echoes it with zero-width spaces and tag characters; the user
    pastes it with a soft hyphen inside. None of it reaches the model (the tool result), a
    table, a file, the screen or an export, even with the invisible characters taken out."""
    import base64

    zw, shy = "\u200b".join(TEST_KEY), TEST_KEY[:10] + "\u00ad" + TEST_KEY[10:]
    tagged = "\U000e0020".join(TEST_KEY)
    b64 = base64.b64encode(f"user:{TEST_KEY}".encode()).decode()
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "keys.txt").write_text(f"A={zw}\nB={shy}\nBASIC={b64}\nHEX={TEST_KEY.encode().hex()}\n")
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"notes": {"command": sys.executable, "args": [NOTES, str(folder)]}}}))
    llm.push({"tool_calls": [("read_note", {"name": "keys.txt"})]}, {"text": f"키: {zw} / {tagged}"})
    lines = [f"제 키는 {shy} 입니다", "/export out.md", "/export out.json"]
    r = cli("--thread", "disguise", "--mcp-config", str(config), "--no-memory", "--debug", input="\n".join(lines) + "\n",
             env={"XDG_CONFIG_HOME": str(tmp_path / "cfg")})
    assert r.code == 0, r.err
    [result] = tool_results(llm.chat_requests())["read_note"]
    import re

    # masked before the model saw it; of base64 only the edge groups stay (the encoded "user:" and a few bytes)
    assert re.fullmatch(r"A=\*\*\*\nB=\*\*\*\nBASIC=[A-Za-z0-9+/]{0,11}\*\*\*[A-Za-z0-9+/=]{0,11}\nHEX=\*\*\*", result), result
    outputs = [r.out, r.err]
    for sub in (("export", "disguise"), ("export", "disguise", "--format", "json"), ("threads",)):
        res = cli.sub(*sub)
        assert res.code == 0, res.err
        outputs.append(res.out + res.err)
    assert "키: *** / ***" in outputs[2] and "제 키는 *** 입니다" in outputs[2]
    pieces = [TEST_KEY[i:i + 12] for i in range(len(TEST_KEY) - 11)]
    for form in (zw, shy, tagged, b64, TEST_KEY):
        assert not contains(cli.db, form), form
    seen = [("output", o.encode()) for o in outputs]
    seen += [(str(p), p.read_bytes()) for p in _all_files(Path(cli.tmp), ("mcp.json",))]
    for name, blob in seen:
        view = _looked_through(blob)
        assert not any(p in view for p in pieces), name
        assert b64[8:24] not in view, name
