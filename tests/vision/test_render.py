"""The renderer: deterministic, truthful, and not kind."""

import tracemalloc
from dataclasses import replace

import cv2
import numpy as np
import pytest

from calibration.profiles import board_profile
from vision.render import (FLICKER_BAND, FLICKER_DRIFT, FRAME_SIZE, TEXTURE_PX_PER_MM, Shot, camera_homography, draw_seeds,
                           eye_over_board, hollow_depth, project, random_counts, random_scene, random_shot, render, restacked,
                           seen_on_relief, stack_of)
from vision.render.exposure import _noise_bank, expose, light_frame
from vision.render.geometry import _pose


def test_same_seed_same_image_and_truth():
    def make():
        rng = np.random.default_rng(11)
        scene = random_scene("2x6+stores", rng)
        counts, white = random_counts(board_profile("2x6+stores"), rng)
        return render(scene, counts, white, random_shot(rng, hand=True))
    first, second = make(), make()
    assert (first.image == second.image).all()
    assert first.counts == second.counts and first.covered == second.covered


def test_another_exposure_of_the_same_shot_changes_only_the_sensor_noise():
    """The next frame of a still board: the same seeds and light, new noise (and JPEG artefacts)."""
    rng = np.random.default_rng(3)
    scene = random_scene("2x6+stores", rng)
    counts, white = random_counts(board_profile("2x6+stores"), rng)
    shot = Shot(seed=9, noise=6.0, jpeg=80)
    frames = [render(scene, counts, white, shot).image.astype(np.float32)]
    frames += [render(scene, counts, white, replace(shot, exposure=k)).image.astype(np.float32) for k in (1, 2)]
    first, second = (frame - frames[0] for frame in frames[1:])
    assert 3 < float(np.abs(first).mean()) < 12  # noise of sigma about 6 in each frame
    assert abs(float(first.mean())) < 0.5 and float(np.abs(first - second).mean()) > 3  # no shift; each its own
    smooth = cv2.blur(first, (15, 15))
    assert float(np.abs(smooth).max()) < 8  # nothing moved: no seed, no edge, only noise


def test_counts_change_the_picture_only_inside_their_hollow():
    rng = np.random.default_rng(2)
    scene = random_scene("2x6", rng, "pebble")
    plain = Shot(seed=5)
    empty = render(scene, {}, None, plain).image.astype(int)
    one = render(scene, {"C": 20}, None, plain).image.astype(int)
    changed = np.abs(one - empty).sum(axis=2) > 40
    assert 300 < changed.sum() < 40_000  # a heap of 20 is visible but stays in one hollow


def test_a_pile_keeps_its_seeds_where_they_lay_and_new_ones_land_on_top():
    """With ``piles``, a hollow's seeds depend on its own number alone: another pit's count
    leaves them be, and one seed more is drawn over the pile as it was."""
    scene = random_scene("2x6", np.random.default_rng(2), "bean")
    shot = Shot(seed=5, piles={label: 40 + k for k, label in enumerate(scene.profile.layout.labels)})
    before = render(scene, {"C": 12, "D": 3}, None, shot)
    after = render(scene, {"C": 13, "D": 7}, None, replace(shot, seed=6))
    assert after.seeds["C"][:12] == before.seeds["C"] and len(after.seeds["C"]) == 13
    assert after.seeds["D"][:3] == before.seeds["D"]
    regrown = render(scene, {"C": 12, "D": 3}, None, replace(shot, piles={**shot.piles, "C": 99}))
    assert regrown.seeds["C"] != before.seeds["C"] and regrown.seeds["D"] == before.seeds["D"]


