"""Board set-ups for the camera (see docs/vision.md).

- ``calibration.profiles``: the physical arrangement (mm) of every board type,
  from the rules engine's layouts; ``board_profile(name)``, ``start_counts(name)``.
- ``calibration.markersheet``: ``render_marker_sheet(path)``, PNG or PDF at true size.
- ``calibration.calibfile``: the versioned, validated calibration file;
  ``load_calibration``, ``save_calibration``, ``CalibrationError``.
- ``calibration.calibrate``: ``calibrate(variant, empty_image, start_image, corners=None)``.

Nothing is imported here: ``calibration.calibrate`` builds on ``vision``, which
itself reads profiles from this package.
"""
