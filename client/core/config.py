"""Settings: what a chat runs with, and the errors of settling it. Pure data.

Imports nothing from the `client` package (the bottom of the import graph) and nothing
heavy, so `mcp-chat --help` answers at once. Reading the command line lives in
client/ui/options.py; provider facts (windows, endpoints) in client/engine/providers.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Mapping
from urllib.parse import unquote, urlsplit

Strategy = Literal["none", "trim", "summarize"]
STRATEGIES: tuple[str, ...] = ("none", "trim", "summarize")
DEFAULT_MAX_TURNS = {"none": 0, "trim": 5, "summarize": 2}
OUTPUT_FORMATS = ("text", "json")
MEMORY_SCORERS = ("local", "llm")  # = client.engine.memory.scorer.SCORERS (not imported: fast --help)
MEMORY_SOURCES = ("both", "llm", "user")  # = client.core.memory.candidates.SOURCES

DEFAULT_BASE_URL = "https://clovastudio.stream.ntruss.com/v1/openai"
DEFAULT_MODEL = "HCX-005"
DEFAULT_STRATEGY = "summarize"
MIN_TOOL_COMPLETION_TOKENS = 1_024  # CLOVA rejects less when tools are bound
THREAD_ID_RE = re.compile(r"^[A-Za-z0-9_.\-]{1,128}$")
EXIT_WORDS = {"종료", "exit", "quit"}
# what a typed "yes" / "no" may be, in every question (ㅛ/ㅜ: y/n on the Korean 2-set layout)
YES_WORDS = frozenset({"y", "yes", "ㅛ", "예", "네", "응", "ㅇ"})
NO_WORDS = frozenset({"n", "no", "ㅜ", "아니오", "아니요", "아니"})
MASK = "***"  # what stands in for a secret in any shown text (client/core/secrets.py, pg_url.py)
# the built-in system prompt's last sentence: the answer follows the user's language, not the prompt's
ANSWER_LANGUAGE = "사용자가 쓴 언어로 답하세요 (reply in the language of the user's message)."


@dataclass(frozen=True)
class ContextSettings:
    """The context policy's knobs (decided in client/core/context/policy.py)."""

    strategy: Strategy = "summarize"
    max_turns: int | None = None  # None: the strategy's default
    summary_after: int = 5

    @property
    def keep_turns(self) -> int:
        return DEFAULT_MAX_TURNS[self.strategy] if self.max_turns is None else self.max_turns


@dataclass(frozen=True)
class Phrase:
    """A UI message by key, as the field of another message: the UI says it in its language
    (client/ui/i18n.py `t` renders a Phrase field). Keeps the words out of the layers below the UI."""

    key: str
    fmt: tuple[tuple[str, object], ...] = ()


def phrase(key: str, **fmt: object) -> Phrase:
    return Phrase(key, tuple(fmt.items()))


def bad_value(given: object, rule: Phrase) -> "ConfigError":
    """A setting whose value breaks `rule` (a `rule_*` phrase): one line naming it and what it must be.
    `given`: how the user gave it (`--max-turns=-1`, or `env_given(NAME, value)`)."""
    return ConfigError("bad_value", given=given, rule=rule)


def env_given(name: str, value: str) -> Phrase:
    """An environment variable as the user set it, for an error line."""
    return phrase("given_env", name=name, value=value)


class ConfigError(Exception):
    """A configuration problem: one line for the user, exit code 2."""

    def __init__(self, key: str, **fmt: object) -> None:
        super().__init__(key)
        self.key = key
        self.fmt = fmt


@dataclass(frozen=True)
class Tuning:
    """What only an environment variable sets and the engine uses, read and checked once by the ui
    (client/ui/env_settings.py) and handed down: nothing below the ui reads the environment."""

    startup_timeout: float | None = None  # MCP_CHAT_STARTUP_TIMEOUT: seconds per MCP server start (None: 30)
    startup_grace: float = 3.0  # MCP_CHAT_STARTUP_GRACE: seconds a message waits for servers seen first
    keep_alive: float = 300.0  # MCP_CHAT_LOCAL_KEEP_ALIVE: seconds the local model stays up after a session
    local_threads: int | None = None  # MCP_CHAT_LOCAL_THREADS: llama-server's threads (None: its own choice)
    oauth_headless: bool = False  # MCP_CHAT_OAUTH_HEADLESS: the login URL is fetched, not shown
    backoff_scale: float = 1.0  # MCP_CHAT_TEST_BACKOFF_SCALE (test suites): waits between tries, scaled


@dataclass(frozen=True)
class Dirs:
    """The per-user folders (XDG base directories), the one rule: `$VAR/mcp-chat`, else
    `~/<fallback>/mcp-chat`; a relative $VAR is ignored (the XDG spec), so the working folder never
    stands in for a per-user one. The cache: `$MCP_CHAT_CACHE` first (the local model's)."""

    data: Path
    config: Path
    cache: Path

    @classmethod
    def of(cls, env: Mapping[str, str]) -> "Dirs":
        def xdg(var: str, *fallback: str) -> Path:
            base = env.get(var, "").strip()
            return (Path(base) if base and Path(base).is_absolute() else Path.home().joinpath(*fallback)) / "mcp-chat"

        own = env.get("MCP_CHAT_CACHE", "").strip()
        return cls(xdg("XDG_DATA_HOME", ".local", "share"), xdg("XDG_CONFIG_HOME", ".config"),
                   Path(own).expanduser() if own else xdg("XDG_CACHE_HOME", ".cache"))


