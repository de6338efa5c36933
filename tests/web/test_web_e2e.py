"""End to end: `pitwatch demo` in a real headless Chromium, the emulated microcontroller, SQLite, kill -9.

Nothing is mocked: the virtual board's seeds reach the session through the
emulated microcontroller on a pseudo-terminal and the real serial bridge;
the referee judges; the recorder writes SQLite; the browser draws the SVG.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import sqlite3
import subprocess
import urllib.request
from pathlib import Path

import pytest
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.common.by import By

from apphelpers import fill_the_disk
from processes import start_pitwatch, stop
from pitwatch_browser import wait_for
from selenium.webdriver.common.keys import Keys

from pitwatch import config as cfg
from pitwatch import records
from pitwatch.demo import build_demo
from pitwatch.recorder import RecorderError
from pitwatch.display import PLAYER_COLOURS
from rules import Game
from rules.game import score_of
from rules.notation import Record



@pytest.fixture
def demo(tmp_path):
    config = cfg.load(tmp_path / "none.toml", [
        f"demo.database={tmp_path / 'games.sqlite'}", "web.port=0", "demo.player=clicks",
        "demo.camera=false", "demo.seed=7", "demo.move_seconds=0.2", "session.settle_seconds=0.15",
    ])
    runtime, demo, _ = build_demo(config)
    url = runtime.serve()
    demo.start()
    runtime.start()
    yield runtime, demo, url, tmp_path / "games.sqlite"
    runtime.stop()


BOARD_JS = """
const pits = [...document.querySelectorAll('#board g.pit')];
return {legal: pits.filter(g => g.dataset.legal).map(g => g.dataset.label),
        counts: Object.fromEntries(pits.map(g => [g.dataset.label, Number(g.dataset.count)])),
        captured: pits.filter(g => g.querySelector('.capture-ring')).map(g => g.dataset.label)};
"""


BANNER_JS = """
const banner = document.getElementById('banner');
return [banner.querySelector('.headline')?.textContent || '', banner.querySelector('.detail')?.textContent || ''];
"""


def shown_board(browser) -> dict:
    """The drawn board, read in one go (the SVG is redrawn on every state)."""
    return browser.execute_script(BOARD_JS)


def shown_legal(browser) -> set[str]:
    return set(shown_board(browser)["legal"])


def click_pit(browser, label: str) -> bool:
    """A real mouse click on the pit; False if the board was redrawn under the pointer (try again)."""
    try:
        browser.find_element(By.CSS_SELECTOR, f'#board g.pit.clickable[data-label="{label}"]').click()
        return True
    except (StaleElementReferenceException, NoSuchElementException):
        return False


def shown_moves(browser) -> list[str]:
    return browser.execute_script(
        "return [...document.querySelectorAll('#moves li')].map(li => li.lastChild.textContent)")


def led_lights(demo) -> set[str]:
    """Pits the emulated microcontroller lights steadily, in the mover's colour."""
    game = demo.runtime.session.game
    colour = PLAYER_COLOURS[game.position.to_move].lstrip("#")
    rgb = tuple(int(colour[i:i + 2], 16) for i in (0, 2, 4))
    labels = game.variant.layout.labels
    return {labels[i] for i, led in enumerate(demo.sensors.leds) if led.mode.name == "ON" and led.colour == rgb}


def capturing_pit(game) -> str | None:
    """A pit whose move captures, if there is one: the players here like captures."""
    for move in game.legal_moves():
        _, events = game.variant.play(game.position, move)
        if any(e["type"] == "capture" for e in events):
            return game.variant.layout.labels[move.pit]
    return None


