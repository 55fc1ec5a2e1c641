"""Tools that ask before they act, against the real `@modelcontextprotocol/server-filesystem`.

Pinned in scripts/everything/package-lock.json next to server-everything. The stub model asks
for the calls; assertions are on the disk and on what the model endpoint received next.
Piped runs have no terminal: a call that is not known safe is denied unless --yes. The command
line in this process (tests/cli.py); the server is a real node process.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.e2e.test_mcp_everything import call_line, everything_js, tool_results, write_config  # noqa: F401

pytestmark = pytest.mark.sqlite_only  # permission behaviour does not depend on the storage backend
DENIED = "The user did not allow this tool call"


def fs_entry(everything_js: str, root: Path, **extra: object) -> dict:
    js = Path(everything_js).parents[2] / "server-filesystem" / "dist" / "index.js"
    assert js.is_file(), js
    return {"command": "node", "args": [str(js), str(root)], **extra}


@pytest.fixture
def files(tmp_path: Path) -> Path:
    root = (tmp_path / "files").resolve()
    root.mkdir()
    (root / "notes.txt").write_text("kept-notes-123", encoding="utf-8")
    return root


def run(cli, config: str, lines: list[str], *args: str, env: dict | None = None):
    r = cli("--new", "--mcp-config", config, "--context", "none", "--no-memory", *args,
             input="\n".join(lines) + "\n", env={"XDG_CONFIG_HOME": str(cli.tmp / "cfg"), **(env or {})})
    assert r.code == 0, r.err
    assert "Traceback" not in r.out + r.err
    return r


def exported(cli, r) -> dict:
    both = r.out + "\n" + r.err  # the session-id line may go to either stream
    tid = next(ln.split(":", 1)[1].strip() for ln in both.splitlines() if "세션 ID:" in ln)
    r = cli.sub("export", tid, "--format", "json")
    assert r.code == 0, r.err
    return json.loads(r.out)


def permissions_of(doc: dict) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for m in doc["messages"]:
        if m["role"] == "tool":
            out.setdefault(m["name"], []).append(m.get("permission", ""))
    return out


def test_piped_without_yes_denies_writes_but_runs_read_only_and_always_allow(cli, llm, everything_js, files, tmp_path):
    config = write_config(tmp_path, {"fs": fs_entry(everything_js, files, alwaysAllow=["create_directory"])})
    target = files / "out.txt"
    lines = [call_line("write_file", {"path": str(target), "content": "written"}),
             call_line("read_text_file", {"path": str(files / "notes.txt")}),
             call_line("create_directory", {"path": str(files / "made")}),
             "/permissions"]
    r = run(cli, config, lines)
    assert not target.exists()  # denied: never reached the server
    assert (files / "made").is_dir()  # alwaysAllow: ran without a question
    results = tool_results(llm.chat_requests())
    assert len(results["write_file"]) == 1 and results["write_file"][0].startswith(DENIED)
    assert "write_file on MCP server fs" in results["write_file"][0]
    assert "kept-notes-123" in results["read_text_file"][0]  # readOnlyHint: ran without a question
    assert DENIED not in results["create_directory"][0]
    both = r.out + r.err  # notices may go to either stream
    assert "fs/write_file 호출은 허용이 필요한데 물어볼 터미널이 없어 실행하지 않았습니다" in both
    assert "[도구 오류]: 사용자가 허용하지 않아 실행하지 않았습니다" in both
    assert "설정의 alwaysAllow [fs]: create_directory" in both
    assert "읽기 전용 도구(readOnlyHint) [fs]: " in both and "read_text_file" in both
    # the denial and the approvals are in the transcript and its exports
    doc = exported(cli, r)
    assert permissions_of(doc) == {"write_file": ["deny:no_terminal"], "read_text_file": ["allow:read_only"],
                                   "create_directory": ["allow:always_allow"]}
    md = cli.sub("export", doc["thread_id"]).out
    assert "**permission** `write_file`: 거부 (물어볼 터미널 없음)" in md
    assert "**permission** `create_directory`: 허용 (설정의 alwaysAllow)" in md
    assert "**permission** `read_text_file`: 허용 (읽기 전용 도구)" in md


def test_the_models_denial_text_does_not_depend_on_the_ui_language(cli, llm, everything_js, files, tmp_path):
    config = write_config(tmp_path, {"fs": fs_entry(everything_js, files)})
    line = call_line("write_file", {"path": str(files / "x.txt"), "content": "x"})
    texts = []
    for lang in ("ko", "en"):
        llm.clear()
        r = run(cli, config, [line], "--lang", lang)
        texts.append(tool_results(llm.chat_requests())["write_file"][0])
        if lang == "en":
            assert "Did not run fs/write_file: it needs approval and there is no terminal to ask" in r.out + r.err
    assert texts[0] == texts[1] and texts[0].startswith(DENIED)
    assert not (files / "x.txt").exists()


@pytest.mark.parametrize("how", ["--yes", "MCP_CHAT_YES"])
def test_yes_approves_everything(cli, llm, everything_js, files, tmp_path, how):
    config = write_config(tmp_path, {"fs": fs_entry(everything_js, files)})
    target = files / "out.txt"
    args, env = (["--yes"], {}) if how == "--yes" else ([], {"MCP_CHAT_YES": "1"})
    r = run(cli, config, [call_line("write_file", {"path": str(target), "content": "written-by-yes"})], *args, env=env)
    assert target.read_text(encoding="utf-8") == "written-by-yes"
    result = tool_results(llm.chat_requests())["write_file"][0]
    assert DENIED not in result and "Successfully wrote" in result
    assert permissions_of(exported(cli, r)) == {"write_file": ["allow:yes"]}


def test_bad_yes_variable_is_a_config_error(cli, llm):
    r = cli("--new", input="안녕\n", env={"MCP_CHAT_YES": "maybe"})
    assert r.code == 2 and "MCP_CHAT_YES" in r.err and "Traceback" not in r.err


@pytest.mark.timeout(300)  # five client runs
def tool_digest(entry: dict, tool: str) -> dict:
    """The print an "always" answer saves for `tool` as the server lists it now (client/core/toolprint.py)."""
    import asyncio

    from client.core.toolprint import tool_print
    from client.engine.mcp.hub import ToolHub
    from client.engine.mcp.hub import tool_definition
    from client.engine.mcp.specs import ServerSpec

    async def listed() -> dict:
        hub = ToolHub([ServerSpec("fs", "stdio", command=entry["command"], args=entry["args"])])
        await hub.fleet.connect()
        try:
            [found] = [t for t in hub.fleet.servers[0].tools if t.name == tool]
            return tool_print(tool_definition(found)).as_dict()
        finally:
            await hub.fleet.aclose()

    return asyncio.run(listed())


def test_saved_always_applies_without_a_terminal_unless_others_could_write_it(cli, llm, everything_js, files, tmp_path):
    entry = fs_entry(everything_js, files)
    config = write_config(tmp_path, {"fs": entry})
    saved = tmp_path / "cfg" / "mcp-chat" / "permissions-alice.json"
    saved.parent.mkdir(parents=True)
    where = " ".join([entry["command"], *entry["args"]])
    saved.write_text(json.dumps({"version": 2, "allow": [{"server": "fs", "where": where, "tool": "write_file",
                                                          "tool_digest": tool_digest(entry, "write_file")}]}))
    os.chmod(saved, 0o666)  # others could have written it: not trusted
    target = files / "saved.txt"
    line = call_line("write_file", {"path": str(target), "content": "saved-approval"})
    run(cli, config, [line], "--user", "alice")
    assert not target.exists()
    os.chmod(saved, 0o600)
    llm.clear()
    r = run(cli, config, [line, "/permissions"], "--user", "alice")
    assert target.read_text(encoding="utf-8") == "saved-approval"
    assert f"항상 허용 (저장됨, {saved}): fs/write_file" in r.out + r.err
    assert permissions_of(exported(cli, r)) == {"write_file": ["allow:saved"]}
    # another user's approvals are not this user's; /permissions reset forgets them
    llm.clear()
    run(cli, config, [line.replace("saved.txt", "bob.txt")], "--user", "bob")
    assert not (files / "bob.txt").exists()
    r = run(cli, config, ["/permissions reset"], "--user", "alice")
    assert "도구 허용을 초기화했습니다: 세션 0개, 저장된 1개." in r.out + r.err
    assert json.loads(saved.read_text())["allow"] == []
