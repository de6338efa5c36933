"""Helpers shared by the app and web tests (a module, not a conftest, so tests can import it)."""

from __future__ import annotations

import random
import sqlite3
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Iterator

from firmware_bridge.emulator import SensorModel, adc_value
from firmware_bridge.sensors import SensorCalibration
from pitwatch import config as cfg
from pitwatch.livesources import camera_set_up, camera_source
from pitwatch.recorder import MIGRATIONS, Recorder
from pitwatch.runtime import Runtime
from rules import Game, PitReading, Reading


@contextmanager
def configured_camera(tmp_path: Path, source: object, calibration: Path) -> Iterator[tuple]:
    """(camera loop, its board corners, the fusion) as `pitwatch run` makes them from
    ``camera.source`` and ``camera.calibration``, in a started session stopped afterwards."""
    config = cfg.load(tmp_path / "none.toml", [f"recorder.database={tmp_path / 'games.sqlite'}",
                                               f"camera.source={source}", f"camera.calibration={calibration}"])
    runtime = Runtime(config)
    try:
        runtime.start_session()
        fusion = runtime.use_fusion({"camera": 1.0})
        camera, corners = camera_source(config, camera_set_up(config, runtime.session.game.variant), fusion, runtime)
        yield camera, corners, fusion
    finally:
        runtime.stop()


def board(game: Game) -> Reading:
    """What an exact camera sees of the game's current position."""
    return Reading.of_position(game.position, "test")


def between(a, b) -> Reading:
    """A Reading that cannot tell two positions apart: 50/50 wherever they differ."""
    pits = {}
    for label, x, y in zip(a.variant.layout.labels, a.pits, b.pits):
        weights = [0.0] * (max(x, y) + 1)
        weights[x] += 0.5
        weights[y] += 0.5
        pits[label] = PitReading(tuple(weights))
    return Reading(pits, "test")


def random_game(variant: str, plies: int, seed: int) -> Game:
    rng = random.Random(seed)
    game = Game(variant)
    while len(game.moves) < plies and not game.is_over:
        game.play(rng.choice(game.legal_moves()))
    return game


def sensor_calibration_for(board_pits: int, labels, start) -> SensorCalibration:
    """What `pitwatch run` would learn from the emulated board's empty and start boards."""
    model = SensorModel()

    def raw(counts):
        return [adc_value(model.millivolts(i, c)) for i, c in enumerate(counts)]

    return SensorCalibration.fit(labels, [raw([0] * board_pits)] * 3, [raw(start)] * 3, start)


def fill_the_disk(recorder: Recorder, room: bool = False) -> None:
    """Let the game database grow no more (``room``: as much as it likes again). SQLite's limit on
    a file's pages gives the error a full disk gives (``database or disk is full``) by the same
    path; filling a real disk would need a mount the tests may not make."""
    with recorder._lock:
        pages = recorder._db.execute("PRAGMA page_count").fetchone()[0]
        recorder._db.execute(f"PRAGMA max_page_count = {2**30 if room else pages}")


def version_1_database(path) -> None:
    """A database as Pitwatch wrote it at schema version 1 (no tags, no application id), one game in it."""
    with closing(sqlite3.connect(path)) as db:
        db.executescript(MIGRATIONS[0])
        db.execute("PRAGMA user_version=1")
        db.execute("INSERT INTO games (id, variant, south, north, started_at, status) "
                   "VALUES (1, 'kalah', 'Ann', 'Bob', 1700000000, 'abandoned')")
        for ply, text in enumerate(("C", "F")):
            db.execute("INSERT INTO moves (game_id, ply, text, player, position, at) VALUES (1, ?, ?, 'south', '{}', 0)",
                       (ply, text))
        db.commit()


# Pass It On, seed 0 of a random game: after these 22 moves South cannot sow, and passes taking a chip
# from South's outbox (white or yellow) or North's (yellow).
MUST_PASS_AFTER = ["B:yyy", "b:yyy", "A:wyy", "a:yyw", "E:yyyy", "d:yyywy", "C:yyyyyy", "e:yyyyy", "B:wyw", "a:yy",
                   "E:yw", "a:w", "C:yw", "b:ywyyy", "A:yyy", "e:y", "D:yyyyyyyyyy", "d:yw", "E:yw", "e:yy", "A:yy", "b:y"]
