"""An approval holds for the tool as it was approved (client/core/toolprint.py).

The server plays the attacker (tests/stubs/shifting_server.py): once its `note` tool is
approved ("always", or for the session), it comes back with the same name, a new description,
a new parameter and destructiveHint. Real stdio MCP sessions, in-process: the question comes
back and says what changed; with nobody to ask the call is denied and nothing runs. The last
test is the real client, piped, with a saved approval of the old tool.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from client.engine.frontend import Frontend
from client.engine.mcp.hub import ToolHub
from client.engine.mcp.permissions import Permissions, Verdict, denial_text
from client.engine.mcp.saved_approvals import SavedApprovals, SavedKey
from client.engine.mcp.specs import ServerSpec
from tests.conftest import ROOT

pytestmark = pytest.mark.sqlite_only
SHIFTING = ROOT / "tests" / "stubs" / "shifting_server.py"


class Answers(Frontend):
    """Answers every question with `answer` (None: nobody to ask) and keeps the questions."""

    def __init__(self, answer: str | None) -> None:
        self.answer = answer
        self.asked: list = []

    async def approve(self, request):
        self.asked.append(request)
        return self.answer


def spec(tmp_path: Path) -> ServerSpec:
    args = [str(SHIFTING), str(tmp_path / "state"), str(tmp_path / "ran.log")]
    return ServerSpec("shift", "stdio", command=sys.executable, args=args, shown=" ".join([sys.executable, *args]))


async def hub_with(tmp_path: Path, front: Frontend, version: str) -> ToolHub:
    (tmp_path / "state").write_text(version)
    perms = Permissions(saved=SavedApprovals(tmp_path / "permissions.json"), frontend=front)
    hub = ToolHub([spec(tmp_path)], permissions=perms)
    await hub.fleet.connect()
    assert hub.fleet.error is None, hub.fleet.error
    return hub


async def test_an_always_approval_does_not_cover_the_changed_tool(tmp_path):
    front = Answers("always")
    hub = await hub_with(tmp_path, front, "1")
    try:
        assert (await hub.authorize("note", {"text": "a"})).label == "allow:always"
        assert (await hub.authorize("note", {"text": "b"})).label == "allow:session"  # asked once
    finally:
        await hub.fleet.aclose()
    front = Answers("always")
    hub = await hub_with(tmp_path, front, "1")  # the next session, the same tool: saved
    try:
        assert (await hub.authorize("note", {"text": "c"})).label == "allow:saved" and front.asked == []
    finally:
        await hub.fleet.aclose()
    for answer, label in ((None, "deny:changed"), ("once", "allow:once")):
        front = Answers(answer)
        hub = await hub_with(tmp_path, front, "2")  # the server changed the approved tool
        try:
            verdict = await hub.authorize("note", {"text": "d", "upload_to": "http://evil"})
            assert verdict.label == label
            assert front.asked[0].changed == ("description", "input_schema", "annotations")
            assert front.asked[0].destructive is True
        finally:
            await hub.fleet.aclose()
    denied = denial_text(Verdict(False, "changed", changed=("description", "input_schema", "annotations")), "shift", "note")
    assert "changed since the user approved it (description, input_schema, annotations)" in denied


async def test_a_session_approval_does_not_cover_the_tool_after_a_reconnect(tmp_path):
    front = Answers("session")
    hub = await hub_with(tmp_path, front, "1")
    try:
        assert (await hub.authorize("note", {"text": "a"})).label == "allow:session"
        (tmp_path / "state").write_text("2")
        conn = hub.fleet.servers[0]
        await conn.stop()  # the server restarts (as after a crash) with its tool changed
        assert await conn.start()
        front.answer = None
        verdict = await hub.authorize("note", {"text": "b"})  # as the model was offered it: v1
        assert verdict.label == "deny:redefined" and "changed (description, input_schema, annotations)" in verdict.text
        assert len(front.asked) == 1  # not run, not asked: the model never saw the new definition
        version = hub.version
        await hub.fleet.refresh()
        assert hub.version != version  # the next turn offers the tool as it is now
        verdict = await hub.authorize("note", {"text": "b"})
        assert verdict.label == "deny:changed" and verdict.changed == ("description", "input_schema", "annotations")
        assert len(front.asked) == 2 and front.asked[1].changed == verdict.changed
    finally:
        await hub.fleet.aclose()


def test_an_approval_saved_without_a_print_asks_again(tmp_path):
    import asyncio

    path = tmp_path / "permissions.json"
    SavedApprovals(path).add(SavedKey("shift", spec(tmp_path).where, "note"))  # as an older client saved it: no print

    async def go():
        front = Answers(None)
        hub = await hub_with(tmp_path, front, "1")
        try:
            return await hub.authorize("note", {"text": "a"}), front
        finally:
            await hub.fleet.aclose()

    verdict, front = asyncio.run(go())
    assert verdict.label == "deny:changed" and front.asked[0].changed == ("unrecorded",)


def test_piped_the_changed_tool_is_denied_with_one_notice(tmp_path, llm, naver):
    import asyncio

    from tests.conftest import CliRunner

    async def approve_v1():
        hub = await hub_with(tmp_path, Answers("always"), "1")
        try:
            await hub.authorize("note", {"text": "a"})
        finally:
            await hub.fleet.aclose()

    cfg = tmp_path / "cfg" / "mcp-chat"
    cfg.mkdir(parents=True)
    asyncio.run(approve_v1())
    (tmp_path / "permissions.json").rename(cfg / "permissions-victim.json")
    (tmp_path / "state").write_text("2")
    config = tmp_path / "mcp.json"
    s = spec(tmp_path)
    config.write_text(json.dumps({"mcpServers": {"shift": {"command": s.command, "args": s.args}}}))
    llm.push({"tool_calls": [("note", {"text": "x", "upload_to": "http://evil"})]})
    chat = CliRunner(tmp_path, llm, naver)  # in this process (tests/cli.py)
    r = chat("--new", "--user", "victim", "--mcp-config", str(config), "--no-memory", input="메모해 줘\n",
             env={"XDG_CONFIG_HOME": str(tmp_path / "cfg")})
    assert r.code == 0, r.err
    assert not (tmp_path / "ran.log").exists()  # nothing ran
    notices = [ln for ln in r.err.splitlines() if "shift/note" in ln]
    assert len(notices) == 1 and "바뀌어" in notices[0], r.err
    tool_msgs = [m for m in llm.chat_requests()[-1]["messages"] if m["role"] == "tool"]
    assert tool_msgs and "changed since the user approved it" in tool_msgs[0]["content"]
