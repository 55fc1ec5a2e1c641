"""Naver Search API client: validation, the request, error mapping (results.py formats the output).

Configuration (read from the environment on every call, so a `.env` loaded at start-up works):
  NAVER_CLIENT_ID / NAVER_CLIENT_SECRET  credentials (sent as X-Naver-Client-Id / -Secret headers)
  NAVER_API_BASE_URL                     default https://openapi.naver.com
  NAVER_TIMEOUT                          seconds, default 10
  NAVER_RESULT_MAX_CHARS                 cap on the JSON text returned to the model, default 4000

One `httpx.AsyncClient` is shared by the whole process (lazy, keep-alive); `aclose_client()` closes it.
Every failure is raised as `NaverSearchError` (an MCPServer `ToolError`) holding one clear sentence.
"""

from __future__ import annotations

import logging
import math
import os
import re
from dataclasses import dataclass
from typing import Any

import httpx
from mcp.server.mcpserver.exceptions import ToolError

from server.results import clean_item, fit_result

logger = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://openapi.naver.com"
DEFAULT_TIMEOUT = 10.0
DEFAULT_MAX_CHARS = 4000
MIN_MAX_CHARS = 500  # below this even one short item plus the note would not fit
KINDS = ("webkr", "news", "blog")
SORTS = ("sim", "date")

_CODE_RE = re.compile(r"^[A-Za-z0-9_-]{1,16}$")

NAVER_ERROR_MESSAGES: dict[str, str] = {
    "SE01": "검색어(query) 요청이 잘못되었습니다 — 검색어를 확인하세요 (Naver SE01: incorrect query request).",
    "SE02": "display 값이 잘못되었습니다 — 1~100 사이여야 합니다 (Naver SE02: invalid display value).",
    "SE03": "start 값이 잘못되었습니다 — 1~1000 사이여야 합니다 (Naver SE03: invalid start value).",
    "SE04": "sort 값이 잘못되었습니다 — 'sim' 또는 'date'만 가능합니다 (Naver SE04: invalid sort value).",
    "SE05": "존재하지 않는 검색 API입니다 — NAVER_API_BASE_URL을 확인하세요 (Naver SE05: invalid search API).",
    "SE06": "검색어 인코딩이 잘못되었습니다 — UTF-8 문자열이어야 합니다 (Naver SE06: malformed encoding).",
    "SE99": "Naver 검색 서버 내부 오류입니다 — 잠시 후 다시 시도하세요 (Naver SE99: system error).",
}


class NaverSearchError(ToolError):
    """A search failure whose message is one user-facing sentence (never a secret)."""


@dataclass(frozen=True)
class NaverConfig:
    client_id: str
    client_secret: str
    base_url: str
    timeout: float
    max_chars: int

    @classmethod
    def from_env(cls) -> NaverConfig:
        return cls(
            client_id=os.environ.get("NAVER_CLIENT_ID", "").strip(),
            client_secret=os.environ.get("NAVER_CLIENT_SECRET", "").strip(),
            base_url=(os.environ.get("NAVER_API_BASE_URL", "").strip() or DEFAULT_BASE_URL).rstrip("/"),
            timeout=_env_number("NAVER_TIMEOUT", DEFAULT_TIMEOUT, float, minimum=0.1),
            max_chars=_env_number("NAVER_RESULT_MAX_CHARS", DEFAULT_MAX_CHARS, int, minimum=MIN_MAX_CHARS),
        )


def _env_number(name: str, default: Any, kind: type, minimum: Any) -> Any:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = kind(raw)
    except ValueError:
        value = None
    if value is None or not math.isfinite(value):
        logger.warning("%s=%r is not a valid number; using %s", name, raw, default)
        return default
    return max(value, minimum)


# --- shared HTTP client -------------------------------------------------------------------

_client: httpx.AsyncClient | None = None


def get_client() -> httpx.AsyncClient:
    """The process-wide client, created on first use (no await between check and set)."""
    global _client
    if _client is None or _client.is_closed:
        _client = httpx.AsyncClient(
            limits=httpx.Limits(max_connections=100, max_keepalive_connections=50),
            timeout=DEFAULT_TIMEOUT,
            follow_redirects=False,
        )
    return _client


async def aclose_client() -> None:
    global _client
    client, _client = _client, None
    if client is not None and not client.is_closed:
        await client.aclose()


# --- validation ---------------------------------------------------------------------------


def validate_args(kind: str, query: str, display: int, start: int, sort: str | None) -> str:
    """Check arguments before calling Naver; return the stripped query."""
    if kind not in KINDS:
        raise NaverSearchError(f"알 수 없는 검색 종류입니다: {kind!r} (unknown search kind).")
    if not isinstance(query, str) or not query.strip():
        raise NaverSearchError("검색어(query)가 비어 있습니다 — 찾을 내용을 입력하세요 (query must not be empty).")
    if isinstance(display, bool) or not isinstance(display, int) or not 1 <= display <= 100:
        raise NaverSearchError(
            f"display는 1에서 100 사이의 정수여야 합니다(입력값: {_short(display)}) "
            "(display must be an integer between 1 and 100)."
        )
    if isinstance(start, bool) or not isinstance(start, int) or not 1 <= start <= 1000:
        raise NaverSearchError(
            f"start는 1에서 1000 사이의 정수여야 합니다(입력값: {_short(start)}) "
            "(start must be an integer between 1 and 1000)."
        )
    if kind != "webkr" and sort not in SORTS:
        raise NaverSearchError(
            f"sort는 'sim'(정확도순) 또는 'date'(최신순)만 가능합니다(입력값: {_short(sort)}) "
            "(sort must be 'sim' or 'date')."
        )
    return query.strip()


