"""Command line and environment -> settings. No I/O beyond reading env and .env.

Imported before the arguments are parsed: keep it light (no langchain, no rich) so
`mcp-chat --help` and `--version` answer at once; heavy modules are imported inside
the functions that need them.
"""

from __future__ import annotations

import argparse
import getpass
import os
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from client.ui.i18n import tr
from client.core.paths import default_db, user_mcp_config
from client.ui.provider_options import add_provider_options

if TYPE_CHECKING:
    from client.core.context.policy import ContextSettings

STRATEGIES: tuple[str, ...] = ("none", "trim", "summarize")  # = client.core.context.policy.STRATEGIES
OUTPUT_FORMATS = ("text", "json")
MEMORY_SCORERS = ("local", "llm")  # = client.engine.memory.scorer.SCORERS (not imported: fast --help)

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


def _default_context() -> ContextSettings:
    from client.core.context.policy import ContextSettings

    return ContextSettings()


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
    provider: str = "clova"  # clova | openai | local (client/engine/providers.py)
    provider_auto: bool = False  # local chosen because no CLOVA key was configured
    summary_base_url: str = ""  # local: the niced server for background summaries, once it is ready
    context: ContextSettings = field(default_factory=_default_context)
    max_input_tokens: int = 0
    budget_explicit: bool = False  # --max-input-tokens / MAX_INPUT_TOKENS given: /model keeps it
    max_output_tokens: int = 4_096
    user: str = ""
    memory: bool = True
    memory_threshold: float = 0.5
    memory_top_k: int = 5
    memory_scorer: str = "local"  # local: shipped light scorer (no request) | llm: one scoring request
    memory_budget: int = 600  # tokens of the [장기 기억] section
    max_model_calls: int = 12  # per turn; the last one is made without tools (client/engine/limits.py)
    max_tool_calls: int = 20  # per turn
    debug: bool = False
    lang: str = "ko"
    continue_last: bool = False  # -c: this user's most recently active thread
    prompt: str | None = None  # -p: the one message (stdin already read); None: a chat
    output_format: str = "text"  # -p: text | json
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
        from client.engine.store.pg_url import url_passwords  # a password in a postgresql:// --db URL

        return [v for v in [self.api_key or "", *env_secrets(), *url_passwords(self.db)] if len(v) >= 4]


SECRET_VARS = ("CLOVA_STUDIO_API_KEY", "CLOVASTUDIO_API_KEY", "OPENAI_API_KEY", "NAVER_CLIENT_SECRET", "NAVER_CLIENT_ID")


def env_secrets() -> list[str]:
    from client.engine.store.pg_url import url_passwords  # the password of a postgresql:// CHECKPOINT_DB

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
    p.add_argument("--db", default=None, metavar="PATH|URL",
                   help=tr("SQLite 파일 또는 postgresql://USER:PASS@HOST/DB (env CHECKPOINT_DB; 기본: ./checkpoint.db 가 있으면 그것, "
                           "없으면 $XDG_DATA_HOME/mcp-chat/checkpoint.db)",
                           "SQLite file or postgresql://USER:PASS@HOST/DB (env CHECKPOINT_DB; default: ./checkpoint.db if it exists, "
                           "else $XDG_DATA_HOME/mcp-chat/checkpoint.db)"))


def add_common_options(p: argparse.ArgumentParser) -> None:
    """--lang and --debug, on every command."""
    p.add_argument("--lang", choices=("ko", "en"), help=tr("UI 언어 (env MCP_CHAT_LANG, 기본 ko)", "UI language (env MCP_CHAT_LANG, default ko)"))
    p.add_argument("--debug", action="store_true", help=tr("오류 추적과 요청 로그 (비밀값 제외)", "tracebacks and request logging (never secrets)"))


