"""SplitMix64: the published sequence, a state that pickles as one number."""

import pickle
import statistics

import pytest

from simulators.engine.rng import SplitMix


def test_the_first_outputs_are_splitmix64s():
    # the reference implementation's first outputs for seed 0
    rng = SplitMix(0)
    expected = [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]
    assert [rng.random() for _ in expected] == [(x >> 11) * 2.0**-53 for x in expected]


def test_draws_are_uniform_in_0_1():
    rng = SplitMix(12345)
    draws = [rng.random() for _ in range(100_000)]
    assert all(0.0 <= d < 1.0 for d in draws)
    assert statistics.mean(draws) == pytest.approx(0.5, abs=0.005)
    assert sum(d < 0.1 for d in draws) / len(draws) == pytest.approx(0.1, abs=0.005)


def test_a_copy_goes_on_where_the_original_does():
    rng = SplitMix(7)
    rng.random()
    copy = pickle.loads(pickle.dumps(rng))
    assert len(pickle.dumps(rng)) < 100
    assert [copy.random() for _ in range(5)] == [rng.random() for _ in range(5)]
