"""Every endpoint of the dashboard through Flask's test client, including bad input and security."""

from __future__ import annotations

import http.client
import json
import socket
import threading
from urllib.parse import urlsplit

import pytest

import rules
from apphelpers import between, fill_the_disk
from pitwatch.hub import FrameFeed
from served import serving
from waiting import wait_until
from rules import Game, Reading
from web import api as web_api
from web import camera as web_camera
from web import create_app


def post(client, url, body, headers, **kw):
    return client.post(url, data=json.dumps(body), content_type="application/json", headers=headers, **kw)


def test_pages_render_with_the_csrf_token_and_no_external_resources(client, csrf):
    for url in ("/", "/games", "/games/1"):
        page = client.get(url)
        assert page.status_code == 200
        html = page.get_data(as_text=True)
        assert csrf["X-CSRF-Token"] in html
        assert "http://" not in html and "https://" not in html
    assert "default-src 'self'" in client.get("/").headers["Content-Security-Policy"]
    for asset in ("pitwatch.css", "board.js", "dashboard.js", "common.js", "games.js", "logo.svg"):
        assert client.get(f"/static/{asset}").status_code == 200


def test_the_page_of_a_game_never_recorded_is_not_found(client):
    page = client.get("/games/999")
    assert page.status_code == 404
    assert page.get_data(as_text=True) == "404 Not Found: no recorded game with id 999\n"


def test_a_game_id_or_move_beyond_what_sqlite_holds_is_not_found_rather_than_an_error(client, session):
    huge = 2**63  # Flask's int converter takes it; sqlite3 cannot bind it
    page = client.get(f"/games/{huge}")
    assert page.status_code == 404 and f"no recorded game with id {huge}" in page.get_data(as_text=True)
    for url in (f"/api/games/{huge}", f"/api/games/{huge}/export"):
        answer = client.get(url)
        assert answer.status_code == 404 and answer.get_json()["error"] == f"no recorded game with id {huge}"
    snap = client.get(f"/api/games/{session.game_id}/snapshot/{huge}")
    assert snap.status_code == 404 and snap.get_json()["error"] == f"game {session.game_id} has no camera snapshot for move {huge}"


def test_state_and_variants(client):
    state = client.get("/api/state").get_json()
    assert state["game"]["variant"] == "kalah" and state["game"]["names"] == {"south": "Ann", "north": "Bob"}
    assert state["game"]["legal"] == ["A", "B", "C", "D", "E", "F"]
    variants = client.get("/api/variants").get_json()
    names = [v["name"] for v in variants]
    assert "kalah" in names and "pass-it-on" in names
    kalah = next(v for v in variants if v["name"] == "kalah")
    assert {o["name"] for o in kalah["options"]} >= {"houses", "seeds"}
    assert all(v["playable"] for v in variants)  # no board watched: any may be set up


def test_on_the_board_being_watched_only_its_variants_are_offered(client, session):
    """`pitwatch run` watches one board, calibrated for its pits."""
    session.fixed_board = session.game.variant.layout.labels
    variants = {v["name"]: v for v in client.get("/api/variants").get_json()}
    assert sorted(name for name, v in variants.items() if v["playable"]) == ["egyptian", "ethiopian", "kalah", "kalah-3",
                                                                              "nigerian"]
    assert variants["oware"]["board"] == "2x6" and variants["kalah"]["board"] == "2x6+stores"


def test_server_sent_events_start_with_the_current_state(client, session):
    response = client.get("/api/events", buffered=False)
    assert response.mimetype == "text/event-stream"
    chunks = response.response
    assert next(chunks).decode() == "retry: 1000\n\nevent: alive\ndata: 1\n\n"  # the page's watch on a hung Pitwatch starts
    event = next(chunks).decode()
    assert event.startswith("event: state\ndata: ")
    assert json.loads(event.split("data: ", 1)[1])["game"]["id"] == session.game_id
    session.play_by_hand("C")
    event = json.loads(next(chunks).decode().split("data: ", 1)[1])
    assert [m["text"] for m in event["game"]["moves"]] == ["C"]
    response.close()
    assert session.hub.listeners == 0


def test_a_head_request_for_the_events_costs_no_subscription(client, session):
    """HEAD never starts the stream: a subscription made before it was never ended, and each of an
    audit's 20,000 HEADs left one that every state was then put to (2026-12-07)."""
    for _ in range(5):
        assert client.head("/api/events").status_code == 200
    assert session.hub.listeners == 0


