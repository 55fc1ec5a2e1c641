"""Command line and environment -> settings. No I/O beyond reading env and .env."""

from __future__ import annotations

import argparse
import getpass
import os
import re
from dataclasses import dataclass, field

from .context.policy import STRATEGIES, ContextSettings
from .memory.scorer import SCORERS as MEMORY_SCORERS

DEFAULT_BASE_URL = "https://clovastudio.stream.ntruss.com/v1/openai"
DEFAULT_MODEL = "HCX-005"
DEFAULT_STRATEGY = "summarize"
# (input window, reserved output) per model; unknown models get the last row.
MODEL_WINDOWS: dict[str, tuple[int, int]] = {
    "HCX-005": (128_000, 4_096),
    "HCX-007": (128_000, 4_096),
    "HCX-003": (8_192, 1_024),
    "HCX-DASH-002": (32_000, 1_024),
    "HCX-DASH-001": (4_096, 1_024),
    "qwen2.5-coder-1.5b-instruct-q4_k_m": (4_096, 1_024),  # --provider local, window as served (-c)
    "*": (32_000, 2_048),
}
MIN_TOOL_COMPLETION_TOKENS = 1_024  # CLOVA rejects less when tools are bound
THREAD_ID_RE = re.compile(r"^[A-Za-z0-9_.\-]{1,128}$")
EXIT_WORDS = {"종료", "exit", "quit"}


class ConfigError(Exception):
    """A configuration problem: one line for the user, exit code 2."""

    def __init__(self, key: str, **fmt: object) -> None:
        super().__init__(key)
        self.key = key
        self.fmt = fmt


@dataclass
class Settings:
    db: str = "checkpoint.db"
    thread: str | None = None
    new: bool = False
    server_url: str | None = None  # the first of server_urls (kept for older callers)
    server_urls: list[str] = field(default_factory=list)  # --server-url (repeatable) / MCP_SERVER_URL
    mcp_config: str | None = None  # --mcp-config / MCP_CONFIG: mcpServers JSON file
    with_search: bool = False  # keep the bundled search server alongside configured ones
    model: str = DEFAULT_MODEL
    api_key: str | None = None
    base_url: str = DEFAULT_BASE_URL
    provider: str = "clova"  # clova | openai | local (client/providers.py)
    provider_auto: bool = False  # local chosen because no CLOVA key was configured
    context: ContextSettings = field(default_factory=ContextSettings)
    max_input_tokens: int = 0
    max_output_tokens: int = 4_096
    user: str = ""
    memory: bool = True
    memory_threshold: float = 0.5
    memory_top_k: int = 5
    memory_scorer: str = "local"  # local: shipped light scorer (no request) | llm: one scoring request
    memory_budget: int = 600  # tokens of the [장기 기억] section
    max_model_calls: int = 12  # per turn; the last one is made without tools (client/limits.py)
    max_tool_calls: int = 20  # per turn
    debug: bool = False
    lang: str = "ko"
    require_tools: bool = False
    roots: list[str] = field(default_factory=list)  # --root (repeatable) / MCP_CHAT_ROOTS: offered besides the cwd
    yes: bool = False  # --yes / MCP_CHAT_YES: approve every tool call without asking (scripts)
    timeout: float = 120.0
    system_prompt: str = (
        "당신은 친절한 AI 어시스턴트입니다. 사용자의 질문에 대해 신뢰할 수 있는 정보만 근거로 삼아 답변하세요. "
        "최신 정보나 사실 확인이 필요하면 검색 도구를 사용하세요."
    )

    def secrets(self) -> list[str]:
        """Values that must never be printed or stored."""
        from .store.pg_url import url_passwords  # a password in a postgresql:// --db URL

        return [v for v in [self.api_key or "", *env_secrets(), *url_passwords(self.db)] if len(v) >= 4]


SECRET_VARS = ("CLOVA_STUDIO_API_KEY", "CLOVASTUDIO_API_KEY", "OPENAI_API_KEY", "NAVER_CLIENT_SECRET", "NAVER_CLIENT_ID")


def env_secrets() -> list[str]:
    from .store.pg_url import url_passwords  # the password of a postgresql:// CHECKPOINT_DB

    vals = [*(os.environ.get(n, "") for n in SECRET_VARS), *url_passwords(os.environ.get("CHECKPOINT_DB", ""))]
    return [v for v in vals if len(v) >= 4]


