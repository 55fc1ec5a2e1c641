"""`/model` mid-thread: every later request on the wire names the new model and fits its window.

One real `mcp-chat` (piped, --yes) against the recording stub and server-everything over stdio.
After `/model HCX-003` (an 8,192-token window, 1,024 reserved for output, so a 7,168-token
request budget instead of HCX-005's 123,904) the session makes every kind of request it has:
chat turns, a rolling summary, a tool whose server asks for sampling, /compact, and the memory
extraction (`--memory-source both`: the model's items; /memory waits for the passes under way, so
the extraction is on the wire before exit). Each is read from the stub's log; none may still name
HCX-005 or be sized for it. The first message is a question: no memory pass starts before the switch.
"""

from __future__ import annotations

import pytest

from tests.e2e.test_mcp_everything import call_line, everything_js, write_config  # noqa: F401
from tests.stubs.llm_stub import _content_text

pytestmark = pytest.mark.sqlite_only  # the model, not the storage

OLD, NEW = "HCX-005", "HCX-003"
NEW_OUTPUT, NEW_BUDGET = 1_024, 8_192 - 1_024  # client/engine/providers.py CLOVA_WINDOWS
SAMPLE = "sample-after-switch-31"


def _system(req: dict) -> str:
    msgs = req.get("messages") or [{}]
    return _content_text(msgs[0].get("content")) if msgs[0].get("role") == "system" else ""


def _kind(req: dict) -> str:
    if req.get("tools"):
        return "chat"
    if "장기 기억" in _system(req):
        return "memory"
    if "요약" in _system(req):
        return "summary"
    if SAMPLE in str(req.get("messages")):  # the server's own request (its system prompt is its own)
        return "sampling"
    return "other"


def _max_tokens(req: dict) -> int:
    return int(req.get("max_tokens") or req.get("max_completion_tokens") or 0)


def test_after_model_every_request_names_the_new_model_and_fits_its_window(cli, llm, everything_js, tmp_path):
    llm.models = [OLD, NEW]
    config = write_config(tmp_path, {"everything": {"command": "node", "args": [everything_js, "stdio"],
                                                    "alwaysAllow": ["*"]}})
    lines = [
        "첫 질문인가요?",  # states nothing about the user: no memory pass races the switch
        f"/model {NEW}",
        "/context",
        "둘째 질문입니다",
        "셋째 질문입니다",
        "넷째 질문입니다",  # three turns held verbatim > --summary-after 2: a summary first
        call_line("trigger-sampling-request", {"prompt": SAMPLE, "maxTokens": 3_000}),
        "/compact",
        "/memory",  # waits for the memory passes of the statements above: their extraction requests
    ]
    r = cli("--new", "--yes", "--mcp-config", config, "--context", "summarize", "--summary-after", "2",
             "--max-turns", "1", "--user", "switcher",
             "--memory-source", "both", input="\n".join(lines) + "\n", timeout=120)
    assert r.code == 0, r.err
    assert f"max_input_tokens={NEW_BUDGET}" in r.out + r.err  # /context after the switch

    first, *later = llm.requests
    assert _kind(first) == "chat" and first["model"] == OLD  # the switch is what changed it
    kinds = [_kind(q) for q in later]
    for kind in ("chat", "summary", "sampling", "memory"):
        assert kind in kinds, (kind, kinds)
    assert kinds.count("summary") >= 2, kinds  # the rolling one and /compact's
    for q, kind in zip(later, kinds):
        assert q["model"] == NEW, (kind, q["model"])
        assert 0 < _max_tokens(q) <= NEW_OUTPUT, (kind, _max_tokens(q))
    assert all(_max_tokens(q) == NEW_OUTPUT for q, k in zip(later, kinds) if k in ("chat", "memory"))
    sampled = [q for q, k in zip(later, kinds) if k == "sampling"]
    assert len(sampled) == 1 and _max_tokens(sampled[0]) == NEW_OUTPUT  # asked 3,000: capped by the new model
