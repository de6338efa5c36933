"""Pitwatch vision: camera frames in, per-pit Readings out (docs/vision.md).

Import what you need from its module; the package itself exports nothing. The modules, in
the order a frame meets them:

- ``camera``: where frames come from (a device, a stream, files), with a status when they stop;
  ``synthetic``: a rendered camera for the demo, showing whatever the game holds; ``sources``:
  either, by its name (it sits above both, the rendered camera being calibrated as a real one).
- ``reader``: one frame in, one ``rules.Reading`` out, never an exception (``BoardReader``).
  It finds the board (``markers``; ``nudge`` and ``moved_markers`` for a board or marker that
  moved since calibration; ``eye``, where the camera stands), rectifies it and fits today's light
  (``rectify``, ``flicker``), sees what covers it (``hand``, ``grain``, ``glare``; ``pieces``
  and ``pits`` are their masks), measures the blur (``focus``) and has the seed counter
  (``counter``, on ``patches`` of every hollow) read each pit in view.
- ``overlay``: what the dashboard draws over a frame to show how it was read.
- ``live``: the stillness gate, reading a board only once it has been still;
  ``unchanged``: which pits look as they did then.
- ``seed_size``: one seed's size on a board, learnt at calibration; ``picture_size``: a
  picture's size as text, and what a device is asked for.
- ``render``: the renderer of synthetic camera pictures every test and benchmark measures on;
  ``training``: the seed counter's training on them (its networks are in ``models/``).
"""

import os

# ONNX Runtime (1.29 on) sends usage telemetry to Microsoft from Linux too, unless told not to
# before it is imported, and warns on every start where it cannot keep a device id in the home
# folder. A referee at a club table has no business reporting on its players' machines: off.
os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
