"""The renderer: deterministic, truthful, and not kind."""

import numpy as np

from calibration.profiles import board_profile
from vision.render import Shot, random_counts, random_scene, random_shot, render


def test_same_seed_same_image_and_truth():
    def make():
        rng = np.random.default_rng(11)
        scene = random_scene("2x6+stores", rng)
        counts, white = random_counts(board_profile("2x6+stores"), rng)
        return render(scene, counts, white, random_shot(rng, hand=True))
    first, second = make(), make()
    assert (first.image == second.image).all()
    assert first.counts == second.counts and first.covered == second.covered


def test_counts_change_the_picture_only_inside_their_hollow():
    rng = np.random.default_rng(2)
    scene = random_scene("2x6", rng, "pebble")
    plain = Shot(seed=5)
    empty = render(scene, {}, None, plain).image.astype(int)
    one = render(scene, {"C": 20}, None, plain).image.astype(int)
    changed = np.abs(one - empty).sum(axis=2) > 40
    assert 300 < changed.sum() < 40_000  # a heap of 20 is visible but stays in one hollow


def test_hand_hides_pits_and_is_reported():
    rng = np.random.default_rng(4)
    scene = random_scene("4x8", rng)
    with_hand = render(scene, {}, None, Shot(hand=True, seed=9))
    assert with_hand.covered, "a hand over the board must cover at least one pit"


def test_chip_board_renders_white_chips_brighter_than_yellow():
    rng = np.random.default_rng(3)
    scene = random_scene("2x5+outboxes", rng)
    yellow = render(scene, {"C": 1}, {"C": 0}, Shot(seed=1)).image.astype(float)
    white = render(scene, {"C": 1}, {"C": 1}, Shot(seed=1)).image.astype(float)
    blue_gain = (white[..., 0] - yellow[..., 0]).sum()
    assert blue_gain > 5_000  # yellow has little blue, white has plenty