def test_server_sent_events_say_alive_when_nothing_changed(client, session, monkeypatch):
    """A keepalive sent as a comment fires no event: the page could not tell a hung Pitwatch."""
    monkeypatch.setattr(web_api, "KEEPALIVE_SECONDS", 0.05)
    response = client.get("/api/events", buffered=False)
    chunks = response.response
    next(chunks), next(chunks)  # the retry and first alive, the current state
    assert next(chunks).decode() == "event: alive\ndata: 1\n\n"
    response.close()


def test_a_takeback_of_a_game_that_changed_since_it_was_shown_is_refused(client, csrf, session):
    """Two tabs pressing Take back at once took back two moves (a dashboard audit, 2026-12-07)."""
    for text in ("A", "a"):
        assert post(client, "/api/move", {"move": text}, csrf).status_code == 200
    assert post(client, "/api/takeback", {"moves_shown": 2}, csrf).status_code == 200
    second = post(client, "/api/takeback", {"moves_shown": 2}, csrf)  # the other tab, which showed two moves too
    assert second.status_code == 409 and second.get_json()["error"] == (
        "the game has 1 move now, not the 2 shown (a move was played or taken back meanwhile): look at the board again")
    assert [m.text for m in session.game.moves] == ["A"]
    assert post(client, "/api/takeback", {"moves_shown": "1"}, csrf).status_code == 400


def test_a_move_entered_after_a_draw_by_agreement_is_refused_not_a_server_error(client, csrf, session):
    """The position of a game drawn by agreement still offers moves: one entered by hand was a 500
    with a traceback, and a wrong one was told the legal moves (a dashboard audit, 2026-12-07)."""
    assert post(client, "/api/game", {"variant": "oware", "south": "Cy", "north": "Di"}, csrf).status_code == 200
    assert post(client, "/api/draw", {}, csrf).status_code == 200
    for text in ("A", "Z"):
        refused = post(client, "/api/move", {"move": text}, csrf)
        assert refused.status_code == 409, refused.get_json()
        assert refused.get_json()["error"] == "the game is already over (agreement): start a new game"
    assert session.game.moves == [] and session.game.result.reason == "agreement"


def test_controls_change_the_game(client, csrf, session):
    assert post(client, "/api/move", {"move": "C"}, csrf).get_json()["ok"]
    assert post(client, "/api/correct", {"move": "D"}, csrf).status_code == 200
    assert [m.text for m in session.game.moves] == ["D"]
    assert post(client, "/api/takeback", {}, csrf).status_code == 200
    assert session.game.moves == []
    r = post(client, "/api/game", {"variant": "oware", "south": "Cy", "north": "Di",
                                   "options": {"grand_slam": "forbidden"}}, csrf)
    assert r.status_code == 200 and session.game.variant.options["grand_slam"] == "forbidden"
    assert post(client, "/api/draw", {}, csrf).status_code == 200
    assert session.game.result.reason == "agreement"


@pytest.mark.parametrize("option", ["name", "description", "self"])
def test_an_option_named_as_the_rules_own_arguments_is_unknown_not_a_server_error(client, csrf, session, option):
    r = post(client, "/api/game", {"variant": "kalah", "options": {option: 1}}, csrf)
    assert r.status_code == 400 and f"unknown option '{option}'" in r.get_json()["error"]
    assert session.game.variant.options == {"houses": 6, "seeds": 4, "capture_needs_opposite": False}


def test_the_header_describes_the_game_with_the_options_it_is_played_with(client, csrf):
    """A game of 8 houses of 12 seeds was headed "Kalah: 2 x 6 houses, 4 seeds, ...", the defaults."""
    kalah = client.get("/api/state").get_json()["game"]["description"]
    assert kalah == "Kalah: 2 x 6 houses, 4 seeds, stores on the track, extra turns and captures"
    assert post(client, "/api/game", {"variant": "kalah", "options": {"houses": 8, "seeds": 12}}, csrf).status_code == 200
    game = client.get("/api/state").get_json()["game"]
    assert game["description"] == f"{kalah}; played with houses = 8, seeds = 12"
    assert len(game["layout"]["pits"]) == 18 and game["options"]["seeds"] == 12
    post(client, "/api/game", {"variant": "oware", "options": {"grand_slam": "forbidden", "repetitions": 3}}, csrf)
    assert client.get("/api/state").get_json()["game"]["description"].endswith("; played with grand_slam = forbidden")
    post(client, "/api/game", {"variant": "kalah-3", "options": {"seeds": 3}}, csrf)  # its own default: nothing to add
    assert client.get("/api/state").get_json()["game"]["description"] == rules.VARIANTS["kalah-3"]


