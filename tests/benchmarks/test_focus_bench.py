"""The focus benchmark run as its users run it: boards seen in depth, and networks from a folder
(``--relief``, ``--models``), which measure the networks trained out of focus (docs/vision.md, section 2)."""

import re

from benchmark_scripts import BENCHMARKS, run_script

MODELS = BENCHMARKS.parent / "vision" / "models"


def test_the_focus_benchmark_reads_boards_in_depth_with_the_networks_it_is_given():
    """One set-up of every profile, one frame each read at every lens blur: a line per blur,
    the conditions and the networks named."""
    done = run_script("focus_bench.py", "--scenes", "1", "--frames", "1", "--relief", "--models", str(MODELS))
    assert done.returncode == 0, done.stderr
    assert ", seen in depth;" in done.stdout and f"the seed counter's networks from {MODELS}" in done.stdout
    blurs = dict(re.findall(r"^  (\d\.\d) px: +(\d+) frames, 0-9 exact", done.stdout, re.MULTILINE))
    assert blurs["0.0"] == "6" and "4.0" in blurs and len(blurs) >= 5, done.stdout  # a board may be lost at 4 px


def test_a_folder_without_the_networks_is_refused_before_anything_is_rendered(tmp_path):
    done = run_script("focus_bench.py", "--models", str(tmp_path))
    assert done.returncode == 2 and "--models:" in done.stderr and "cannot read the heap counter's description" in done.stderr
