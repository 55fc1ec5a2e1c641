"""The permission policy (pure), the approval state around it, saved approvals, config parsing."""

from __future__ import annotations

import asyncio
import json
import os
import stat

import pytest
from langchain_core.messages import ToolMessage

from client.core.config import ConfigError
from client.engine.frontend import Frontend
from client.engine.mcp.permissions import (CallInfo, Permissions, PolicyState, ToolKey, Verdict, decide, denial_text,
                                           is_read_only)
from client.core.toolprint import PARTS, changed_parts, tool_print
from client.engine.mcp.saved_approvals import SavedApprovals, SavedKey, approvals_path
from client.engine.mcp.specs import parse_entry
from client.engine.store.codec import decode, encode
from client.ui.env_settings import dirs

WRITE = CallInfo(ToolKey("fs", "write_file"), "node fs.js /tmp")


class Asks(Frontend):
    """A frontend whose approval question is `answer(request)` (the test's own object)."""

    def __init__(self, answer):
        self.answer = answer

    async def approve(self, request):
        return await self.answer(request)


CHANGED = CallInfo(WRITE.key, WRITE.where, fingerprint=tool_print({"description": "Writes, then uploads."}))


@pytest.mark.parametrize("call,state,expected", [
    (WRITE, PolicyState(), None),
    (CallInfo(WRITE.key, WRITE.where, read_only=True), PolicyState(), "read_only"),
    (CallInfo(WRITE.key, WRITE.where, always_allow=frozenset({"write_file"})), PolicyState(), "always_allow"),
    (CallInfo(WRITE.key, WRITE.where, always_allow=frozenset({"*"})), PolicyState(), "always_allow"),
    (CallInfo(WRITE.key, WRITE.where, always_allow=frozenset({"read_file"})), PolicyState(), None),
    (WRITE, PolicyState(session={WRITE.key: WRITE.fingerprint}), "session"),
    (WRITE, PolicyState(session={ToolKey("other", "write_file"): WRITE.fingerprint}), None),
    (CHANGED, PolicyState(session={WRITE.key: WRITE.fingerprint}), None),  # the tool changed since
    (WRITE, PolicyState(saved={WRITE.saved_key: WRITE.fingerprint}), "saved"),
    (CHANGED, PolicyState(saved={WRITE.saved_key: WRITE.fingerprint}), None),
    (WRITE, PolicyState(saved={WRITE.saved_key: None}), None),  # saved by an older client: what was approved is unknown
    (WRITE, PolicyState(saved={SavedKey("fs", "node evil.js", "write_file"): WRITE.fingerprint}), None),  # other server
    (WRITE, PolicyState(yes=True), "yes"),
])
def test_decide(call, state, expected):
    verdict = decide(call, state)
    assert (verdict.reason if verdict else None) == expected
    assert verdict is None or verdict.allowed


def test_the_print_changes_with_each_part_and_not_with_key_order():
    base = {"description": "Writes.", "input_schema": {"type": "object", "properties": {"a": {"type": "string"}}},
            "annotations": {"destructiveHint": False}}
    p = tool_print(base)
    assert tool_print({**base, "input_schema": {"properties": {"a": {"type": "string"}}, "type": "object"}}) == p
    assert changed_parts(p, p) == ()
    for part, value in [("description", "Writes, then uploads."), ("title", "Uploader"),
                        ("input_schema", {"type": "object", "properties": {"a": {}, "url": {}}}),
                        ("annotations", {"destructiveHint": True})]:
        changed = changed_parts(tool_print({**base, part: value}), p)
        assert changed == ({"title": "description"}.get(part, part),), part
    assert changed_parts(p, None) == ("unrecorded",)
    assert set(PARTS) == {"description", "input_schema", "annotations"}


def test_saved_approvals_keep_the_print(tmp_path):
    saved = SavedApprovals(tmp_path / "p.json")
    assert saved.add(WRITE.saved_key, CHANGED.fingerprint) is None
    assert saved.approved() == {WRITE.saved_key: CHANGED.fingerprint}
    doc = json.loads((tmp_path / "p.json").read_text())
    doc["allow"][0]["tool_digest"]["annotations"] = 5  # malformed: matches nothing
    (tmp_path / "p.json").write_text(json.dumps(doc))
    assert SavedApprovals(tmp_path / "p.json").approved() == {WRITE.saved_key: None}


def test_denial_text_is_english_and_names_the_call():
    text = denial_text(Verdict(False, "user"), "fs", "write_file")
    assert text.startswith("The user did not allow this tool call (write_file on MCP server fs)")
    assert "no terminal" in denial_text(Verdict(False, "no_terminal"), "fs", "write_file")


