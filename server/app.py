"""The MCPServer app "naver-search": three Naver Search tools plus runners for both transports.

It speaks both eras of MCP (SDK 2.x): 2026-07-28 (`server/discover`, one stateless request per
exchange, `ttlMs`/`cacheScope` on lists) and the 2025 `initialize` handshake for older clients."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from mcp.server.caching import CacheHint
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, InputRequiredResult, ToolAnnotations
from pydantic import Field, ValidationError

from server import gate, httpconn, logsafe, naver
from server.limits import (DEFAULT_BODY_TIMEOUT, DEFAULT_HEADER_TIMEOUT, DEFAULT_MAX_SESSIONS,
                           DEFAULT_SESSION_IDLE_TIMEOUT, SHUTDOWN_GRACE, connection_cap)

logger = logging.getLogger(__name__)

LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]

INSTRUCTIONS = (
    "네이버 검색 도구입니다. 일반 정보는 web_search, 최근 사건·날짜가 중요한 소식은 news_search, "
    "후기·경험담·여행·맛집·레시피는 blog_search를 쓰세요. "
    "Naver search tools: web_search for general information, news_search for recent events, "
    "blog_search for personal reviews, experiences, travel and recipes."
)

# Argument types: constraints appear in the JSON schema for the model, but are checked by
# naver.validate_args so that a bad value yields our own clear message, not a pydantic dump.
Query = Annotated[str, Field(description="검색어 (search query), 예: '서울 날씨', '파이썬 asyncio'")]
Display = Annotated[
    int,
    Field(
        description="가져올 결과 수 1~100 (number of results, 1-100)",
        json_schema_extra={"minimum": 1, "maximum": 100},
    ),
]
Start = Annotated[
    int,
    Field(
        description="시작 위치 1~1000; 다음 페이지는 start=start+display (1-based offset, 1-1000; next page: start+display)",
        json_schema_extra={"minimum": 1, "maximum": 1000},
    ),
]
Sort = Annotated[
    str,
    Field(
        description="정렬: 'sim' 정확도순(기본), 'date' 최신순 (sort: 'sim' = relevance, default; 'date' = newest first)",
        json_schema_extra={"enum": list(naver.SORTS)},
    ),
]


async def web_search(query: Query, display: Display = 10, start: Start = 1) -> str:
    """네이버 웹 문서 검색: 일반적인 정보, 개념 설명, 공식 사이트, 제품·기관·인물 정보, 사실 확인에 사용합니다.
    최근 사건이나 날짜가 중요한 소식은 news_search, 개인 후기·경험담·여행·레시피는 blog_search가 더 적합합니다.
    결과는 JSON 텍스트입니다: {"query", "total"(전체 결과 수), "start", "items": [{"title", "link", "description"}]}.
    결과가 길면 일부 항목만 포함되고 "truncated": true 와 "note"가 붙습니다.

    Naver web document search (webkr). Use it for general information: definitions and explanations,
    official sites, facts about products, organisations or people. Prefer news_search for recent events
    or anything where the date matters, and blog_search for personal reviews, experiences, travel and
    recipes. Returns JSON text {"query", "total", "start", "items": [{"title", "link", "description"}]};
    long results are cut to fit and then carry "truncated": true and a "note".
    """
    return await naver.search("webkr", query, display, start)


async def news_search(query: Query, display: Display = 10, start: Start = 1, sort: Sort = "sim") -> str:
    """네이버 뉴스 검색: 최근 사건, 시사, 발표, 주가·정책·사고 소식처럼 언제 일어났는지가 중요한 정보에 사용합니다.
    sort="date"는 최신 기사부터(최신순), sort="sim"(기본)은 검색어와 관련도가 높은 순입니다.
    "오늘", "최근", "이번 주" 같은 질문에는 sort="date"를 쓰세요.
    각 항목: title, link(네이버 뉴스 링크), description, pubDate(발행 시각, 예: "Mon, 02 Jun 2025 09:30:00 +0900"),
    originallink(언론사 원문 링크).

    Naver news search. Use it for recent events, current affairs, announcements, anything where *when*
    it happened matters. sort="date" returns the newest articles first; sort="sim" (default) ranks by
    relevance. Use sort="date" for "today / latest / this week" questions. Each item has title, link,
    description, pubDate (publication time, RFC 822) and originallink (the publisher's URL).
    """
    return await naver.search("news", query, display, start, sort)


async def blog_search(query: Query, display: Display = 10, start: Start = 1, sort: Sort = "sim") -> str:
    """네이버 블로그 검색: 개인의 후기·경험담·리뷰, 여행 일정·맛집·카페, 요리 레시피, 사용 팁처럼
    사람들의 실제 경험이 필요한 질문에 사용합니다. sort="date"는 최신 글부터, sort="sim"(기본)은 관련도순입니다.
    각 항목: title, link, description, bloggername(작성자), postdate(작성일, YYYYMMDD).
    객관적 사실이나 공식 정보는 web_search, 최근 소식은 news_search가 더 적합합니다.

    Naver blog search. Use it for people's first-hand experiences: reviews, travel itineraries,
    restaurants and cafes, recipes, how-to tips. sort="date" returns the newest posts first; sort="sim"
    (default) ranks by relevance. Each item has title, link, description, bloggername (author) and
    postdate (YYYYMMDD). Prefer web_search for facts or official information, news_search for recent news.
    """
    return await naver.search("blog", query, display, start, sort)


# 2026-07-28 lists say how long a client may keep them (ttlMs) and whether they may be shared
# (cacheScope). The tool set is fixed for the life of the process and the same for every caller.
LISTING_TTL_MS = 10 * 60 * 1000
CACHE_HINTS = {m: CacheHint(ttl_ms=LISTING_TTL_MS, scope="public") for m in (
    "server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list")}

TOOLS = (
    (web_search, "네이버 웹 검색 (Naver web search)"),
    (news_search, "네이버 뉴스 검색 (Naver news search)"),
    (blog_search, "네이버 블로그 검색 (Naver blog search)"),
)


def _argument_error(error: ValidationError) -> ToolError:
    """One clean sentence for a type error caught by MCPServer's pydantic argument model."""
    first = error.errors()[0]
    name = ".".join(str(p) for p in first.get("loc", ())) or "?"
    return ToolError(f"인자 '{name}'의 값이 올바르지 않습니다 (invalid argument '{name}': {first.get('msg', 'invalid')}).")


@dataclass(frozen=True)
class HttpOptions:
    """How `serve_http` builds the streamable HTTP app (SDK 2.x takes these there, not in the constructor)."""

    host: str = "127.0.0.1"
    port: int = 8000
    stateless_http: bool = False
    json_response: bool = False
    allowed_hosts: Sequence[str] = field(default_factory=tuple)
    allowed_origins: Sequence[str] = field(default_factory=tuple)
    max_sessions: int | None = DEFAULT_MAX_SESSIONS
    session_idle_timeout: float | None = DEFAULT_SESSION_IDLE_TIMEOUT


class NaverMCPServer(MCPServer):
    """MCPServer whose tool errors carry only our message, without the 'Error executing tool' prefix."""

    http: HttpOptions = HttpOptions()

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> CallToolResult | InputRequiredResult:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(cause, ToolError):
                raise cause from None
            if isinstance(cause, ValidationError):
                raise _argument_error(cause) from None
            if cause is not None:  # unexpected bug: log it, never show internals to the model
                logger.error("tool %s failed", name, exc_info=cause)
                raise ToolError(f"검색 도구 내부 오류가 발생했습니다 (internal error in tool {name}).") from None
            raise


def build_app(
    host: str = "127.0.0.1",
    port: int = 8000,
    stateless_http: bool = False,
    json_response: bool = False,
    log_level: LogLevel = "INFO",
    allowed_hosts: Sequence[str] = (),
    allowed_origins: Sequence[str] = (),
    max_sessions: int | None = DEFAULT_MAX_SESSIONS,
    session_idle_timeout: float | None = DEFAULT_SESSION_IDLE_TIMEOUT,
) -> NaverMCPServer:
    """Create the server. `stateless_http`/`json_response` are what `--stateless` turns on;
    `allowed_hosts`/`allowed_origins` extend DNS-rebinding protection beyond loopback;
    `max_sessions`/`session_idle_timeout` bound the stateful MCP sessions (the SDK's own limits:
    a new session beyond the cap gets 503, a session with no request in flight for that many
    seconds is closed and its id answers 404; None: no limit)."""
    app = NaverMCPServer("naver-search", instructions=INSTRUCTIONS, version=_version(), log_level=log_level,
                         cache_hints=CACHE_HINTS)
    app.http = HttpOptions(host, port, stateless_http, json_response, tuple(allowed_hosts), tuple(allowed_origins),
                           max_sessions, session_idle_timeout)
    for fn, title in TOOLS:
        app.add_tool(
            fn,
            title=title,
            description=inspect.cleandoc(fn.__doc__ or ""),
            annotations=ToolAnnotations(title=title, readOnlyHint=True, openWorldHint=True),
            structured_output=False,
        )
    return app


@contextlib.asynccontextmanager
async def _close_client_after(inner: Any, starlette_app: Any) -> AsyncIterator[None]:
    async with inner(starlette_app):
        try:
            yield
        finally:
            await naver.aclose_client()


async def serve_http(app: NaverMCPServer, tokens: Sequence[str] = (),
                     header_timeout: float = DEFAULT_HEADER_TIMEOUT, body_timeout: float = DEFAULT_BODY_TIMEOUT,
                     max_connections: int | None = None) -> None:
    """Serve streamable HTTP at http://HOST:PORT/mcp behind `gate` (access log, GET /healthz,
    bearer tokens when given); the shared Naver client closes on shutdown. A connection must
    complete each request head within `header_timeout` seconds and its body within `body_timeout`;
    at most `max_connections` are open (None: as many as the descriptor limit leaves room for);
    a failed accept is one log line a second at most (httpconn, logsafe).

    The process-wide client is closed from the Starlette app lifespan, which runs once.
    """
    import uvicorn

    h = app.http
    starlette_app = app.streamable_http_app(
        stateless_http=h.stateless_http, json_response=h.json_response, host=h.host,
        transport_security=gate.transport_security(h.host, h.allowed_hosts, h.allowed_origins),
        max_sessions=h.max_sessions, session_idle_timeout=h.session_idle_timeout)
    inner = starlette_app.router.lifespan_context
    starlette_app.router.lifespan_context = lambda a: _close_client_after(inner, a)
    level = app.settings.log_level.lower()
    budget = httpconn.Budget(connection_cap(0) if max_connections is None else max_connections)
    config = uvicorn.Config(
        gate.wrap(starlette_app, tokens),
        host=h.host,
        port=h.port,
        log_level=level,
        access_log=False,  # gate.AccessLog writes one line per request (no query strings)
        log_config=None,  # keep our logging setup (stderr)
        http=httpconn.protocol_class(header_timeout, body_timeout, budget),
        ws="none",  # no WebSocket endpoint: an Upgrade request is an ordinary request
        # a 2026-07-28 client keeps a subscriptions/listen stream open for the connection's life, and
        # uvicorn waits for every open response before it exits: without a bound, a stop (SIGTERM,
        # Ctrl-C) hung until the supervisor killed us. Calls in flight get this long to finish.
        timeout_graceful_shutdown=SHUTDOWN_GRACE,
    )
    logsafe.quiet_accept_errors(asyncio.get_running_loop())
    try:
        sock = httpconn.listen(h.host, h.port, config.backlog, budget)  # accepts only below the budget's ceiling
    except OSError as exc:  # e.g. the port is taken: one line, as uvicorn says it (its exit code 3)
        logging.getLogger("uvicorn.error").error("%s", exc)
        raise SystemExit(3) from None
    await httpconn.Server(config).serve(sockets=[sock])


async def serve_stdio(app: NaverMCPServer) -> None:
    """Serve over stdin/stdout (one session per process)."""
    try:
        await app.run_stdio_async()
    finally:
        await naver.aclose_client()


def _version() -> str:
    """serverInfo.version: this package's (SDK 2.x no longer reports its own in its place)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mcp-chat")
    except PackageNotFoundError:  # a source tree that was never installed
        return "0+unknown"