def _short(value: Any, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --- the request ---------------------------------------------------------------------------


def _fail(message: str, config: NaverConfig) -> NaverSearchError:
    """Build the error, masking credentials as a last line of defence."""
    for secret in (config.client_id, config.client_secret):
        if len(secret) >= 4:  # masking a 1-3 character value would garble the sentence
            message = message.replace(secret, "***")
    return NaverSearchError(message)


def _error_for(status: int, body: Any, config: NaverConfig) -> NaverSearchError | None:
    code = body.get("errorCode") if isinstance(body, dict) else None
    code = str(code) if code is not None else None
    if status in (401, 403):
        return _fail(
            f"Naver API 인증에 실패했습니다(HTTP {status}) — NAVER_CLIENT_ID/NAVER_CLIENT_SECRET 값과 "
            "애플리케이션에 검색 API가 등록되어 있는지 확인하세요 "
            "(authentication failed: bad client id/secret or Search API not enabled for the app).",
            config,
        )
    if status == 429:
        return _fail(
            "Naver 검색 API 호출 한도를 초과했습니다 — 클라이언트 ID당 하루 25,000회 한도 또는 "
            "초당 호출 제한에 걸렸으니 잠시 후 다시 시도하세요 "
            "(HTTP 429: daily quota of 25,000 calls exceeded or rate limited).",
            config,
        )
    if code in NAVER_ERROR_MESSAGES:
        return _fail(NAVER_ERROR_MESSAGES[code], config)
    if status >= 500:
        return _fail(
            f"Naver 검색 서버에 일시적인 오류가 발생했습니다(HTTP {status}) — 잠시 후 다시 시도하세요 "
            "(Naver server error).",
            config,
        )
    if status != 200 or code is not None:
        shown = f", 오류 코드 {code}" if code and _CODE_RE.match(code) else ""
        return _fail(
            f"Naver 검색 API가 요청을 거부했습니다(HTTP {status}{shown}) (request rejected by Naver).",
            config,
        )
    return None


async def search(kind: str, query: str, display: int = 10, start: int = 1, sort: str | None = None) -> str:
    """Run one Naver search and return the cleaned, capped JSON text; raise NaverSearchError."""
    query = validate_args(kind, query, display, start, sort)
    config = NaverConfig.from_env()
    credentials = {"NAVER_CLIENT_ID": config.client_id, "NAVER_CLIENT_SECRET": config.client_secret}
    missing = [name for name, value in credentials.items() if not value]
    if missing:
        raise NaverSearchError(
            f"Naver 검색 API 자격 증명이 없습니다 — 환경 변수 {', '.join(missing)}을(를) 설정하세요 "
            f"(credentials missing: set {' and '.join(missing)})."
        )
    if not all(value.isascii() for value in credentials.values()):
        raise NaverSearchError(
            "NAVER_CLIENT_ID/NAVER_CLIENT_SECRET 값에 ASCII가 아닌 문자가 있습니다 — 값을 다시 복사하세요 "
            "(credentials contain non-ASCII characters)."
        )
    params: dict[str, Any] = {"query": query, "display": display, "start": start}
    if kind != "webkr":
        params["sort"] = sort
    headers = {"X-Naver-Client-Id": config.client_id, "X-Naver-Client-Secret": config.client_secret}
    url = f"{config.base_url}/v1/search/{kind}.json"
    try:
        response = await get_client().get(url, params=params, headers=headers, timeout=config.timeout)
    except httpx.TimeoutException:
        raise _fail(
            f"Naver 검색 API가 {config.timeout:g}초 안에 응답하지 않았습니다 — 잠시 후 다시 시도하세요 "
            "(request timed out).",
            config,
        ) from None
    except (httpx.TransportError, httpx.InvalidURL):
        raise _fail(
            "Naver 검색 API에 연결할 수 없습니다 — 네트워크와 NAVER_API_BASE_URL 설정을 확인하세요 "
            "(connection failed).",
            config,
        ) from None

    try:
        body: Any = response.json()
    except ValueError:
        body = None
    error = _error_for(response.status_code, body, config)
    if error is not None:
        raise error
    if not isinstance(body, dict) or not isinstance(body.get("items"), list):
        if body is None:
            message = "Naver 검색 API가 JSON이 아닌 응답을 보냈습니다 (unexpected non-JSON response)."
        else:
            message = "Naver 검색 API의 응답 형식이 예상과 다릅니다 (unexpected response format: no items list)."
        raise _fail(message, config)
    raw_items = [i for i in body["items"] if isinstance(i, dict)]
    items = [clean_item(kind, raw) for raw in raw_items]
    total = body.get("total", len(items))
    header = {"query": query, "total": total if isinstance(total, int) else len(items), "start": start}
    return fit_result(header, items, config.max_chars)
