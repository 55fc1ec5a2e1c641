"""The table of several bench/locomo.py runs (their --json files), as docs/benchmarks.md shows it.

    python bench/locomo_table.py /tmp/locomo-*.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.locomo import table  # noqa: E402


def totals(results: list[dict]) -> str:
    """Per policy over every run: mean F1 (all, early, late) weighted by questions, mean request tokens."""
    rows = ["| policy | questions (early) | F1 | F1 early | F1 late | request tokens (mean) | vs full | empty/fallback summaries |",
            "|---|---:|---:|---:|---:|---:|---:|---:|"]
    names = [n for n in ("full", "trim", "summarize") if any(n in r["policies"] for r in results)]
    full_tokens = None
    for name in names:
        answers = [a for r in results if name in r["policies"] for a in r["policies"][name]["answers"]]
        tokens = [a.get("request_tokens", 0) for a in answers]

        def mean(xs: list[float]) -> str:
            return f"{sum(xs) / len(xs):.3f}" if xs else "-"

        tok = sum(tokens) / len(tokens) if tokens else 0
        full_tokens = tok if name == "full" else full_tokens
        vs = f"{100 * tok / full_tokens:.0f}%" if full_tokens else "-"
        bad = sum(r["policies"][name]["empty_summaries"] for r in results if name in r["policies"])
        rows.append(f"| {name} | {len(answers)} ({sum(a['early'] for a in answers)}) | {mean([a['f1'] for a in answers])} "
                    f"| {mean([a['f1'] for a in answers if a['early']])} | {mean([a['f1'] for a in answers if not a['early']])} "
                    f"| {tok:.0f} | {vs} | {bad} |")
    return "\n".join(rows)


def goals(results: list[dict]) -> str:
    """Issue 39's goals per run: summarize's early F1 against full's (>= 90%) and trim's (>= 1.5x),
    its request tokens against full's (<= 35%)."""
    rows = ["| conversation | summarize / full, early F1 (>= 90%) | summarize / trim, early F1 (>= 1.5x) "
            "| summarize / full, request tokens (<= 35%) |", "|---|---:|---:|---:|"]
    for r in results:
        p = r["policies"]
        if not all(k in p for k in ("full", "trim", "summarize")):
            continue
        s, f, t = p["summarize"], p["full"], p["trim"]

        def ratio(a: float | None, b: float | None, pct: bool = True) -> str:
            if a is None or not b:
                return "-"
            return f"{100 * a / b:.0f}%" if pct else f"{a / b:.2f}x"

        rows.append(f"| {r['conversation']} | {ratio(s['f1_early'], f['f1_early'])} | {ratio(s['f1_early'], t['f1_early'], False)} "
                    f"| {ratio(s['request_tokens_mean'], f['request_tokens_mean'])} |")
    return "\n".join(rows)


def main() -> None:
    results = [json.loads(Path(p).read_text(encoding="utf-8")) for p in sys.argv[1:]]
    print(table(results))
    print()
    print(totals(results))
    print()
    print(goals(results))
    print(f"\n({sum(r.get('minutes', 0) for r in results):.0f} min in all)")


if __name__ == "__main__":
    main()
