"""Is a line of a user turn the user's own prose? A cheap structural detector (pure, no I/O).

Memory keeps what users say about themselves. What they paste or type for the machine never
is: commands and shell lines, code, SQL, stack traces, log lines, diffs, file listings, a URL
alone, and one-word replies or fillers (`ok`, `ㅋㅋㅋ`, `clear`). Each has a shape that a few
anchored patterns see at once, in Korean and English alike (a localized log says `오류:`), so
they are taken out before any sentence is judged on its meaning (the usefulness scorer,
client/engine/memory/scorer.py). A pasted block goes whole: a fenced block, an indented one, a
run of lines after a traceback's or a diff's header.

Why not a library: the maintained detectors classify whole files (Magika: a model plus an ONNX
runtime; Pygments' `guess_lexer` picks a lexer for any text, prose included); here the unit is
one chat line, often a few words, in two languages. docs/memory.md has the comparison.
"""

from __future__ import annotations

import re
from typing import Iterator

RULES = 1  # the version of these rules; a stored item checked against an older one is checked again once
KINDS = ("command", "code", "sql", "traceback", "log", "diff", "listing", "url", "filler")

_FENCE = re.compile(r"^\s*(```|~~~)")
_URL = re.compile(r"^<?(?:https?://|ftp://|www\.)\S+>?$", re.I)
_TRACE = re.compile(
    r"^(?:Traceback \(most recent call last\)|File \"[^\"]+\", line \d+|During handling of the above exception"
    r"|The above exception was the direct cause|at [\w$.<>]+\([\w$.]*(?::\d+)*\)|at [\w$.<>/]+ \(\S+:\d+:\d+\)"
    r"|Caused by: |panic: |goroutine \d+ \[|thread '[^']*' panicked at|\^+\s*$"
    r"|(?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception|Warning|Interrupt|Exit)\b(?::|$)"
    r"|[a-z_][\w.]*\.[A-Z]\w*(?:Error|Exception)\b)")
_LOG = re.compile(
    r"^(?:\[?\d{4}[-/.]\d{2}[-/.]\d{2}[ T_]\d{1,2}:\d{2}|\[?\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\]?\s"
    r"|[A-Z][a-z]{2} +\d{1,2} \d{2}:\d{2}:\d{2} |\d{1,3}(?:\.\d{1,3}){3} \S+ \S+ \["
    r"|\[(?:ERROR|ERR|WARN|WARNING|INFO|DEBUG|TRACE|FATAL|CRITICAL|NOTICE|PANIC|SEVERE)\]\s*\S|(?:ERROR|ERR|WARN|WARNING|INFO|DEBUG|TRACE|FATAL|CRITICAL|NOTICE|PANIC|SEVERE)(?::|\s+[-|:\[]|\s{2,}\S|\s+\d)"
    r"|(?:E|W|I|F)\d{4} \d{2}:\d{2}|npm (?:ERR!|WARN)|error(?:\[E\d+\])?: |warning: |fatal: |hint: |remote: "
    r"|make(?:\[\d+\])?: \*\*\*|\[(?:error|warn|warning|info|debug)\]"
    r"|(?:오류|에러|경고|치명적\s?오류|알림|상세정보|힌트|정보|디버그)\s*:\s)")
_DIFF_HEAD = re.compile(r"^(?:diff --git |index [0-9a-f]{7,}\.\.[0-9a-f]{7,}|--- (?:a/|/dev/null|\S+\t)|\+\+\+ (?:b/|/dev/null)"
                        r"|@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@|new file mode |deleted file mode |similarity index |rename (?:from|to) "
                        r"|Binary files .* differ$|\\ No newline at end of file)")
_SQL = re.compile(r"^(?:SELECT\b.+\bFROM\b|SELECT\s+[\w*.,\s()]+;?$|INSERT\s+INTO\b|UPDATE\s+[\w.\"`]+\s+SET\b|DELETE\s+FROM\b"
                  r"|CREATE\s+(?:OR\s+REPLACE\s+)?(?:TABLE|INDEX|UNIQUE\s+INDEX|VIEW|DATABASE|SCHEMA|FUNCTION|TRIGGER|EXTENSION)\b"
                  r"|ALTER\s+TABLE\b|DROP\s+(?:TABLE|INDEX|VIEW|DATABASE|SCHEMA)\b|TRUNCATE\s+TABLE\b|GRANT\s+\w+.*\bON\b"
                  r"|WITH\s+\w+\s+AS\s*\(|EXPLAIN\s+(?:ANALYZE\s+)?\w+|BEGIN;|COMMIT;|ROLLBACK;)", re.I)