def test_a_chip_taken_from_a_pile_leaves_the_others_where_they_lay_with_their_colours():
    """``Shot.stacks``: a penalty chip taken is the topmost of its colour; the chips above and
    beside it stay put and no other chip changes colour (before stacks, taking a yellow chip
    from a pile topped by a white one turned another chip white)."""
    assert stack_of(5, 2) == ((0, False), (1, False), (2, False), (3, True), (4, True))
    taken = restacked(stack_of(5, 2), 4, 2)  # a yellow chip taken
    assert taken == ((0, False), (1, False), (3, True), (4, True))
    assert restacked(taken, 6, 3) == (*taken, (5, False), (6, True))  # a yellow and a white sown on top
    assert restacked(taken, 3, 1) == ((0, False), (1, False), (3, True))  # a white one taken

    scene = random_scene("2x5+outboxes", np.random.default_rng(3))
    shot = Shot(seed=5, piles={label: 60 + k for k, label in enumerate(scene.profile.layout.labels)})
    before = render(scene, {"S": 5}, {"S": 2}, replace(shot, stacks={"S": stack_of(5, 2)}))
    after = render(scene, {"S": 4}, {"S": 2}, replace(shot, stacks={"S": taken}))
    assert after.seeds["S"] == [centre for k, centre in enumerate(before.seeds["S"]) if k != 2]
    x, y = before.seeds["S"][2]
    (cx, cy), (rim_x, rim_y) = project(scene, np.array([(x, y), (x + 6.0, y)]), shot).reshape(-1, 2)  # a chip: 6 mm radius
    ys, xs = np.nonzero(np.abs(after.image.astype(int) - before.image.astype(int)).max(axis=2) > 40)
    assert len(xs) and np.hypot(xs - cx, ys - cy).max() < 2 * np.hypot(rim_x - cx, rim_y - cy)  # only where it lay

    with pytest.raises(ValueError, match="S: its stack holds 4 seeds, 2 white, not 5 and 2"):
        render(scene, {"S": 5}, {"S": 2}, replace(shot, stacks={"S": taken}))


def test_hand_hides_pits_and_is_reported():
    rng = np.random.default_rng(4)
    scene = random_scene("4x8", rng)
    with_hand = render(scene, {}, None, Shot(hand=True, seed=9))
    assert with_hand.covered, "a hand over the board must cover at least one pit"


def test_a_hand_can_take_the_wood_s_colour_and_a_shadow_only_darkens():
    """``Shot.skin`` paints the same hand in another colour, ``Shot.shadow`` darkens a soft patch
    of the frame: neither moves anything else (the same pose, seeds and noise)."""
    rng = np.random.default_rng(4)
    scene = random_scene("2x6", rng)
    shot = Shot(hand=True, seed=9, noise=3.0)
    plain = render(scene, {"A": 4}, None, shot)
    wood = render(scene, {"A": 4}, None, replace(shot, skin=scene.wood))
    assert wood.covered == plain.covered
    changed = np.abs(wood.image.astype(int) - plain.image.astype(int)).sum(axis=2) > 30
    assert 5_000 < changed.sum() < 200_000  # the hand and arm, nothing else
    shaded = render(scene, {"A": 4}, None, replace(shot, shadow=0.5)).image.astype(int)
    darker = plain.image.astype(int) - shaded
    assert darker.min() >= -1 and (darker.sum(axis=2) > 0.3 * plain.image.astype(int).sum(axis=2)).sum() > 20_000


def test_a_lamp_s_reflection_lies_under_the_seeds_and_names_the_pits_it_washes_out():
    """``Shot.glare`` brightens the varnish near one hollow, clipped white at its core, under the
    seeds (drawn over it unchanged) and without moving anything else; ``glared`` names the pits
    it washes out."""
    rng = np.random.default_rng(4)
    scene = random_scene("2x6", rng)
    shot = Shot(seed=9, noise=3.0)
    plain = render(scene, {"A": 4}, None, shot)
    glared = render(scene, {"A": 4}, None, replace(shot, glare=3.0))
    assert plain.glared == frozenset() and len(glared.glared) >= 1
    assert glared.seeds == plain.seeds
    brighter = glared.image.astype(int) - plain.image.astype(int)
    assert brighter.min() >= -1
    assert 300 < (glared.image.min(axis=2) >= 250).sum() < 20_000  # a clipped white spot, not the board


def test_seeds_on_the_wood_lie_beside_a_hollow_and_move_nothing_else():
    """``Shot.strays`` lays seeds on the bare wood, each clear of every hollow and beside one of
    them, and changes the picture only there; ``strays`` says where they lie."""
    rng = np.random.default_rng(4)
    scene = random_scene("4x8", rng)
    profile = scene.profile
    shot = Shot(seed=9, noise=3.0)
    plain = render(scene, {"A1": 4}, None, shot)
    strayed = render(scene, {"A1": 4}, None, replace(shot, strays=2))
    assert plain.strays == () and len(strayed.strays) == 2 and strayed.seeds == plain.seeds
    for x, y in strayed.strays:
        reach = [np.hypot((x - h.centre[0]) / h.axes[0], (y - h.centre[1]) / h.axes[1]) for h in profile.hollows]
        assert 1.2 < min(reach) < 2.5  # on the wood, beside a hollow
    changed = np.argwhere(np.abs(strayed.image.astype(int) - plain.image.astype(int)).sum(axis=2) > 40)[:, ::-1]
    where = project(scene, np.array(strayed.strays), shot)
    assert 50 < len(changed) < 3_000  # two seeds and their shadows
    assert np.min(np.hypot(*(changed[:, None, :] - where[None, :, :]).transpose(2, 0, 1)), axis=1).max() < 25