def env_flag(name: str) -> bool:
    """1/true/yes/on (any case) -> True; unset, empty, 0/false/no/off -> False; else a ConfigError."""
    v = os.environ.get(name, "").strip().lower()
    if v in ("", "0", "false", "no", "off"):
        return False
    if v in ("1", "true", "yes", "on"):
        return True
    raise ConfigError("bad_option", detail=f"{name}={v!r}")


def _env_int(name: str) -> int | None:
    v = os.environ.get(name, "").strip()
    if not v:
        return None
    try:
        return int(v)
    except ValueError:
        raise ConfigError("bad_option", detail=f"{name}={v!r}") from None


def add_db_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db", default=None, help="SQLite 파일 또는 postgresql://USER:PASS@HOST/DB (기본: checkpoint.db, env CHECKPOINT_DB)")


def add_chat_options(p: argparse.ArgumentParser) -> None:
    add_db_option(p)
    p.add_argument("--thread", help="이어갈(없으면 만들) 세션 ID")
    p.add_argument("--new", action="store_true", help="새 세션을 바로 시작")
    p.add_argument("--server-url", action="append", help="streamable HTTP MCP 서버 URL, 여러 번 지정 가능 (기본: 내장 검색 서버를 stdio로 실행)")
    p.add_argument("--mcp-config", help="MCP 서버 설정 파일 (mcpServers JSON, env MCP_CONFIG)")
    p.add_argument("--with-search", action="store_true", help="다른 MCP 서버와 함께 내장 검색 서버도 실행")
    p.add_argument("--context", choices=STRATEGIES, help=f"컨텍스트 정책 (기본 {DEFAULT_STRATEGY})")
    p.add_argument("--max-turns", type=int, help="원문 그대로 유지할 완료된 턴 수 (trim 5, summarize 2)")
    p.add_argument("--summary-after", type=int, help="요약을 시작하는 턴 수 N (기본 5)")
    p.add_argument("--max-input-tokens", type=int, help="요청 하나의 토큰 예산")
    p.add_argument("--user", help="장기 기억의 주인 (기본: OS 사용자)")
    p.add_argument("--no-memory", action="store_true", help="장기 기억을 쓰지 않음")
    p.add_argument("--memory-threshold", type=float, help="장기 기억으로 남길 최소 유용성 점수 (기본 0.5)")
    p.add_argument("--memory-top-k", type=int, help="세션당 남길 장기 기억 최대 개수 (기본 5)")
    p.add_argument("--memory-scorer", choices=MEMORY_SCORERS,
                   help="장기 기억 유용성 채점: local (내장 경량 모델, 요청 없음, 기본) 또는 llm (env MCP_CHAT_MEMORY_SCORER)")
    p.add_argument("--max-model-calls", type=int, help="한 턴의 모델 호출 상한, 마지막 호출은 도구 없이 (기본 12, env MAX_MODEL_CALLS)")
    p.add_argument("--max-tool-calls", type=int, help="한 턴의 도구 호출 상한 (기본 20, env MAX_TOOL_CALLS)")
    p.add_argument("--model", help=f"모델 이름 (기본 {DEFAULT_MODEL})")
    from .providers import add_provider_options  # --provider, --base-url

    add_provider_options(p)
    p.add_argument("--timeout", type=float, help="모델 요청 제한 시간(초, 기본 120)")
    p.add_argument("--require-tools", action="store_true", help="MCP 서버 연결 실패 시 종료")
    p.add_argument("--yes", action="store_true", help="도구 호출을 묻지 않고 모두 허용 (스크립트용, env MCP_CHAT_YES=1)")
    p.add_argument("--lang", choices=("ko", "en"), help="UI 언어")
    p.add_argument("--debug", action="store_true", help="오류 추적과 요청 로그 (비밀값 제외)")
    p.add_argument("--root", action="append", help="MCP 서버에 알릴 폴더 (현재 폴더 외에 추가, 여러 번 지정 가능, env MCP_CHAT_ROOTS=a:b)")


def resolve_db(args: argparse.Namespace) -> str:
    return args.db or os.environ.get("CHECKPOINT_DB") or "checkpoint.db"


