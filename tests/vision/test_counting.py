"""The probability side of counting: honest spreads the referee can rely on."""

import numpy as np

from vision.counting import PitEstimate, count_distribution, count_objects, white_distribution


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