def test_chip_board_renders_white_chips_brighter_than_yellow():
    rng = np.random.default_rng(3)
    scene = random_scene("2x5+outboxes", rng)
    yellow = render(scene, {"C": 1}, {"C": 0}, Shot(seed=1)).image.astype(float)
    white = render(scene, {"C": 1}, {"C": 1}, Shot(seed=1)).image.astype(float)
    blue_gain = (white[..., 0] - yellow[..., 0]).sum()
    assert blue_gain > 5_000  # yellow has little blue, white has plenty


def test_band_by_band_finishing_gives_the_whole_frame_result():
    """The light and the sensor work on row bands to save memory; every pixel must come
    out as the whole-frame formula gives it (same numpy/OpenCV, so bit for bit)."""
    rng = np.random.default_rng(8)
    fw, fh = FRAME_SIZE
    frame = rng.uniform(-0.05, 1.3, (fh, fw, 3)).astype(np.float32)
    noise = rng.standard_normal((fh, fw, 3), dtype=np.float32)
    shot = Shot(gain=0.9, tint=(1.05, 0.92, 1.01), gradient=(0.3, -0.2))
    yy, xx = np.mgrid[0:fh, 0:fw].astype(np.float32)
    light = shot.gain * (1 + shot.gradient[0] * (xx / fw - 0.5) + shot.gradient[1] * (yy / fh - 0.5))
    light *= 1 - 0.25 * (((xx - fw / 2) / fw) ** 2 + ((yy - fh / 2) / fh) ** 2)
    whole_lit = cv2.multiply(frame, cv2.merge([light * np.float32(t) for t in shot.tint]))
    whole_image = np.clip(whole_lit * 255 + cv2.multiply(noise * np.float32(3.5), 0.5 + cv2.sqrt(np.maximum(whole_lit, 0))),
                          0, 255).astype(np.uint8)

    lit = frame.copy()
    light_frame(lit, shot)
    assert np.array_equal(lit, whole_lit)
    assert np.array_equal(expose(lit, noise, 3.5), whole_image)


def test_a_frame_needs_few_frame_sized_temporaries():
    """The demo's memory peak is the renderer at work: a warm render (caches filled) may
    allocate at most three frame-sized float layers at once (it took seven before)."""
    rng = np.random.default_rng(5)
    scene = random_scene("2x6+stores", rng)
    counts, white = random_counts(scene.profile, rng)
    shot = Shot(gain=0.98, noise=2.0, jpeg=85, hand=True, seed=3)
    render(scene, counts, white, shot)
    tracemalloc.start()
    try:
        render(scene, counts, white, shot)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    float_layer = FRAME_SIZE[0] * FRAME_SIZE[1] * 3 * 4
    assert peak < 3 * float_layer, f"{peak / 2**20:.1f} MB of temporaries for one frame"


def test_the_sensor_noise_bank_is_half_precision_and_built_without_a_full_copy():
    """The noise bank is the synthetic camera's largest cache (twice a frame each way): kept
    in half precision and drawn band by band, it takes 22 MB at 1280 x 720, not 44 MB, and
    building it never holds a second full-size copy."""
    _noise_bank.cache_clear()
    tracemalloc.start()
    try:
        bank = _noise_bank(FRAME_SIZE)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        _noise_bank.cache_clear()
    fw, fh = FRAME_SIZE
    assert bank.shape == (2 * fh, 2 * fw, 3) and bank.dtype == np.float16
    assert peak < 1.15 * bank.nbytes, f"{peak / 2**20:.1f} MB to build a {bank.nbytes / 2**20:.1f} MB bank"
    sample = bank[::7, ::7].astype(np.float32)
    assert abs(float(sample.mean())) < 0.01 and abs(float(sample.std()) - 1) < 0.01  # still unit Gaussian


