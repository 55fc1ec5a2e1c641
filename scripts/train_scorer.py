#!/usr/bin/env python3
"""Train the memory usefulness scorer (client/engine/memory/scorer.py) reproducibly.

    python scripts/train_scorer.py                 # train on the train split, write the artefact, print held-out figures
    python scripts/train_scorer.py --sweep         # feature configs compared by grouped 5-fold CV on the train split
    python scripts/train_scorer.py --judge --provider local [--limit N]
                                                   # LLM judge on the held-out split -> tests/data/memory_judge_labels.json

Labels: tests/data/memory_bullets.json (bench/make_memory_dataset.py). The judge's scores
are cached in a committed file, so retraining never needs a model. Needs numpy (the bench extra).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import random
import re
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from client.engine.memory.scorer import ARTEFACT, FeatureConfig, LinearScorer, features  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
import scorer_data  # noqa: E402

JUDGE = ROOT / "tests" / "data" / "memory_judge_labels.json"
SESSIONS = ROOT / "tests" / "data" / "memory_sessions.json"
SEED = 21
L2 = 1e-4  # chosen by --sweep
STEPS = 1500
DEFAULT = FeatureConfig(1, 4, 1 << 14)
SWEEP = [(FeatureConfig(1, 2, 1 << 14), 1e-3), (FeatureConfig(1, 3, 1 << 14), 1e-3), (FeatureConfig(2, 4, 1 << 14), 1e-3),
         (FeatureConfig(1, 4, 1 << 12), 1e-3), (FeatureConfig(1, 5, 1 << 14), 1e-3), (DEFAULT, 1e-4), (DEFAULT, 1e-3),
         (DEFAULT, 1e-2)]
JUDGE_BATCH = 8


def load_rows() -> list[dict]:
    return scorer_data.load_rows()


def rows_sha256(rows: list[dict]) -> str:
    return scorer_data.rows_sha256(rows)


# -- model -------------------------------------------------------------------
def matrix(texts: list[str], cfg: FeatureConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CSR pieces (indices, values, row of each entry)."""
    idx, val, row = [], [], []
    for r, t in enumerate(texts):
        f = features(t, cfg)
        idx += list(f)
        val += list(f.values())
        row += [r] * len(f)
    return np.array(idx, dtype=np.int64), np.array(val), np.array(row, dtype=np.int64)


def fit(texts: list[str], y: np.ndarray, cfg: FeatureConfig, l2: float = L2, steps: int = STEPS) -> tuple[np.ndarray, float]:
    """L2-regularized logistic regression, class-balanced, full-batch Adam from zero (deterministic)."""
    idx, val, row = matrix(texts, cfg)
    n = len(texts)
    cw = np.where(y == 1, n / (2 * max(1, y.sum())), n / (2 * max(1, n - y.sum())))
    w, b = np.zeros(cfg.buckets), 0.0
    m, v = np.zeros(cfg.buckets + 1), np.zeros(cfg.buckets + 1)
    lr, b1, b2 = 0.05, 0.9, 0.999
    for step in range(1, steps + 1):
        z = np.bincount(row, weights=w[idx] * val, minlength=n) + b
        r = cw * (1 / (1 + np.exp(-z)) - y) / n
        g = np.append(np.bincount(idx, weights=val * r[row], minlength=cfg.buckets) + l2 * w, r.sum())
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        d = lr * (m / (1 - b1**step)) / (np.sqrt(v / (1 - b2**step)) + 1e-8)
        w -= d[:-1]
        b -= d[-1]
    return w, float(b)


def auc(y: np.ndarray, s: np.ndarray) -> float:
    """ROC AUC = P(score of a useful bullet > score of a useless one), ties half."""
    pos, neg = s[y == 1], s[y == 0]
    if not len(pos) or not len(neg):
        return float("nan")
    gt = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    return float(gt / (len(pos) * len(neg)))


def figures(y: np.ndarray, s: np.ndarray) -> dict:
    return {"n": int(len(y)), "accuracy": round(float(((s >= 0.5) == (y == 1)).mean()), 4), "roc_auc": round(auc(y, s), 4)}


def scorer_of(w: np.ndarray, b: float, cfg: FeatureConfig, meta: dict) -> LinearScorer:
    return LinearScorer(cfg, [float(x) for x in w], b, meta)


