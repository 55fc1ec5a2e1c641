"""The local memory usefulness scorer: features, scoring, the shipped artefact."""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from client.core.config import ConfigError
from client.ui.options import add_chat_options, resolve
from client.engine.memory.scorer import (ARTEFACT, FeatureConfig, LinearScorer, ScorerError, features, load, ngrams,
                                  normalize)

ROOT = Path(__file__).resolve().parents[2]
CFG = FeatureConfig(1, 4, 1 << 14)


def test_normalize_folds_width_case_and_spacing():
    assert normalize("  Ｈｅｌｌｏ\t\nWORLD  ") == " hello world "
    assert features("ＡＢＣ  def", CFG) == features("abc def", CFG)


def test_ngrams_of_a_short_word():
    # " ab ": 1-grams a b (a lone space is not a feature), 2-grams " a" ab "b ", 3-grams " ab" "ab ", 4-gram " ab "
    assert sorted(ngrams("ab", CFG)) == sorted(["a", "b", " a", "ab", "b ", " ab", "ab ", " ab "])
    assert list(ngrams("", CFG)) == []


def test_features_are_stable_hashed_and_unit_length():
    f = features("사용자는 채식주의자다", CFG)
    assert all(0 <= b < CFG.buckets for b in f)
    assert math.isclose(math.sqrt(sum(v * v for v in f.values())), 1.0)
    assert zlib.crc32("채식".encode()) % CFG.buckets in f  # crc32 of UTF-8: the same in every process
    g = features("채식 채식 채식", CFG)  # repeats count, log-scaled
    assert g[zlib.crc32("채식".encode()) % CFG.buckets] > g[zlib.crc32(" 채식 ".encode()) % CFG.buckets] / 2


def test_bad_feature_config_is_refused():
    with pytest.raises(ScorerError):
        FeatureConfig(3, 2, 16)
    with pytest.raises(ScorerError):
        FeatureConfig(1, 2, 16, hash="md5")


def _toy(weight: float) -> LinearScorer:
    cfg = FeatureConfig(2, 2, 64)
    w = [0.0] * cfg.buckets
    w[zlib.crc32("좋아".encode()) % cfg.buckets] = weight
    return LinearScorer(cfg, w, -1.0, {"version": 7})


def test_linear_score_is_a_sigmoid_of_weights():
    sc = _toy(8.0)
    assert sc.score("") == pytest.approx(1 / (1 + math.e))  # bias only
    assert sc.score("나는 고양이를 좋아해") > 0.5 > sc.score("오늘 날씨")
    assert _toy(-8.0).score("나는 고양이를 좋아해") < sc.score("오늘 날씨")


def test_artefact_round_trip_keeps_config_meta_and_scores():
    sc = _toy(8.0)
    back = LinearScorer.from_json(sc.to_json())
    assert back.config == sc.config and back.meta == {"version": 7}
    for t in ("나는 고양이를 좋아해", "hello"):
        assert back.score(t) == pytest.approx(sc.score(t), abs=1e-3)  # float16 weights


@pytest.mark.parametrize("mutate", [
    lambda d: d.update(format="other"),
    lambda d: d.update(format_version=99),
    lambda d: d.update(weights_f16_b64="AAAA"),
    lambda d: d.pop("bias"),
])
def test_a_bad_artefact_is_refused(mutate):
    doc = json.loads(_toy(1.0).to_json())
    mutate(doc)
    with pytest.raises(ScorerError):
        LinearScorer.from_json(json.dumps(doc))
    with pytest.raises(ScorerError):
        LinearScorer.from_json("not json")


def test_missing_artefact_is_a_scorer_error(tmp_path):
    with pytest.raises(ScorerError):
        load(tmp_path / "none.json")


# -- the shipped artefact ---------------------------------------------------
def test_shipped_artefact_is_small_versioned_and_matches_the_committed_data():
    assert ARTEFACT.stat().st_size < 200_000
    sc = load()
    assert sc.meta["version"] >= 1 and sc.config.buckets == len(sc.weights)
    sys.path.insert(0, str(ROOT / "bench"))
    import scorer_data  # the bullets and the precision bench's train sessions, as the trainer reads them

    digest = scorer_data.rows_sha256(scorer_data.load_rows())
    assert sc.meta["trained_on"]["data_sha256"] == digest, "retrain: python scripts/train_scorer.py"
    assert sc.meta["heldout"]["roc_auc"] > 0.8


@pytest.mark.parametrize("text", ["사용자는 땅콩 알레르기가 있다", "나는 채식주의자야, 고기는 안 먹어",
                                  "사용자는 다음 달에 부산으로 이사한다", "User is allergic to peanuts",
                                  "I'm a backend developer and I mostly write Python"])
def test_shipped_scorer_keeps_facts_about_the_user(text):
    assert load().score(text) >= 0.5


@pytest.mark.parametrize("text", ["오늘 날씨 어때?", "고마워", "사용자가 인사했다", "재미있는 농담 하나 해 줘",
                                  "tell me a joke", "Assistant called web_search"])
def test_shipped_scorer_drops_chit_chat(text):
    assert load().score(text) < 0.5


def test_artefact_loads_on_first_use_not_at_import():
    code = ("import client.engine.memory.manager, client.core.config, client.engine.memory.scorer as s; "
            "a = s.load.cache_info().currsize; s.score_texts(['x']); print(a, s.load.cache_info().currsize)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    assert out.split() == ["0", "1"]


# -- option -------------------------------------------------------------------
def _settings(argv: list[str]):
    p = argparse.ArgumentParser()
    add_chat_options(p)
    return resolve(p.parse_args(argv))


def test_memory_scorer_option_and_env(monkeypatch):
    monkeypatch.setenv("CLOVA_STUDIO_API_KEY", "sk-test-key-1234")
    monkeypatch.delenv("MCP_CHAT_MEMORY_SCORER", raising=False)
    assert _settings([]).memory_scorer == "local"
    assert _settings(["--memory-scorer", "llm"]).memory_scorer == "llm"
    monkeypatch.setenv("MCP_CHAT_MEMORY_SCORER", "llm")
    assert _settings([]).memory_scorer == "llm"
    assert _settings(["--memory-scorer", "local"]).memory_scorer == "local"
    monkeypatch.setenv("MCP_CHAT_MEMORY_SCORER", "bert")
    with pytest.raises(ConfigError):
        _settings([])


def test_memory_source_option_env_and_provider_default(monkeypatch):
    from client.core.config import MEMORY_SOURCES
    from client.core.memory.candidates import SOURCES
    from client.engine.providers import PROVIDERS

    assert set(MEMORY_SOURCES) == set(SOURCES)
    monkeypatch.setenv("CLOVA_STUDIO_API_KEY", "sk-test-key-1234")
    monkeypatch.delenv("MCP_CHAT_MEMORY_SOURCE", raising=False)
    assert _settings([]).memory_source == ""  # the provider decides
    assert (PROVIDERS["local"].memory_source, PROVIDERS["clova"].memory_source) == ("user", "both")
    assert _settings(["--memory-source", "llm"]).memory_source == "llm"
    monkeypatch.setenv("MCP_CHAT_MEMORY_SOURCE", "user")
    assert _settings([]).memory_source == "user"
    monkeypatch.setenv("MCP_CHAT_MEMORY_SOURCE", "model")
    with pytest.raises(ConfigError):
        _settings([])
