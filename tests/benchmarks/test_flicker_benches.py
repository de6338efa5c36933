"""The benchmarks that measure a lamp flickering in bands (``--flicker``), run as their users run
them: every figure of docs/vision.md, section 5, *Mains flicker*, comes from them."""

import re

from benchmark_scripts import run_script


def test_the_stillness_benchmark_lights_its_frames_in_moving_bands_and_times_the_gate():
    """One set-up of every profile under bands of 10 %: named in the heading, no still board taken
    for motion (the gate before took nearly all), every seed taken seen, and the gate timed."""
    done = run_script("stillness_bench.py", "--setups", "1", "--flicker", "0.1")
    assert done.returncode == 0, done.stderr
    assert "mains flicker in bands 10 % either way" in done.stdout.splitlines()[0]
    seen = {case: (int(hits), int(total)) for case, hits, total
            in re.findall(r"^  (\w[\w ,]*?) +seen as motion +(\d+) of +(\d+);", done.stdout, re.MULTILINE)}
    assert seen["still"][0] == 0 and seen["still"][1] >= 5, done.stdout
    assert seen["taken"][0] == seen["taken"][1] >= 5, done.stdout
    assert re.search(r"^  the gate's CPU time for a frame \(median\): [\d.]+ ms still, [\d.]+ ms with a seed moved",
                     done.stdout, re.MULTILINE), done.stdout


def test_whole_games_under_a_flickering_lamp_are_refereed():
    """A short Kalah game seen in depth under bands of 10 %: the conditions name them, and the
    moves are committed (the gate before judged almost none)."""
    done = run_script("camera_referee_bench.py", "--setups", "1", "--plies", "8", "--variants", "kalah", "--relief",
                      "--flicker", "0.1")
    assert done.returncode == 0, done.stderr
    assert "mains flicker in bands 10 % either way" in done.stdout and ", seen in depth;" in done.stdout
    committed = re.search(r"^all +(\d+) +([\d.]+) %", done.stdout, re.MULTILINE)
    assert committed and int(committed.group(1)) >= 5 and float(committed.group(2)) >= 75.0, done.stdout
