"""What a server may ask of the client: elicitation, sampling, roots; and who we say we are.

Engine code: it never prints or asks itself. It is built with the frontend
(client/engine/frontend.py) that shows its notices and asks its questions; a frontend with
nobody to ask (the default, a pipe) and no `--yes` means the answer is "no". The SDK session
gets the callbacks from `callbacks(server_name)`; the fleet says who is connected (`Sessions`).
"""

from __future__ import annotations

import asyncio
import importlib.metadata
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Protocol

from mcp import types
from mcp.client.session import ClientSession

from client.core.config import NO_WORDS, YES_WORDS
from client.core.faults import one_line
from client.core.context.budget import estimate_text_tokens
from client.engine.frontend import Field, Frontend, tell
from client.engine.mcp.era import Revision


def client_info() -> types.Implementation:
    """clientInfo sent in `initialize`: our own name and package version."""
    try:
        version = importlib.metadata.version("mcp-chat")
    except importlib.metadata.PackageNotFoundError:  # running from a source tree without install
        version = "0.0.0"
    return types.Implementation(name="mcp-chat", version=version)


# -- elicitation forms (pure; Field: client/engine/frontend.py) --------------------
def form_fields(schema: dict) -> list[Field]:
    """The flat form a requestedSchema describes (only top-level primitive properties exist)."""
    required = set(schema.get("required") or [])
    out: list[Field] = []
    for name, prop in (schema.get("properties") or {}).items():
        prop = prop if isinstance(prop, dict) else {}
        kind = prop.get("type", "string")
        enum = prop.get("enum")
        if enum is None and isinstance(prop.get("oneOf"), list):  # titled enums (SEP-1330)
            enum = [o.get("const") for o in prop["oneOf"] if isinstance(o, dict) and "const" in o]
        if kind == "array":
            items = prop.get("items") or {}
            enum = items.get("enum") or [o.get("const") for o in items.get("anyOf", []) if isinstance(o, dict)]
        out.append(Field(name, kind, str(prop.get("title") or name), str(prop.get("description") or ""),
                         prop.get("default"), list(enum) if enum else None, name in required))
    return out


def schema_defaults(schema: dict) -> dict[str, Any]:
    """Every property's default (SEP-1034: string, integer, number, boolean, enum, multi-select)."""
    return {f.name: f.default for f in form_fields(schema) if f.default is not None}


class BadValue(ValueError):
    pass


def coerce(f: Field, text: str) -> Any:
    """Typed value of one answered field; empty text -> the default (None when there is none)."""
    s = text.strip()
    if not s:
        return f.default
    if f.type == "boolean":
        low = s.lower()
        if low in YES_WORDS or low in ("true", "1"):
            return True
        if low in NO_WORDS or low in ("false", "0"):
            return False
        raise BadValue(s)
    if f.type == "array":
        vals = [v.strip() for v in s.split(",") if v.strip()]
        if f.enum and any(v not in f.enum for v in vals):
            raise BadValue(s)
        return vals
    if f.enum and s not in f.enum:
        if s.isdigit() and 1 <= int(s) <= len(f.enum):  # the choice's number
            return f.enum[int(s) - 1]
        raise BadValue(s)
    try:
        if f.type == "integer":
            return int(s)
        if f.type == "number":
            return float(s)
    except ValueError:
        raise BadValue(s) from None
    return s


def missing_required(fields: list[Field], values: dict[str, Any]) -> list[str]:
    return [f.name for f in fields if f.required and values.get(f.name) is None]


# -- sampling (pure) ------------------------------------------------------------
def sampling_text(params: types.CreateMessageRequestParams) -> list[tuple[str, str]]:
    """(role, text) per message; images and audio become a short description."""
    out = []
    for m in params.messages:
        parts = []
        for c in m.content_as_list:
            if isinstance(c, types.TextContent):
                parts.append(c.text)
            else:
                parts.append(f"[{getattr(c, 'type', 'content')}: {getattr(c, 'mimeType', '')}]")
        out.append((m.role, "\n".join(parts)))
    return out


# Stored as the tool's result (model context and transcript alike): one fixed text in both languages.
SAMPLING_CAPPED_TEXT = ("이 도구 호출을 끝냈습니다: 서버의 모델 요청(샘플링)이 이번 턴의 모델 호출 한도 {max}회에 "
                        "닿았습니다. (tool call ended: the server's sampling reached this turn's model call limit of {max})")


