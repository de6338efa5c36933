"""``pitwatch calibrate --corners`` runs the same outline check as corners clicked on the dashboard."""

import argparse

import cv2
import numpy as np

from pitwatch.vision_commands import add_vision_commands


def run(*argv):
    parser = argparse.ArgumentParser(prog="pitwatch")
    add_vision_commands(parser.add_subparsers())
    args = parser.parse_args([str(a) for a in argv])
    return args.func(args)


def test_a_mirrored_corner_order_is_refused_before_anything_is_written(tmp_path, capsys):
    picture = tmp_path / "board.png"
    cv2.imwrite(str(picture), np.full((720, 1280, 3), 128, np.uint8))
    mirrored = "1180,430,160,460,215,275,1100,250"  # near-right first: every pit would get its mirror's label
    code = run("calibrate", "--variant", "2x6", "--empty", picture, "--start", picture,
               "--corners", mirrored, "-o", tmp_path / "b.json")
    err = capsys.readouterr().err
    assert code == 2 and "pitwatch calibrate: error: corners:" in err and "Traceback" not in err
    assert not (tmp_path / "b.json").exists()
