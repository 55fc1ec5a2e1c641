"""The command line's options, their environment fallbacks and their resolution into Settings.

Every environment variable that stands in for an option is declared next to it (`env=`, as
simonw/llm's `envvar=`), and read in one place, `resolve()`; those with no option are read by
client/ui/env_settings.py into Settings (`tuning`, `dirs`). The engine reads no settings from the
environment (tests/unit/test_architecture.py holds it). Kept light: parsed before anything heavy is imported, so `--help`
answers at once. Provider facts (endpoints, windows) come from client/engine/providers.py.

Over ~300 lines on purpose: the option table is data (one declaration per option, with its
help in both languages and its environment fallback), kept in one place for `--help`.
"""

from __future__ import annotations

import argparse
import getpass
import math
import os
import sys
from typing import Any, Callable

from client.core.config import (
    DEFAULT_BASE_URL, DEFAULT_MODEL, DEFAULT_STRATEGY, MEMORY_SCORERS, MEMORY_SOURCES, OUTPUT_FORMATS, STRATEGIES, THREAD_ID_RE,
    ConfigError, ContextSettings, Phrase, Settings, bad_value, env_given, http_url, phrase,
)
from client.core.paths import default_db
from client.ui import env_settings
from client.ui.i18n import tr

LANGS = ("ko", "en")  # = client.ui.i18n.TABLES
PROVIDER_NAMES = ("clova", "openai", "local")  # = client.engine.providers.PROVIDERS (checked by a test)

# option dest -> the environment variables that stand in for it (first set one wins)
ENV: dict[str, tuple[str, ...]] = {}
# options whose environment variable depends on the provider
MODEL_ENV = {"clova": ("CLOVA_STUDIO_MODEL",), "openai": ("OPENAI_MODEL",)}
BASE_URL_ENV = {"clova": ("CLOVA_STUDIO_BASE_URL",), "openai": ("OPENAI_BASE_URL",)}
KEY_ENV = {"clova": ("CLOVA_STUDIO_API_KEY", "CLOVASTUDIO_API_KEY"), "openai": ("OPENAI_API_KEY",)}
# settings with no option, only an environment variable: client/ui/env_settings.py


def _opt(p: argparse.ArgumentParser | Any, *flags: str, env: str | tuple[str, ...] = (), **kw: Any) -> argparse.Action:
    """add_argument, recording the environment variables that stand in for the option."""
    action = p.add_argument(*flags, **kw)
    if env:
        ENV[action.dest] = (env,) if isinstance(env, str) else tuple(env)
    return action


env_value = env_settings.raw  # the first of the names set to something other than blanks, stripped


def _from_env(dest: str, convert: Callable[[str], Any] = str, choices: tuple[str, ...] | None = None) -> Any:
    for name in ENV.get(dest, ()):
        raw = env_value(name)
        if raw is None:
            continue
        try:
            value = convert(raw)
        except ValueError:
            raise bad_value(env_given(name, raw), phrase("rule_int" if convert is int else "rule_number")) from None
        if choices is not None and value not in choices:
            raise bad_value(env_given(name, raw), phrase("rule_choice", choices=", ".join(choices)))
        return value
    return None


def value(args: argparse.Namespace, dest: str, convert: Callable[[str], Any] = str,
          choices: tuple[str, ...] | None = None) -> Any:
    """The option if given, else its environment variable (converted and checked), else None."""
    given = getattr(args, dest, None)
    if given is not None:
        return given
    return _from_env(dest, convert, choices)


def add_provider_options(p: argparse.ArgumentParser) -> None:
    _opt(p, "--provider", env="MCP_CHAT_PROVIDER", choices=PROVIDER_NAMES,
                   help=tr("모델 제공자 (env MCP_CHAT_PROVIDER): clova (키가 있으면 기본), openai (호환 서버), local (이 컴퓨터의 소형 모델)",
                           "model provider (env MCP_CHAT_PROVIDER): clova (default with a key), openai (compatible server), "
                           "local (a small model on this machine)"))
    p.add_argument("--base-url", metavar="URL",
                   help=tr("openai: OpenAI 호환 서버 주소 (env OPENAI_BASE_URL), 예: http://127.0.0.1:11434/v1",
                           "openai: OpenAI-compatible server address (env OPENAI_BASE_URL), e.g. http://127.0.0.1:11434/v1"))


