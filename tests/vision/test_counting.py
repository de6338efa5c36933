"""The probability side of counting: honest spreads the referee can rely on."""

import numpy as np

from vision import counting

from vision.counting import PitEstimate, count_distribution, count_seeds, estimate_from, white_distribution


def count_objects(mask, brightness, seed_area):
    """Seeds counted one by one in a single pit covering ``mask``."""
    return int(count_seeds(mask, brightness, seed_area, mask.astype(np.int32), 1)[0])


def test_seeds_counted_apart_give_a_sharp_reading_and_heaps_a_wide_one():
    apart = count_distribution(PitEstimate(3.0, True, 0.2), 48)
    heap = count_distribution(PitEstimate(18.0, False, 0.9), 48)
    assert max(apart) == apart[3] > 0.9
    assert max(heap) < 0.25 and sum(heap[14:23]) > 0.8
    assert abs(sum(apart) - 1) < 1e-9 and abs(sum(heap) - 1) < 1e-9


def test_white_chip_may_hide_in_a_heap_but_not_in_a_shallow_pit():
    shallow = white_distribution(0.0, 5, hidden=PitEstimate(4.0, True, 0.3).hidden)
    deep = white_distribution(0.0, 22, hidden=PitEstimate(20.0, False, 0.95).hidden)
    assert shallow[0] > 0.95 and shallow[1] < 0.01
    assert deep[0] > deep[1] > 0.2
    assert max(range(len(white_distribution(0.6, 22, 1.0))), key=white_distribution(0.6, 22, 1.0).__getitem__) == 1


def test_a_seed_without_a_bright_crown_beside_a_domed_one_still_counts():
    """Two separate seeds: one domed (a bright crown), one darker in its middle than at its rim
    (a dark bean whose middle matches the wood, so no crown). The second must not be flooded
    as background by the watershed started from the first one's crown."""
    yy, xx = np.mgrid[0:40, 0:60].astype(np.float32)
    r_domed, r_dark = (xx - 15) ** 2 + (yy - 20) ** 2, (xx - 45) ** 2 + (yy - 20) ** 2
    domed, dark = r_domed < 64, r_dark < 64
    brightness = np.where(domed, 0.8 - 0.005 * r_domed, np.where(dark, 0.2 + 0.006 * r_dark, 0.3)).astype(np.float32)
    seed_area = float(domed.sum())
    assert count_objects(domed, brightness, seed_area) == 1
    assert count_objects(domed | dark, brightness, seed_area) == 2


def _dome(shape, centre, radius, peak=0.8):
    """A seed seen from above: a disc brighter in its middle (brightness image, mask)."""
    yy, xx = np.mgrid[0:shape[0], 0:shape[1]].astype(np.float32)
    r2 = (xx - centre[0]) ** 2 + (yy - centre[1]) ** 2
    inside = r2 < radius**2
    return np.where(inside, peak - 0.3 * r2 / radius**2, 0.0).astype(np.float32), inside


def test_a_glossy_seed_whose_crown_breaks_in_two_is_one_seed_and_two_touching_seeds_are_two(monkeypatch):
    """A glossy bean's crown is a ring round its highlight, which can break into two pieces
    inside one seed: crowns closer than a seed's size are one seed. Two touching seeds, their
    crowns a seed apart, stay two."""
    yy, xx = np.mgrid[0:40, 0:80].astype(np.float32)
    one = (xx - 20) ** 2 + (yy - 20) ** 2 < 100  # a big seed: 1.7 of the usual size
    two_crowns = np.where(one, 0.5, 0.3).astype(np.float32)
    two_crowns[((xx - 16) ** 2 + (yy - 20) ** 2 < 10) | ((xx - 24) ** 2 + (yy - 20) ** 2 < 10)] = 0.9
    seed_area = 0.6 * float(one.sum())
    assert count_objects(one, two_crowns, seed_area) == 1
    with monkeypatch.context() as patch:  # the two crowns are two cores: merging them is what makes it one
        patch.setattr(counting, "CORE_MERGE", 0.0)
        assert count_objects(one, two_crowns, seed_area) == 2
    left, left_mask = _dome((40, 80), (30, 20), 9)
    right, right_mask = _dome((40, 80), (47, 20), 9)
    assert count_objects(left_mask | right_mask, np.maximum(left, right), seed_area) == 2


def test_every_pit_is_counted_at_once_as_when_counted_alone():
    """The reader counts all pits of a frame in one pass over the pit mosaic."""
    image, masks = np.zeros((40, 120), np.float32), np.zeros((40, 120), bool)
    for x in (15, 70, 95):  # one seed in the first pit, two apart in the second
        dome, inside = _dome((40, 120), (x, 20), 8)
        image, masks = np.maximum(image, dome), masks | inside
    pit_of = np.zeros((40, 120), np.int32)
    pit_of[:, :40], pit_of[:, 50:] = 1, 2
    seed_area = float(np.pi * 64)
    assert list(count_seeds(masks & (pit_of > 0), image, seed_area, pit_of, 2)) == [1, 2]
    assert count_objects(masks[:, 50:], image[:, 50:], seed_area) == 2


def test_counts_where_the_area_says_one_more_seed_than_counted_one_by_one():
    """Touching seeds are often missed one by one from about 8 seeds: an area clearly
    worth one seed more wins, but the one-by-one count keeps some probability. A speck on
    an empty pit is not a seed."""
    seed, hollow = 200.0, 1e6  # a huge hollow: no pile correction
    estimate = estimate_from(9.6 / 0.98 * seed, 8, seed, hollow)
    counts = count_distribution(estimate, 48)
    assert estimate.count == 9 and max(range(48), key=counts.__getitem__) == 9
    assert counts[8] > 0.05 and abs(sum(counts) - 1) < 1e-9
    agreeing = count_distribution(estimate_from(3.0 / 0.98 * seed, 3, seed, hollow), 48)
    assert agreeing[3] > 0.95
    speck = count_distribution(estimate_from(0.3 * seed, 0, seed, hollow), 48)
    assert speck[0] > 0.9
