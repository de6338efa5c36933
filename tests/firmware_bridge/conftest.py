"""Fixtures: the firmware and harness built once per session, and a board of either kind.

``device`` is parametrised over the Python emulator and the real firmware
on simavr, built for both chips (ATmega328P: Uno/Nano; ATmega2560: Mega), so
every conformance test holds all three to the same protocol. Everything lives
under pytest's tmp paths: parallel-safe.
"""

from __future__ import annotations

from typing import Callable

import pytest

from firmware_bridge.emulator import EmulatedBoard
from firmware_bridge.harness import Build, SimavrBoard, build
from waiting import wait_until

Colours = tuple[tuple[int, int, int], ...]


@pytest.fixture(scope="session")
def built(tmp_path_factory) -> Build:
    """``make`` the harness and both firmware images for both MCUs (a second or two)."""
    return build(tmp_path_factory.mktemp("firmware-build"))


class Device:
    """One board under test, emulator or firmware, behind the same methods."""

    def __init__(self, board: EmulatedBoard | SimavrBoard, kind: str) -> None:
        self.board, self.kind = board, kind

    def __getattr__(self, name):
        return getattr(self.board, name)

    @property
    def pin_errors(self) -> list[str]:
        """WS2812 timing outside the datasheet, as measured at the pin (firmware only)."""
        return list(self.board.errors) if isinstance(self.board, SimavrBoard) else []

    def wait_shown(self, predicate: Callable[[Colours], bool], timeout: float = 10.0,
                   since: float = 0.0) -> Colours | None:
        """Wait until the LEDs show a frame satisfying ``predicate`` (at the pin for the firmware;
        only frames latched after ``time.monotonic()`` = ``since``)."""
        if isinstance(self.board, SimavrBoard):
            return self.board.wait_for_leds(predicate, timeout, since)

        def satisfying() -> Colours | None:
            shown = self.board.shown()
            return shown if predicate(shown) else None
        return wait_until(satisfying, timeout)


@pytest.fixture(params=["emulator", "atmega328p", "atmega2560"])
def device(request, built, tmp_path) -> Device:
    link = tmp_path / "ttyPitwatch"
    if request.param == "emulator":
        board = EmulatedBoard(link=link)
    else:
        board = SimavrBoard(built.harness, built.firmware[request.param], request.param, link=link)
    board.start()
    yield Device(board, request.param)
    board.stop()