def add_chat_options(p: argparse.ArgumentParser) -> None:
    add_db_option(p)
    which = p.add_mutually_exclusive_group()
    which.add_argument("--thread", metavar="ID", help=tr("이어갈(없으면 만들) 세션 ID", "session to resume (created if missing)"))
    which.add_argument("--new", action="store_true", help=tr("새 세션을 바로 시작", "start a new session at once"))
    which.add_argument("-c", "--continue", dest="continue_last", action="store_true",
                       help=tr("이 사용자가 가장 최근에 쓴 세션을 이어감", "resume this user's most recently active session"))
    p.add_argument("-p", "--print", dest="print_prompt", nargs="?", const="", default=None, metavar="PROMPT",
                   help=tr("한 번 답하고 종료: PROMPT (없으면 stdin 전체를 한 메시지로)",
                           "answer once and exit: PROMPT (or all of stdin as one message)"))
    p.add_argument("--output-format", choices=OUTPUT_FORMATS,
                   help=tr("-p 출력 형식: text (답변만) 또는 json (답변, 세션 ID, 도구 호출, 토큰, 컨텍스트 조치)",
                           "-p output: text (the answer) or json (answer, session id, tool calls, tokens, context action)"))
    p.add_argument("--server-url", action="append", metavar="URL",
                   help=tr("streamable HTTP MCP 서버 URL, 여러 번 지정 가능 (env MCP_SERVER_URL; 기본: 내장 검색 서버를 stdio로 실행)",
                           "streamable-HTTP MCP server URL, repeatable (env MCP_SERVER_URL; default: the bundled search server over stdio)"))
    p.add_argument("--mcp-config", metavar="FILE",
                   help=tr("MCP 서버 설정 파일 (mcpServers JSON, env MCP_CONFIG; 기본 $XDG_CONFIG_HOME/mcp-chat/mcp.json 이 있으면 그것)",
                           "MCP servers file (mcpServers JSON, env MCP_CONFIG; default $XDG_CONFIG_HOME/mcp-chat/mcp.json if it exists)"))
    p.add_argument("--with-search", action="store_true",
                   help=tr("다른 MCP 서버와 함께 내장 검색 서버도 실행", "run the bundled search server alongside the others"))
    p.add_argument("--context", choices=STRATEGIES,
                   help=tr(f"컨텍스트 정책 (env CONTEXT_STRATEGY, 기본 {DEFAULT_STRATEGY})", f"context policy (env CONTEXT_STRATEGY, default {DEFAULT_STRATEGY})"))
    p.add_argument("--max-turns", type=int, metavar="M",
                   help=tr("원문 그대로 유지할 완료된 턴 수 (env MAX_TURNS_TO_KEEP; trim 5, summarize 2)",
                           "completed turns kept verbatim (env MAX_TURNS_TO_KEEP; trim 5, summarize 2)"))
    p.add_argument("--summary-after", type=int, metavar="N",
                   help=tr("요약을 시작하는 턴 수 N (env CONTEXT_TURNS_LIMIT, 기본 5)", "summarize past N turns (env CONTEXT_TURNS_LIMIT, default 5)"))
    p.add_argument("--max-input-tokens", type=int, metavar="T",
                   help=tr("요청 하나의 토큰 예산 (env MAX_INPUT_TOKENS; 기본: 모델 창 - 출력 예약)",
                           "token budget of one request (env MAX_INPUT_TOKENS; default: model window minus reserved output)"))
    p.add_argument("--user", metavar="NAME", help=tr("장기 기억의 주인 (env MCP_CHAT_USER, 기본: OS 사용자)", "owner of long-term memory (env MCP_CHAT_USER, default: the OS user)"))
    p.add_argument("--no-memory", action="store_true", help=tr("장기 기억을 쓰지 않음", "no long-term memory read or written"))
    p.add_argument("--memory-threshold", type=float, metavar="S",
                   help=tr("장기 기억으로 남길 최소 유용성 점수 (기본 0.5)", "minimum usefulness score kept in memory (default 0.5)"))
    p.add_argument("--memory-top-k", type=int, metavar="K",
                   help=tr("세션당 남길 장기 기억 최대 개수 (기본 5)", "most memory items kept per session (default 5)"))
    p.add_argument("--model", metavar="NAME", help=tr(f"모델 이름 (env CLOVA_STUDIO_MODEL, 기본 {DEFAULT_MODEL})", f"model name (env CLOVA_STUDIO_MODEL, default {DEFAULT_MODEL})"))
    p.add_argument("--memory-scorer", choices=MEMORY_SCORERS,
                   help=tr("장기 기억 유용성 채점: local (내장 경량 모델, 요청 없음, 기본) 또는 llm (env MCP_CHAT_MEMORY_SCORER)",
                           "memory usefulness scoring: local (shipped light model, no request, default) or llm (env MCP_CHAT_MEMORY_SCORER)"))
    p.add_argument("--max-model-calls", type=int, metavar="N",
                   help=tr("한 턴의 모델 호출 상한, 마지막 호출은 도구 없이 (env MAX_MODEL_CALLS, 기본 12)",
                           "model calls per turn at most, the last one without tools (env MAX_MODEL_CALLS, default 12)"))
    p.add_argument("--max-tool-calls", type=int, metavar="N",
                   help=tr("한 턴의 도구 호출 상한 (env MAX_TOOL_CALLS, 기본 20)", "tool calls per turn at most (env MAX_TOOL_CALLS, default 20)"))
    add_provider_options(p)  # --provider, --base-url
    p.add_argument("--timeout", type=float, metavar="SEC",
                   help=tr("모델 요청 제한 시간(초, env CLOVA_STUDIO_TIMEOUT, 기본 120)", "model request timeout (seconds, env CLOVA_STUDIO_TIMEOUT, default 120)"))
    p.add_argument("--require-tools", action="store_true", help=tr("MCP 서버 연결 실패 시 종료", "exit when an MCP server cannot be reached"))
    p.add_argument("--yes", action="store_true",
                   help=tr("도구 호출·샘플링·입력 요청을 묻지 않고 모두 허용 (스크립트용, env MCP_CHAT_YES=1)",
                           "approve every tool call, sampling and elicitation without asking (scripts; env MCP_CHAT_YES=1)"))
    p.add_argument("--root", action="append", metavar="DIR",
                   help=tr("MCP 서버에 알릴 폴더 (현재 폴더 외에 추가, 여러 번 지정 가능, env MCP_CHAT_ROOTS=a:b)",
                           "folder offered to MCP servers besides the current one, repeatable (env MCP_CHAT_ROOTS=a:b)"))
    add_common_options(p)


