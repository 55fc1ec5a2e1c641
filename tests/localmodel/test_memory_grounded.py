"""Memory keeps the user's facts and not the assistant's inventions, on the real model (issue 27).

Two of bench/memory_real.py's conversations (Korean, English): the user states a name, a city, a
diet (and a job) among chit-chat and requests; the scripted assistant names places and people the
user never mentioned. One memory pass each with the shipped pipeline (extraction request on the
local model, grounding, the user's statements, the shipped scorer); then the memory section a new
thread of that user gets must hold every fact, no invention of the assistant's, and no item without
a word of the user's (the small model writes some: translated, made up). The bench has the figures.
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib.util
import json
import sys
from pathlib import Path

import pytest

from tests.localmodel.conftest import FIGURES

pytestmark = [pytest.mark.localmodel, pytest.mark.timeout(900)]
ROOT = Path(__file__).resolve().parents[2]
USERS = ("ko-seoyeon", "en-emma")


def _bench():
    spec = importlib.util.spec_from_file_location("memory_real", ROOT / "bench" / "memory_real.py")
    mod = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    sys.modules[spec.name] = mod  # dataclasses resolve string annotations through sys.modules
    spec.loader.exec_module(mod)
    return mod


def test_memory_keeps_the_users_facts_and_not_the_assistants_inventions(local_url, tmp_path, monkeypatch):
    monkeypatch.setenv("MCP_CHAT_TEMPERATURE", "0")
    from client.engine.providers import build_model

    bench = _bench()
    s = dataclasses.replace(bench.settings_for("local", None), base_url=local_url)
    users = [u for u in json.loads(bench.DATA.read_text(encoding="utf-8"))["users"] if u["user"] in USERS]
    row = asyncio.run(bench.run_config("both", build_model(s, with_tools=False, role="summary"), users,
                                       str(tmp_path), s.memory_budget))
    assert row.requests >= len(users)  # the model was asked: not the statements alone
    FIGURES["memory_facts_kept"] = row.facts_kept
    FIGURES["memory_extraction_s"] = row.seconds
    assert row.inventions_kept == 0, (row.invented, row.sections)
    assert row.unsupported == 0, row.sections  # nothing the extractor made up (not one word of the user's)
    assert row.facts_kept == row.facts, (row.missed, row.sections)
