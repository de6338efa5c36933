"""The noise model behind the replay tests: seeded, honest, real at every heap size."""

from __future__ import annotations

import collections
import random

import rules
from referee_games import random_game
from rules.referee.likelihood import RULED_OUT
from rules.referee.noise import count_channel, noisy_reading, sigma

VARIANTS = ("kalah", "pass-it-on", "nam-nam", "bao-la-kujifunza")


def test_the_same_seed_gives_the_same_reading() -> None:
    pos = rules.variant("oware").start()
    one = noisy_reading(pos, random.Random(7)).to_json()
    two = noisy_reading(pos, random.Random(7)).to_json()
    assert one == two
    assert one != noisy_reading(pos, random.Random(8)).to_json()


def seen_pits(misread: float, unseen: float, confusion: float):
    """(true count, true whites, PitReading or None) for every pit of random positions."""
    rng = random.Random(3)
    for name in VARIANTS:
        variant = rules.variant(name)
        for _ in range(25):
            for pos in random_game(variant, rng, 200)[::5]:
                reading = noisy_reading(pos, rng, misread=misread, unseen=unseen, colour_confusion=confusion)
                for i, label in enumerate(variant.layout.labels):
                    yield pos.pits[i], None if pos.white is None else pos.white[i], reading.pits[label]


def test_readings_are_honest_noisy_at_every_heap_size_and_worse_for_bigger_heaps() -> None:
    pits = unseen = inside = ruled_out = whites = white_wrong = 0
    off = collections.Counter()
    heaps = collections.Counter()
    for count, white, pit in seen_pits(misread=0.02, unseen=0.1, confusion=0.05):
        if pit is None:
            unseen += 1
            continue
        pits += 1
        assert pit.probability(count) > 0, "the true count always keeps a probability"
        inside += count in pit.credible_set(0.95)
        ruled_out += pit.probability(count) < RULED_OUT
        size = 0 if count == 0 else 1 if count <= 4 else 2 if count <= 9 else 3
        heaps[size] += 1
        off[size] += pit.most_likely != count
        if white is not None:
            whites += 1
            white_wrong += pit.most_likely_white != white
    assert 0.94 <= inside / pits <= 0.99, "calibrated: the 95% set holds the truth about 95% of the time"
    assert 0.012 <= ruled_out / pits <= 0.03, "misreads (2%) give the truth almost no probability"
    assert 0.08 < unseen / (unseen + pits) < 0.12
    assert 0.01 < white_wrong / whites < 0.04, "white chips seen one off (5%, half of them at 0 whites)"
    rates = [off[size] / heaps[size] for size in sorted(heaps)]
    assert rates[0] > 0.005 and rates[1] > 0.03, ("small heaps are misread too", rates)
    assert rates == sorted(rates) and rates[-1] > 0.4, ("the bigger the heap, the worse", rates)


def test_the_count_noise_grows_with_the_heap_and_a_misread_can_be_anything() -> None:
    channel = count_channel(48, 0.25, 0.06, 0.005)
    exact = [channel.rows[k][k] for k in range(30)]
    assert exact == sorted(exact, reverse=True) and exact[0] > 0.99 and exact[20] < 0.3
    assert all(abs(sum(row) - 1) < 1e-9 for row in channel.rows)  # a distribution over what is seen
    assert min(min(row) for row in channel.rows) >= 0.005 / 49 - 1e-12  # any count may be misread as any
    assert sigma(0, 0.25, 0.06) == 0.25 and sigma(20, 0.25, 0.06) == 0.25 + 1.2