@dataclass(frozen=True)
class Settings:
    """What a chat runs with, resolved once (client/ui/options.py) and frozen: a value. A changed
    value is a new Settings (dataclasses.replace), e.g. for another model (client/engine/models.py);
    what a provider's runtime learns while the chat runs travels in client/engine/providers.Runtime."""

    db: str = "checkpoint.db"
    thread: str | None = None
    new: bool = False
    server_urls: tuple[str, ...] = ()  # --server-url (repeatable) / MCP_SERVER_URL
    mcp_config: str | None = None  # --mcp-config / MCP_CONFIG: mcpServers JSON file
    with_search: bool = False  # keep the bundled search server alongside configured ones
    model: str = DEFAULT_MODEL
    api_key: str | None = None
    base_url: str = DEFAULT_BASE_URL
    provider: str = "clova"  # clova | openai | local (client/engine/providers.py)
    provider_auto: bool = False  # local chosen because no CLOVA key was configured
    interactive: bool = False  # a person at a terminal (decided once by the ui: stdin is a terminal)
    context: ContextSettings = field(default_factory=ContextSettings)
    max_input_tokens: int = 0
    budget_explicit: bool = False  # --max-input-tokens / MAX_INPUT_TOKENS given: /model keeps it
    max_output_tokens: int = 4_096
    user: str = ""
    memory: bool = True
    memory_threshold: float = 0.5
    memory_top_k: int = 5
    memory_scorer: str = "local"  # local: shipped light scorer (no request) | llm: one scoring request
    memory_source: str = ""  # both | llm | user (client/core/memory/candidates.py); "": the provider's default
    memory_budget: int = 600  # tokens of the [장기 기억] section
    max_model_calls: int = 12  # per turn; the last one is made without tools (client/engine/limits.py)
    max_tool_calls: int = 20  # per turn
    debug: bool = False
    lang: str = "ko"
    continue_last: bool = False  # -c: this user's most recently active thread that has turns
    resume: str | None = None  # -r/--resume: an existing thread's id or unique prefix; "": pick one at the terminal
    fork_session: bool = False  # --fork: open a copy of the chosen thread (client/engine/forks.py)
    prompt: str | None = None  # -p: the one message (stdin already read); None: a chat
    prompt_own: str | None = None  # -p: the user's own line when the message also holds piped stdin ("" for none)
    memory_detach: bool = True  # MCP_CHAT_MEMORY_DETACH: -p leaves passes needing a request to a detached job
    output_format: str = "text"  # -p: text | json
    require_tools: bool = False
    roots: tuple[str, ...] = ()  # --root (repeatable) / MCP_CHAT_ROOTS: offered besides the cwd
    yes: bool = False  # --yes / MCP_CHAT_YES: approve every tool call without asking (scripts)
    timeout: float = 120.0
    temperature: float | None = None  # MCP_CHAT_TEMPERATURE: openai/local sampling temperature (None: the provider's)
    local_url: str = ""  # MCP_CHAT_LOCAL_URL: local, a llama-server already running (none is started)
    summary_server: bool | None = None  # MCP_CHAT_SUMMARY_SERVER: local, the niced summary server (None: at a terminal)
    tool_search: str = "auto"  # MCP_CHAT_TOOL_SEARCH: auto | on | off, deferred tool schemas (deferred_tools.py)
    tuning: Tuning = field(default_factory=Tuning)
    dirs: Dirs = field(default_factory=lambda: Dirs.of({}))  # the ui's: from its environment
    system_prompt: str = (
        "당신은 친절한 AI 어시스턴트입니다. 사용자의 질문에 대해 신뢰할 수 있는 정보만 근거로 삼아 답변하세요. "
        "최신 정보나 사실 확인이 필요하면 검색 도구를 사용하세요. "
        + ANSWER_LANGUAGE
    )


# user:password@ in the authority part of a URL
USERINFO_RE = re.compile(r"(?P<head>[A-Za-z][A-Za-z0-9+.\-]*://[^:/@\s]*:)(?P<pw>[^@\s]*)(?P<at>@)")
# password=... as a query parameter or a key=value conninfo item
PASSWORD_PARAM_RE = re.compile(r"(?P<head>\bpassword\s*=\s*)(?P<pw>'(?:[^'\\]|\\.)*'|[^&\s]*)", re.IGNORECASE)


def http_url(url: str) -> bool:
    """An http(s) URL with a host (what a model endpoint or an MCP server URL must be)."""
    try:
        parts = urlsplit(url)
        return parts.scheme in ("http", "https") and bool(parts.hostname) and (parts.port or 1) > 0
    except ValueError:  # e.g. a port that is not a number
        return False


def url_passwords(url: str) -> list[str]:
    """The password(s) a URL carries, raw and percent-decoded (for redacting free text).
    Here, at the bottom of the import graph, because client/core/secrets.py and pg_url.py need it."""
    found: list[str] = []
    for m in USERINFO_RE.finditer(url):
        found.append(m["pw"])
    for m in PASSWORD_PARAM_RE.finditer(url):
        found.append(m["pw"].strip("'"))
    try:  # the parsed form too (covers odd quoting the regexes miss)
        pw = urlsplit(url).password
        if pw:
            found.append(pw)
    except ValueError:
        pass
    out: list[str] = []
    for pw in found:
        for v in (pw, unquote(pw)):
            if v and v not in out:
                out.append(v)
    return sorted(out, key=len, reverse=True)
