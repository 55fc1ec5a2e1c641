"""bench/locomo.py on the recording stub: a dry run of the harness (seconds), with the JSON shape
other checks read (../shared/CONTRACT.md, "Benchmarks that other checks run")."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "tests" / "data" / "locomo_tiny.json"


def test_the_bench_runs_on_the_stub_and_writes_the_contract_json(tmp_path):
    out = tmp_path / "r.json"
    p = subprocess.run([sys.executable, str(ROOT / "bench" / "locomo.py"), "--data", str(TINY), "--conversation", "tiny-1",
                        "--sessions", "4", "--questions", "5", "--provider", "stub", "--json", str(out)],
                       capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    doc = json.loads(out.read_text())
    assert doc["provider"] == "stub" and doc["model"] and set(doc["policies"]) == {"full", "trim", "summarize"}
    gold = {q["question"]: q["answer"] for q in json.loads(TINY.read_text())[0]["qa"]}
    for name, pol in doc["policies"].items():
        assert {"f1", "f1_early", "f1_late", "request_tokens_mean", "empty_summaries", "answers"} <= set(pol)
        assert pol["empty_summaries"] == 0, name
        assert len(pol["answers"]) == 5  # category 5 is not asked; the rest evenly picked
        for a in pol["answers"]:
            assert set(a) >= {"question", "gold", "answer", "f1", "early"}
            assert a["gold"] == gold[a["question"]]  # the data's answer, unchanged (40 stays a number)
            assert 0.0 <= a["f1"] <= 1.0
        early = {a["question"]: a["early"] for a in pol["answers"]}
        assert early["What is the name of Ada's cat?"] is True  # evidence in session 1 of 4
        assert early["When does Ada start at the bakery?"] is False  # session 3 of 4
    assert doc["policies"]["trim"]["request_tokens_mean"] < doc["policies"]["full"]["request_tokens_mean"]
    assert "| tiny-1 |" in p.stdout  # the table