def resolve(args: argparse.Namespace) -> Settings:
    """Merge options, environment and defaults; validate."""
    s = Settings()
    s.db = resolve_db(args)
    s.debug = bool(args.debug)
    s.lang = args.lang or os.environ.get("MCP_CHAT_LANG") or "ko"
    s.thread = args.thread
    s.new = bool(args.new)
    if s.thread is not None and not THREAD_ID_RE.match(s.thread):
        raise ConfigError("bad_thread_id")
    env_url = os.environ.get("MCP_SERVER_URL") or ""
    s.server_urls = list(args.server_url or ([env_url] if env_url.strip() else []))
    s.server_url = s.server_urls[0] if s.server_urls else None
    s.mcp_config = args.mcp_config or os.environ.get("MCP_CONFIG") or None
    s.with_search = bool(args.with_search)
    s.model = args.model or os.environ.get("CLOVA_STUDIO_MODEL") or DEFAULT_MODEL
    s.api_key = os.environ.get("CLOVA_STUDIO_API_KEY") or os.environ.get("CLOVASTUDIO_API_KEY") or None
    s.base_url = os.environ.get("CLOVA_STUDIO_BASE_URL") or DEFAULT_BASE_URL
    from .providers import apply_provider  # sets provider, model, endpoint, key

    apply_provider(s, args)
    strategy = args.context or os.environ.get("CONTEXT_STRATEGY") or DEFAULT_STRATEGY
    if strategy not in STRATEGIES:
        raise ConfigError("bad_option", detail=f"CONTEXT_STRATEGY={strategy!r}")
    max_turns = args.max_turns if args.max_turns is not None else _env_int("MAX_TURNS_TO_KEEP")
    summary_after = args.summary_after if args.summary_after is not None else _env_int("CONTEXT_TURNS_LIMIT")
    if max_turns is not None and max_turns < 0:
        raise ConfigError("bad_option", detail="--max-turns >= 0")
    if summary_after is not None and summary_after < 1:
        raise ConfigError("bad_option", detail="--summary-after >= 1")
    s.context = ContextSettings(strategy, max_turns, summary_after or 5)  # type: ignore[arg-type]
    window, out = MODEL_WINDOWS.get(s.model, MODEL_WINDOWS["*"])
    s.max_output_tokens = max(out, MIN_TOOL_COMPLETION_TOKENS)
    budget = args.max_input_tokens if args.max_input_tokens is not None else _env_int("MAX_INPUT_TOKENS")
    if budget is not None and budget < 100:
        raise ConfigError("bad_option", detail="--max-input-tokens >= 100")
    s.max_input_tokens = budget or (window - s.max_output_tokens)
    s.user = args.user or os.environ.get("MCP_CHAT_USER") or _os_user()
    s.memory = not args.no_memory
    if args.memory_threshold is not None:
        if not 0.0 <= args.memory_threshold <= 1.0:
            raise ConfigError("bad_option", detail="--memory-threshold 0..1")
        s.memory_threshold = args.memory_threshold
    if args.memory_top_k is not None:
        if args.memory_top_k < 0:
            raise ConfigError("bad_option", detail="--memory-top-k >= 0")
        s.memory_top_k = args.memory_top_k
    scorer = args.memory_scorer or os.environ.get("MCP_CHAT_MEMORY_SCORER", "").strip() or "local"
    if scorer not in MEMORY_SCORERS:
        raise ConfigError("bad_option", detail=f"MCP_CHAT_MEMORY_SCORER={scorer!r}")
    s.memory_scorer = scorer
    calls = args.max_model_calls if args.max_model_calls is not None else _env_int("MAX_MODEL_CALLS")
    if calls is not None:
        if calls < 1:
            raise ConfigError("bad_option", detail="--max-model-calls >= 1")
        s.max_model_calls = calls
    tool_calls = args.max_tool_calls if args.max_tool_calls is not None else _env_int("MAX_TOOL_CALLS")
    if tool_calls is not None:
        if tool_calls < 0:
            raise ConfigError("bad_option", detail="--max-tool-calls >= 0")
        s.max_tool_calls = tool_calls
    s.require_tools = bool(args.require_tools)
    s.yes = bool(getattr(args, "yes", False)) or env_flag("MCP_CHAT_YES")
    env_roots = [r for r in os.environ.get("MCP_CHAT_ROOTS", "").split(os.pathsep) if r.strip()]
    s.roots = [os.path.abspath(r) for r in (getattr(args, "root", None) or env_roots)]
    timeout = args.timeout if args.timeout is not None else os.environ.get("CLOVA_STUDIO_TIMEOUT")
    if timeout is not None:
        try:
            s.timeout = float(timeout)
        except ValueError:
            raise ConfigError("bad_option", detail=f"timeout={timeout!r}") from None
    return s


def _os_user() -> str:
    try:
        return getpass.getuser()
    except Exception:  # no passwd entry (containers)
        return "user"
