"""bench/locomo.py on the recording stub: a dry run of the harness (seconds), with the JSON shape
other checks read (../shared/CONTRACT.md, "Benchmarks that other checks run"), and, with a stub
that answers from what the request holds, the scoring: what each policy's context kept decides
its F1."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from bench.locomo_score import normalize
from client.core.context.turns import SUMMARY_REQUEST
from tests.stubs import llm_stub
from tests.stubs.llm_stub import LLMStub, _content_text, is_summary_system

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "tests" / "data" / "locomo_tiny.json"
QA = json.loads(TINY.read_text())[0]["qa"]
GOLD = {q["question"]: q["answer"] for q in QA}
ADVERSARIAL = next(q["question"] for q in QA if q["category"] == 5)
ASKED = 6  # the tiny conversation's category 1-4 questions


def test_the_bench_runs_on_the_stub_and_writes_the_contract_json(tmp_path):
    out = tmp_path / "r.json"
    p = subprocess.run([sys.executable, str(ROOT / "bench" / "locomo.py"), "--data", str(TINY), "--conversation", "tiny-1",
                        "--sessions", "4", "--questions", "10", "--provider", "stub", "--json", str(out)],
                       capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    doc = json.loads(out.read_text())
    assert doc["provider"] == "stub" and doc["model"] and set(doc["policies"]) == {"full", "trim", "summarize"}
    for name, pol in doc["policies"].items():
        assert {"f1", "f1_early", "f1_late", "request_tokens_mean", "empty_summaries", "answers"} <= set(pol)
        assert pol["empty_summaries"] == 0, name
        # more asked for than there are: every category 1-4 question, and the adversarial one is not among them
        assert len(pol["answers"]) == ASKED and ADVERSARIAL not in {a["question"] for a in pol["answers"]}
        for a in pol["answers"]:
            assert set(a) >= {"question", "gold", "answer", "f1", "early"}
            assert a["gold"] == GOLD[a["question"]]  # the data's answer, unchanged (40 stays a number)
            assert 0.0 <= a["f1"] <= 1.0
        early = {a["question"]: a["early"] for a in pol["answers"]}
        assert early["What is the name of Ada's cat?"] is True  # evidence in session 1 of 4
        assert early["When does Ada start at the bakery?"] is False  # session 3 of 4
    assert doc["policies"]["trim"]["request_tokens_mean"] < doc["policies"]["full"]["request_tokens_mean"]
    assert doc["policies"]["summarize"]["summary_tokens"] > 0
    assert "| tiny-1 |" in p.stdout  # the table


class OracleStub(LLMStub):
    """Answers a bench question with the words of its gold answer that the request's context
    (every message before the question) holds, or "I don't know": a perfect reader of whatever
    the policy kept. Summaries are the recording stub's own (the first words of each line) plus
    the client's verbatim notes."""

    last: "OracleStub | None" = None

    def __init__(self, *a, **kw) -> None:
        super().__init__(*a, **kw)
        OracleStub.last = self

    def rule(self, body: dict, n: int) -> dict:
        msgs = body.get("messages", [])
        system = _content_text(msgs[0].get("content")) if msgs else ""
        question = _content_text(msgs[-1].get("content")) if msgs else ""
        q = next((q for q in GOLD if question.startswith(q)), None)
        if q is None or is_summary_system(system):
            return super().rule(body, n)
        held = set(normalize(" ".join(_content_text(m.get("content")) for m in msgs[:-1])))
        words = [w for w in normalize(str(GOLD[q])) if w in held]
        return {"text": " ".join(words) or "I don't know."}


async def test_scores_follow_what_each_policy_kept(monkeypatch):
    from bench.locomo import main_async

    monkeypatch.setattr(llm_stub, "LLMStub", OracleStub)
    args = argparse.Namespace(data=str(TINY), conversation="tiny-1", sessions=4, questions=10,
                              policies="full,trim,summarize", provider="stub", answer_tokens=32, verbose=False)
    doc = await main_async(args)
    stub = OracleStub.last
    assert stub is not None
    pol = doc["policies"]
    by = {name: {a["question"]: a for a in p["answers"]} for name, p in pol.items()}

    # full holds the whole conversation: every answer whole (the recital's gold "28 April 2024"
    # takes its year from the session's date note)
    assert all(a["f1"] == 1.0 for a in by["full"].values()), by["full"]
    assert pol["full"]["f1"] == pol["full"]["f1_early"] == pol["full"]["f1_late"] == 1.0

    # trim keeps the last turns: session 1's cat and teacher are gone, session 4's loaves are not
    assert by["trim"]["What is the name of Ada's cat?"]["f1"] == 0.0
    assert by["trim"]["Who is Ben's cello teacher?"]["f1"] == 0.0
    assert by["trim"]["How many loaves does the bakery sell a day?"]["f1"] == 1.0
    assert pol["trim"]["f1_early"] < pol["full"]["f1_early"]

    # summarize: a summary was made and committed, and the questions were asked against it
    assert pol["summarize"]["summary_tokens"] > 0 and pol["summarize"]["empty_summaries"] == 0
    assert "summarized" in pol["summarize"]["summary_notices"], pol["summarize"]["summary_notices"]
    assert stub.summary_requests()
    asked = [r for r in stub.requests if any(_content_text(r["messages"][-1].get("content")).startswith(q) for q in GOLD)]
    assert len(asked) == 3 * ASKED
    last = asked[-ASKED:]  # summarize runs last
    for r in last:
        contents = [_content_text(m.get("content")) for m in r["messages"]]
        i = contents.index(SUMMARY_REQUEST)
        assert "Pixel" in contents[i + 1] and "Mrs Ortiz" in contents[i + 1]  # the summary pair, with session 1's facts
        assert not any("Her name is Pixel" in c for c in contents[i + 2:])  # session 1's turns themselves are gone
    assert by["summarize"]["What is the name of Ada's cat?"]["f1"] == 1.0
    assert by["summarize"]["Who is Ben's cello teacher?"]["f1"] == 1.0
    assert pol["summarize"]["f1_early"] > pol["trim"]["f1_early"]

    # the aggregates are the answers' means
    for p in pol.values():
        early = [a["f1"] for a in p["answers"] if a["early"]]
        late = [a["f1"] for a in p["answers"] if not a["early"]]
        assert p["f1_early"] == pytest.approx(sum(early) / len(early))
        assert p["f1_late"] == pytest.approx(sum(late) / len(late))
        assert p["f1"] == pytest.approx(sum(early + late) / ASKED)
        assert ADVERSARIAL not in {a["question"] for a in p["answers"]}
