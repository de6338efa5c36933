"""A camera source by its name, whichever kind it is: a real one (:mod:`vision.camera`) or the
rendered board of the demo and the tests (:mod:`vision.synthetic`, ``synthetic:VARIANT[:SEED]``).

Kept apart from :mod:`vision.camera` because the rendered camera calibrates its board as a real
one is (:mod:`calibration.calibrate`), which reads frames with :mod:`vision.reader`, which uses
:mod:`vision.camera`: the module that names both kinds sits above all of them.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from .camera import CAMERA_LOST, Frame, FrameSource, SourceError, open_camera, picture_of
from .picture_size import DEVICE_SIZE

SYNTHETIC = "synthetic:"  # how the rendered camera's name begins


def open_source(spec: int | str, size: tuple[int, int] = DEVICE_SIZE) -> FrameSource:
    """The frame source a spec names; :class:`SourceError` if it names nothing usable.

    ``synthetic:VARIANT`` (optionally ``synthetic:VARIANT:SEED``): a rendered board holding the
    variant's start position; anything else a camera, as :func:`vision.camera.open_camera` takes
    it (``size``: the picture a camera device is asked for).
    """
    if str(spec).strip().startswith(SYNTHETIC):
        from .synthetic import SyntheticCamera, parse_synthetic_spec  # the renderer loads only when asked for

        return SyntheticCamera(*parse_synthetic_spec(str(spec).strip()))
    return open_camera(spec, size)


def picture_from(spec: int | str, size: tuple[int, int] = DEVICE_SIZE,
                 when_live: Callable[[], None] | None = None) -> np.ndarray:
    """The picture :func:`vision.camera.picture_of` gives from the source ``spec`` names (``size``
    as for :func:`open_source`); :class:`SourceError` if none comes. ``when_live``: called once a
    live camera is open, before its picture is taken (the players say the board is set up: two
    pictures of different boards may come from one camera, and a missing camera is named before
    anyone is asked to set a board up)."""
    source = open_source(spec, size)
    try:
        if source.live and when_live is not None:
            _check_answers(source, spec)
            when_live()
        frame = picture_of(source)
    finally:
        source.close()
    if not frame.ok:
        raise _no_picture(spec, frame)
    return frame.image  # type: ignore[return-value]


def check_source(spec: int | str, size: tuple[int, int] = DEVICE_SIZE) -> None:
    """:class:`SourceError` (or OSError) now if the source ``spec`` names cannot give a picture: a
    file that is not there, a camera that does not answer. ``pitwatch calibrate`` asks this of its
    second source before the players set up the board for the first: found missing only then, it
    cost them setting the board up for nothing (a CLI audit, 2026-12-07)."""
    source = open_source(spec, size)
    try:
        if source.live:
            _check_answers(source, spec)
    finally:
        source.close()


def _check_answers(camera: FrameSource, spec: int | str) -> None:
    """The live ``camera``'s first frame: waits while it opens; a missing one is said at once."""
    answer = camera.read()
    if answer.status.startswith(CAMERA_LOST):
        raise _no_picture(spec, answer)


def _no_picture(spec: int | str, frame: Frame) -> SourceError:
    return SourceError(f"camera source {spec!r}: no usable picture ({frame.status})")