def add_db_option(p: argparse.ArgumentParser) -> None:
    _opt(p, "--db", env="CHECKPOINT_DB", default=None, metavar="PATH|URL",
                   help=tr("SQLite 파일 또는 postgresql://USER:PASS@HOST/DB (env CHECKPOINT_DB; 기본: ./checkpoint.db 가 있으면 그것, "
                           "없으면 $XDG_DATA_HOME/mcp-chat/checkpoint.db)",
                           "SQLite file or postgresql://USER:PASS@HOST/DB (env CHECKPOINT_DB; default: ./checkpoint.db if it exists, "
                           "else $XDG_DATA_HOME/mcp-chat/checkpoint.db)"))


def add_user_option(p: argparse.ArgumentParser) -> None:
    _opt(p, "--user", env="MCP_CHAT_USER", metavar="NAME", help=tr("장기 기억의 주인 (env MCP_CHAT_USER, 기본: OS 사용자)", "owner of long-term memory (env MCP_CHAT_USER, default: the OS user)"))


def resolve_user(args: argparse.Namespace) -> str:
    """--user, MCP_CHAT_USER, or the OS user: who owns what a command makes (a chat's, a fork's, an import's threads)."""
    return value(args, "user") or _os_user()


def import_identity(args: argparse.Namespace) -> tuple[str, str]:
    """`mcp-chat import`: the owner of the new threads and their system prompt (the built-in one,
    or MCP_CHAT_SYSTEM_PROMPT / MCP_CHAT_APPEND_SYSTEM_PROMPT), as a new chat would have them."""
    return resolve_user(args), _system_prompt(args, Settings().system_prompt)


def add_common_options(p: argparse.ArgumentParser) -> None:
    """--lang and --debug, on every command."""
    _opt(p, "--lang", env="MCP_CHAT_LANG", choices=LANGS, help=tr("UI 언어 (env MCP_CHAT_LANG, 기본 ko)", "UI language (env MCP_CHAT_LANG, default ko)"))
    p.add_argument("--debug", action="store_true", help=tr("오류 추적과 요청 로그 (비밀값 제외)", "tracebacks and request logging (never secrets)"))