# -- the callbacks ----------------------------------------------------------------
class Sampler(Protocol):
    """The model that answers sampling requests (client/engine/mcp/sampling.py): the session's
    current one, so its limits are read at each request."""

    @property
    def budget(self) -> int:  # input tokens a sampling request may use (0: unlimited)
        ...

    @property
    def max_output(self) -> int:
        ...

    @property
    def limit(self) -> int:  # model calls a turn may make (--max-model-calls)
        ...

    def room(self) -> bool:  # one more call fits this turn (client/engine/model_calls.py)
        ...

    def take(self) -> bool:  # count one call; False: it does not fit
        ...

    async def __call__(self, messages: list[tuple[str, str]], system: str | None, max_tokens: int) -> tuple[str, str]:
        """(text, model name)."""
        ...


class Sessions(Protocol):  # the fleet, asked who is connected now (client/engine/mcp/starting.py)
    def sessions(self) -> list[tuple[str, ClientSession, Revision]]: ...  # (server, session, its revision)


@dataclass
class ClientFeatures:
    yes: bool = False  # --yes: accept elicitation with defaults, approve sampling
    sampler: Sampler | None = None  # the session's model, without tools
    roots: list[Path] = field(default_factory=list)  # only what the user offered (--root, MCP_CHAT_ROOTS, /roots)
    own_dirs: set[str] = field(default_factory=set)  # servers whose entry names its directories: offered no roots
    user: str = "user"  # whose OAuth tokens (client/engine/mcp/oauth.py)
    data: Path | None = None  # the user's data folder (Settings.dirs.data), where they are kept; None: no login
    headless: bool = False  # Tuning.oauth_headless: the login URL is fetched, not shown
    frontend: Frontend = field(default_factory=Frontend)  # shows the notices, asks the questions (default: nobody)
    journal: list[dict[str, str]] = field(default_factory=list)  # sampling decisions not yet on a transcript row
    _capped: dict[str, set[asyncio.Event]] = field(default_factory=dict)  # server -> its tool calls under way
    _told_limit: set[str] = field(default_factory=set)  # servers told "limit reached" since their last grant

    @contextmanager
    def capped(self, server: str) -> Iterator[asyncio.Event]:
        """Set while a tool call of `server` runs, once its sampling reached the turn's limit: the
        call ends then (client/engine/mcp/server.py), even when the server keeps asking."""
        event = asyncio.Event()
        self._capped.setdefault(server, set()).add(event)
        try:
            yield event
        finally:
            self._capped[server].discard(event)

    def drain_journal(self) -> list[dict[str, str]]:
        """Sampling records since the last call (the permission gate puts them on the tool's result)."""
        out, self.journal = self.journal, []
        return out

    def _record(self, server: str, decision: str, request: str, answer: str = "") -> None:
        self.journal.append({"server": server, "decision": decision, "request": request, "answer": answer[:500]})

    def emit(self, key: str, **fmt: Any) -> None:
        tell(self.frontend, key, **fmt)  # display problems never fail a request

    def show_login(self, server: str, url: str) -> None:
        """An OAuth login needs the user: the URL is always shown, the browser opened when we can."""
        self.emit("oauth_login", server=server, url=url)
        try:
            self.frontend.open_url(url)
        except Exception:  # noqa: BLE001 - no browser: the printed URL is enough
            pass

    def callbacks(self, server: str) -> dict[str, Any]:
        async def roots(ctx: Any) -> types.ListRootsResult:
            return self.list_roots(server)

        return {"elicitation_callback": lambda ctx, params: self.elicit(server, params),
                "sampling_callback": lambda ctx, params: self.sample(server, params),
                "list_roots_callback": roots, "client_info": client_info()}

    # -- elicitation ------------------------------------------------------------
    async def elicit(self, server: str, params: types.ElicitRequestParams) -> types.ElicitResult:
        if isinstance(params, types.ElicitRequestURLParams):
            ok = await self.frontend.confirm("url", server, f"{params.message}\n{params.url}") is True
            self.emit("elicit_url_done" if ok else "elicit_declined", server=server)
            return types.ElicitResult(action="accept" if ok else "decline")
        schema = params.requested_schema or {}
        fields = form_fields(schema)
        if self.yes:
            values = schema_defaults(schema)
            if missing_required(fields, values):
                self.emit("elicit_declined", server=server)
                return types.ElicitResult(action="decline")
            self.emit("elicit_auto", server=server, n=len(values))
            return types.ElicitResult(action="accept", content=values)
        answer = await self.frontend.ask_form(server, params.message, fields)
        if answer is None:  # nobody to ask
            self.emit("elicit_declined", server=server)
            return types.ElicitResult(action="decline")
        action, values = answer
        if action != "accept":
            return types.ElicitResult(action="cancel" if action == "cancel" else "decline")
        return types.ElicitResult(action="accept", content={k: v for k, v in (values or {}).items() if v is not None})

    # -- sampling ---------------------------------------------------------------
    async def sample(self, server: str, params: types.CreateMessageRequestParams) -> Any:
        msgs = sampling_text(params)
        first = next((text for role, text in msgs if role == "user"), msgs[0][1] if msgs else "")
        summary = " ".join(first.split())[:200]
        if self.sampler is not None and not self.sampler.room():  # never asked: it could not run
            return self._over_limit(server, summary)
        if self.yes:
            ok, why = True, "yes"
        else:
            answer = await self.frontend.confirm("sampling", server, summary)
            ok, why = (False, "no_terminal") if answer is None else (answer, "once" if answer else "user")
        if not ok:
            self.emit("sampling_denied", server=server)
            self._record(server, "deny:" + why, summary)
            return types.ErrorData(code=-1, message="User rejected sampling request")
        if self.sampler is None:
            return types.ErrorData(code=types.INTERNAL_ERROR, message="no model for sampling")
        budget, max_output = self.sampler.budget, self.sampler.max_output  # the model in use now
        used = sum(estimate_text_tokens(t) for _, t in msgs) + estimate_text_tokens(params.system_prompt or "")
        if budget and used > budget:
            self.emit("sampling_over_budget", server=server, used=used, budget=budget)
            self._record(server, "deny:budget", summary)
            return types.ErrorData(code=types.INVALID_PARAMS, message=f"request needs {used} tokens, budget {budget}")
        if not self.sampler.take():  # others took the last calls while this one was asked
            return self._over_limit(server, summary)
        self._told_limit.discard(server)
        self.emit("sampling_request", server=server, text=summary)
        max_tokens = max(1, min(params.max_tokens or max_output, max_output))
        try:
            text, model = await self.sampler(msgs, params.system_prompt, max_tokens)
        except Exception as e:  # noqa: BLE001 - the server gets an error, the chat goes on
            self.emit("sampling_failed", server=server, err=one_line(e))
            self._record(server, "allow:" + why, summary, "(failed)")
            return types.ErrorData(code=types.INTERNAL_ERROR, message="sampling failed")
        self.emit("sampling_answer", server=server, text=" ".join(text.split())[:300])
        self._record(server, "allow:" + why, summary, " ".join(text.split()))
        return types.CreateMessageResult(role="assistant", content=types.TextContent(type="text", text=text),
                                         model=model, stop_reason="endTurn")

    def capped_text(self) -> str:
        return SAMPLING_CAPPED_TEXT.format(max=self.sampler.limit if self.sampler is not None else 0)

    def _over_limit(self, server: str, summary: str) -> types.ErrorData:
        if server not in self._told_limit:  # one line, however often it asks again
            self._told_limit.add(server)
            self.emit("sampling_limit", server=server, max=self.sampler.limit if self.sampler is not None else 0)
        self._record(server, "deny:limit", summary)
        for event in self._capped.get(server, ()):
            event.set()
        return types.ErrorData(code=types.INVALID_REQUEST, message=self.capped_text())

    # -- roots ------------------------------------------------------------------
    def list_roots(self, server: str | None = None) -> types.ListRootsResult:
        """Roots never widen access: a server started with its own directories gets none
        (server-filesystem would replace its directories with them)."""
        roots = [] if server in self.own_dirs else self.roots
        return types.ListRootsResult(roots=[types.Root(uri=p.resolve().as_uri(), name=p.resolve().name or str(p))
                                            for p in roots])

    async def set_roots(self, roots: list[Path], fleet: Sessions) -> int:
        """Replace the roots and tell every server connected now (the fleet says which); the number told."""
        self.roots = list(roots)
        told = 0
        for name, session, revision in fleet.sessions():
            if name in self.own_dirs or revision.modern:
                continue  # 2026-07-28 has no notifications from us: a server asks for the roots with each request
            try:
                # the notification itself, not the SDK's helper: that one warns that roots are deprecated (SEP-2577)
                await session.send_notification(types.RootsListChangedNotification())
                told += 1
            except Exception:  # noqa: BLE001 - a server going away is reported elsewhere
                pass
        return told