def test_a_smaller_camera_picture_shows_the_same_board_in_fewer_pixels():
    """The same lens at 640 x 360 puts every board point at half its 1280 x 720 place, and an
    arm (drawn in pixels) covers the same pits: a webcam left at a small size is measured fairly."""
    big = random_scene("2x6", np.random.default_rng(4))
    small = random_scene("2x6", np.random.default_rng(4), frame=(640, 360))
    assert small.px_scale == 0.5 and small.focal == big.focal / 2
    corners = np.array(big.profile.board_corners(), np.float64)
    assert np.allclose(project(small, corners), project(big, corners) / 2, atol=1e-6)
    counts, _ = random_counts(big.profile, np.random.default_rng(5))
    shot = Shot(gain=1.0, noise=2.0, hand=True, blur=4.0, seed=11)
    image, truth = render(small, counts, None, shot), render(big, counts, None, shot)
    assert image.image.shape == (360, 640, 3)
    assert image.covered == truth.covered and image.covered
    shrunk = cv2.resize(truth.image, (640, 360), interpolation=cv2.INTER_AREA).astype(float)
    assert np.abs(image.image.astype(float) - shrunk).mean() < 5  # the same picture, sharper noise (2.7; an arm drawn
    # at 1280 x 720 sizes: 8.7)


def test_a_4_by_3_camera_picture_holds_the_whole_board():
    scene = random_scene("4x8", np.random.default_rng(6), frame=(640, 480))
    rendered = render(scene, {h.label: 2 for h in scene.profile.hollows}, None, Shot(seed=2))
    assert rendered.image.shape == (480, 640, 3)
    outline = project(scene, np.array(scene.profile.board_corners(), np.float64))
    assert (outline >= 0).all() and (outline[:, 0] < 640).all() and (outline[:, 1] < 480).all()


def test_a_ray_meets_the_relief_where_the_camera_sees_it():
    """A point standing over the board's plane, or sunk below it, is seen through the plane point
    its camera ray crosses; followed down that ray, the relief gives the point back (the camera
    model itself, not the ray formula, says where the point is seen)."""
    scene = random_scene("2x6", np.random.default_rng(8))
    pose, s = _pose(scene, (4.0, -3.0, 0.02)), TEXTURE_PX_PER_MM
    eye = eye_over_board(scene, (4.0, -3.0, 0.02))
    to_plane = np.linalg.inv(camera_homography(scene, (4.0, -3.0, 0.02)))
    for x, y, z in ((150.0, 40.0, 9.0), (300.0, 100.0, -7.0), (395.0, 30.0, 16.0)):
        wx, wy, _ = pose.board_to_world @ (x, y, 1.0)
        image = pose.world_to_image @ (wx, wy, z, 1.0)
        crossed = cv2.perspectiveTransform(np.array([[image[:2] / image[2]]]), to_plane)[0, 0]
        assert np.hypot(*(crossed - (x, y))) > 2  # the plane point it is seen through lies elsewhere
        heights = np.zeros((int(scene.profile.size[1] * s), int(scene.profile.size[0] * s)), np.float32)
        heights[int((y - 15) * s):int((y + 15) * s), int((x - 15) * s):int((x + 15) * s)] = z  # a block, or a well
        seen = seen_on_relief(crossed[None] * s, heights, eye)[0] / s
        assert np.hypot(*(seen - (x, y))) < 0.05, (x, y, z, seen)


def test_a_seed_in_a_hollow_seen_in_depth_shows_nearer_the_camera():
    """With ``Scene.relief`` a seed on a hollow's floor lies below the board's plane: rectified on
    that plane, as the reader sees it, it shows nearer the camera (south) than painted flat, by
    about its depth times the slope of the camera's ray."""
    scene = random_scene("2x6", np.random.default_rng(4), "bean")
    hollow = next(h for h in scene.profile.hollows if h.label == "C")
    east, south, height = eye_over_board(scene)
    shot = Shot(seed=3)

    def seed_middle(relief: bool) -> np.ndarray:
        seen = replace(scene, relief=relief)
        empty, seed = (render(seen, counts, None, shot).image for counts in ({}, {"C": 1}))
        to_board = np.linalg.inv(camera_homography(scene))
        rows, columns = np.nonzero(np.abs(seed.astype(int) - empty).sum(axis=2) > 60)
        return cv2.perspectiveTransform(np.array([np.column_stack([columns, rows])], np.float64), to_board)[0].mean(axis=0)

    flat, deep = seed_middle(False), seed_middle(True)
    assert np.hypot(*(flat - hollow.centre)) < 6  # painted flat: where it lies, near its hollow's middle
    sunk = 7.5  # how far below the plane its face shows, on average: the floor 11 mm down, the bean 5 mm high, domed
    slope = np.array([east, south]) - flat
    assert np.allclose(deep - flat, sunk * slope / height, atol=2.0), (deep - flat, sunk * slope / height)