_PROMPT = re.compile(r"^(?:\$|#|%|>>>|\.\.\.|>|❯|➜|PS [A-Z]:\\[^>]*>|[A-Z]:\\[^>]*>|\w[\w.-]*@[\w.-]+(?::\S*)?[$#%])\s*\S")
_COMMANDS = frozenset("""
sudo git pip pip3 pipx python python3 py uv uvx poetry conda mamba npm npx yarn pnpm node deno bun tsc cd ls ll la cat grep egrep rg
ag find fd docker podman docker-compose kubectl k9s helm minikube kind curl wget http ssh scp rsync sftp rm rmdir mv cp mkdir chmod
chown chgrp ln make cmake ninja cargo rustc rustup go gofmt gcc g++ clang clang++ javac java mvn gradle ruby gem bundle rails php
composer dotnet brew apt apt-get dpkg yum dnf pacman apk snap systemctl service journalctl launchctl export unset source echo printf
tar zip unzip gzip gunzip xz 7z vim vi nvim nano emacs code subl touch head tail less more sed awk xargs kill killall pkill ps top
htop df du free env printenv which whereis whoami history ping traceroute nc telnet ifconfig ip netstat ss lsof nslookup dig tmux
screen zsh bash sh fish chsh crontab mcp-chat psql mysql sqlite3 mongo mongosh redis-cli terraform ansible ansible-playbook vagrant
aws gcloud az gh hub heroku flyctl vercel netlify firebase pytest tox nox black ruff flake8 mypy pylint isort eslint prettier jest
vitest webpack vite jupyter ipython pwd clear exit wc sort uniq tee diff patch openssl gpg base64 md5sum sha256sum stat file
""".split())
# command names that are also English words: a command only with shell syntax after them (`find . -name x`)
_ENGLISH = frozenset("find make go source export head tail touch kill free clear cat code less more sort file diff patch history "
                     "top env echo which screen stat exit bundle service ping http java node ruby fish tee ls".split())
_FUNCTION_WORDS = re.compile(r"\b(?:i|i'm|my|we|our|you|is|are|was|the|a|an|to|for|with|and|of|in|on|it|this|that|me)\b", re.I)
_SHELLISH = re.compile(r"(?:^|\s)--?[A-Za-z][\w-]*|&&|\|\||\s\|\s|\s>>?\s?\S|\$\(|`|\$\{?\w|(?:^|\s)(?:\.{0,2}/|~/)\S*"
                       r"|\S+\.(?:py|js|ts|sh|txt|json|toml|ya?ml|cfg|ini|lock|md|c|h|go|rs|java|rb|php|sql|log|csv|env|tar|gz|zip)\b"
                       r"|(?:^|\s)[A-Za-z_][A-Za-z0-9_]*=\S|\s\S+@\S+:|\s\.\.?(?:\s|$)|\s-$")
_CODE = re.compile(
    r"^(?:def |class |async def |import [\w.]+|from [\w.]+ import |return\b|raise |yield |elif |else:|try:|except\b|finally:"
    r"|with .+:$|if .+:$|for .+ in .+:$|while .+:$|lambda\b|print\(|assert |@[\w.]+(?:\(|$)|#include|#define|#!/"
    r"|package [\w.]+;?$|fn |func |pub |let |const |var |function\b|public |private |protected |static |struct |enum |impl "
    r"|interface |type \w+ |module\.exports|export (?:default |const |function |class )|console\.\w+\(|System\.out|fmt\.\w+\("
    r"|std::|using namespace|namespace |template<|//|/\*|\*/|<!--|-->|<\?php|<\?xml|</?[a-zA-Z][\w-]*(?:\s[^>]*)?/?>"
    r"|[{}\[\]()]+[;,]?$|\w+(?:\.\w+)*\s*(?:[-+*/%|&^]?=|:=)\s*\S.*|[\w.]+\([^)]*\)\s*;?$|\"[\w-]+\"\s*:\s)")