# -- sweep -------------------------------------------------------------------
def sweep(rows: list[dict]) -> None:
    train = [r for r in rows if r["split"] == "train"]
    groups = sorted({r["group"] for r in train})
    rng = np.random.default_rng(SEED)
    fold_of = dict(zip(groups, rng.permutation(len(groups)) % 5))
    print("| char n-grams, buckets, L2 | CV accuracy | CV ROC AUC |\n|---|---:|---:|")
    for cfg, l2 in SWEEP:
        ys, ss = [], []
        for k in range(5):
            tr = [r for r in train if fold_of[r["group"]] != k]
            te = [r for r in train if fold_of[r["group"]] == k]
            w, b = fit([r["text"] for r in tr], np.array([r["label"] for r in tr]), cfg, l2)
            sc = scorer_of(w, b, cfg, {})
            ys += [r["label"] for r in te]
            ss += sc.scores([r["text"] for r in te])
        f = figures(np.array(ys), np.array(ss))
        print(f"| {cfg.ngram_min}-{cfg.ngram_max}, {cfg.buckets}, {l2:g} | {f['accuracy']:.1%} | {f['roc_auc']:.3f} |",
              flush=True)


# -- judge -------------------------------------------------------------------
def lenient_scores(text: str, n: int) -> list[float | None]:
    """Every `i: s` the judge managed to write; the rest None."""
    out: list[float | None] = [None] * n
    for i, s in re.findall(r"(?m)^\D{0,3}(\d+)\s*[:.)=]\s*([01](?:\.\d+)?|\.\d+)\b", text):
        if 1 <= int(i) <= n and out[int(i) - 1] is None and 0 <= float(s) <= 1:
            out[int(i) - 1] = float(s)
    return out


async def judge(argv: list[str], limit: int | None) -> None:
    """The production scoring request (SCORE_PROMPT) on the held-out split, in batches."""
    from langchain_core.messages import HumanMessage, SystemMessage

    from client.engine.providers import build_model, get_provider
    from client.ui.options import add_chat_options, resolve
    from client.core.context import text_of
    from client.engine.memory.extract import SCORE_PROMPT

    os.environ.setdefault("MCP_CHAT_TEMPERATURE", "0")  # a judge, not a chat: as repeatable as the server allows
    p = argparse.ArgumentParser()
    add_chat_options(p)
    settings = resolve(p.parse_args(argv))
    held = [r["text"] for r in load_rows() if r["split"] == "heldout"][:limit]
    sessions = json.loads(SESSIONS.read_text(encoding="utf-8"))  # bench/memory_eval.py's lines, for its judge column
    played = sorted({line for u in sessions for lines in u["sessions"] for line in lines if len(line) >= 5})
    cache = json.loads(JUDGE.read_text(encoding="utf-8")) if JUDGE.exists() else {}
    scores: dict[str, float | None] = cache.get("scores", {}) if cache.get("model") == settings.model else {}
    todo = [t for t in dict.fromkeys(held + played) if t not in scores]
    random.Random(SEED).shuffle(todo)  # mixed batches, as a session's bullets are
    started = time.monotonic()
    async with get_provider(settings.provider).runtime(settings) as runtime:
        s = settings
        model = build_model(s, runtime, with_tools=False)
        for i in range(0, len(todo), JUDGE_BATCH):
            batch = todo[i : i + JUDGE_BATCH]
            body = "\n".join(f"{j}. {t}" for j, t in enumerate(batch, 1))
            reply = text_of(await model.ainvoke([SystemMessage(SCORE_PROMPT), HumanMessage(body)]))
            scores.update(zip(batch, lenient_scores(reply, len(batch))))
            JUDGE.write_text(json.dumps({"model": s.model, "prompt_sha256": hashlib.sha256(SCORE_PROMPT.encode()).hexdigest(),
                                         "batch": JUDGE_BATCH, "scores": scores}, ensure_ascii=False, indent=1) + "\n",
                             encoding="utf-8")
            print(f"{i + len(batch)}/{len(todo)} judged, {time.monotonic() - started:.0f}s", flush=True)