def test_choosing_between_ambiguous_explanations(client, csrf, session):
    game = session.game
    a, _ = game.variant.play(game.position, game.variant.parse_move(game.position, "A"))
    b, _ = game.variant.play(game.position, game.variant.parse_move(game.position, "B"))
    session.submit(between(a, b))
    choices = client.get("/api/state").get_json()["choices"]
    index = [c["moves"] for c in choices].index(["A"])
    assert post(client, "/api/choose", {"index": index}, csrf).status_code == 200
    assert [m.text for m in session.game.moves] == ["A"]


@pytest.mark.parametrize("url, body, status, message", [
    ("/api/move", {}, 400, "missing field 'move'"),
    ("/api/move", {"move": 3}, 400, "field 'move' must be a string, not 3"),
    ("/api/move", {"move": "x" * 100}, 400, "longer than 60"),
    ("/api/move", {"move": "S"}, 409, "not a legal move"),
    ("/api/choose", {"index": True}, 400, "must be a whole number"),
    ("/api/choose", {"index": 0}, 409, "no ambiguous verdict"),
    ("/api/takeback", {}, 409, "no move to take back"),
    ("/api/correct", {"move": "A"}, 409, "no move to correct"),
    ("/api/draw", {}, 409, "do not allow a draw"),
    ("/api/next-game", {}, 409, "not played in matches"),
    ("/api/game", {"variant": "chess"}, 400, "unknown variant 'chess'"),
    ("/api/game", {"variant": "kalah", "options": {"houses": 99}}, 400, "outside 1..8"),
    ("/api/game", {"variant": "kalah", "options": []}, 400, "field 'options' must be an object, not []"),
    ("/api/game", {"variant": None}, 400, "field 'variant' must be a string, not null"),
    ("/api/game", {"variant": "kalah", "south": ""}, 400, "1 to 40 printable"),
    ("/api/game", {"variant": "kalah", "south": "\u200b"}, 400, "1 to 40 printable"),  # invisible, recorded before
    ("/api/game", {"variant": "kalah", "north": "Ann\ud800"}, 400, "1 to 40 printable"),  # no UTF-8: a 500 before
    ("/api/demo/click", {"pit": "S"}, 409, "no legal move"),
    ("/api/demo/player", {"mode": "robot"}, 400, "'random' or 'clicks'"),
])
def test_bad_controls_get_a_4xx_naming_the_problem(client, csrf, url, body, status, message):
    r = post(client, url, body, csrf)
    assert r.status_code == status, r.get_json()
    assert message in r.get_json()["error"]


def test_a_control_the_full_disk_refuses_is_a_503_naming_it_and_changes_nothing(client, csrf, session):
    fill_the_disk(session.recorder)
    controls = [("/api/move", {"move": "C"}), ("/api/takeback", {})] * 300
    for url, body in controls:  # each adds a verdict to the file: its pages fill up
        reply = post(client, url, body, csrf)
        if reply.status_code != 200:
            break
    assert reply.status_code == 503, reply.get_json()
    assert reply.get_json()["error"] == f"{session.recorder.path}: cannot record: database or disk is full"
    recorded = [m.text for m in session.recorder.moves(session.game_id)]
    assert [m.text for m in session.game.moves] == recorded
    assert client.get("/api/state").get_json()["recording"] == reply.get_json()["error"]
    fill_the_disk(session.recorder, room=True)
    assert post(client, url, body, csrf).status_code == 200
    assert client.get("/api/state").get_json()["recording"] is None
    assert [m.text for m in session.game.moves] == [m.text for m in session.recorder.moves(session.game_id)] != recorded


def test_body_must_be_a_json_object(client, csrf):
    r = client.post("/api/move", data="move=C", content_type="application/x-www-form-urlencoded", headers=csrf)
    assert r.status_code == 415 and "JSON" in r.get_json()["error"]
    r = client.post("/api/move", data="[1, 2]", content_type="application/json", headers=csrf)
    assert r.status_code == 400 and "JSON object" in r.get_json()["error"]
    r = client.post("/api/move", data="{nope", content_type="application/json", headers=csrf)
    assert r.status_code == 400
    r = client.post("/api/move", data=b"{" + b" " * 300_000 + b"}", content_type="application/json", headers=csrf)
    assert r.status_code == 413
    deep = b"[" * 100_000 + b"]" * 100_000  # 200 KB, under the size limit: Python's parser gives up first (a 500 before)
    r = client.post("/api/move", data=deep, content_type="application/json", headers=csrf)
    assert r.status_code == 400 and r.get_json()["error"] == "the request body's JSON is nested too deeply"