_CODE_CHARS = re.compile(r"[{}()\[\];=<>_$\\|&*#@^~`]")
_LISTING = re.compile(r"^(?:[dlcbps-][rwxsStT-]{9}[.+@]?\s|total \d+$|[│├└┌┐┘┬┴┼─]|(?:\d+(?:\.\d+)?[KMGTB]?\s+)+(?:\.{0,2}/)?\S+/?$"
                      r"|(?:[\w.@-]+/)+[\w.@-]*$|/[\w.@-]+(?:/[\w.@-]+)+/?$|~/\S*$|\./\S*$"
                      r"|(?:[\w@-]+(?:\.[\w-]+)*\.[A-Za-z0-9]{1,5}/?\s+){1,}[\w@-]+(?:\.[\w-]+)*\.[A-Za-z0-9]{1,5}/?$"
                      r"|[\w@-]+\.(?:py|js|ts|tsx|jsx|md|txt|json|toml|ya?ml|lock|cfg|ini|sh|c|h|cc|cpp|go|rs|java|kt|rb|php|html|css"
                      r"|sql|csv|log|env|png|jpg|pdf|zip|gz)$)")
_LIST_MARK = re.compile(r"^(?:[-*•·]|\d{1,2}[.)])\s+(?=\S)")
_WORD = re.compile(r"[0-9A-Za-z가-힣ㄱ-ㅎㅏ-ㅣ]+(?:['’][A-Za-z]+)?")
_JAMO_OR_MARKS = re.compile(r"^[\sㄱ-ㅎㅏ-ㅣ.,!?~^;:*+\-_=()\[\]<>♡♥❤︎…·\u2600-\u27bf\U0001F000-\U0001FAFF]*$")
FILLERS = frozenset("""
ok okay okey k kk ok. yes yep yeah yup ya no nope nah sure fine cool nice great good awesome perfect thanks thank thx ty tnx
lol lmao haha hehe hmm hm huh oh ah wow welp meh clear done next continue go stop bye hi hello hey yo sup gg np pls please
right alright agreed true correct exactly indeed got it gotcha understood roger again retry more same ditto what why how really
응 어 엉 웅 네 넵 넹 예 아니 아니요 아뇨 그래 그래요 좋아 좋아요 좋네 좋다 고마워 고마워요 고맙습니다 감사 감사해요 감사합니다 땡큐
오케이 오키 굿 굿굿 알겠어 알겠어요 알겠습니다 알았어 알았어요 계속 계속해 다음 음 흠 헐 와 대박 맞아 맞아요 그렇지 그치 진짜 정말 됐어
안녕 안녕하세요 잘가 수고 수고했어 수고하셨습니다 ㅇㅇ ㅇㅋ ㄱㄱ ㄴㄴ ㅇㅈ 그럼 글쎄 아하 오 오호 아 에이 왜 뭐 뭐야 다시 확인 완료 끝 좋습니다
""".split())


def line_kind(line: str) -> str | None:
    """The structural kind of one line (KINDS), or None for prose."""
    s = line.strip()
    if not s:
        return None
    if _JAMO_OR_MARKS.match(s):
        return "filler"  # ㅋㅋㅋ, ㅠㅠ, ^^, an emoji
    words = _WORD.findall(s)
    if len(words) == 1 and words[0].lower() in FILLERS:
        return "filler"  # `clear`, `ok`: a one-word reply, whatever else it could be
    if _URL.match(s):
        return "url"
    if _DIFF_HEAD.match(s):
        return "diff"
    if _TRACE.match(s):
        return "traceback"
    if _LOG.match(s):
        return "log"
    if _SQL.match(s):
        return "sql"
    if _LISTING.match(s) or _columns(s):
        return "listing"
    if s[0] in "+-" and len(s) > 1 and s[1] not in "+-":  # a diff's added or removed line
        rest = s[1:].strip()
        if rest and (not _has_hangul(rest) and (_code_like(rest) or _command_like(rest) or not _prose_like(rest))):
            return "diff"
    if _PROMPT.match(s):
        return "command"
    if _command_like(s):
        return "command"
    if _code_like(s):
        return "code"
    if _filler(words):
        return "filler"
    return None


def _columns(s: str) -> bool:
    """`ls` output: names in columns, one of them a file name or folder."""
    parts = re.split(r"\s{2,}|\t", s)
    return (len(parts) >= 2 and all(p and " " not in p and not _has_hangul(p) for p in parts)
            and any(re.search(r"\.\w{1,5}$|/$", p) for p in parts))


