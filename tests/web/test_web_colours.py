"""The dashboard draws with the colours the LEDs light: the players', a board's illegal pits and
captures are written once for the page (its stylesheet, which board.js reads) and once for the
microcontroller (pitwatch.display); they must stay the same colours."""

from __future__ import annotations

import re
from pathlib import Path

from pitwatch.display import CAPTURE_COLOUR, ILLEGAL_COLOUR, PLAYER_COLOURS

STYLESHEET = Path(__file__).resolve().parents[2] / "web" / "static" / "pitwatch.css"


def test_the_page_and_the_leds_use_the_same_colours():
    declared = dict(re.findall(r"--([a-z]+):\s*(#[0-9a-fA-F]{6})", STYLESHEET.read_text(encoding="utf-8")))
    assert (declared["south"], declared["north"]) == PLAYER_COLOURS
    assert (declared["illegal"], declared["capture"]) == (ILLEGAL_COLOUR, CAPTURE_COLOUR)
