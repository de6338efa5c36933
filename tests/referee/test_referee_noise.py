"""The noise model behind the replay tests: seeded, honest, growing with heap size."""

from __future__ import annotations

import random

import rules
from referee_games import random_game
from rules.referee.noise import noisy_reading, spread


def test_the_same_seed_gives_the_same_reading() -> None:
    pos = rules.variant("oware").start()
    one = noisy_reading(pos, random.Random(7)).to_json()
    two = noisy_reading(pos, random.Random(7)).to_json()
    assert one == two
    assert one != noisy_reading(pos, random.Random(8)).to_json()


def test_readings_are_honest_and_noise_grows_with_the_heap() -> None:
    variant = rules.variant("pass-it-on")
    rng = random.Random(3)
    unseen = seen = off = 0
    for pos in random_game(variant, rng, 60):
        reading = noisy_reading(pos, rng, count_noise=0.2, unseen=0.1, colour_confusion=0.2)
        for i, label in enumerate(variant.layout.labels):
            pit = reading.pits[label]
            if pit is None:
                unseen += 1
                continue
            seen += 1
            n = pos.pits[i]
            assert pit.probability(n) > 0.01, "the true count always keeps a fair probability"
            assert pit.white_probability(pos.white[i]) > 0.01
            assert abs(pit.most_likely - n) <= spread(n, 0.2) + spread(pit.most_likely, 0.2)
            off += pit.most_likely != n or pit.most_likely_white != pos.white[i]
    assert 0.05 < unseen / (unseen + seen) < 0.15
    assert off > 0
    assert spread(2, 0.2) == 0 and spread(10, 0.2) == 2 and spread(20, 0.2) == 4
