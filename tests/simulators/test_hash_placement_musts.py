"""The **must** numbers of hash-placement (LABS.md), over 20,000 keys and more."""

import itertools
from collections import Counter

import mmh3
import pytest

from simulators.airline import KEY_KINDS
from simulators.engine.hashing import murmur
from simulators.labs.hash_placement.hashing import redis_slot

KEYS = 20_000
SEEDS = (1, 2, 3)
KINDS_AND_SEEDS = list(itertools.product(KEY_KINDS, SEEDS))
PARTITION_COUNTS = (256, 1024, 16384)


def numbers(lab, scheme: str) -> dict:
    return lab.metrics()["schemes"][scheme]


def lookup(lab, key: str) -> dict:
    (event,) = lab.apply("lookup", {"key": key})
    return event


# ----- adding a fifth shard --------------------------------------------------------
@pytest.mark.parametrize(("kind", "seed"), KINDS_AND_SEEDS)
def test_adding_a_fifth_shard_moves_four_in_five_keys_under_mod_n(
    new_lab, check_invariants, kind, seed
):
    lab = new_lab(seed, key_count=KEYS, key_kind=kind, shards=4)
    lab.apply("add_shard", {})
    assert numbers(lab, "mod")["moved_fraction"] == pytest.approx(0.80, abs=0.02)
    check_invariants(lab)


@pytest.mark.parametrize("partitions", PARTITION_COUNTS)
@pytest.mark.parametrize(("kind", "seed"), KINDS_AND_SEEDS)
def test_adding_a_fifth_shard_moves_one_in_five_keys_under_fixed_partitions(
    new_lab, check_invariants, kind, seed, partitions
):
    lab = new_lab(seed, key_count=KEYS, key_kind=kind, partitions=partitions)
    lab.apply("add_shard", {})
    moved = numbers(lab, "partitions")
    assert moved["moved_fraction"] == pytest.approx(0.20, abs=0.02)
    assert list(moved["received"]) == ["E"]
    assert set(moved["sent"]) == set("ABCD")
    check_invariants(lab)