def judge_figures(rows: list[dict]) -> dict | None:
    if not JUDGE.exists():
        return None
    cache = json.loads(JUDGE.read_text(encoding="utf-8"))
    held = [r for r in rows if r["split"] == "heldout" and r["text"] in cache["scores"]]
    if not held:
        return None
    got = [r for r in held if cache["scores"][r["text"]] is not None]
    out = {"model": cache["model"], "asked": len(held), "scored": len(got)}
    if got:
        out.update(figures(np.array([r["label"] for r in got]), np.array([cache["scores"][r["text"]] for r in got])))
    # as the client uses it: a bullet left unscored is kept, i.e. judged useful
    y = np.array([r["label"] for r in held])
    s = np.array([1.0 if cache["scores"][r["text"]] is None else cache["scores"][r["text"]] for r in held])
    out["accuracy_as_used"] = round(float(((s >= 0.5) == (y == 1)).mean()), 4)
    out["texts"] = [r["text"] for r in held]
    return out


# -- train -------------------------------------------------------------------
def train(rows: list[dict], out: Path) -> None:
    train_rows = [r for r in rows if r["split"] == "train"]
    held = [r for r in rows if r["split"] == "heldout"]
    started = time.monotonic()
    w, b = fit([r["text"] for r in train_rows], np.array([r["label"] for r in train_rows]), DEFAULT)
    took = time.monotonic() - started
    meta = {"version": 2, "trained_on": {"data": "tests/data/memory_bullets.json + memory_precision.json (train sessions)",
                                         "data_sha256": rows_sha256(rows),
                                         "train": len(train_rows), "heldout": len(held), "seed": SEED, "l2": L2,
                                         "steps": STEPS, "labels": "hand labels (bench/memory_bullets.py, tests/data/memory_precision.json)"}}
    sc = scorer_of(w, b, DEFAULT, meta)
    sc = LinearScorer.from_json(sc.to_json())  # measure what ships (float16 weights)
    y = np.array([r["label"] for r in held])
    s = np.array(sc.scores([r["text"] for r in held]))
    f = figures(y, s)
    by_lang = {lang: figures(y[m], s[m]) for lang in ("ko", "en")
               if (m := np.array([r["lang"] == lang for r in held])).any()}
    sc.meta["heldout"] = {**f, **{f"accuracy_{k}": v["accuracy"] for k, v in by_lang.items()}}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(sc.to_json(), encoding="utf-8")
    t0 = time.perf_counter()
    sc.scores([r["text"] for r in held])
    per_bullet_ms = (time.perf_counter() - t0) * 1000 / len(held)
    print(f"trained on {len(train_rows)} bullets in {took:.1f}s -> {out} ({out.stat().st_size / 1024:.0f} KB), "
          f"{per_bullet_ms:.3f} ms per bullet\n")
    print("| held-out split | bullets | accuracy (>= 0.5) | ROC AUC |\n|---|---:|---:|---:|")
    print(f"| local scorer | {f['n']} | {f['accuracy']:.1%} | {f['roc_auc']:.3f} |")
    for lang, g in by_lang.items():
        print(f"| local scorer, {lang} | {g['n']} | {g['accuracy']:.1%} | {g['roc_auc']:.3f} |")
    j = judge_figures(rows)
    if j:
        sub = {t for t in j["texts"]}
        m = np.array([r["text"] in sub for r in held])
        g = figures(y[m], s[m])
        print(f"| local scorer, same bullets as the judge | {g['n']} | {g['accuracy']:.1%} | {g['roc_auc']:.3f} |")
        print(f"| LLM judge ({j['model']}), scored | {j['scored']} of {j['asked']} | {j.get('accuracy', float('nan')):.1%} "
              f"| {j.get('roc_auc', float('nan')):.3f} |")
        print(f"| LLM judge, unscored kept (as the client does) | {j['asked']} | {j['accuracy_as_used']:.1%} | - |")
    else:
        print("(no judge labels cached: python scripts/train_scorer.py --judge --provider local)")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sweep", action="store_true", help="compare feature configs by grouped CV on the train split")
    p.add_argument("--judge", action="store_true", help="run the LLM judge on the held-out split (other options: as mcp-chat)")
    p.add_argument("--limit", type=int, help="judge at most N held-out bullets")
    p.add_argument("--out", type=Path, default=ARTEFACT, help="where to write the artefact")
    args, rest = p.parse_known_args()
    if args.judge:
        asyncio.run(judge(rest, args.limit))
    elif args.sweep:
        sweep(load_rows())
    else:
        train(load_rows(), args.out)


if __name__ == "__main__":
    main()