def _has_hangul(s: str) -> bool:
    return any("가" <= c <= "힣" for c in s)


def _prose_like(s: str) -> bool:
    """Three or more words, mostly letters: how a sentence looks."""
    words = _WORD.findall(s)
    return len(words) >= 3 and sum(len(w) for w in words) >= 0.6 * len(s.replace(" ", ""))


def _command_like(s: str) -> bool:
    """A command line: a known program first, and either nothing else or shell syntax after it
    (flags, paths, pipes, assignments): `clear`, `git diff | mcp-chat -p`, `python3 -m venv .venv`."""
    head = s.split(maxsplit=1)
    if not head or _has_hangul(head[0]):
        return False
    cmd = head[0].lower() if head[0].islower() or head[0].isupper() else head[0]
    if cmd not in _COMMANDS:
        return False
    if len(head) == 1:
        return True
    rest = head[1]
    if _has_hangul(rest) and not _SHELLISH.search(rest.split("하")[0]):
        return False  # `git 처음 배우는 중이야`: prose about a program
    if _SHELLISH.search(" " + rest):
        return True
    if cmd in _ENGLISH:  # `go to the store`, `make sure ...`
        return len(rest.split()) <= 2 and not _prose_like(rest) and rest.islower()
    return not _FUNCTION_WORDS.search(rest) and not rest.endswith((".", "!", "?"))  # `sudo systemctl restart nginx`


def _code_like(s: str) -> bool:
    if _has_hangul(s) and not s.lstrip().startswith(("//", "#", "/*", "<!--", "--")):
        hangul = sum("가" <= c <= "힣" for c in s)
        if hangul >= 0.25 * len(s.replace(" ", "")):
            return False  # a Korean sentence that mentions code (`print()` 로 찍어 보니…)
    if _CODE.match(s) and (not _prose_like(s) or _CODE_CHARS.search(s) or s.endswith((":", ";", "{"))):
        return True
    symbols = len(_CODE_CHARS.findall(s))
    letters = sum(c.isalpha() for c in s)
    return symbols >= 3 and symbols >= 0.12 * max(1, letters) and (s.endswith((";", "{", "}", ")", ",", ":")) or "=" in s)


def _filler(words: list[str]) -> bool:
    """One word (`clear`, `thanks`, `네`), or only filler words (`ok thanks`, `네 감사합니다`)."""
    if not words:
        return True
    low = [w.lower() for w in words]
    if len(low) == 1:
        return True
    return all(w in FILLERS or re.fullmatch(r"[ㅋㅎㅠㅜ]+", w) for w in low)


def blocks(text: str) -> Iterator[tuple[str, str | None]]:
    """Each line of a turn with its kind (None: prose). Fenced and indented blocks are code as a
    whole; after a traceback's or a diff's first line, the lines of its block keep its kind
    (a diff's ` context` lines, a traceback's `    return f.read()`)."""
    fence: str | None = None
    run: str | None = None  # the kind of the block we are in (traceback, diff, log)
    lines = (text or "").splitlines()
    for raw in lines:
        s = raw.strip()
        if fence is not None:
            yield raw, "code"
            if _FENCE.match(raw):
                fence = None
            continue
        if _FENCE.match(raw):
            fence = raw
            run = None
            yield raw, "code"
            continue
        if not s:
            run = None
            yield raw, None
            continue
        kind = line_kind(raw)
        if kind is None and run is not None and (raw[:1] in " \t+-" or run == "traceback" and not _prose_like(s)):
            kind = run  # a block's body line
        elif kind is None and raw.startswith(("    ", "\t")) and not _prose_like(s):
            kind = "code"
        if kind in ("traceback", "diff"):
            run = kind
        elif kind is None:
            run = None
        yield raw, kind


def prose(text: str) -> str:
    """The user's own prose of a turn: every structural line taken out (list marks cut)."""
    out = []
    for raw, kind in blocks(text):
        if kind is None and raw.strip():
            out.append(_LIST_MARK.sub("", raw.strip()))
    return "\n".join(out)


def junk(text: str) -> str | None:
    """The kind of a candidate sentence that is not prose (a memory item, a stored row), or None."""
    for _, kind in blocks(text):
        if kind is not None:
            return kind
    return None