def test_unknown_routes_and_methods_answer_in_json(client, csrf):
    assert client.get("/api/nothing").status_code == 404
    assert "error" in client.get("/api/nothing").get_json()
    assert client.get("/api/takeback").status_code == 405
    assert client.get("/nothing").status_code == 404


def chunked_move(url: str, csrf: dict, move: str) -> tuple[int, dict]:
    """POST /api/move as curl --data-binary with Transfer-Encoding: chunked sends it: no Content-Length."""
    body = json.dumps({"move": move}).encode()
    connection = http.client.HTTPConnection(urlsplit(url).hostname, urlsplit(url).port, timeout=10)
    try:
        connection.request("POST", "/api/move", body=(body[i:i + 4096] for i in range(0, len(body), 4096)),
                           headers={**csrf, "Content-Type": "application/json"}, encode_chunked=True)
        answer = connection.getresponse()
        return answer.status, json.loads(answer.read())
    finally:
        connection.close()


def test_a_chunked_body_over_the_limit_is_too_large_not_a_bad_object(app, csrf, session):
    """A chunked body has no length to refuse it by: it was cut at the limit, and the rest judged as JSON."""
    with serving(app) as url:
        assert chunked_move(url, csrf, "x" * 300_000) == (413, {"error": "the request body is larger than 256 KiB"})
        assert chunked_move(url, csrf, "C")[0] == 200
    assert [m.text for m in session.game.moves] == ["C"]


@pytest.mark.parametrize("method, url, status", [
    ("DELETE", "/api/state", 405), ("PUT", "/api/move", 405), ("POST", "/api/state", 405),
    ("POST", "/api/nope", 404), ("DELETE", "/nothing", 404),
])
def test_a_wrong_method_or_route_is_told_before_any_token_is_asked_for(client, method, url, status):
    r = client.open(url, method=method, data="{}", content_type="application/json")  # no CSRF token
    assert r.status_code == status, r.get_data(as_text=True)
    assert "CSRF" not in r.get_data(as_text=True)


def test_demo_controls(client, csrf, app):
    demo = app.extensions["pitwatch"].demo
    assert post(client, "/api/demo/click", {"pit": "C"}, csrf).get_json()["move"] == "C"
    assert post(client, "/api/demo/player", {"mode": "clicks"}, csrf).status_code == 200
    assert demo.clicks == ["C"] and demo.mode == "clicks"


def test_demo_controls_are_404_outside_the_demo(session):
    app = create_app(session)
    client = app.test_client()
    headers = {"X-CSRF-Token": app.extensions["pitwatch"].guard.csrf}
    r = post(client, "/api/demo/click", {"pit": "C"}, headers)
    assert r.status_code == 404 and "only in `pitwatch demo`" in r.get_json()["error"]
    assert client.get("/camera.mjpg").status_code == 404


def test_control_without_csrf_token_or_from_another_site_is_refused(client, csrf, session):
    r = post(client, "/api/move", {"move": "C"}, {})
    assert r.status_code == 403 and "CSRF" in r.get_json()["error"]
    r = post(client, "/api/move", {"move": "C"}, {"X-CSRF-Token": "guess"})
    assert r.status_code == 403
    r = post(client, "/api/move", {"move": "C"}, {**csrf, "Origin": "http://evil.example"})
    assert r.status_code == 403 and "evil.example" in r.get_json()["error"]
    assert session.game.moves == []


def test_local_dashboard_refuses_other_host_names(client):
    r = client.get("/api/state", headers={"Host": "attacker.example:8080"})
    assert r.status_code == 403 and "--allow-network" in r.get_data(as_text=True)
    r = client.get("/api/state", headers={"Host": "[::1"})  # no host at all: named as sent
    assert r.status_code == 403 and "not '[::1'" in r.get_json()["error"]


@pytest.mark.parametrize("origin", ["http://[::1", "http://[zz]", "https://[pitwatch"])
def test_an_origin_that_is_no_url_is_refused_not_a_server_error(client, csrf, session, origin):
    r = post(client, "/api/move", {"move": "C"}, {**csrf, "Origin": origin})
    assert r.status_code == 403 and origin in r.get_json()["error"]
    assert session.game.moves == []


def test_on_the_network_control_actions_need_the_token(session):
    with pytest.raises(ValueError, match="needs an access token"):
        create_app(session, allow_network=True)
    app = create_app(session, allow_network=True, token="s3cret")
    client = app.test_client()
    csrf = {"X-CSRF-Token": app.extensions["pitwatch"].guard.csrf}
    assert client.get("/api/state", headers={"Host": "192.168.1.5:8080"}).status_code == 200
    r = post(client, "/api/move", {"move": "C"}, csrf)
    assert r.status_code == 401 and "access token" in r.get_json()["error"]
    assert post(client, "/api/move", {"move": "C"}, {**csrf, "X-Pitwatch-Token": "wrong"}).status_code == 401
    assert post(client, "/api/move", {"move": "C"}, {**csrf, "X-Pitwatch-Token": "s3cret"}).status_code == 200