def add_chat_options(p: argparse.ArgumentParser) -> None:
    add_db_option(p)
    which = p.add_mutually_exclusive_group()
    which.add_argument("--thread", metavar="ID", help=tr("이어갈(없으면 만들) 세션 ID", "session to resume (created if missing)"))
    which.add_argument("--new", action="store_true", help=tr("새 세션을 바로 시작", "start a new session at once"))
    which.add_argument("-c", "--continue", dest="continue_last", action="store_true",
                       help=tr("이 사용자가 가장 최근에 쓴 (턴이 있는) 세션을 이어감",
                               "resume this user's most recently active session (one that has turns)"))
    which.add_argument("-r", "--resume", nargs="?", const="", default=None, metavar="ID",
                       help=tr("세션 ID(또는 고유한 앞부분)를 이어감; ID 없이: 터미널에서 최근 세션 목록에서 고름",
                               "resume session ID (or a unique prefix); without ID: pick from the recent sessions at a terminal"))
    p.add_argument("--fork", "--fork-session", dest="fork_session", action="store_true",
                   help=tr("-r/-c/--thread 로 고른 세션의 사본을 만들어 그것을 이어감 (원래 세션은 그대로)",
                           "resume a copy of the session chosen by -r/-c/--thread (the session itself is unchanged)"))
    p.add_argument("-p", "--print", dest="print_prompt", nargs="?", const="", default=None, metavar="PROMPT",
                   help=tr("한 번 답하고 종료: PROMPT (없으면 stdin 전체를 한 메시지로)",
                           "answer once and exit: PROMPT (or all of stdin as one message)"))
    p.add_argument("--output-format", choices=OUTPUT_FORMATS,
                   help=tr("-p 출력 형식: text (답변만) 또는 json (답변, 세션 ID, 도구 호출, 토큰, 컨텍스트 조치)",
                           "-p output: text (the answer) or json (answer, session id, tool calls, tokens, context action)"))
    _opt(p, "--server-url", env="MCP_SERVER_URL", action="append", metavar="URL",
                   help=tr("streamable HTTP MCP 서버 URL, 여러 번 지정 가능 (env MCP_SERVER_URL; 기본: 내장 검색 서버를 stdio로 실행)",
                           "streamable-HTTP MCP server URL, repeatable (env MCP_SERVER_URL; default: the bundled search server over stdio)"))
    _opt(p, "--mcp-config", env="MCP_CONFIG", metavar="FILE",
                   help=tr("MCP 서버 설정 파일 (mcpServers JSON, env MCP_CONFIG; 기본 $XDG_CONFIG_HOME/mcp-chat/mcp.json 이 있으면 그것)",
                           "MCP servers file (mcpServers JSON, env MCP_CONFIG; default $XDG_CONFIG_HOME/mcp-chat/mcp.json if it exists)"))
    p.add_argument("--with-search", action="store_true",
                   help=tr("다른 MCP 서버와 함께 내장 검색 서버도 실행", "run the bundled search server alongside the others"))
    _opt(p, "--context", env="CONTEXT_STRATEGY", choices=STRATEGIES,
                   help=tr(f"컨텍스트 정책 (env CONTEXT_STRATEGY, 기본 {DEFAULT_STRATEGY})", f"context policy (env CONTEXT_STRATEGY, default {DEFAULT_STRATEGY})"))
    _opt(p, "--max-turns", env="MAX_TURNS_TO_KEEP", type=int, metavar="M",
                   help=tr("원문 그대로 유지할 완료된 턴 수 (env MAX_TURNS_TO_KEEP; trim 5, summarize 2)",
                           "completed turns kept verbatim (env MAX_TURNS_TO_KEEP; trim 5, summarize 2)"))
    _opt(p, "--summary-after", env="CONTEXT_TURNS_LIMIT", type=int, metavar="N",
                   help=tr("요약을 시작하는 턴 수 N (env CONTEXT_TURNS_LIMIT, 기본 5)", "summarize past N turns (env CONTEXT_TURNS_LIMIT, default 5)"))
    _opt(p, "--max-input-tokens", env="MAX_INPUT_TOKENS", type=int, metavar="T",
                   help=tr("요청 하나의 토큰 예산 (env MAX_INPUT_TOKENS; 기본: 모델 창 - 출력 예약)",
                           "token budget of one request (env MAX_INPUT_TOKENS; default: model window minus reserved output)"))
    add_user_option(p)
    p.add_argument("--no-memory", action="store_true", help=tr("장기 기억을 쓰지 않음", "no long-term memory read or written"))
    p.add_argument("--memory-threshold", type=float, metavar="S",
                   help=tr("장기 기억으로 남길 최소 유용성 점수 (기본 0.5)", "minimum usefulness score kept in memory (default 0.5)"))
    p.add_argument("--memory-top-k", type=int, metavar="K",
                   help=tr("세션당 남길 장기 기억 최대 개수 (기본 5)", "most memory items kept per session (default 5)"))
    p.add_argument("-m", "--model", metavar="NAME", help=tr(f"모델 이름 (env CLOVA_STUDIO_MODEL, 기본 {DEFAULT_MODEL})", f"model name (env CLOVA_STUDIO_MODEL, default {DEFAULT_MODEL})"))
    _opt(p, "--system-prompt", env="MCP_CHAT_SYSTEM_PROMPT", metavar="TEXT",
         help=tr("새 세션의 시스템 프롬프트를 TEXT로 바꿈 (env MCP_CHAT_SYSTEM_PROMPT; 세션은 만들 때의 것을 유지)",
                 "replace a new session's system prompt with TEXT (env MCP_CHAT_SYSTEM_PROMPT; a session keeps its own)"))
    _opt(p, "--append-system-prompt", env="MCP_CHAT_APPEND_SYSTEM_PROMPT", metavar="TEXT",
         help=tr("새 세션의 시스템 프롬프트 끝에 TEXT를 덧붙임 (env MCP_CHAT_APPEND_SYSTEM_PROMPT)",
                 "append TEXT to a new session's system prompt (env MCP_CHAT_APPEND_SYSTEM_PROMPT)"))
    _opt(p, "--memory-scorer", env="MCP_CHAT_MEMORY_SCORER", choices=MEMORY_SCORERS,
                   help=tr("장기 기억 유용성 채점: local (내장 경량 모델, 요청 없음, 기본) 또는 llm (env MCP_CHAT_MEMORY_SCORER)",
                           "memory usefulness scoring: local (shipped light model, no request, default) or llm (env MCP_CHAT_MEMORY_SCORER)"))
    _opt(p, "--memory-source", env="MCP_CHAT_MEMORY_SOURCE", choices=MEMORY_SOURCES,
         help=tr("장기 기억 후보: both (모델이 뽑고 사용자 말에 근거한 것 + 사용자의 말), llm, user (사용자의 말만, 요청 없음; "
                 "로컬 모델의 기본) (env MCP_CHAT_MEMORY_SOURCE)",
                 "memory candidates: both (the model's items grounded in the user's words + the user's own statements), "
                 "llm, user (the user's statements only, no request; the local model's default) (env MCP_CHAT_MEMORY_SOURCE)"))
    _opt(p, "--max-model-calls", env="MAX_MODEL_CALLS", type=int, metavar="N",
                   help=tr("한 턴의 모델 호출 상한, 마지막 호출은 도구 없이 (env MAX_MODEL_CALLS, 기본 12)",
                           "model calls per turn at most, the last one without tools (env MAX_MODEL_CALLS, default 12)"))
    _opt(p, "--max-tool-calls", env="MAX_TOOL_CALLS", type=int, metavar="N",
                   help=tr("한 턴의 도구 호출 상한 (env MAX_TOOL_CALLS, 기본 20)", "tool calls per turn at most (env MAX_TOOL_CALLS, default 20)"))
    add_provider_options(p)  # --provider, --base-url
    _opt(p, "--timeout", env="CLOVA_STUDIO_TIMEOUT", type=float, metavar="SEC",
                   help=tr("모델 요청 제한 시간(초, env CLOVA_STUDIO_TIMEOUT, 기본 120)", "model request timeout (seconds, env CLOVA_STUDIO_TIMEOUT, default 120)"))
    p.add_argument("--require-tools", action="store_true", help=tr("MCP 서버 연결 실패 시 종료", "exit when an MCP server cannot be reached"))
    _opt(p, "--yes", env="MCP_CHAT_YES", action="store_true",
                   help=tr("도구 호출·샘플링·입력 요청을 묻지 않고 모두 허용 (스크립트용, env MCP_CHAT_YES=1)",
                           "approve every tool call, sampling and elicitation without asking (scripts; env MCP_CHAT_YES=1)"))
    _opt(p, "--root", env="MCP_CHAT_ROOTS", action="append", metavar="DIR",
                   help=tr("MCP 서버에 루트로 알릴 폴더, 여러 번 지정 가능 (env MCP_CHAT_ROOTS=a:b; 기본 없음, 현재 폴더는 --root .)",
                           "folder offered to MCP servers as a root, repeatable (env MCP_CHAT_ROOTS=a:b; default none, "
                           "the current folder: --root .)"))
    add_common_options(p)


