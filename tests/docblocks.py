"""The code blocks of a Markdown page, and a shell to run its `bash` lines in as a user would: after
the README's quick start (`source .venv/bin/activate`), with the stand-in model and Naver stub, in a
home and a working folder of their own. Tests that keep the docs from going stale read them here."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.M | re.S)


def blocks(page: str | Path, lang: str) -> list[str]:
    """The `lang` code blocks of a page under the repository (README.md, docs/x.md), in order."""
    text = (ROOT / page).read_text(encoding="utf-8")
    return [body for kind, body in FENCE.findall(text) if kind == lang]


def commands(block: str) -> list[str]:
    """A bash block's command lines, each without its trailing `# comment`."""
    return [cmd for cmd in (_strip_comment(line) for line in block.splitlines()) if cmd]


def _strip_comment(line: str) -> str:
    """`cmd args   # what it does` -> `cmd args` (a # inside quotes stays)."""
    quote = ""
    for i, c in enumerate(line):
        if quote:
            quote = "" if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or line[i - 1] == " "):
            return line[:i].rstrip()
    return line.rstrip()


@dataclass
class Shell:
    """bash in `cwd` after `prelude` (default: the project's environment activated, as the
    README's quick start leaves the shell)."""

    cwd: Path
    env: dict[str, str]
    prelude: str = ""

    def run(self, command: str, stdin: str = "", timeout: float = 300) -> subprocess.CompletedProcess:
        prelude = self.prelude or f"source {shlex.quote(str(Path(sys.prefix) / 'bin' / 'activate'))}"
        return subprocess.run(["bash", "-c", f"set -o pipefail\n{prelude}\n{command}\n"], input=stdin.encode(),
                              capture_output=True, cwd=self.cwd, env=self.env, timeout=timeout)
