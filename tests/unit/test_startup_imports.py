"""What each start-up path imports (issue 30): the launcher, the command line, the settings and
the fault classification load no SDK (openai, httpx, langchain, langgraph, mcp, pydantic), so
`--help`, `--version`, a configuration error and the hand-over to the pre-imported process
cost no more than the interpreter. Checked in a fresh interpreter per module."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("openai", "httpx", "httpx2", "langchain", "langchain_core", "langgraph", "mcp", "pydantic", "anyio",
         "rich", "prompt_toolkit", "asyncio")


@pytest.mark.parametrize("module", ["client.__main__", "client.engine.daemon", "plumbing.forkserver.launcher", "server.daemon", "client.ui.cli",
                                    "client.core.config", "client.core.faults", "client.ui.background"])
def test_a_start_up_module_imports_no_sdk(module: str) -> None:
    code = (f"import sys; sys.path.insert(0, {str(ROOT)!r}); import {module}; "
            f"print(' '.join(m for m in {HEAVY!r} if m in sys.modules))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "", f"{module} imports {p.stdout.strip()}"


def test_the_check_sees_an_sdk_import() -> None:
    code = f"import sys; sys.path.insert(0, {str(ROOT)!r}); import client.engine.agent; print('langchain' in sys.modules)"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.stdout.strip() == "True"
