"""The real nginx stack for tests/deploy (see stack.py)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ports_lock
from tests.deploy.stack import Stack, busy_ports, nginx_binary


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Stack]:
    if nginx_binary() is None:
        message = "nginx is not installed: run `bash scripts/nginx_start.sh --install` (scripts/test.sh does)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    with ports_lock():  # other worktrees' suites on this machine use these ports too
        busy = busy_ports()
        if busy:
            pytest.fail(f"ports {busy} are in use: the nginx tests need 127.0.0.1:8080, :8001 and :8002 free")
        with Stack(tmp_path) as running:
            yield running
