"""The pit mosaic: every hollow's box, grown by a margin, packed into one small image."""

import numpy as np

from vision.mosaic import MARGIN_PX, PitMosaic


def test_gather_puts_each_box_in_its_tile_and_knows_where_it_came_from():
    board = np.arange(60 * 100, dtype=np.int32).reshape(60, 100)
    boxes = {"A": (slice(10, 30), slice(5, 25)), "B": (slice(2, 58), slice(60, 90))}  # B reaches the board's edge
    mosaic = PitMosaic(boxes, board.shape)
    assert mosaic.shape[0] % 2 == 0 and mosaic.shape[1] % 2 == 0
    tiles = mosaic.gather(board)
    xs, ys = mosaic.board_coordinates()
    for label, box in boxes.items():
        assert np.array_equal(tiles[mosaic.inner(label, box)], board[box])  # the box itself, unchanged
        tile = mosaic.tiles[label]
        assert np.array_equal(board[ys[tile].astype(int), xs[tile].astype(int)], tiles[tile])
    grown = mosaic.board_boxes["A"]
    assert (grown[0].start, grown[1].stop) == (10 - MARGIN_PX, 25 + MARGIN_PX)
    assert mosaic.board_boxes["B"][0] == slice(0, 60)  # clipped at the board's edge
    colour = np.dstack([board, board, board]).astype(np.uint8)
    assert mosaic.gather(colour).shape == mosaic.shape + (3,)
