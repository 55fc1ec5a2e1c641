"""Usefulness of memory bullets without a model call (seed 004's light scorer).

Hashed character n-grams (no tokenizer: Korean and English alike) and a
logistic regression trained offline on labelled bullets (scripts/train_scorer.py).
The artefact is one small JSON file shipped in the package and loaded on first
use; scoring a bullet takes microseconds. Pure Python at run time.
"""

from __future__ import annotations

import base64
import json
import math
import re
import struct
import unicodedata
import zlib
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Sequence

SCORERS = ("local", "llm")  # local: this module, no request; llm: one scoring request (extract.py)
ARTEFACT = Path(__file__).resolve().parent / "data" / "scorer.json"
FORMAT = "mcp-chat-memory-scorer"
FORMAT_VERSION = 1
_SPACE = re.compile(r"\s+")


class ScorerError(ValueError):
    """The artefact is missing, of another format, or inconsistent."""


@dataclass(frozen=True)
class FeatureConfig:
    ngram_min: int = 1
    ngram_max: int = 4
    buckets: int = 1 << 14
    hash: str = "crc32"  # of the n-gram's UTF-8 bytes, modulo buckets

    def __post_init__(self) -> None:
        if not 1 <= self.ngram_min <= self.ngram_max or self.buckets < 2 or self.hash != "crc32":
            raise ScorerError(f"bad feature config: {self}")


def normalize(text: str) -> str:
    """NFKC (full-width forms, compatibility jamo), lower case, one space; padded
    so that word starts and ends make n-grams of their own."""
    return " " + _SPACE.sub(" ", unicodedata.normalize("NFKC", text).lower()).strip() + " "


def ngrams(text: str, cfg: FeatureConfig) -> Iterable[str]:
    s = normalize(text)
    for n in range(cfg.ngram_min, cfg.ngram_max + 1):
        for i in range(len(s) - n + 1):
            gram = s[i : i + n]
            if gram != " " * n:
                yield gram


def features(text: str, cfg: FeatureConfig) -> dict[int, float]:
    """Bucket -> weight: n-gram counts, log-scaled, L2-normalized."""
    counts: dict[int, int] = {}
    for gram in ngrams(text, cfg):
        b = zlib.crc32(gram.encode("utf-8")) % cfg.buckets
        counts[b] = counts.get(b, 0) + 1
    vec = {b: 1.0 + math.log(c) for b, c in counts.items()}
    norm = math.sqrt(sum(v * v for v in vec.values())) or 1.0
    return {b: v / norm for b, v in vec.items()}


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))


@dataclass
class LinearScorer:
    config: FeatureConfig
    weights: Sequence[float]
    bias: float
    meta: dict[str, Any]

    def score(self, text: str) -> float:
        """Probability in [0, 1] that the bullet is worth remembering."""
        z = self.bias + sum(self.weights[b] * v for b, v in features(text, self.config).items())
        return _sigmoid(z)

    def scores(self, texts: Iterable[str]) -> list[float]:
        return [self.score(t) for t in texts]

    # -- artefact ------------------------------------------------------------
    def to_json(self) -> str:
        packed = struct.pack(f"<{len(self.weights)}e", *self.weights)  # float16: half the size, ample precision
        doc = {"format": FORMAT, "format_version": FORMAT_VERSION, **self.meta,
               "features": asdict(self.config), "bias": round(self.bias, 6),
               "weights_f16_b64": base64.b64encode(packed).decode("ascii")}
        return json.dumps(doc, ensure_ascii=False, indent=1) + "\n"

    @classmethod
    def from_json(cls, text: str) -> "LinearScorer":
        try:
            doc = json.loads(text)
            if doc.get("format") != FORMAT or doc.get("format_version") != FORMAT_VERSION:
                raise ScorerError(f"not a {FORMAT} v{FORMAT_VERSION} file")
            cfg = FeatureConfig(**doc["features"])
            raw = base64.b64decode(doc["weights_f16_b64"])
            if len(raw) != 2 * cfg.buckets:
                raise ScorerError(f"{len(raw) // 2} weights for {cfg.buckets} buckets")
            weights = struct.unpack(f"<{cfg.buckets}e", raw)
            meta = {k: v for k, v in doc.items()
                    if k not in {"format", "format_version", "features", "bias", "weights_f16_b64"}}
            return cls(cfg, weights, float(doc["bias"]), meta)
        except (KeyError, TypeError, ValueError, struct.error) as e:
            if isinstance(e, ScorerError):
                raise
            raise ScorerError(f"bad scorer artefact: {e}") from e


@lru_cache(maxsize=4)
def load(path: Path = ARTEFACT) -> LinearScorer:
    """The shipped scorer, read once per process (on first use, not at import)."""
    try:
        return LinearScorer.from_json(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise ScorerError(f"scorer artefact unreadable: {path.name}: {e.strerror}") from e


def score_texts(texts: Sequence[str], path: Path = ARTEFACT) -> list[float]:
    return load(path).scores(texts)
