"""Long-term memory with and without usefulness pruning (seed 004's setting).

    python bench/memory_eval.py

Plays tests/data/memory_sessions.json (6 users x 5 sessions; facts stated in
sessions 1-3, chit-chat everywhere) through the real memory pipeline: the
transcript store, MemoryManager, the extraction and scoring requests against
the rule-based stub model (tests/stubs/llm_stub.py). The stub extracts every
user line (an over-eager extractor, chit-chat included) and scores personal
statements 0.9, everything else 0.2, so this measures the pipeline's
mechanics (threshold, top-k, max pooling, dedupe, packing), not a model's
judgement. "recall" = facts later asked about that are still in the memory
section a new thread would get.

Scorers side by side: keep-all (no pruning), the LLM judge (one scoring request
per session; here the stub's rule), the trained local scorer (client/engine/memory/scorer.py,
no request), and, when tests/data/memory_judge_labels.json holds them, the real
local model's judge scores for the same lines (cached by scripts/train_scorer.py --judge).
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
import uuid
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage  # noqa: E402

from client.engine.providers import build_model  # noqa: E402
from client.core.config import Settings  # noqa: E402
from client.core.context.budget import estimate_text_tokens  # noqa: E402
from client.engine.memory.manager import MemoryManager  # noqa: E402
from client.engine.store import open_store  # noqa: E402
from tests.stubs.llm_stub import LLMStub  # noqa: E402

DATA = ROOT / "tests" / "data" / "memory_sessions.json"
JUDGE = ROOT / "tests" / "data" / "memory_judge_labels.json"
# (name, scorer, threshold, top-k); scorer "cached" = the real judge's cached scores
CONFIGS = [("keep everything", "local", 0.0, 1000),
           ("LLM judge (stub rule), 0.5 / top-5", "llm", 0.5, 5),
           ("local scorer, 0.5 / top-5 (paper)", "local", 0.5, 5),
           ("LLM judge (stub rule), 0.5 / top-2", "llm", 0.5, 2),
           ("local scorer, 0.5 / top-2", "local", 0.5, 2)]


class CachedJudge(MemoryManager):
    """Scores from the real model's judge run, looked up by bullet text (missing: unscored)."""

    scores: dict[str, float | None] = {}

    async def _score(self, bullets: list, model: object = None) -> list[float]:
        got = [self.scores.get(b.text) for b in bullets]
        if any(s is None for s in got):
            raise ValueError("not judged")
        return got  # type: ignore[return-value]


async def run(llm: LLMStub, name: str, scorer: str, threshold: float, top_k: int, tmp: str) -> dict:
    users = json.loads(DATA.read_text(encoding="utf-8"))
    store = await open_store(f"{tmp}/{uuid.uuid4().hex}.db")
    model = build_model(Settings(api_key="bench", base_url=llm.base_url), with_tools=False)
    kept_per_session, tokens, recalled, asked = [], [], 0, 0
    try:
        for u in users:
            cls = CachedJudge if scorer == "cached" else MemoryManager
            models = SimpleNamespace(current=SimpleNamespace(summarizer=model))  # stands for the model owner
            mem = cls(store, models, u["user"], threshold=threshold, top_k=top_k,  # type: ignore[arg-type]
                      budget_tokens=100_000, scorer="llm" if scorer == "cached" else scorer)
            for lines in u["sessions"]:
                tid = uuid.uuid4().hex
                await store.create_thread(tid, u["user"])
                msgs = [SystemMessage("시스템", id=uuid.uuid4().hex)]
                for line in lines:
                    msgs += [HumanMessage(line, id=uuid.uuid4().hex), AIMessage("네, 알겠습니다.", id=uuid.uuid4().hex)]
                await store.append(tid, msgs)
                before = len(await store.memory_list(u["user"]))
                await mem.update(tid)
                kept_per_session.append(len(await store.memory_list(u["user"])) - before)
            section = await mem.section()
            tokens.append(estimate_text_tokens(section))
            for q in u["asked"]:
                asked += 1
                recalled += q["keyword"] in section
    finally:
        await store.close()
    return {"name": name, "per_session": sum(kept_per_session) / len(kept_per_session),
            "tokens": sum(tokens) / len(tokens), "recall": recalled / asked}


async def main() -> None:
    rows = []
    configs = list(CONFIGS)
    if JUDGE.exists():
        cache = json.loads(JUDGE.read_text(encoding="utf-8"))
        CachedJudge.scores = cache["scores"]
        configs.insert(3, (f"LLM judge ({cache['model']}, cached), 0.5 / top-5", "cached", 0.5, 5))
    with LLMStub() as llm, tempfile.TemporaryDirectory() as tmp:
        for name, scorer, th, k in configs:
            before = len(llm.requests)
            row = await run(llm, name, scorer, th, k, tmp)
            row["scoring_requests"] = sum("유용성" in str(r["messages"][0].get("content")) for r in llm.requests[before:])
            rows.append(row)
    base = rows[0]["tokens"]
    print("| memory policy | new bullets kept / session | memory tokens / user | vs keep-all | facts asked later still in memory "
          "| scoring requests |")
    print("|---|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['name']} | {r['per_session']:.2f} | {r['tokens']:.0f} | {r['tokens'] / base:.2f}x | {r['recall']:.0%} "
              f"| {r['scoring_requests']} |")
    print("\npaper (seed 004, threshold 0.5 / top-k 5): 6.95 -> 2.69 items per session, ~60% fewer input tokens")


if __name__ == "__main__":
    asyncio.run(main())
