"""The benchmark of markers stuck by hand, run as its users run it, small."""

import re

from benchmark_scripts import run_script


def test_markers_kept_where_calibration_found_them_put_the_board_closer_than_the_profile_s_places():
    """One set-up of every profile, one nudged frame, each marker under a mug in turn: both ways are
    measured, and the places calibration kept put the pits nearer where four markers put them."""
    done = run_script("marker_places_bench.py", "--scenes", "1", "--frames", "1")
    assert done.returncode == 0, done.stderr
    apart = dict(re.findall(r"^(kept by calibration|the profile's \(files before\)) +(\d+\.\d+) +\d+\.\d+ +\d+\.\d+$",
                            done.stdout, re.MULTILINE))
    assert float(apart["kept by calibration"]) < 0.5 < float(apart["the profile's (files before)"]), done.stdout
    assert len(re.findall(r"^(?:kept by|the profile's).* [34] +[\d.]+ % of \d+ +\d+$", done.stdout, re.MULTILINE)) == 4, done.stdout
    assert "not calibrated" not in done.stdout
