"""Shared fixtures for the vision tests: rendered, calibrated board set-ups.

Rendering and calibrating cost about a second per set-up, so each set-up is
made once per test process (an in-memory cache: parallel-safe).
"""

from __future__ import annotations

import functools
from dataclasses import replace

import numpy as np
import pytest

from calibration.calibfile import Calibration
from calibration.calibrate import calibrate
from calibration.profiles import board_profile, start_counts
from vision.render import FRAME_SIZE, Scene, random_scene, random_shot, render


def calibrated_from(board: str, rng: np.random.Generator, kind: str | None = None,
                    frame: tuple[int, int] = FRAME_SIZE, relief: bool = False, far: float = 1.0) -> tuple[Scene, Calibration]:
    """A set-up of ``board`` drawn from ``rng`` (a camera picture of ``frame`` px, the board seen
    in ``relief`` or painted flat, the camera ``far`` times as far with the same lens) and its
    calibration from an easy empty and start frame, as ``benchmarks/vision_bench.py`` calibrates
    its set-ups (``rng`` goes on from there)."""
    scene = replace(random_scene(board, rng, kind, frame), relief=relief)
    scene = replace(scene, fill=scene.fill / far)
    empty = render(scene, {h.label: 0 for h in board_profile(board).hollows}, None, random_shot(rng, hard=False, hand=False))
    counts, white = start_counts(board)
    start = render(scene, counts, white, random_shot(rng, hard=False, hand=False))
    return scene, calibrate(board, empty.image, start.image)


@functools.lru_cache(maxsize=None)
def calibrated(board: str, seed: int = 7, kind: str | None = None, relief: bool = False) -> tuple[Scene, Calibration]:
    """A random set-up of ``board`` (seen in ``relief`` or not) and its calibration from an easy
    empty and start frame."""
    return calibrated_from(board, np.random.default_rng([seed, len(board)]), kind, relief=relief)


@pytest.fixture(scope="session")
def kalah_setup() -> tuple[Scene, Calibration]:
    return calibrated("kalah")


@pytest.fixture(scope="session")
def setup_of():
    """``setup_of(board, seed=7, kind=None, relief=False)`` -> (scene, calibration), cached."""
    return calibrated


@pytest.fixture(scope="session")
def setup_from():
    """``setup_from(board, rng, kind=None, ...)`` -> (scene, calibration): a set-up drawn from
    ``rng`` (:func:`calibrated_from`)."""
    return calibrated_from
