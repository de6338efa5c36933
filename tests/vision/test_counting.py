"""The probability side of counting: honest spreads the referee can rely on."""

from vision.counting import PitEstimate, count_distribution, white_distribution


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