async def test_no_approver_denies_and_answers_are_remembered(tmp_path):
    assert await Permissions().check(WRITE, {}) == Verdict(False, "no_terminal")  # the default frontend asks nobody
    asked: list = []

    async def approver(req):
        asked.append(req)
        await asyncio.sleep(0)  # let the other call queue behind this question
        return "session"

    front = Asks(approver)
    perms = Permissions(frontend=front)
    first, second = await asyncio.gather(perms.check(WRITE, {"path": "a"}), perms.check(WRITE, {"path": "b"}))
    assert len(asked) == 1  # one question; the session answer covered the parallel call
    assert (first.label, second.label) == ("allow:session", "allow:session")
    assert perms.reset() == (1, 0)
    front.answer = lambda req: _const("deny")
    assert (await perms.check(WRITE, {})).label == "deny:user"
    front.answer = lambda req: _const(None)  # the frontend has nobody to ask (a pipe)
    assert (await perms.check(WRITE, {})).label == "deny:no_terminal"


async def _const(v):
    return v


async def test_question_masks_secrets_and_a_failing_approver_denies():
    seen = []

    async def approver(req):
        seen.append(req)
        raise RuntimeError("terminal gone")

    perms = Permissions(frontend=Asks(approver), secrets=["sk-very-secret-1"])
    v = await perms.check(WRITE, {"token": "sk-very-secret-1", "h": "hdr-secret"}, True, lambda s: s.replace("hdr-secret", "***"))
    assert v.label == "deny:no_answer"
    assert "sk-very-secret" not in seen[0].args and "hdr-secret" not in seen[0].args
    assert seen[0].destructive is True and seen[0].tool == "write_file" and seen[0].server == "fs"


async def test_always_is_saved_privately_per_user_outside_the_working_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    monkeypatch.chdir(tmp_path)
    path = approvals_path(dirs().config, "alice/../x")  # the folders as the ui resolves them
    assert path.parent == tmp_path / "cfg" / "mcp-chat" and "/" not in path.name[len("permissions-"):]
    perms = Permissions(saved=SavedApprovals(path), frontend=Asks(lambda req: _const("always")))
    verdict = await perms.check(WRITE, {})
    assert verdict.label == "allow:always" and verdict.save_error == ""
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    later = Permissions(saved=SavedApprovals(path))  # a new session: still allowed, nobody asked
    assert (await later.check(WRITE, {})).label == "allow:saved"
    os.chmod(path, 0o620)  # group-writable: not trusted
    assert (await Permissions(saved=SavedApprovals(path)).check(WRITE, {})).label == "deny:no_terminal"
    os.chmod(path, 0o600)
    assert later.reset() == (0, 1)
    assert json.loads(path.read_text())["allow"] == []
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative/dir")  # never the working folder
    assert not str(approvals_path(dirs().config, "u")).startswith("relative")


async def test_an_always_that_cannot_be_saved_says_why_on_the_verdict(tmp_path):
    """Not a list for the UI to drain: the verdict carries it, and the gate makes it a notice of the turn."""
    (tmp_path / "file").write_text("")
    perms = Permissions(saved=SavedApprovals(tmp_path / "file" / "p.json"), frontend=Asks(lambda req: _const("always")))
    verdict = await perms.check(WRITE, {})
    assert verdict.allowed and verdict.reason == "always" and "p.json" in verdict.save_error
    assert (await perms.check(WRITE, {})).label == "allow:session"  # still approved for this session


def test_always_allow_in_the_config():
    spec = parse_entry("fs", {"command": "node", "alwaysAllow": ["read_file"], "autoApprove": ["list", "read_file"]}, "m.json")
    assert spec is not None and spec.always_allow == ["read_file", "list"]
    with pytest.raises(ConfigError):
        parse_entry("fs", {"command": "node", "alwaysAllow": "read_file"}, "m.json")


def test_the_decision_survives_the_transcript_codec():
    m = ToolMessage(content="x", tool_call_id="c1", name="write_file", status="error",
                    additional_kwargs={"permission": "deny:user"})
    back = decode(encode(m))
    assert back.additional_kwargs["permission"] == "deny:user" and back.status == "error"


def test_contradicting_hints_are_no_read_only_claim() -> None:
    assert is_read_only(True, None) and is_read_only(True, False)
    assert not is_read_only(True, True)  # readOnlyHint and destructiveHint together: asked
    assert not is_read_only(None, None) and not is_read_only(False, False)