def resolve_lang(args: argparse.Namespace) -> str:
    """--lang, else MCP_CHAT_LANG (ko or en; anything else is a bad option), else ko."""
    return value(args, "lang", choices=LANGS) or "ko"


def resolve_db(args: argparse.Namespace) -> str:
    return value(args, "db") or default_db(env_settings.dirs(), getattr(args, "folder_trusted", False))


def resolve(args: argparse.Namespace, *, interactive: bool | None = None) -> Settings:
    """Options, environment and defaults merged and checked, once: a frozen Settings.
    `interactive`: a person at a terminal (default: stdin is one); -p's message is added by the caller."""
    from client.engine.providers import choose_provider, for_model, provider_name

    fmt = getattr(args, "output_format", None)
    if fmt and getattr(args, "print_prompt", None) is None:
        raise ConfigError("print_only", detail="--output-format")
    interactive = sys.stdin.isatty() if interactive is None else interactive
    thread = getattr(args, "thread", None)
    if thread is not None and not THREAD_ID_RE.match(thread):
        raise ConfigError("bad_thread_id")
    resume = getattr(args, "resume", None)
    if resume and not THREAD_ID_RE.match(resume):
        raise ConfigError("bad_thread_id")
    if resume == "" and (not interactive or getattr(args, "print_prompt", None) is not None):
        raise ConfigError("resume_needs_tty")  # the picker needs a person at a terminal
    fork = bool(getattr(args, "fork_session", False))
    if fork and resume is None and thread is None and not getattr(args, "continue_last", False):
        raise ConfigError("fork_needs_thread")  # a copy of which session?
    server_urls = tuple(u for u in (args.server_url or [_from_env("server_url")]) if u and u.strip())
    mcp_config = value(args, "mcp_config") or None
    dirs = env_settings.dirs()
    if mcp_config is None and not server_urls and (dirs.config / "mcp.json").is_file():
        mcp_config = str(dirs.config / "mcp.json")  # the per-user default mcpServers file
    strategy = value(args, "context", choices=STRATEGIES) or DEFAULT_STRATEGY
    max_turns = _checked(args, "max_turns", int, lambda n: n >= 0, phrase("rule_min", n=0))
    summary_after = _checked(args, "summary_after", int, lambda n: n >= 1, phrase("rule_min", n=1))
    budget = _checked(args, "max_input_tokens", int, lambda n: n >= 100, phrase("rule_min", n=100))
    threshold = _checked(args, "memory_threshold", float, lambda x: 0.0 <= x <= 1.0, phrase("rule_range", lo=0, hi=1))  # nan fails
    top_k = _checked(args, "memory_top_k", int, lambda n: n >= 0, phrase("rule_min", n=0))
    calls = _checked(args, "max_model_calls", int, lambda n: n >= 1, phrase("rule_min", n=1))
    tool_calls = _checked(args, "max_tool_calls", int, lambda n: n >= 0, phrase("rule_min", n=0))
    timeout = _checked(args, "timeout", float, lambda x: math.isfinite(x) and x > 0, phrase("rule_positive_seconds"))
    roots = getattr(args, "root", None) or [r for r in (env_value(*ENV["root"]) or "").split(os.pathsep) if r.strip()]
    for r in roots:
        if not os.path.isdir(r):
            raise bad_value(_given(args, "root", r), phrase("rule_folder"))
    defaults = Settings()
    s = Settings(
        db=resolve_db(args), debug=bool(args.debug), lang=resolve_lang(args),
        thread=thread, new=bool(args.new), continue_last=bool(getattr(args, "continue_last", False)),
        output_format=fmt or "text",
        resume=resume, interactive=interactive, system_prompt=_system_prompt(args, defaults.system_prompt),
        server_urls=server_urls, mcp_config=mcp_config, with_search=bool(args.with_search),
        context=ContextSettings(strategy, max_turns, summary_after or 5),  # type: ignore[arg-type]
        user=resolve_user(args), memory=not args.no_memory,
        memory_threshold=defaults.memory_threshold if threshold is None else threshold,
        memory_top_k=defaults.memory_top_k if top_k is None else top_k,
        memory_scorer=value(args, "memory_scorer", choices=MEMORY_SCORERS) or "local",
        memory_source=value(args, "memory_source", choices=MEMORY_SOURCES) or "",
        max_model_calls=defaults.max_model_calls if calls is None else calls,
        max_tool_calls=defaults.max_tool_calls if tool_calls is None else tool_calls,
        require_tools=bool(args.require_tools), fork_session=fork,
        yes=bool(getattr(args, "yes", False)) or env_settings.flag(ENV["yes"][0]),
        roots=tuple(os.path.abspath(r) for r in roots),
        timeout=defaults.timeout if timeout is None else timeout,
        temperature=env_settings.temperature(),
        local_url=env_settings.local_url(),
        summary_server=env_settings.summary_server(),
        tool_search=env_settings.tool_search(),
        memory_detach=env_settings.memory_detach(), tuning=env_settings.tuning(), dirs=dirs,
    )
    chosen = value(args, "provider", choices=PROVIDER_NAMES)
    name = provider_name(chosen, clova_key=env_value(*KEY_ENV["clova"]))
    _check_base_url(args, name)
    s = choose_provider(
        s, name, auto=chosen is None and name == "local",
        model=getattr(args, "model", None) or env_value(*MODEL_ENV.get(name, ())) or (DEFAULT_MODEL if name == "clova" else None),
        base_url=getattr(args, "base_url", None) or env_value(*BASE_URL_ENV.get(name, ()))
        or (DEFAULT_BASE_URL if name == "clova" else None),
        api_key=env_value(*KEY_ENV.get(name, ())),
    )
    return for_model(s, budget=budget)


