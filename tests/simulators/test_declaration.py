"""Declarations, validation, seeds, canonical JSON and seeded randomness."""

import hashlib
import math

import pytest

from simulators.engine import (
    ActionError,
    ActionSpec,
    Lab,
    Param,
    canonical_json,
    derive_seed,
    digest_of,
    make_rng,
)
from simulators.engine.rng import SEED_MAX
from simulators.labs import LABS

COUNT = Param("count", "Count", "int", minimum=1, maximum=12)
PARTITIONS = Param("partitions", "Partitions", "choice", choices=(16, 1024))
KIND = Param("kind", "Kind", "choice", choices=("a", "b"))
KEY = Param("key", "Key", "text", max_length=5)
FLAG = Param("flag", "Flag", "bool")
EVERYTHING = ActionSpec("everything", "Everything", (COUNT, PARTITIONS, KEY, FLAG))
GOOD = {"count": 3, "partitions": 1024, "key": "N123", "flag": False}


def refused(check, value) -> ActionError:
    with pytest.raises(ActionError) as caught:
        check(value)
    return caught.value


# ----- canonical JSON and digests --------------------------------------------------
def test_canonical_json_sorts_keys_and_has_no_spaces():
    assert canonical_json({"b": [1, 2], "a": {"d": 1, "c": "é"}}) == (
        '{"a":{"c":"é","d":1},"b":[1,2]}'
    )


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_canonical_json_refuses_nan_and_infinity(bad):
    with pytest.raises(ValueError):
        canonical_json({"x": [bad]})


def test_equal_values_have_equal_digests_whatever_the_key_order():
    assert digest_of({"a": 1, "b": 2}) == digest_of({"b": 2, "a": 1})
    assert digest_of({"a": 1}) != digest_of({"a": 2})
    expected = hashlib.sha256(b'{"a":1}').hexdigest()
    assert digest_of({"a": 1}) == expected


# ----- seeded randomness -----------------------------------------------------------
def test_the_same_seed_and_stream_give_the_same_numbers():
    first = make_rng(42, "flights")
    second = make_rng(42, "flights")
    assert [first.random() for _ in range(20)] == [second.random() for _ in range(20)]


def test_streams_are_independent_of_each_other_and_of_the_seed():
    flights = [make_rng(42, "flights").random() for _ in range(3)]
    assert flights != [make_rng(42, "bookings").random() for _ in range(3)]
    assert flights != [make_rng(43, "flights").random() for _ in range(3)]


def test_drawing_from_one_stream_does_not_disturb_another():
    alone = make_rng(7, "b")
    expected = [alone.random() for _ in range(5)]
    noisy, quiet = make_rng(7, "a"), make_rng(7, "b")
    for _ in range(1000):
        noisy.random()
    assert [quiet.random() for _ in range(5)] == expected


def test_derived_seeds_come_from_sha256_not_from_python_hash():
    expected = int.from_bytes(hashlib.sha256(b"5:airline").digest()[:8], "big")
    assert derive_seed(5, "airline") == expected


# ----- parameters ------------------------------------------------------------------
def test_a_parameter_of_unknown_kind_cannot_be_declared():
    with pytest.raises(ValueError):
        Param("x", "X", "float")


@pytest.mark.parametrize("value", ["3", 3.0, None, [3], True, False])
def test_an_int_parameter_refuses_anything_but_a_whole_number(value):
    error = refused(COUNT.check, value)
    assert (error.code, error.field) == ("bad_type", "count")


@pytest.mark.parametrize("value", [0, -1, 13, 10**12])
def test_an_int_parameter_refuses_values_outside_its_bounds(value):
    assert refused(COUNT.check, value).code == "out_of_range"


@pytest.mark.parametrize("value", [1, 12])
def test_an_int_parameter_accepts_its_bounds(value):
    assert COUNT.check(value) == value


@pytest.mark.parametrize("value", ["1024", 1024.0, 17, None, True])
def test_a_choice_must_be_one_of_the_declared_values_with_the_same_type(value):
    assert refused(PARTITIONS.check, value).code == "bad_choice"


def test_a_choice_accepts_a_declared_value():
    assert PARTITIONS.check(1024) == 1024
    assert KIND.check("b") == "b"
    assert refused(KIND.check, "c").code == "bad_choice"