def test_a_game_clicked_in_the_browser_is_refereed_shown_lit_and_recorded(demo, browser):
    runtime, demo, url, db_path = demo
    browser.get(url)
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#board g.pit"), what="the board")
    browser.find_element(By.CSS_SELECTOR, 'input[name="demo-player"][value="clicks"]').click()
    session = runtime.session
    captures_seen = 0
    for ply in range(24):
        game = session.game
        if game.is_over:
            break
        legal = {game.variant.layout.labels[m.pit] for m in game.legal_moves()}
        wait_for(lambda: shown_legal(browser) == legal, what=f"legal highlights {sorted(legal)} at ply {ply}")
        wait_for(lambda: led_lights(demo) == legal, what=f"LEDs {sorted(legal)} at ply {ply}")
        label = capturing_pit(game) or sorted(legal)[(ply * 7) % len(legal)]
        wait_for(lambda: click_pit(browser, label), what=f"a click on pit {label}")
        wait_for(lambda: len(shown_moves(browser)) == ply + 1, what=f"move {ply + 1} in the browser's move list")
        truth = demo.board.game
        assert shown_moves(browser) == [m.text for m in truth.moves]
        score = score_of(truth.position)
        assert browser.find_element(By.ID, "score-south").text == str(score[0])
        assert browser.find_element(By.ID, "score-north").text == str(score[1])
        drawn = shown_board(browser)
        captured = {e["pit"] for e in truth.events[-1] if e["type"] == "capture"}
        if captured:
            captures_seen += 1
            assert captured <= set(drawn["captured"])
        assert drawn["counts"] == dict(zip(truth.variant.layout.labels, truth.position.pits))
        if truth.is_over:
            result = truth.result
            wait_for(lambda: ("wins" if result.winner is not None else "Draw")
                     in browser.find_element(By.ID, "banner").text, what="the result in the banner")
            break
    assert captures_seen, "the players chose captures: the dashboard must have drawn them"
    db = sqlite3.connect(db_path)
    recorded = [row[0] for row in db.execute("SELECT text FROM moves WHERE game_id=? ORDER BY ply", (session.game_id,))]
    assert recorded == [m.text for m in demo.board.game.moves]
    position = json.loads(db.execute("SELECT position FROM moves WHERE game_id=? ORDER BY ply DESC LIMIT 1",
                                      (session.game_id,)).fetchone()[0])
    assert position == demo.board.game.position.to_json()


