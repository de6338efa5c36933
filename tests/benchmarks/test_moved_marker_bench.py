"""The benchmark of markers moved while Pitwatch was off, run as its users run it, small."""

import re

from benchmark_scripts import run_script


def test_a_marker_moved_before_the_first_frame_is_named_and_none_is_named_on_a_board_as_calibrated():
    """One set-up of every profile, one hard frame each, read with a marker moved and as
    calibrated: the moved one is named in some, another never, and none on the boards as calibrated."""
    done = run_script("moved_marker_bench.py", "--scenes", "1", "--frames", "1")
    assert done.returncode == 0, done.stderr
    rows = {way: [int(n) for n in counts.split()] for way, counts in
            re.findall(r"^(moved|unmoved) +((?:\d+ +){4}\d+) +(?:[\d.]+ % of \d+|-)$", done.stdout, re.MULTILINE)}
    (frames, named, another, refused, read), unmoved = rows["moved"], rows["unmoved"]
    assert frames == unmoved[0] == 6 and named + another + refused + read == frames, done.stdout
    assert named >= 1 and another == 0, done.stdout
    assert unmoved[1] == unmoved[2] == 0, done.stdout
    assert "not calibrated" not in done.stdout