def _given(args: argparse.Namespace, dest: str, shown: Any = None) -> str | Phrase:
    """How the user gave `dest`, for an error line: `--max-turns=-1` or the variable MAX_TURNS_TO_KEEP='-1'."""
    given = getattr(args, dest, None)
    flag = "--" + dest.replace("_", "-")
    if given is not None:
        return f"{flag}={shown if shown is not None else given}"
    for name in ENV.get(dest, ()):
        raw = env_value(name)
        if raw is not None:
            return env_given(name, raw)
    return flag


def _system_prompt(args: argparse.Namespace, builtin: str) -> str:
    """--system-prompt replaces the built-in prompt, --append-system-prompt extends it (options, then env)."""
    parts = []
    for dest, default in (("system_prompt", builtin), ("append_system_prompt", "")):
        text = value(args, dest)
        if text is not None and not text.strip():
            raise bad_value(_given(args, dest, repr(text)), phrase("rule_text"))
        parts.append(text.strip() if text else default)
    return "\n\n".join(p for p in parts if p)


def _checked(args: argparse.Namespace, dest: str, convert: Callable[[str], Any], ok: Callable[[Any], bool],
             rule: Phrase) -> Any:
    """value(), and a ConfigError naming the option or variable when it breaks `rule`."""
    v = value(args, dest, convert)
    if v is not None and not ok(v):
        raise bad_value(_given(args, dest), rule)
    return v


def _check_base_url(args: argparse.Namespace, name: str) -> None:
    """A model endpoint given by --base-url or *_BASE_URL must be an http(s) URL."""
    given = getattr(args, "base_url", None)
    names = BASE_URL_ENV.get(name, ())
    shown, url = ("--base-url", given) if given else next(
        ((n, env_value(n)) for n in names if env_value(n)), ("", None))
    if url is not None and not http_url(url):
        given = f"{shown}={url}" if shown == "--base-url" else env_given(shown, url)
        raise bad_value(given, phrase("rule_http", example="https://HOST/v1"))


def _os_user() -> str:
    try:
        return getpass.getuser()
    except Exception:  # no passwd entry (containers)
        return "user"
