"""The vision benchmark's pit-by-pit readings and their comparison, run as their users run them:
``vision_bench.py --readings`` writes the file, ``compare_readings.py`` pairs two of them."""

import csv
import re
from pathlib import Path

from benchmark_scripts import run_script
from calibration.profiles import PROFILE_LAYOUTS, board_profile

COLUMNS = "profile,setup,frame,pit,truth,covered,read,sure"


def write_csv(path: Path, rows: list[tuple]) -> Path:
    path.write_text("\n".join([COLUMNS, *(",".join(map(str, row)) for row in rows)]) + "\n")
    return path


def test_the_benchmark_writes_every_pit_it_scores(tmp_path):
    """One set-up of every profile, one frame each: a row for every pit, and the rows agree with
    the benchmark's own printed exact count of the pits it saw."""
    readings = tmp_path / "readings.csv"
    done = run_script("vision_bench.py", "--scenes", "1", "--frames", "1", "--readings", str(readings))
    assert done.returncode == 0, done.stderr
    with open(readings, newline="") as file:
        rows = list(csv.DictReader(file))
    expected = sum(len(board_profile(board).hollows) for board in PROFILE_LAYOUTS)
    assert len(rows) == expected and {row["profile"] for row in rows} == set(PROFILE_LAYOUTS)
    seen = [row for row in rows if row["covered"] == "0" and row["read"] != ""]
    exact = sum(row["read"] == row["truth"] for row in seen)
    printed = re.search(r"exact all seen\s+[\d.]+ %\s+\((\d+)/(\d+)\)", done.stdout)
    assert printed and (int(printed[1]), int(printed[2])) == (exact, len(seen)), done.stdout
    assert all(0 < float(row["sure"]) <= 1 for row in seen)


def test_the_comparison_counts_the_pits_mended_and_broken(tmp_path):
    """Six pits of 5-9 mended and none broken is a sign test p of 2 / 64; a pit of 0 broken and a
    heap of 12 unchanged and another read 11, then 13 (wrong either way); a pit under a hand left
    out; an unseen pit counted apart."""
    before = [("kalah", 0, 0, f"p{n}", 7, 0, 6, 0.6) for n in range(6)]
    after = [("kalah", 0, 0, f"p{n}", 7, 0, 7, 0.7) for n in range(6)]
    before += [("kalah", 0, 1, "A", 0, 0, 0, 0.9), ("kalah", 0, 1, "B", 12, 0, 12, 0.5), ("kalah", 0, 1, "C", 3, 1, 1, 0.4),
               ("kalah", 0, 1, "D", 2, 0, "", ""), ("kalah", 0, 1, "E", 12, 0, 11, 0.4)]
    after += [("kalah", 0, 1, "A", 0, 0, 1, 0.5), ("kalah", 0, 1, "B", 12, 0, 12, 0.5), ("kalah", 0, 1, "C", 3, 1, 3, 0.4),
              ("kalah", 0, 1, "D", 2, 0, 2, 0.9), ("kalah", 0, 1, "E", 12, 0, 13, 0.4)]
    done = run_script("compare_readings.py", str(write_csv(tmp_path / "before.csv", before)),
                      str(write_csv(tmp_path / "after.csv", after)))
    assert done.returncode == 0, done.stderr
    lines = {line.split()[0]: line.split() for line in done.stdout.splitlines()[2:] if line.startswith("  ") and "%" in line}
    assert lines["5-9"] == ["5-9", "6", "0", "0.00", "%", "6", "100.00", "%", "6", "0", "0.0312"]
    assert lines["0"][-3:] == ["0", "1", "1"] and lines["10-19"][-3:] == ["0", "0", "1"]
    assert lines["0-9"][1] == "7" and lines["0-9"][-3:] == ["6", "1", "0.125"]
    assert "1-4" not in lines  # the covered pit of 3 is left out, the unseen pit of 2 read by one run only
    assert "not seen: 1 before, 0 after" in done.stdout
    assert "read as another count: 8 (7 mended or broken, 1 wrong either way)" in done.stdout


def test_files_of_different_frames_are_refused_by_the_pit_that_differs(tmp_path):
    before = write_csv(tmp_path / "before.csv", [("oware", 1, 4, "f", 5, 0, 5, 0.9)])
    after = write_csv(tmp_path / "after.csv", [("oware", 1, 4, "f", 6, 0, 6, 0.9)])
    done = run_script("compare_readings.py", str(before), str(after))
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "pit ('oware', 1, 4, 'f') holds 5 seeds in the first file and 6 in the second" in done.stderr


def test_a_malformed_readings_file_is_named_with_its_line(tmp_path):
    good = write_csv(tmp_path / "good.csv", [("oware", 1, 4, "f", 5, 0, 5, 0.9)])
    bad = write_csv(tmp_path / "bad.csv", [("oware", 1, 4, "f", 5, 0, 5, 0.9), ("oware", 1, 4, "g", "five", 0, 5, 0.9)])
    done = run_script("compare_readings.py", str(good), str(bad))
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert f"{bad}, line 3: not a pit's reading" in done.stderr
    done = run_script("compare_readings.py", str(good), str(tmp_path / "missing.csv"))
    assert done.returncode != 0 and "missing.csv: No such file or directory" in done.stderr


def test_the_benchmark_puts_its_cameras_farther_off_when_asked_and_refuses_nearer():
    """``--far 2``: the same set-ups with every camera twice as far (what ``pitwatch doctor`` quotes for a
    board spanning few pixels); nearer than the renderer's cameras is refused before anything is rendered."""
    done = run_script("vision_bench.py", "--scenes", "1", "--frames", "1", "--far", "2")
    assert done.returncode == 0, done.stderr
    assert ", cameras 2 times farther (" in done.stdout and re.search(r"board found\s+[\d.]+ %", done.stdout), done.stdout
    refused = run_script("vision_bench.py", "--far", "0.5")
    assert refused.returncode == 2 and "--far: at least 1 (" in refused.stderr
