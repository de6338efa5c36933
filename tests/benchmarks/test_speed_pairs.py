"""The paired speed benchmark run as its users run it: two source trees (here this one against
itself), the same frames read by each in its own process, every pair's difference printed."""

import importlib.util
import re

import pytest
from benchmark_scripts import BENCHMARKS, run_script

_spec = importlib.util.spec_from_file_location("speed_pairs", BENCHMARKS / "speed_pairs.py")
speed_pairs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(speed_pairs)


def test_two_trees_read_the_same_frames_in_turn_and_each_pair_s_difference_is_printed():
    done = run_script("speed_pairs.py", str(BENCHMARKS.parent), "--scenes", "1", "--frames", "1", "--pairs", "2")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("6 set-ups x 1 frames, seed 1; before ") and f"after {BENCHMARKS.parent};" in lines[0]
    pairs = [line for line in lines if re.match(r"^  pair +\d+: moved [\d.]+ -> [\d.]+ \([+-][\d.]+\); still ", line)]
    assert len(pairs) == 2, done.stdout
    assert "after minus before, over the 2 pairs:" in lines, done.stdout
    for said in ("a moved frame", "a still board's next exposure", "the same, its Reading given"):
        assert re.search(rf"^  {re.escape(said)} +median [+-][\d.]+ ms, from [+-][\d.]+ to [+-][\d.]+; "
                         r"after cheaper in [0-2] of 2 pairs$", done.stdout, re.MULTILINE), done.stdout


def test_a_folder_that_is_no_source_tree_is_refused_before_anything_is_rendered(tmp_path):
    done = run_script("speed_pairs.py", str(tmp_path))
    assert done.returncode == 2
    assert f"{tmp_path}: not a Pitwatch source tree (no vision/reader.py in it)" in done.stderr


def test_a_tree_whose_reader_cannot_be_loaded_is_named_with_what_went_wrong(tmp_path):
    """A folder with a vision/reader.py that is no reader: the run stops on its first timed run,
    naming the tree and the error in one line, no traceback."""
    (tmp_path / "vision").mkdir()
    (tmp_path / "vision" / "reader.py").write_text("")
    done = run_script("speed_pairs.py", str(tmp_path), "--scenes", "1", "--frames", "1", "--pairs", "1")
    assert done.returncode == 1
    assert done.stderr.strip() == (f"speed_pairs.py: the reader of {tmp_path} failed on the frames: ImportError: "
                                   f"cannot import name 'BoardReader' from 'vision.reader' ({tmp_path}/vision/reader.py)")


@pytest.mark.parametrize("blocked", ["000.json", "000-000-moved.png"])
def test_a_frame_or_calibration_that_cannot_be_written_stops_the_run_naming_it(tmp_path, blocked):
    """A folder in the way of a file (as a full disk would be): the run stops before timing
    frames that are not there."""
    (tmp_path / blocked).mkdir()
    with pytest.raises(SystemExit) as stopped:
        speed_pairs.render_frames(tmp_path, 1, 1, 1, False)
    assert str(stopped.value).startswith(f"speed_pairs.py: cannot write {tmp_path / blocked}: ")
