"""Pitwatch vision: camera frames in, per-pit Readings out (see docs/vision.md).

Public API (stable; everything else is internal)::

    from vision import open_source, BoardReader, StillnessGate, SyntheticCamera, load_calibration

    calibration = load_calibration("board.json")      # CalibrationError names the bad field
    reader = BoardReader(calibration)
    gate = StillnessGate(still_frames=5)
    with open_source("0") as camera:                 # device index, video file, rtsp:// or
        for frame in camera:                          # http:// URL, image folder, one image,
            if not frame.ok:                          # "synthetic:kalah[:seed]"
                show(frame.status)                    # "camera lost: ...", "black frame", ...
                continue
            result = reader.read(frame.image)         # never raises for a bad frame
            result.reading                            # rules.Reading (pits None = unseen)
            result.status                             # FrameStatus: board_found, markers_seen,
                                                      #   pits_unseen (glared: a lamp's reflection), hand,
                                                      #   blur_mm (how blurred, at the markers), message;
                                                      #   .to_json()
            overlay = result.draw(frame.image)        # pits outlined + counts, a hand outlined, for the dashboard
            stable = gate.update(result)              # a Reading once the board is still, else None

- ``open_source(spec) -> FrameSource``: ``read() -> Frame`` (``image`` None when
  ``status`` is not "ok"), iterable, ``close()``; ``SourceError`` for a spec
  naming nothing. ``first_frame(spec)`` gives one good picture.
- ``SyntheticCamera(variant_name, counts_fn, rng_seed=0)``: a FrameSource rendering
  a virtual board showing ``counts_fn()`` (a rules Position, a {label: count}
  mapping, or a (counts, white) pair); ``.hand = True`` puts a hand over it,
  ``.strays = 1`` a seed on the wood beside a hollow;
  ``.calibration()`` calibrates it from its own frames (no pictures needed).
- ``BoardReader(calibration).read(frame, when=None) -> FrameResult`` with
  ``.reading``, ``.status``, ``.overlay`` (PitOverlay: label, outline in image px,
  count, probability, white), ``.hand_outlines`` (what was taken for a hand, image px),
  ``.draw(frame)``.
- ``StillnessGate(still_frames=5, motion_threshold=0.002).update(result) -> Reading | None``
  and ``.state`` (GateState: "moving", "hand", "no board", "settling", "still"; the share
  of the board and the largest spot, in mm2, that changed since the previous frame).
- ``load_calibration(path)``, ``save_calibration(calibration, path)``,
  ``calibrate(variant_or_board, empty_image, start_image, corners=None)``,
  ``CalibrationError`` (from ``calibration``).
- ``render_marker_sheet(path)``: PNG or PDF of the four markers at true size with a ruler.
"""

import importlib
from typing import Any

# Names are resolved on first use (PEP 562): calibration builds on vision's modules and
# vision re-exports calibration's entry points, so eager imports here would form a cycle.
_EXPORTS = {
    "open_source": "vision.camera", "first_frame": "vision.camera", "Frame": "vision.camera",
    "FrameSource": "vision.camera", "SourceError": "vision.camera",
    "SyntheticCamera": "vision.synthetic",
    "BoardReader": "vision.reader", "FrameResult": "vision.reader", "FrameStatus": "vision.reader",
    "PitOverlay": "vision.reader",
    "StillnessGate": "vision.live", "GateState": "vision.live",
    "Calibration": "calibration.calibfile", "CalibrationError": "calibration.calibfile",
    "load_calibration": "calibration.calibfile", "save_calibration": "calibration.calibfile",
    "calibrate": "calibration.calibrate", "render_marker_sheet": "calibration.markersheet",
}
__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'vision' has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)
