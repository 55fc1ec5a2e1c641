"""Which tool calls may run without asking, and asking about the rest.

`decide()` is the policy, a pure function. `Permissions` holds what it reads (approvals for
this session, approvals saved for the user in saved_approvals.py, `--yes`) and, for a call
the policy does not clear, asks the frontend it was built with (client/engine/frontend.py;
the terminal question lives in client/ui/approve.py). When nobody can be asked the call is
denied. A session or saved approval holds only for the tool as it was approved
(client/core/toolprint.py): a changed description, input schema or annotations asks again, and
the question (or, with nobody to ask, the denial) says what changed. Nothing here prints or
translates; the model's denial text is English whatever `--lang` says.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Callable, Iterable, Literal, Mapping

from client.core.secrets import redact
from client.core.toolprint import ToolPrint, changed_parts
from client.engine.frontend import ApprovalRequest, Frontend
from client.engine.mcp.saved_approvals import SavedApprovals, SavedKey

Answer = Literal["once", "session", "always", "deny"]
ANSWERS: tuple[Answer, ...] = ("once", "session", "always", "deny")
ARGS_SHOWN = 2_000  # characters of the arguments a question shows


@dataclass(frozen=True)
class ToolKey:
    server: str
    tool: str  # the MCP tool name (as the server calls it)


@dataclass(frozen=True)
class CallInfo:
    """What the policy knows about one call."""

    key: ToolKey
    where: str = ""  # the server's command line or URL (no secrets): part of a saved approval
    read_only: bool = False  # the tool's readOnlyHint
    always_allow: frozenset[str] = frozenset()  # the server's "alwaysAllow" list
    fingerprint: ToolPrint = ToolPrint()  # the tool as it is now (client/core/toolprint.py)

    @property
    def saved_key(self) -> SavedKey:
        return SavedKey(self.key.server, self.where, self.key.tool)


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    # allowed: read_only | always_allow | session | saved | yes | once | always
    # denied:  user (answered no) | no_terminal (nobody to ask) | no_answer (the question failed)
    #          | changed (approved before, the tool changed since, nobody to ask)
    #          | gone | redefined | unreachable | bad_args (not the live definition: live_check.py)
    reason: str
    save_error: str = ""  # "always" was answered but could not be saved: why (the gate tells the turn)
    changed: tuple[str, ...] = ()  # what changed since the tool was approved (toolprint.PARTS)
    text: str = ""  # what the model reads instead of the denial (a live-definition check's sentence)

    @property
    def label(self) -> str:
        """What the transcript records: `allow:once`, `deny:user`, ..."""
        return ("allow:" if self.allowed else "deny:") + self.reason


@dataclass
class PolicyState:
    session: Mapping[ToolKey, ToolPrint] = field(default_factory=dict)  # approved for the session, as it was then
    saved: Mapping[SavedKey, ToolPrint | None] = field(default_factory=dict)  # saved, as it was then (None: unknown)
    yes: bool = False


def is_read_only(read_only_hint: bool | None, destructive_hint: bool | None) -> bool:
    """A tool that runs unasked as read-only: it says readOnlyHint and does not also say
    destructiveHint (contradicting hints are not a safety claim: ask)."""
    return read_only_hint is True and destructive_hint is not True


def decide(call: CallInfo, state: PolicyState) -> Verdict | None:
    """Known safe -> an allowing Verdict; None -> the user must be asked."""
    if call.read_only:
        return Verdict(True, "read_only")
    if call.key.tool in call.always_allow or "*" in call.always_allow:
        return Verdict(True, "always_allow")
    if call.key in state.session and state.session[call.key] == call.fingerprint:
        return Verdict(True, "session")
    if call.saved_key in state.saved and state.saved[call.saved_key] == call.fingerprint:
        return Verdict(True, "saved")
    if state.yes:
        return Verdict(True, "yes")
    return None


def changes(call: CallInfo, state: PolicyState) -> tuple[str, ...]:
    """What changed in a tool approved before (for the session, else saved); () when it was not."""
    if call.key in state.session:
        return changed_parts(call.fingerprint, state.session[call.key])
    if call.saved_key in state.saved:
        return changed_parts(call.fingerprint, state.saved[call.saved_key])
    return ()


def answered(answer: str) -> Verdict:
    """The user's answer as a verdict (anything unknown denies)."""
    return Verdict(True, answer) if answer in ("once", "session", "always") else Verdict(False, "user")