@pytest.mark.parametrize(
    ("value", "code"),
    [(5, "bad_type"), (None, "bad_type"), ("", "empty"), ("  \t", "empty")],
)
def test_text_must_be_non_blank_text(value, code):
    assert refused(KEY.check, value).code == code


def test_text_longer_than_its_limit_is_refused():
    assert KEY.check("12345") == "12345"
    assert refused(KEY.check, "123456").code == "too_long"


@pytest.mark.parametrize("value", ["\ud800", "N1\udfff"])
def test_text_with_lone_surrogates_is_refused(value):
    # JSON can carry "\ud800"; such text cannot be hashed (mmh3 crashes on it)
    assert refused(KEY.check, value).code == "bad_text"


@pytest.mark.parametrize("value", [0, 1, "true", None])
def test_a_bool_parameter_takes_only_true_or_false(value):
    assert refused(FLAG.check, value).code == "bad_type"
    assert FLAG.check(True) is True


# ----- actions ---------------------------------------------------------------------
def test_valid_arguments_come_back_checked():
    assert EVERYTHING.validate(dict(GOOD)) == GOOD


@pytest.mark.parametrize("args", [None, [], "count=3", 3, ["count", 3]])
def test_arguments_that_are_not_an_object_are_refused(args):
    assert refused(EVERYTHING.validate, args).code == "bad_args"


def test_an_unknown_argument_is_refused_and_named():
    error = refused(EVERYTHING.validate, {**GOOD, "shards": 4})
    assert (error.code, error.field) == ("unknown_argument", "shards")


def test_a_missing_argument_is_refused_and_named():
    args = {k: v for k, v in GOOD.items() if k != "key"}
    error = refused(EVERYTHING.validate, args)
    assert (error.code, error.field) == ("missing_argument", "key")


def test_errors_are_json_safe_data():
    error = refused(EVERYTHING.validate, {**GOOD, "count": 99})
    data = error.as_dict()
    assert data["code"] == "out_of_range"
    assert data["field"] == "count"
    assert "12" in data["message"]
    canonical_json(data)


def test_declarations_are_json_safe():
    for lab in LABS.values():
        declaration = lab.declaration()
        assert declaration["lab"] == lab.slug
        assert canonical_json(declaration)


# ----- labs ------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["no_such_action", "", None, 3, "_replace", "apply"])
def test_a_lab_refuses_an_unknown_action(name):
    lab = LABS["hash-placement"](seed=1, key_count=100)
    before = lab.digest()
    with pytest.raises(ActionError) as caught:
        lab.apply(name, {})
    assert caught.value.code == "unknown_action"
    assert lab.digest() == before


@pytest.mark.parametrize("seed", [-1, SEED_MAX + 1, "1", 1.0, None, True])
def test_a_lab_refuses_a_bad_seed(seed):
    with pytest.raises(ActionError) as caught:
        LABS["hash-placement"](seed=seed, key_count=100)
    assert caught.value.code == "bad_seed"


def test_a_lab_accepts_the_largest_seed_a_browser_keeps_exactly():
    lab = LABS["hash-placement"](seed=SEED_MAX, key_count=10)
    assert lab.snapshot()["seed"] == SEED_MAX


@pytest.mark.parametrize(
    ("options", "code"),
    [
        ({"colour": "red"}, "unknown_option"),
        ({"shards": 0}, "out_of_range"),
        ({"partitions": "1024"}, "bad_choice"),
        ({"key_count": 10**12}, "out_of_range"),
    ],
)
def test_a_lab_refuses_bad_options(options, code):
    with pytest.raises(ActionError) as caught:
        LABS["hash-placement"](seed=1, **options)
    assert caught.value.code == code


def test_the_base_lab_leaves_snapshot_and_metrics_to_subclasses():
    lab = Lab(seed=0)
    with pytest.raises(NotImplementedError):
        lab.snapshot()
    with pytest.raises(NotImplementedError):
        lab.metrics()


def test_a_param_can_name_where_the_snapshot_holds_its_value_in_force():
    from simulators.engine import Param

    param = Param(
        "w",
        "W",
        "choice",
        default="QUORUM",
        choices=("ONE", "QUORUM"),
        current="levels.w",
    )
    assert param.as_dict()["current"] == "levels.w"
    assert "current" not in Param("n", "N", "int", default=1).as_dict()
