"""The pinned Node.js tools (scripts/conformance: the official conformance suite, the MCP Inspector)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ROOT


@pytest.fixture(scope="session")
def suite() -> list[str]:
    """The command prefix that runs the pinned conformance suite: [node, entry]."""
    if shutil.which("npm") is None:  # CI never skips these
        (pytest.fail if os.environ.get("CI") else pytest.skip)("npm is not installed")
    p = subprocess.run([str(ROOT / "scripts" / "install_conformance.sh")], capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr
    return p.stdout.strip().splitlines()[-2:]


@pytest.fixture(scope="session")
def inspector(suite: list[str]) -> list[str]:
    """The command prefix that runs the pinned MCP Inspector's CLI mode: [node, launcher, --cli]."""
    launcher = Path(suite[1]).parents[2] / "inspector" / "clients" / "launcher" / "build" / "index.js"
    assert launcher.is_file(), launcher
    return [suite[0], str(launcher), "--cli"]