def denial_text(verdict: Verdict, server: str, tool: str) -> str:
    """The tool result the model gets instead of running the call."""
    if verdict.text:
        return verdict.text
    why = {
        "no_terminal": "it needs the user's approval and this session cannot ask (no terminal, no --yes)",
        "no_answer": "the approval question could not be answered",
        "changed": f"the tool changed since the user approved it ({', '.join(verdict.changed)}) and this session "
                   "cannot ask again (no terminal, no --yes)",
    }.get(verdict.reason, "the user denied it")
    return (f"The user did not allow this tool call ({tool} on MCP server {server}): {why}. "
            "It was not run. Do not retry it; tell the user what you wanted to do instead.")


@dataclass
class Listing:
    """/permissions: what runs without asking (data; the UI words it)."""

    yes: bool
    session: list[ToolKey]
    saved: list[SavedKey]
    saved_path: str
    always_allow: dict[str, list[str]]  # server -> its alwaysAllow list
    read_only: dict[str, list[str]]  # server -> its readOnlyHint tools


@dataclass
class Permissions:
    yes: bool = False
    saved: SavedApprovals | None = None
    frontend: Frontend = field(default_factory=Frontend)  # who is asked (the default: nobody)
    secrets: list[str] = field(default_factory=list)  # masked in questions
    session: dict[ToolKey, ToolPrint] = field(default_factory=dict)  # approved for the session, as it was then

    def __post_init__(self) -> None:
        self._asking = asyncio.Lock()  # one question at a time (parallel tool calls)

    def state(self) -> PolicyState:
        saved = self.saved.approved() if self.saved is not None else {}
        return PolicyState(dict(self.session), saved, self.yes)

    async def check(self, call: CallInfo, args: dict, destructive: bool | None = None,
                    mask: Callable[[str], str] = lambda s: s) -> Verdict:
        verdict = decide(call, self.state())
        if verdict is not None:
            return verdict
        async with self._asking:
            verdict = decide(call, self.state())  # an answer given meanwhile may cover this call
            if verdict is not None:
                return verdict
            changed = changes(call, self.state())
            shown = redact(mask(json.dumps(args, ensure_ascii=False, indent=1)), self.secrets)
            request = ApprovalRequest(call.key.server, call.where, call.key.tool, shown[:ARGS_SHOWN],
                                      max(0, len(shown) - ARGS_SHOWN), destructive, changed)
            try:
                answer = await self.frontend.approve(request)
            except Exception:  # noqa: BLE001 - a broken question never runs the tool
                return Verdict(False, "no_answer")
            if answer is None:
                return Verdict(False, "changed", changed=changed) if changed else Verdict(False, "no_terminal")
            return self.remember(call, answered(answer))

    def remember(self, call: CallInfo, verdict: Verdict) -> Verdict:
        if verdict.reason in ("session", "always"):
            self.session[call.key] = call.fingerprint
        if verdict.reason == "always" and self.saved is not None:
            err = self.saved.add(call.saved_key, call.fingerprint)
            if err:
                return Verdict(verdict.allowed, verdict.reason, save_error=err)
        return verdict

    def listing(self, servers: Iterable[tuple[str, list[str], list[str]]]) -> Listing:
        """`servers`: (name, alwaysAllow list, read-only tool names) per connected server."""
        allow, ro = {}, {}
        for name, always, read_only in servers:
            if always:
                allow[name] = list(always)
            if read_only:
                ro[name] = list(read_only)
        saved = sorted(self.saved.keys(), key=lambda k: (k.server, k.tool)) if self.saved else []
        return Listing(self.yes, sorted(self.session, key=lambda k: (k.server, k.tool)), saved,
                       str(self.saved.path) if self.saved else "", allow, ro)

    def reset(self) -> tuple[int, int]:
        """Forget session and saved approvals; (session, saved) counts removed."""
        n = len(self.session)
        self.session.clear()
        m = self.saved.clear() if self.saved is not None else 0
        return n, m