def test_on_a_phone_the_pages_fit_its_width(demo, browser):
    """A phone propped by the board: nothing runs off the side of the screen."""
    _, _, url, _ = demo
    browser.set_window_size(390, 900)
    for page in ("", "games", "games/1"):
        browser.get(url + page)
        wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "header.top nav a"), what=f"/{page} drawn")
        if not page:
            wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#board g.pit"), what="the board drawn")
        widths = browser.execute_script("return [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        assert widths[0] <= widths[1], (page, widths)


LISTED_JS = "return [...document.querySelectorAll('#games tr')].map(row => Number(row.dataset.game))"


def test_the_games_page_lists_every_game_a_page_at_a_time_and_replays_one_move_by_move(demo, browser):
    """A season's games are reached a page at a time (a game started meanwhile repeats none), and
    the replay draws the position after every move, stepped by button, arrow key and move list."""
    runtime, _, url, _ = demo
    played = Game("kalah")
    for text in ("C", "F", "a", "B"):
        played.play(text)
    record = Record.from_game(played, South="Ada", North="Bo").to_text()
    imported = runtime.session.recorder.import_games(records.read_import(record * 53).games)  # one record of 53 games
    assert imported == list(range(2, 55))  # after the demo's own game 1
    browser.get(url + "games")
    wait_for(lambda: len(browser.execute_script(LISTED_JS)) == 50, what="the first page of games")
    assert browser.execute_script(LISTED_JS) == list(range(54, 4, -1))
    runtime.session.new_game("kalah", {}, "Cy", "Di")  # game 55, while the page is open
    browser.find_element(By.ID, "older").click()
    wait_for(lambda: not browser.find_element(By.ID, "older").is_displayed(), what="the last page")
    assert browser.execute_script(LISTED_JS) == list(range(54, 0, -1))

    labels = played.variant.layout.labels

    def shows(ply: int, step: str) -> bool:
        return (browser.find_element(By.ID, "step-text").text == step
                and shown_board(browser)["counts"] == dict(zip(labels, played.positions[ply].pits)))

    browser.get(url + f"games/{imported[0]}")
    wait_for(lambda: shows(4, "after move 4 of 4: B"), what="the replay at its last move")
    assert browser.find_element(By.ID, "replay-title").text == f"Game {imported[0]}: Ada vs Bo · kalah"
    browser.find_element(By.ID, "first").click()
    wait_for(lambda: shows(0, "start position"), what="the start position")
    browser.find_element(By.ID, "next").click()
    browser.find_element(By.ID, "next").click()
    wait_for(lambda: shows(2, "after move 2 of 4: F"), what="two moves on")
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
    wait_for(lambda: shows(3, "after move 3 of 4: a"), what="the arrow key's move")
    browser.find_element(By.CSS_SELECTOR, '#moves li[data-ply="0"]').click()
    wait_for(lambda: shows(1, "after move 1 of 4: C"), what="the first move, picked in the list")


def test_a_full_disk_is_told_in_the_banner_until_there_is_room(demo, browser):
    runtime, _, url, _ = demo
    session = runtime.session
    browser.get(url)
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#board g.pit"), what="the board")
    fill_the_disk(session.recorder)
    with pytest.raises(RecorderError) as refused:
        for _ in range(1000):  # each new game adds a row to the file: its pages fill up
            session.new_game("kalah", {}, "Ann", "Bob")
    session.refresh()  # as the dashboard's controls and the judging loop do when the recorder refuses
    said = wait_for(lambda: (banner := browser.execute_script(BANNER_JS))[0].startswith("Cannot record") and banner,
                    what="the banner saying the game cannot be recorded")
    assert said == [f"Cannot record the game: {refused.value}",
                    "the board is judged again once it can be recorded; every move recorded before is kept"]
    fill_the_disk(session.recorder, room=True)
    session.new_game("kalah", {}, "Ann", "Bob")
    wait_for(lambda: not browser.execute_script(BANNER_JS)[0].startswith("Cannot record"), what="the banner cleared")


def test_an_unplugged_microcontroller_is_reported_and_the_game_goes_on_after_replugging(demo, browser):
    """The demo here has no camera: the banner says that nothing watches the board, not that the
    game goes on with another source."""
    runtime, demo, url, db_path = demo
    emulator = demo.sensors.emulator
    wait_for(lambda: state(url)["sources"].get("sensors") == "ok", what="sensors ok")
    browser.get(url)
    emulator.unplug()
    lost = wait_for(lambda: (s := state(url)["sources"].get("sensors", "")) != "ok" and s, what="sensors lost")
    assert lost.startswith("microcontroller lost: "), lost
    said = wait_for(lambda: (banner := browser.execute_script(BANNER_JS))[0].startswith("Microcontroller lost") and banner,
                    what="the banner saying so")
    assert said[1] == "nothing watches the board until it is back", said
    emulator.replug()
    wait_for(lambda: state(url)["sources"].get("sensors") == "ok", what="sensors back")
    demo.player.click(sorted(runtime.session.state()["game"]["legal"])[0])
    wait_for(lambda: len(state(url)["game"]["moves"]) == 1, what="a move judged after replugging")


def test_a_seed_the_camera_sees_on_the_wood_is_told_in_the_banner(demo, browser):
    """The board is then a seed short, and the referee waits for it: the players are told where it lies."""
    runtime, _, url, _ = demo
    browser.get(url)
    banner = wait_for(lambda: browser.find_element(By.ID, "banner"), what="the banner")
    wait_for(lambda: "Connecting" not in banner.text, what="the first state")
    runtime.session.set_source("camera", "seed on the wood by C: put it where it belongs")  # as the camera's Reading says
    wait_for(lambda: "seed on the wood by C: put it where it belongs" in browser.find_element(By.ID, "banner").text,
             what="the camera's remark in the banner")
    runtime.session.set_source("camera", "ok")
    wait_for(lambda: "on the wood" not in browser.find_element(By.ID, "banner").text, what="the remark gone once the seed is back")


def test_a_new_game_of_another_board_recalibrates_the_sensors_and_plays_on(demo):
    runtime, demo, url, db_path = demo
    assert control(url, "api/game", {"variant": "bao-kenya"})["ok"]
    wait_for(lambda: demo.sensors.source.calibration is not None
             and demo.sensors.source.labels == runtime.session.game.variant.layout.labels, what="sensors recalibrated")
    wait_for(lambda: demo.player.caught_up(), what="the new board set up")
    demo.player.click("A")
    wait_for(lambda: [m["text"] for m in state(url)["game"]["moves"]] == ["A"], what="the first bao-kenya move")
    assert state(url)["game"]["variant"] == "bao-kenya"


def control(url: str, path: str, body: dict) -> dict:
    """A control action as the dashboard sends it (with the page's CSRF token), from outside the browser."""
    csrf = re.search(r'name="csrf-token" content="([^"]+)"',
                     urllib.request.urlopen(url, timeout=5).read().decode()).group(1)
    request = urllib.request.Request(url + path, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json", "X-CSRF-Token": csrf})
    return json.loads(urllib.request.urlopen(request, timeout=5).read())


CHECKED_PLAYER_JS = "return document.querySelector('input[name=\"demo-player\"]:checked').value"


def test_the_page_shows_the_demos_player_and_a_switch_is_published_at_once(demo, browser):
    """The radio shows the player the demo really has (here started with clicks; then switched from
    another tab), and a switch is in the published state at once: after a switch to clicks no move
    follows that would publish it, so without that the page and /api/state kept the old player."""
    runtime, demo, url, _ = demo
    browser.get(url)
    wait_for(lambda: browser.execute_script(CHECKED_PLAYER_JS) == "clicks", what="the page showing the clicks player")
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#board g.pit.clickable"), what="clickable pits")
    assert control(url, "api/demo/player", {"mode": "random"}) == {"ok": True, "mode": "random"}
    assert state(url)["demo"]["player"] == "random"  # published with the answer, not at some later move
    wait_for(lambda: browser.execute_script(CHECKED_PLAYER_JS) == "random", what="the page following the switch")
    browser.find_element(By.CSS_SELECTOR, 'input[name="demo-player"][value="clicks"]').click()
    wait_for(lambda: state(url)["demo"]["player"] == "clicks", what="the switch made in the page")
    assert browser.execute_script(CHECKED_PLAYER_JS) == "clicks"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_demo(db: Path, port: int, *extra: str) -> tuple[subprocess.Popen, str]:
    """`pitwatch demo` as a user starts it (sensors only, fast moves); its stderr goes to a file."""
    with open(db.with_suffix(".stderr"), "a") as errors:
        proc = start_pitwatch(
            "demo", "--db", str(db), "--port", str(port), "--no-camera", "--move-seconds", "0.25",
            "--set", "session.settle_seconds=0.1", *extra,
            stdout=subprocess.PIPE, stderr=errors, env={**os.environ, "PITWATCH_CONFIG": "/nonexistent"})
    for line in proc.stdout:
        found = re.search(r"dashboard at (http://\S+)", line)
        if found:
            return proc, found.group(1)
    raise AssertionError(f"the demo printed no URL; stderr: {db.with_suffix('.stderr').read_text()}")


def state(url: str) -> dict:
    with urllib.request.urlopen(url + "api/state", timeout=5) as response:
        return json.loads(response.read())


def test_kill_9_loses_no_shown_move_and_a_restart_resumes_the_game_and_the_page(tmp_path, browser):
    db = tmp_path / "games.sqlite"
    port = free_port()
    proc, url = start_demo(db, port, "--seed", "3")
    try:
        browser.get(url)
        shown = wait_for(lambda: (s := state(url)) and len(s["game"]["moves"]) >= 8 and s, what="8 moves")
        csrf = browser.execute_script("return document.querySelector('meta[name=\"csrf-token\"]').content")
        game_id = shown["game"]["id"]
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        # the page cannot know the board now: it must not go on saying all is well
        down = wait_for(lambda: (banner := browser.execute_script(BANNER_JS))[0] == "Pitwatch cannot be reached" and banner,
                        what="the banner saying Pitwatch cannot be reached")
        assert down[1] == "nothing is being refereed until it is back"
        assert browser.find_element(By.ID, "banner").get_attribute("class") == "lost"
    finally:
        if proc.poll() is None:
            proc.kill()
    recorded = [row[0] for row in sqlite3.connect(db).execute(
        "SELECT text FROM moves WHERE game_id=? ORDER BY ply", (game_id,))]
    shown_moves = [m["text"] for m in shown["game"]["moves"]]
    assert recorded[: len(shown_moves)] == shown_moves  # everything shown was on disk

    again, url = start_demo(db, port, "--seed", "4")
    try:
        resumed = state(url)
        assert resumed["game"]["id"] == game_id
        assert [m["text"] for m in resumed["game"]["moves"]] == recorded
        wait_for(lambda: len(state(url)["game"]["moves"]) > len(recorded) or state(url)["game"]["result"],
                 what="the resumed game going on")
        # the open page notices the restart, reloads itself, and its controls work again
        wait_for(lambda: browser.execute_script(
            "const m = document.querySelector('meta[name=\"csrf-token\"]'); return m && m.content") not in (csrf, None),
            what="the page reloaded with the new CSRF token")
        wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, '#board g.pit'), what="the board redrawn")
        wait_for(lambda: browser.execute_script(BANNER_JS)[0] not in ("Pitwatch cannot be reached", "Connecting to the board"),
                 what="the banner back to the game")
        browser.find_element(By.CSS_SELECTOR, 'input[name="demo-player"][value="clicks"]').click()
        wait_for(lambda: state(url)["demo"]["player"] == "clicks", what="a control accepted after the restart")
    finally:
        stop(again)