def test_each_seed_s_number_marks_where_it_lies_on_top():
    """Given ``ids``, drawing a hollow's seeds numbers the texels where each seed's body lies on top
    (``benchmarks/vision_ceiling.py --tilts`` counts how much of each a camera sees), in the
    order dropped, and draws the same board and heights as without."""
    scene = replace(random_scene("2x6+stores", np.random.default_rng(3), "bean"), relief=True)
    hollow = next(h for h in scene.profile.hollows if not h.is_store)
    floor = -hollow_depth(scene.board)

    def drawn(ids: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, list[tuple[float, float]]]:
        texture, heights = np.zeros((*floor.shape, 3), np.float32), floor.copy()
        centres = draw_seeds(texture, scene, {hollow.label: 9}, None, np.random.default_rng(4), heights=heights, ids=ids)
        return texture, heights, centres[hollow.label]

    ids = np.zeros(floor.shape, np.int32)
    (texture, heights, centres), (plain_texture, plain_heights, _) = drawn(ids), drawn(None)
    assert np.array_equal(texture, plain_texture) and np.array_equal(heights, plain_heights)
    s = TEXTURE_PX_PER_MM
    x, y = centres[-1]
    assert ids[round(y * s), round(x * s)] == 9  # the last seed dropped lies on top at its middle
    assert set(np.unique(ids)) == set(range(10))  # from overhead every one of the nine shows some of itself
    assert (heights[ids > 0] > floor[ids > 0]).all()  # a numbered texel is a seed's, standing on the floor


def test_mains_flicker_lights_rows_in_bands_that_move_a_third_of_a_band_each_exposure():
    """A lamp on mains power seen by a rolling shutter: every row lit alike along its length, the
    rows in bands ``FLICKER_BAND`` of the picture's height apart, swinging by ``Shot.flicker``
    either way, and the next exposure's bands a third of a band further on."""
    rng = np.random.default_rng(8)
    scene = random_scene("2x6+stores", rng)
    counts, white = random_counts(scene.profile, rng)
    steady = Shot(gain=0.8, seed=2, exposure=0)

    def light(flicker: float, exposure: int) -> np.ndarray:
        """Each row's light against the steady frame's (pixels neither dark nor clipped)."""
        shot = replace(steady, flicker=flicker, exposure=exposure)
        lit = render(scene, counts, white, shot).image.astype(np.float32)
        plain = render(scene, counts, white, replace(steady, exposure=exposure)).image.astype(np.float32)
        usable = (plain > 40) & (plain < 190)
        return np.nansum(np.where(usable, lit / np.maximum(plain, 1), 0), axis=(1, 2)) / usable.sum(axis=(1, 2))

    height = scene.frame[1]
    rows = np.arange(height)
    first, next_frame = light(0.2, 0), light(0.2, 1)
    expected = 1 + 0.2 * np.cos(2 * np.pi * (rows / (FLICKER_BAND * height) + FLICKER_DRIFT * np.array([[0], [1]])))
    assert np.abs(first - expected[0]).max() < 0.02 and np.abs(next_frame - expected[1]).max() < 0.02
    assert first.max() > 1.18 and first.min() < 0.82  # the swing either way
    assert np.abs(next_frame - first).max() > 0.2  # the bands moved


def test_flicker_bands_move_from_one_exposure_to_the_next_whatever_its_number():
    """Benchmarks number a frame's exposure from a seed of up to 2**30: the bands' phase must still
    move on by a third of a band from one to the next (in 32-bit floats it did not)."""
    rng = np.random.default_rng(8)
    scene = random_scene("kalah", rng)
    counts = {h.label: 2 for h in scene.profile.hollows}
    shot = Shot(flicker=0.2, seed=5)
    first, second, fourth = (render(scene, counts, None, replace(shot, exposure=(1 << 30) + 7 + k)).image.astype(np.float32)
                             for k in (0, 1, 3))
    assert np.abs(second - first).mean() > 5 and np.array_equal(fourth, first)
