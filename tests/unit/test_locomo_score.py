"""bench/locomo_score.py: which LoCoMo questions are asked, which count as early, and token F1
(SQuAD normalization; a Hangul token loses one trailing particle)."""

from __future__ import annotations

import pytest

from bench.locomo_score import evidence_sessions, f1, normalize, pick_questions


def qa(question: str, evidence: object, category: int = 4, answer: object = "x") -> dict:
    item = {"question": question, "evidence": evidence, "category": category}
    if answer is not None:
        item["answer"] = answer
    return item


@pytest.mark.parametrize("evidence, sessions", [
    (["D3:11"], (3,)),
    (["D1:18", "D", "D1:20"], (1,)),  # conv-42: one malformed id among good ones
    (["D8:6; D9:17"], (8, 9)),  # conv-26: two ids in one string
    (["D1:14", "D:11:26", "D4:7"], (1, 4)),  # conv-43: `D:11:26` is not an id
    (["D2:1", "D2:3", "D5:1"], (2, 5)),
])
def test_every_well_formed_evidence_id_counts_and_junk_is_skipped(evidence, sessions):
    assert evidence_sessions(evidence) == sessions


@pytest.mark.parametrize("evidence", [[], ["D"], ["D:11:26"], None, "D1:2", ["D1:2:3"], ["xD1:2"]])
def test_no_readable_evidence_is_none(evidence):
    assert evidence_sessions(evidence) is None


def test_a_question_with_one_malformed_evidence_id_is_still_asked():
    picked = pick_questions([qa("Ada's favourite film?", ["D1:18", "D", "D1:20"])], sessions_used=6, n=30)
    assert [q.question for q in picked] == ["Ada's favourite film?"]
    assert picked[0].sessions == (1,) and picked[0].early


def test_category_5_is_never_asked_even_when_fewer_questions_than_asked_for():
    items = [qa(f"q{i}", [f"D{i % 4 + 1}:1"], category=(i % 5) + 1) for i in range(20)]
    picked = pick_questions(items, sessions_used=4, n=100)
    assert len(picked) == 16 and {q.category for q in picked} == {1, 2, 3, 4}
    assert len(pick_questions(items, sessions_used=4, n=8)) == 8
    assert all(q.category != 5 for q in pick_questions(items, sessions_used=4, n=8))


def test_questions_are_those_wholly_inside_the_sessions_used_and_early_is_the_first_half():
    items = [qa("s1", ["D1:1"]), qa("s3", ["D3:2"]), qa("s1+s4", ["D1:1", "D4:1"]), qa("s4", ["D4:9"]),
             qa("s7", ["D7:1"]), qa("s2+s7", ["D2:1", "D7:1"]), qa("no answer", ["D1:1"], answer=None),
             qa("no evidence", []), qa("cat 6", ["D1:1"], category=6)]
    picked = {q.question: q.early for q in pick_questions(items, sessions_used=6, n=30)}
    assert picked == {"s1": True, "s3": True, "s1+s4": False, "s4": False}
    odd = {q.question: q.early for q in pick_questions(items, sessions_used=5, n=30)}
    assert odd == {"s1": True, "s3": False, "s1+s4": False, "s4": False}  # half of 5 is 2.5


def test_picks_are_spread_evenly_over_the_data_order_and_keep_the_gold_unchanged():
    items = [qa(f"q{i}", ["D1:1"], answer=i) for i in range(10)]
    picked = pick_questions(items, sessions_used=2, n=5)
    assert [q.question for q in picked] == ["q0", "q2", "q4", "q6", "q8"]
    assert [q.gold for q in picked] == [0, 2, 4, 6, 8]  # numbers stay numbers


def test_squad_normalization():
    assert normalize("The Cat, an  owl & A dog!") == ["cat", "owl", "dog"]
    assert normalize("Theater") == ["theater"]  # an article only as a whole word


@pytest.mark.parametrize("prediction, gold, score", [
    ("Pixel", "Pixel", 1.0),
    ("pixel.", "Pixel", 1.0),
    ("The cat Pixel", "Pixel", 2 / 3),  # precision 1/2, recall 1
    ("Pixel", "Pixel the cat", 2 / 3),  # precision 1, recall 1/2
    ("40 loaves", 40, 2 / 3),  # a number as gold
    ("Mrs Ortiz teaches cello", "Mrs Ortiz", 2 / 3),
    ("Lisbon", "Porto", 0.0),
    ("", "Porto", 0.0),
    ("the", "a", 1.0),  # both empty once normalized
])
def test_token_f1(prediction, gold, score):
    assert f1(prediction, gold) == pytest.approx(score)


@pytest.mark.parametrize("prediction, gold, score", [
    ("모찌예요", "모찌", 1.0),  # copula
    ("서울에서", "서울", 1.0),
    ("금요일로 미뤘어요", "금요일", 2 / 3),
    ("자물쇠 번호는 5290입니다", "5290", 0.5),  # a Hangul-bearing token loses its copula: 5290
    ("이", "이", 1.0),  # a token that is all particle stays
    ("콩이", "콩", 1.0),
])
def test_korean_tokens_lose_one_trailing_particle(prediction, gold, score):
    assert f1(prediction, gold, "ko") == pytest.approx(score)


def test_the_particle_strip_is_korean_only():
    assert f1("모찌예요", "모찌", "en") == 0.0
    assert normalize("dogs", "ko") == ["dogs"]  # no Hangul: unchanged
    assert normalize("모찌는요", "ko") == ["모찌는"]  # one particle, not every one