@pytest.mark.parametrize("partitions", PARTITION_COUNTS)
def test_the_fifth_shard_takes_whole_partitions_one_from_each_shard_in_turn(
    new_lab, owners_of_partitions, partitions
):
    lab = new_lab(1, key_count=KEYS, partitions=partitions)
    before = owners_of_partitions(lab)
    assert Counter(before) == dict.fromkeys("ABCD", partitions // 4)
    lab.apply("add_shard", {})
    after = owners_of_partitions(lab)
    handed_over = [
        (old, new) for old, new in zip(before, after, strict=True) if old != new
    ]
    assert {new for _, new in handed_over} == {"E"}
    assert len(handed_over) == partitions // 5
    given = Counter(old for old, _ in handed_over)
    assert set(given) == set("ABCD")
    # one partition from each shard in turn: no shard gives two more than another
    assert max(given.values()) - min(given.values()) <= 1
    assert all(abs(n - partitions / 20) <= 1 for n in given.values())
    assert all(abs(n - partitions / 5) <= 1 for n in Counter(after).values())


@pytest.mark.parametrize("kind", KEY_KINDS)
@pytest.mark.parametrize("shards", range(1, 12))
def test_a_ring_with_many_vnodes_moves_about_one_key_in_n_plus_one(
    new_lab, kind, shards
):
    lab = new_lab(2, key_count=KEYS, key_kind=kind, shards=shards, vnodes=256)
    lab.apply("add_shard", {})
    ring = numbers(lab, "ring")
    assert ring["moved_fraction"] == pytest.approx(1 / (shards + 1), abs=0.03)
    assert len(ring["received"]) == 1


def test_a_ring_moves_a_fifth_going_from_four_to_five_and_a_tenth_from_nine_to_ten(
    new_lab,
):
    four = new_lab(1, key_count=KEYS, shards=4, vnodes=256)
    four.apply("add_shard", {})
    assert numbers(four, "ring")["moved_fraction"] == pytest.approx(0.20, abs=0.03)
    nine = new_lab(1, key_count=KEYS, shards=9, vnodes=256)
    nine.apply("add_shard", {})
    assert numbers(nine, "ring")["moved_fraction"] == pytest.approx(0.10, abs=0.02)


# ----- removing a shard ------------------------------------------------------------
@pytest.mark.parametrize("partitions", [1024, 16384])
@pytest.mark.parametrize("shard", list("ABCDE"))
def test_removing_a_shard_moves_only_its_own_keys(
    new_lab, check_invariants, shard, partitions
):
    lab = new_lab(3, key_count=KEYS, shards=5, vnodes=64, partitions=partitions)
    held_before = {
        s: numbers(lab, s)["per_shard"][shard] for s in ("partitions", "ring")
    }
    events = lab.apply("remove_shard", {"shard": shard})
    for scheme, held in held_before.items():
        moved = numbers(lab, scheme)
        assert moved["moved"] == held > 0
        assert moved["sent"] == {shard: held}
        assert shard not in moved["received"]
        (event,) = [e for e in events if e.get("scheme") == scheme]
        assert event["sample_moves"], "the sample should show some keys leaving"
        assert all(before == shard for _, before, _ in event["sample_moves"])
    check_invariants(lab)


def test_removing_a_shard_under_mod_n_reshuffles_the_survivors_too(new_lab):
    lab = new_lab(1, key_count=KEYS, shards=5)
    own_keys = numbers(lab, "mod")["per_shard"]["C"]
    lab.apply("remove_shard", {"shard": "C"})
    mod = numbers(lab, "mod")
    assert mod["moved"] > 3 * own_keys
    assert set(mod["sent"]) == set("ABCDE")


# ----- the hash stays, the table changes ---------------------------------------------
def test_the_hash_of_a_key_never_changes_only_the_table(new_lab):
    lab = new_lab(4, key_count=KEYS, partitions=16384)

    def hashes():
        sample = [
            (k["id"], k["key"], k["hash"], k["slot"]) for k in lab.snapshot()["sample"]
        ]
        found = lookup(lab, "N12345")
        return sample, (found["hash"], found["slot"])

    first = hashes()
    tables = [lab.snapshot()["schemes"]]
    for name, args in [
        ("add_shard", {}),
        ("set_vnodes", {"vnodes": 200}),
        ("remove_shard", {"shard": "B"}),
        ("set_shards", {"count": 9}),
        ("set_partitions", {"partitions": 1024}),
    ]:
        lab.apply(name, args)
        tables.append(lab.snapshot()["schemes"])
        assert hashes() == first, name
        assert tables[-1] != tables[-2], f"{name} should have changed the tables"
    for _, key, key_hash, slot in first[0]:
        assert key_hash == mmh3.hash(key, 0, False) == murmur(key)
        assert slot == redis_slot(key)


def test_murmur_is_murmurhash3_x86_32_with_seed_zero():
    assert murmur("") == 0
    assert murmur("hello") == 613153351
    assert murmur("The quick brown fox jumps over the lazy dog") == 0x2E4FF723


# ----- neighbours land far apart ---------------------------------------------------
def test_n12345_and_n12346_land_on_different_shards_under_mod_4(new_lab):
    lab = new_lab(1, key_count=1000, shards=4)
    first, second = lookup(lab, "N12345"), lookup(lab, "N12346")
    # documented: N12345 hashes to 1273149672 (mod 4 = 0, shard A),
    # N12346 to 3836845409 (mod 4 = 1, shard B)
    assert (first["hash"], first["paths"]["mod"]["remainder"]) == (1273149672, 0)
    assert (second["hash"], second["paths"]["mod"]["remainder"]) == (3836845409, 1)
    assert first["paths"]["mod"]["shard"] == "A"
    assert second["paths"]["mod"]["shard"] == "B"
    assert bin(first["hash"] ^ second["hash"]).count("1") >= 8


@pytest.mark.parametrize("partitions", [1024, 16384])
@pytest.mark.parametrize("scheme", ["mod", "partitions", "ring"])
def test_a_thousand_consecutive_registrations_are_spread_over_all_shards(
    new_lab, scheme, partitions
):
    lab = new_lab(1, key_count=1000, shards=4, vnodes=256, partitions=partitions)
    shards = [
        lookup(lab, f"N{number}")["paths"][scheme]["shard"]
        for number in range(12000, 13000)
    ]
    longest_run = max(len(list(run)) for _, run in itertools.groupby(shards))
    assert longest_run <= 10
    counts = Counter(shards)
    assert set(counts) == set("ABCD")
    assert all(abs(n - 250) <= 60 for n in counts.values()), counts


# ----- a hot key -------------------------------------------------------------------
def test_a_hot_key_stays_on_one_shard_whatever_the_number_of_shards(
    new_lab, check_invariants
):
    lab = new_lab(5, key_count=KEYS, shards=1, partitions=16384)
    lab.apply("mark_hot", {"key": "N12345", "share_percent": 40})
    for count in range(2, 13):
        lab.apply("set_shards", {"count": count})
        hot = lab.snapshot()["hot_key"]
        paths = lookup(lab, "N12345")["paths"]
        for scheme, shard in hot["where"].items():
            assert shard in lab.snapshot()["shards"]
            assert shard == paths[scheme]["shard"]
            shares = numbers(lab, scheme)["request_share"]
            assert shares[shard] >= 40
            assert shares[shard] == max(shares.values())
        check_invariants(lab)


def test_cooling_the_hot_key_spreads_requests_by_keys_again(new_lab):
    lab = new_lab(5, key_count=KEYS)
    lab.apply("mark_hot", {"key": "N12345", "share_percent": 90})
    lab.apply("clear_hot", {})
    assert lab.snapshot()["hot_key"] is None
    for scheme in ("mod", "partitions", "ring"):
        result = numbers(lab, scheme)
        expected = {s: round(100 * n / KEYS, 1) for s, n in result["per_shard"].items()}
        assert result["request_share"] == expected


# ----- metrics ---------------------------------------------------------------------
@pytest.fixture(scope="module")
def big_lab(new_lab):
    """100,000 keys on Redis Cluster slots, grown from four shards to five."""
    lab = new_lab(6, key_count=100_000, partitions=16384, vnodes=256)
    lab.apply("add_shard", {})
    return lab


def test_moves_add_up_over_a_hundred_thousand_keys(big_lab, check_invariants):
    check_invariants(big_lab)
    schemes = big_lab.metrics()["schemes"]
    assert schemes["mod"]["moved_fraction"] == pytest.approx(0.8, abs=0.01)
    assert schemes["partitions"]["moved_fraction"] == pytest.approx(0.2, abs=0.01)
    assert schemes["ring"]["moved_fraction"] == pytest.approx(0.2, abs=0.02)
    for numbers_ in schemes.values():
        total_sent = sum(numbers_["sent"].values())
        assert total_sent == sum(numbers_["received"].values()) == numbers_["moved"]


def test_load_statistics_describe_the_keys_per_shard(big_lab):
    for scheme, result in big_lab.metrics()["schemes"].items():
        counts = list(result["per_shard"].values())
        mean = sum(counts) / len(counts)
        assert result["mean"] == pytest.approx(mean, abs=0.01), scheme
        assert result["max"] == max(counts)
        assert result["max_over_mean"] == pytest.approx(max(counts) / mean, abs=0.001)
        spread = (sum((c - mean) ** 2 for c in counts) / len(counts)) ** 0.5
        assert result["stddev"] == pytest.approx(spread, abs=0.01)


def test_loading_new_keys_forgets_what_the_last_change_moved(new_lab, check_invariants):
    lab = new_lab(1, key_count=KEYS)
    lab.apply("add_shard", {})
    lab.apply("lookup", {"key": "N12345"})
    assert numbers(lab, "mod")["moved"] > 0  # a lookup changes nothing
    lab.apply("load_keys", {"kind": "passenger", "count": 5000})
    for scheme in ("mod", "partitions", "ring"):
        assert numbers(lab, scheme)["moved"] == 0
        assert numbers(lab, scheme)["sent"] == numbers(lab, scheme)["received"] == {}
    check_invariants(lab)
