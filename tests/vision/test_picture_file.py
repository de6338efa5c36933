"""Picture files that are not what they claim: a header that claims a picture larger than any camera
takes (decoded, a 69-byte PNG made OpenCV raise and a 164 KB JPEG took 8 GB), a named pipe among a
folder's pictures (read, it blocked for ever), a damaged file. Each is refused, named, before a byte
of it is decoded; the formats' sizes are read from files OpenCV's own encoders wrote."""

from __future__ import annotations

import os

import cv2
import numpy as np
import pytest

from vision.picture_file import MOST_PICTURE_PIXELS, PictureError, claimed_size, read_picture

PICTURE = (np.random.default_rng(1).random((123, 457, 3)) * 255).astype(np.uint8)


@pytest.mark.parametrize("suffix, params", [(".png", []), (".jpg", []), (".jpg", [cv2.IMWRITE_JPEG_PROGRESSIVE, 1]),
                                            (".bmp", []), (".tiff", []), (".webp", [cv2.IMWRITE_WEBP_QUALITY, 80]),
                                            (".webp", [cv2.IMWRITE_WEBP_QUALITY, 101])])  # lossy and lossless
def test_every_format_says_its_size_in_its_header(suffix, params, tmp_path):
    data = cv2.imencode(suffix, PICTURE, params)[1].tobytes()
    assert claimed_size(data) == (457, 123)
    (tmp_path / f"p{suffix}").write_bytes(data)
    assert read_picture(tmp_path / f"p{suffix}").shape == PICTURE.shape


def forged(suffix: str, width: int, height: int) -> bytes:
    """A real picture file whose header claims ``width`` x ``height``."""
    data = bytearray(cv2.imencode(suffix, PICTURE)[1].tobytes())
    if suffix == ".png":
        data[16:24] = width.to_bytes(4, "big") + height.to_bytes(4, "big")
    else:  # the JPEG's start of frame: height, then width
        frame = data.index(b"\xff\xc0")
        data[frame + 5:frame + 9] = height.to_bytes(2, "big") + width.to_bytes(2, "big")
    return bytes(data)


@pytest.mark.parametrize("suffix, width, height", [(".png", 40_000, 40_000), (".jpg", 32_000, 32_000),
                                                   (".png", 20_000, 20_000)])
def test_a_header_that_claims_more_than_any_camera_takes_is_refused_undecoded(suffix, width, height, tmp_path):
    assert width * height > MOST_PICTURE_PIXELS
    (tmp_path / f"forged{suffix}").write_bytes(forged(suffix, width, height))
    with pytest.raises(PictureError, match=f"its header claims {width} x {height} pixels, more than any camera takes"):
        read_picture(tmp_path / f"forged{suffix}")


def test_what_holds_no_picture_is_named(tmp_path):
    os.mkfifo(tmp_path / "pipe.png")  # read, it would block until something wrote to it
    (tmp_path / "empty.jpg").write_bytes(b"")
    (tmp_path / "text.jpg").write_text("not a picture")
    (tmp_path / "cut.jpg").write_bytes(cv2.imencode(".jpg", PICTURE)[1].tobytes()[:400])
    (tmp_path / "folder.png").mkdir()
    said = {}
    for name in ("pipe.png", "empty.jpg", "text.jpg", "cut.jpg", "folder.png", "missing.png"):
        with pytest.raises(PictureError) as refused:
            read_picture(tmp_path / name)
        said[name] = str(refused.value)
    assert said == {"pipe.png": "a named pipe, not a picture", "empty.jpg": "an empty file",
                    "text.jpg": "not a JPEG, PNG, BMP, TIFF or WebP picture",
                    "cut.jpg": "not a whole picture (cut short or damaged)", "folder.png": "a folder, not a picture",
                    "missing.png": "No such file or directory"}


@pytest.mark.parametrize("depth, bits", [(np.float32, 32), (np.float64, 64)])
def test_a_whole_picture_of_floating_point_samples_is_not_called_damaged(depth, bits, tmp_path):
    """A TIFF a scientific or HDR tool saved: whole, but not one OpenCV gives as 8-bit colour."""
    (tmp_path / "float.tiff").write_bytes(cv2.imencode(".tiff", (PICTURE / 255).astype(depth))[1].tobytes())
    with pytest.raises(PictureError) as refused:
        read_picture(tmp_path / "float.tiff")
    assert str(refused.value) == (f"a picture of {bits}-bit floating-point samples: save it as an ordinary 8-bit "
                                  "JPEG or PNG")


def test_a_16_bit_picture_is_read_as_8_bit_colour(tmp_path):
    (tmp_path / "deep.png").write_bytes(cv2.imencode(".png", PICTURE.astype(np.uint16) * 257)[1].tobytes())
    picture = read_picture(tmp_path / "deep.png")
    assert picture.dtype == np.uint8 and np.array_equal(picture, PICTURE)


def test_a_file_larger_than_any_photo_is_refused_unread(tmp_path, monkeypatch):
    """Checked by its size on disk before a byte is read (the limit made small here: 800 MB files have no
    place in a test)."""
    (tmp_path / "big.png").write_bytes(cv2.imencode(".png", PICTURE)[1].tobytes())
    monkeypatch.setattr("vision.picture_file.MOST_PICTURE_BYTES", 1_000)
    with pytest.raises(PictureError, match=r"MB, more than any photo \(0 MB at most\)"):
        read_picture(tmp_path / "big.png")
