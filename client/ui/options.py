"""The command line's options and their resolution into Settings (with the environment).

Kept light: parsed before anything heavy is imported, so `--help` answers at once.
Provider facts (endpoints, windows) come from client/engine/providers.py at resolution.
"""

from __future__ import annotations

import argparse
import getpass
import os

from client.core.config import (
    DEFAULT_BASE_URL, DEFAULT_MODEL, DEFAULT_STRATEGY, MEMORY_SCORERS, OUTPUT_FORMATS, STRATEGIES, THREAD_ID_RE,
    ConfigError, ContextSettings, Settings, env_flag, env_int,
)
from client.core.paths import default_db, user_mcp_config
from client.ui.i18n import tr

PROVIDER_NAMES = ("clova", "openai", "local")  # = client.engine.providers.PROVIDERS (checked by a test)


def add_provider_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--provider", choices=PROVIDER_NAMES,
                   help=tr("모델 제공자 (env MCP_CHAT_PROVIDER): clova (키가 있으면 기본), openai (호환 서버), local (이 컴퓨터의 소형 모델)",
                           "model provider (env MCP_CHAT_PROVIDER): clova (default with a key), openai (compatible server), "
                           "local (a small model on this machine)"))
    p.add_argument("--base-url", metavar="URL",
                   help=tr("openai: OpenAI 호환 서버 주소 (env OPENAI_BASE_URL), 예: http://127.0.0.1:11434/v1",
                           "openai: OpenAI-compatible server address (env OPENAI_BASE_URL), e.g. http://127.0.0.1:11434/v1"))


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
                   help=tr("MCP 서버에 루트로 알릴 폴더, 여러 번 지정 가능 (env MCP_CHAT_ROOTS=a:b; 기본 없음, 현재 폴더는 --root .)",
                           "folder offered to MCP servers as a root, repeatable (env MCP_CHAT_ROOTS=a:b; default none, "
                           "the current folder: --root .)"))
    add_common_options(p)


def resolve_db(args: argparse.Namespace) -> str:
    return args.db or os.environ.get("CHECKPOINT_DB") or default_db(getattr(args, "folder_trusted", False))


def resolve_once(args: argparse.Namespace, s: Settings) -> None:
    """-c, -p and --output-format (the prompt itself is read by the caller)."""
    s.continue_last = bool(getattr(args, "continue_last", False))
    fmt = getattr(args, "output_format", None)
    if fmt and getattr(args, "print_prompt", None) is None:
        raise ConfigError("print_only", detail="--output-format")
    s.output_format = fmt or "text"


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
    s.mcp_config = args.mcp_config or os.environ.get("MCP_CONFIG") or None
    if s.mcp_config is None and not s.server_urls and user_mcp_config().is_file():
        s.mcp_config = str(user_mcp_config())  # the per-user default mcpServers file
    s.with_search = bool(args.with_search)
    s.model = args.model or os.environ.get("CLOVA_STUDIO_MODEL") or DEFAULT_MODEL
    s.api_key = os.environ.get("CLOVA_STUDIO_API_KEY") or os.environ.get("CLOVASTUDIO_API_KEY") or None
    s.base_url = os.environ.get("CLOVA_STUDIO_BASE_URL") or DEFAULT_BASE_URL
    from client.engine.providers import apply_model_window, choose_provider  # sets provider, model, endpoint, key

    chosen = getattr(args, "provider", None) or os.environ.get("MCP_CHAT_PROVIDER", "").strip() or None
    if chosen is not None and chosen not in PROVIDER_NAMES:
        raise ConfigError("bad_option", detail=f"MCP_CHAT_PROVIDER={chosen!r}")
    choose_provider(s, chosen, model=getattr(args, "model", None), base_url=getattr(args, "base_url", None))
    strategy = args.context or os.environ.get("CONTEXT_STRATEGY") or DEFAULT_STRATEGY
    if strategy not in STRATEGIES:
        raise ConfigError("bad_option", detail=f"CONTEXT_STRATEGY={strategy!r}")
    max_turns = args.max_turns if args.max_turns is not None else env_int("MAX_TURNS_TO_KEEP")
    summary_after = args.summary_after if args.summary_after is not None else env_int("CONTEXT_TURNS_LIMIT")
    if max_turns is not None and max_turns < 0:
        raise ConfigError("bad_option", detail="--max-turns >= 0")
    if summary_after is not None and summary_after < 1:
        raise ConfigError("bad_option", detail="--summary-after >= 1")
    s.context = ContextSettings(strategy, max_turns, summary_after or 5)  # type: ignore[arg-type]
    budget = args.max_input_tokens if args.max_input_tokens is not None else env_int("MAX_INPUT_TOKENS")
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
    calls = args.max_model_calls if args.max_model_calls is not None else env_int("MAX_MODEL_CALLS")
    if calls is not None:
        if calls < 1:
            raise ConfigError("bad_option", detail="--max-model-calls >= 1")
        s.max_model_calls = calls
    tool_calls = args.max_tool_calls if args.max_tool_calls is not None else env_int("MAX_TOOL_CALLS")
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
