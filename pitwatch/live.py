"""``pitwatch run``: the configured camera and microcontroller referee a real board.

The sources are made by :mod:`pitwatch.livesources`, the session and its threads by
:class:`pitwatch.runtime.Runtime`; this module puts them together in the order that refuses a
set-up that cannot work before the recorded games are touched (the camera's calibration and
board), and leaves those games as it found them if the start fails later (:meth:`Runtime.starting`).
"""

from __future__ import annotations

import sys

from firmware_bridge.bridge import probe

from .config import Config
from .livesources import (CAMERA_ALONE, FIRST_VALUES_WAIT, camera_set_up, camera_source, learned_board,
                          plays_without_a_board, sensor_source)
from .runtime import Runtime, announce, configured_variant, played_variant, source_weights
from .sources import CAMERA, SENSORS


def run_live(config: Config, variant_asked: bool = False) -> int:
    """``pitwatch run``: the configured camera and microcontroller referee a real board
    (``variant_asked``: the variant was named on the command line, :meth:`Runtime.play_asked_variant`)."""
    weights = source_weights(camera=bool(config["camera"]["source"]), sensors=bool(config["sensors"]["port"]))
    if not weights:
        print("pitwatch run: no camera and no microcontroller configured: set camera.source or sensors.port "
              "(or try `pitwatch demo`)", file=sys.stderr)
        return 2
    camera = None
    if CAMERA in weights:  # refused before the database is touched: a refused run records no game
        configured = configured_variant(config)
        camera = camera_set_up(config, configured if variant_asked else played_variant(config, configured))
    runtime = Runtime(config)
    with runtime.starting():
        resumed = runtime.start_session()
        # the board the camera was calibrated on, else the one the sensors were learned on: a variant asked for is played on it
        runtime.session.fixed_board = camera.board if camera else learned_board(config)
        if variant_asked and runtime.play_asked_variant():
            resumed = False
        layout = runtime.session.game.variant.layout
        if (SENSORS in weights and plays_without_a_board(config, layout.labels)
                and not probe(None, FIRST_VALUES_WAIT).status.connected):
            del weights[SENSORS]
            print(f'pitwatch: {CAMERA_ALONE}; set sensors.port = "" to skip the search', flush=True)
        fusion = runtime.use_fusion(weights)
        runtime.session.fixed_board = layout.labels
        if SENSORS in weights:
            runtime.sensors = sensor_source(config, layout.labels, fusion, runtime)
            runtime.session.leds = runtime.sensors.set_leds
            runtime.session.refresh()  # the first LED frame: the legal moves of the game in progress
        if camera is not None:
            runtime.camera, runtime.corners = camera_source(config, camera, fusion, runtime)
        runtime.serve()
        for source in (runtime.sensors, runtime.camera):
            if source is not None:
                source.start()
        runtime.start()
    announce(runtime, resumed)
    runtime.wait_then_stop()
    return 0