def test_recorded_games_list_replay_and_snapshots(client, session):
    truth = Game("kalah")
    for text in ("C", "F", "a"):
        truth.play(text)
        session.submit(Reading.of_position(truth.position, "test"), snapshot=b"\xff\xd8fake-jpeg")
    games = client.get("/api/games").get_json()
    assert games[0]["id"] == session.game_id and games[0]["moves"] == 3
    detail = client.get(f"/api/games/{session.game_id}").get_json()
    assert [s["move"] for s in detail["steps"]] == [None, "C", "F", "a"]
    assert detail["steps"][-1]["position"] == truth.position.to_json()
    assert detail["snapshots"] == [0, 1, 2]
    snap = client.get(f"/api/games/{session.game_id}/snapshot/1")
    assert snap.status_code == 200 and snap.mimetype == "image/jpeg"
    assert client.get(f"/api/games/{session.game_id}/snapshot/9").status_code == 404
    assert client.get("/api/games/999").status_code == 404
    assert "no recorded game with id 999" in client.get("/api/games/999").get_json()["error"]
    assert client.get("/api/games?limit=0").status_code == 400
    assert client.get("/api/games?limit=x").status_code == 400
    digits = client.get(f"/api/games?limit={'9' * 5000}")  # past what Python's int() reads
    assert digits.status_code == 400 and digits.get_json()["error"] == "query parameter 'limit' must be between 1 and 500"
    words = client.get(f"/api/games?offset={'x' * 5000}")  # too long to say back whole
    assert words.get_json()["error"] == f"query parameter 'offset' must be a whole number, not '{'x' * 40}...'"
    for odd in ("%EF%BC%95", "%2B-5", "1e2", ""):  # a full-width 5, two signs, a float, nothing: no whole number
        assert "must be a whole number" in client.get(f"/api/games?limit={odd}").get_json()["error"], odd
    assert client.get("/api/games?limit=%2B7").status_code == 200
    assert client.get(f"/api/games/{session.game_id}/export?format=pgn").status_code == 400
    text = client.get(f"/api/games/{session.game_id}/export?format=text")
    assert text.status_code == 200 and "attachment" in text.headers["Content-Disposition"]
    assert '[South "Ann"]' in text.get_data(as_text=True) and "1. C F" in text.get_data(as_text=True)
    data = client.get(f"/api/games/{session.game_id}/export?format=json").get_json()
    assert data["moves"] == ["C", "F", "a"] and data["variant"] == "kalah"
    assert client.get("/api/games/999/export").status_code == 404


def test_a_text_export_says_its_charset_once(client, session):
    """``mimetype=`` adds the charset itself: "text/plain; charset=utf-8; charset=utf-8" was sent."""
    session.play_by_hand("C")
    text = client.get(f"/api/games/{session.game_id}/export?format=text")
    assert text.headers["Content-Type"] == "text/plain; charset=utf-8"


def test_camera_stream_and_still(app, client):
    frames: FrameFeed = app.extensions["pitwatch"].frames
    assert client.get("/camera.jpg").status_code == 404
    frames.put(b"\xff\xd8first")
    assert client.get("/camera.jpg").data == b"\xff\xd8first"
    response = client.get("/camera.mjpg", buffered=False)
    assert response.mimetype == "multipart/x-mixed-replace"
    chunks = response.response
    assert b"Content-Type: image/jpeg" in next(chunks)
    assert next(chunks).startswith(b"\xff\xd8first")
    response.close()


def test_a_camera_view_closed_before_the_first_frame_frees_its_thread(app, monkeypatch):
    """While the camera had not delivered a frame, the stream never wrote, so a page closed
    meanwhile was never noticed: a thread and a socket kept for each page load."""
    monkeypatch.setattr(web_camera, "WAIT_SECONDS", 0.2)
    with serving(app) as url:
        port = int(url.rsplit(":", 1)[1].strip("/"))
        before = threading.active_count()
        for _ in range(5):
            with socket.create_connection(("127.0.0.1", port), timeout=5) as page:
                page.sendall(b"GET /camera.mjpg HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                assert page.recv(4096).startswith(b"HTTP/1.1 200")
        assert wait_until(lambda: threading.active_count() <= before, 10, 0.1), threading.active_count() - before