def resolve_db(args: argparse.Namespace) -> str:
    return args.db or os.environ.get("CHECKPOINT_DB") or default_db()


def resolve_once(args: argparse.Namespace, s: Settings) -> None:
    """-c, -p and --output-format (the prompt itself is read by the caller)."""
    s.continue_last = bool(getattr(args, "continue_last", False))
    fmt = getattr(args, "output_format", None)
    if fmt and getattr(args, "print_prompt", None) is None:
        raise ConfigError("print_only", detail="--output-format")
    s.output_format = fmt or "text"


def apply_model_window(s: Settings, budget: int | None = None) -> None:
    """Output reserve and request budget for s.model (an explicit budget is kept)."""
    window, out = MODEL_WINDOWS.get(s.model, MODEL_WINDOWS["*"])
    s.max_output_tokens = max(out, MIN_TOOL_COMPLETION_TOKENS)
    if budget is not None:
        s.max_input_tokens, s.budget_explicit = budget, True
    elif not s.budget_explicit:
        s.max_input_tokens = window - s.max_output_tokens


def resolve(args: argparse.Namespace) -> Settings:
    """Merge options, environment and defaults; validate."""
    s = Settings()
    s.db = resolve_db(args)
    s.debug = bool(args.debug)
    s.lang = args.lang or os.environ.get("MCP_CHAT_LANG") or "ko"
    s.thread = args.thread
    s.new = bool(args.new)
    resolve_once(args, s)
    if s.thread is not None and not THREAD_ID_RE.match(s.thread):
        raise ConfigError("bad_thread_id")
    env_url = os.environ.get("MCP_SERVER_URL") or ""
    s.server_urls = list(args.server_url or ([env_url] if env_url.strip() else []))
    s.server_url = s.server_urls[0] if s.server_urls else None
    s.mcp_config = args.mcp_config or os.environ.get("MCP_CONFIG") or None
    if s.mcp_config is None and not s.server_urls and user_mcp_config().is_file():
        s.mcp_config = str(user_mcp_config())  # the per-user default mcpServers file
    s.with_search = bool(args.with_search)
    s.model = args.model or os.environ.get("CLOVA_STUDIO_MODEL") or DEFAULT_MODEL
    s.api_key = os.environ.get("CLOVA_STUDIO_API_KEY") or os.environ.get("CLOVASTUDIO_API_KEY") or None
    s.base_url = os.environ.get("CLOVA_STUDIO_BASE_URL") or DEFAULT_BASE_URL
    from client.engine.providers import apply_provider  # sets provider, model, endpoint, key

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
    from client.core.context.policy import ContextSettings

    s.context = ContextSettings(strategy, max_turns, summary_after or 5)  # type: ignore[arg-type]
    budget = args.max_input_tokens if args.max_input_tokens is not None else _env_int("MAX_INPUT_TOKENS")
    if budget is not None and budget < 100:
        raise ConfigError("bad_option", detail="--max-input-tokens >= 100")
    apply_model_window(s, budget or None)
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