def test_the_full_demo_reads_the_board_with_camera_and_sensors_and_shows_the_camera(tmp_path, browser):
    config = cfg.load(tmp_path / "none.toml", [
        f"demo.database={tmp_path / 'games.sqlite'}", "web.port=0", "demo.seed=9", "demo.move_seconds=1.5",
        "demo.camera_fps=6", "camera.still_frames=3",
    ])
    runtime, demo, _ = build_demo(config)
    url = runtime.serve()
    demo.start()
    runtime.start()
    try:
        browser.get(url)
        db = sqlite3.connect(tmp_path / "games.sqlite")

        def both_sources() -> list[str]:
            rows = db.execute("SELECT reading FROM moves WHERE reading IS NOT NULL").fetchall()
            return [json.loads(r)["source"] for (r,) in rows if "camera" in json.loads(r)["source"]]

        wait_for(lambda: len(both_sources()) >= 2, timeout=60, what="moves judged from camera and sensors")
        assert set(both_sources()) == {"sensors+camera"}
        assert db.execute("SELECT COUNT(*) FROM moves WHERE snapshot IS NOT NULL").fetchone()[0] >= 2
        wait_for(lambda: browser.execute_script(
            "const img = document.getElementById('camera'); return img && img.naturalWidth > 0"),
            what="the camera view in the page")
        assert state(url)["sources"]["camera"] == "ok"
        judged = state(url)["camera_placement"]  # where the demo's camera stands, from its still boards
        assert [each["name"] for each in judged] == ["camera angle", "board in the picture"]
        shown = wait_for(lambda: browser.execute_script(
            "return [...document.querySelectorAll('#placement li')].map(li => [li.dataset.check, li.className, li.textContent])"),
            what="where the camera stands, under the camera view")
        assert [(name, kind) for name, kind, _ in shown] == [(each["name"], "ok" if each["ok"] else "warn") for each in judged]
        assert shown[0][2].startswith("Camera angle: ") and "degrees from overhead" in shown[0][2]
        assert judged[0]["ok"], judged  # the demo's camera stands as pitwatch doctor asks a real one to
        # a tripod knocked askew: the camera's next still board judged worse (the camera loop stopped first, so
        # that its own still boards do not put the demo's placement back)
        runtime.camera.stop()
        runtime.session.set_camera_placement([("camera angle", False, "38 degrees from overhead: mount the camera higher"),
                                              ("board in the picture", True, "1.6 camera pixels a millimetre")])
        wait_for(lambda: browser.execute_script(
            "const li = document.querySelector('#placement li.warn'); return li && li.textContent"
        ) == "Camera angle: 38 degrees from overhead: mount the camera higher", what="a camera knocked askew told")
    finally:
        runtime.stop()
