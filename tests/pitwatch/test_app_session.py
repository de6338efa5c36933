"""The live session with the real referee and a real recorder: verdicts, LEDs, controls, restarts."""

from __future__ import annotations

import json
import random
import sqlite3
import threading

import pytest

from pitwatch import records
from pitwatch.recorder import Recorder, RecorderError
from pitwatch.display import ILLEGAL_COLOUR, PLAYER_COLOURS
from pitwatch.session import Session, SessionError
from rules import Game, PitReading, Reading
from rules.reading import STILL_BOARD

from apphelpers import between, board, random_game


@pytest.mark.parametrize("variant, seed", [("kalah", 1), ("oware", 2), ("nam-nam", 3), ("pass-it-on", 4)])
def test_a_game_seen_move_by_move_is_refereed_and_recorded_exactly(recorder, variant, seed):
    truth = random_game(variant, 30, seed)
    session = Session(recorder)
    session.new_game(variant, {}, "Ann", "Bob")
    replay = Game(variant)
    for move in truth.moves:
        replay.play(move)
        verdict = session.submit(board(replay))
        assert verdict["kind"] == "move", verdict
    assert [m.text for m in session.game.moves] == [m.text for m in truth.moves]
    assert [m.text for m in recorder.moves(session.game_id)] == [m.text for m in truth.moves]
    recorded = recorder.moves(session.game_id)[-1].position
    assert recorded == truth.position.to_json()


def test_every_verdict_is_on_disk_before_the_dashboard_hears_of_it(recorder, tmp_path):
    session = Session(recorder)
    session.new_game("kalah", {}, "Ann", "Bob")
    seen_on_disk = []
    other = sqlite3.connect(tmp_path / "games.sqlite")  # a second reader, as after a crash

    def publish(state):
        rows = other.execute("SELECT COUNT(*) FROM moves WHERE game_id=?", (session.game_id,)).fetchone()[0]
        seen_on_disk.append((len(state["game"]["moves"]), rows))
        return original(state)

    original = session.hub.publish
    session.hub.publish = publish
    truth = random_game("kalah", 8, 5)
    replay = Game("kalah")
    for move in truth.moves:
        replay.play(move)
        session.submit(board(replay))
    assert seen_on_disk and all(shown <= on_disk for shown, on_disk in seen_on_disk)


def test_a_failed_write_shows_nothing_and_keeps_the_game_unchanged(recorder):
    session = Session(recorder)
    session.new_game("kalah", {}, "Ann", "Bob")
    version = session.hub.version
    recorder.close()  # the disk is gone
    game = Game("kalah")
    game.play("C")
    with pytest.raises(RecorderError, match="games.sqlite: cannot record: Cannot operate on a closed database"):
        session.submit(board(game))
    assert session.game.moves == [] and session.hub.version == version


def test_a_finished_games_last_move_put_back_on_the_board_reopens_it_and_its_result_stands_otherwise(recorder):
    """The players put the last move back (it was misplayed, or wrongly seen): the game goes on. Until
    they do, the board is not judged against the result: the next game's start laid out is no
    question of taking the whole game back."""
    truth = random_game("kalah", 300, 1)
    session = Session(recorder)
    session.new_game("kalah", {}, "Ann", "Bob")
    for position in truth.positions[1:]:
        session.submit(Reading.of_position(position))
    assert session.game.positions == truth.positions and recorder.game(session.game_id).status == "finished"
    result = session.state()["verdict"]
    assert session.submit(board(Game("kalah"))) == result  # the next game's start: the result stands
    assert session.submit(Reading.of_position(truth.positions[-2]))["kind"] == "takeback"
    assert not session.game.is_over and recorder.game(session.game_id).status == "active"


def test_restart_resumes_the_game_where_it_was(tmp_path):
    path = tmp_path / "games.sqlite"
    first = Session(Recorder(path))
    first.new_game("oware", {}, "Ann", "Bob")
    truth = random_game("oware", 12, 7)
    replay = Game("oware")
    for move in truth.moves:
        replay.play(move)
        first.submit(board(replay))
    again = Session(Recorder(path))
    assert again.resume_or_start("kalah", {}, "X", "Y") is True
    assert again.game.variant.name == "oware" and again.names == ("Ann", "Bob")
    assert again.game.position == truth.position


def test_a_game_damaged_outside_pitwatch_stays_on_record_and_a_new_game_starts(tmp_path, caplog):
    """A row of the game in progress changed by hand: run plays on (a new game) instead of stopping,
    and keeps every row of the damaged game as it was."""
    path = tmp_path / "games.sqlite"
    first = Session(Recorder(path))
    first.new_game("oware", {}, "Ann", "Bob")
    replay = Game("oware")
    for move in random_game("oware", 3, 1).moves:
        replay.play(move)
        first.submit(board(replay))
    damaged = first.game_id
    first.recorder.close()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE moves SET position='{' WHERE game_id=? AND ply=1", (damaged,))
    db.close()
    again = Session(Recorder(path))
    assert again.resume_or_start("kalah", {}, "Cy", "Di") is False
    assert again.game.variant.name == "kalah" and again.game_id != damaged and again.names == ("Cy", "Di")
    assert (f"game {damaged} cannot be resumed (game {damaged}, move 2 is damaged: moves.position is not a JSON "
            "object); it stays on record, starting a new game") in caplog.text
    kept = again.recorder.game(damaged)
    assert (kept.status, kept.move_count) == ("abandoned", 3)
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT position FROM moves WHERE game_id=? AND ply=1", (damaged,)).fetchone() == ("{",)
    db.close()


def test_a_new_game_does_not_take_the_last_games_board_for_its_moves(session):
    """New game pressed with the last game's board on the table, one move from the start: judged
    again for the new game (the judging loop does so), it was recorded as that move of the new
    game, then taken back once the start was laid out. Untouched since the game began (the
    camera's same still board; without a camera, the same counts), it is the start not laid out
    yet; once the players touch the board, its boards are judged as ever."""
    first = Game("kalah")
    first.play("F")
    for seen in ({}, still_since(100.0)):  # the sensors alone, and a camera
        on_the_table = Reading(board(first).pits, "camera", notes=seen)
        session.new_game("kalah", {}, "Ann", "Bob")
        assert session.submit(on_the_table)["kind"] == "move"
        session.new_game("kalah", {}, "Ann", "Bob")
        verdict = session.submit(on_the_table)
        assert verdict["kind"] == "illegal" and verdict["message"].startswith("the board is not laid out as the "
                                                                              "game's start yet"), verdict
        assert session.game.moves == [] and session.recorder.moves(session.game_id) == []
        assert set(session.state()["differing"]) == {"F", "S", "a", "b", "c"}  # F's four seeds, sown
    touched = Reading(board(first).pits, "camera", notes=still_since(200.0))  # seeds moved since the game began
    assert session.submit(touched)["kind"] == "move" and [m.text for m in session.game.moves] == ["F"]


def still_since(at: float) -> dict:
    """A camera Reading's note of the still board it shows, still since ``at``."""
    return {STILL_BOARD: {"at": at, "since": None, "kept": [], "changed": [], "moved": {}}}


def test_illegal_board_blinks_the_differing_pits_until_it_is_put_right(session):
    wrong = Game("kalah")
    wrong.play("C")
    pits = list(wrong.position.pits)
    pits[0], pits[1] = pits[0] + 1, pits[1] - 1  # a seed in the wrong pit
    bad = wrong.position._replace(pits=tuple(pits))
    verdict = session.submit(board_of(bad))
    assert verdict["kind"] == "illegal"
    frame = session.state()["leds"]
    differing = session.state()["differing"]
    assert differing
    layout = session.game.variant.layout
    assert all(frame[layout.index_of(label)] == {"colour": ILLEGAL_COLOUR, "mode": "blink"} for label in differing)
    assert all(led["mode"] in ("off", "blink") for led in frame)
    # the players put the board right: back to the start position
    assert session.submit(board(Game("kalah")))["kind"] == "unchanged"
    assert session.state()["differing"] == [] and legal_lights(session) == {"A", "B", "C", "D", "E", "F"}


def board_of(position):
    from rules import Reading
    return Reading.of_position(position, "test")


def legal_lights(session) -> set[str]:
    layout = session.game.variant.layout
    colour = PLAYER_COLOURS[session.game.position.to_move]
    return {layout.labels[i] for i, led in enumerate(session.state()["leds"]) if led == {"colour": colour, "mode": "on"}}


def test_leds_show_the_legal_moves_in_the_movers_colour_and_captures_flash(recorder):
    now = [0.0]
    sent = []
    session = Session(recorder, leds=sent.append, clock=lambda: now[0], flash_seconds=1.0)
    session.new_game("kalah", {}, "Ann", "Bob")
    assert legal_lights(session) == {"A", "B", "C", "D", "E", "F"} and sent[-1] == session.state()["leds"]
    game = Game("kalah")
    rng = random.Random(11)
    while not any(e["type"] == "capture" for e in (game.events[-1] if game.events else [])):
        game.play(rng.choice(game.legal_moves()))
    replay = Game("kalah")
    for move in game.moves:
        replay.play(move)
        session.submit(board(replay))
    captures = {e["pit"] for e in game.events[-1] if e["type"] == "capture"}
    assert set(session.state()["flash"]) == captures
    layout = session.game.variant.layout
    assert all(session.state()["leds"][layout.index_of(label)]["mode"] == "blink" for label in captures)
    now[0] = 2.0
    session.tick()
    assert session.state()["flash"] == []
    assert legal_lights(session) == {session.game.variant.layout.labels[m.pit] for m in session.game.legal_moves()}


def test_pass_it_on_sections_needing_a_white_last_chip_pulse_white(recorder):
    session = Session(recorder)
    session.new_game("pass-it-on", {}, "Ann", "Bob")
    game = session.game
    frame = session.state()["leds"]
    for move in game.legal_moves():
        pos = game.position
        needs = all(m.colours.endswith("w") for m in game.legal_moves() if m.pit == move.pit) \
            and pos.pits[move.pit] > pos.white[move.pit]
        expected = "pulse" if needs else "on"
        assert frame[move.pit]["mode"] == expected


def test_ambiguous_board_waits_for_the_players_choice(session):
    game = session.game
    results = {}
    for move in game.legal_moves():
        after, _ = game.variant.play(game.position, move)
        results[move.text] = after
    verdict = session.submit(between(results["A"], results["B"]))
    assert verdict["kind"] == "ambiguous"
    choices = session.state()["choices"]
    texts = [c["moves"] for c in choices]
    assert ["A"] in texts and ["B"] in texts
    with pytest.raises(SessionError, match="does not exist"):
        session.choose(len(choices))
    session.choose(texts.index(["B"]))
    assert [m.text for m in session.game.moves] == ["B"]
    assert [m.text for m in session.recorder.moves(session.game_id)] == ["B"]
    assert session.state()["choices"] == []


def test_sensor_values_are_handed_over_while_a_move_is_being_recorded(session, monkeypatch):
    """The serial bridge's reader thread hands the raw values over: waiting for a move's slow write
    (an SD card), it missed its PING's answer and dropped a healthy board. Shown once published."""
    writing, written = threading.Event(), threading.Event()
    record = session.recorder.record_verdict

    def slow_write(*args, **kwargs):
        writing.set()
        written.wait(10)
        return record(*args, **kwargs)
    monkeypatch.setattr(session.recorder, "record_verdict", slow_write)
    game = Game("kalah")
    game.play("A")
    judging = threading.Thread(target=session.submit, args=(board(game),))
    judging.start()
    assert writing.wait(10)
    handed = threading.Thread(target=session.set_sensor_values, args=({"A": 512},))
    handed.start()
    handed.join(1.0)
    stalled = handed.is_alive()
    written.set()
    judging.join(10)
    assert not stalled, "the reader thread waited for the move's write"
    session.tick()
    assert session.state()["sensors"] == {"A": 512} and [m.text for m in session.game.moves] == ["A"]


def test_takeback_seen_on_the_board_is_recorded(session):
    game = Game("kalah")
    for text in ("A", "b"):
        game.play(text)
        session.submit(board(game))
    game.undo()
    verdict = session.submit(board(game))
    assert verdict["kind"] == "takeback"
    assert [m.text for m in session.recorder.moves(session.game_id)] == ["A"]


def test_a_long_takeback_offered_among_other_explanations_is_taken_when_chosen(recorder):
    """A board both one move on and as it was five moves ago (a Kenyan Bao board, a referee audit):
    the five moves' takeback, chosen, is taken, not asked again (it was wrapped as an ambiguous
    verdict of its own, and choosing it committed nothing)."""
    from rules.referee import judge

    game = random_game("kalah", 6, 2)
    unsure = {"kind": "ambiguous", "reason": "the board fits several explanations about equally well", "candidates": [
        {"kind": "move", "moves": [game.legal_moves()[0].text], "description": game.legal_moves()[0].text},
        {"kind": "takeback", "undo": 5, "description": "take back 5 moves"}]}
    session = Session(recorder, judge=lambda g, r, laid_before=False: unsure if r.source == "unsure" else judge(
        g, r, laid_before=laid_before))
    session.new_game("kalah", {}, "Ann", "Bob")
    for position in game.positions[1:]:
        session.submit(Reading.of_position(position))
    assert session.submit(Reading.of_position(game.position, "unsure"))["kind"] == "ambiguous"
    assert [c["kind"] for c in session.state()["choices"]] == ["move", "takeback"]
    assert session.choose(1)["kind"] == "takeback"
    assert session.game.positions == game.positions[:2]
    assert [m.text for m in recorder.moves(session.game_id)] == [game.moves[0].text]


def test_a_board_back_at_the_start_after_many_moves_is_asked_not_taken_back(session):
    """The board laid out again for a new game without New game (or tidied after a stop): taken
    back unasked, the whole game's moves were deleted from the record."""
    game = Game("kalah")
    for _ in range(6):
        game.play(game.legal_moves()[0])
        session.submit(board(game))
    played = [m.text for m in game.moves]
    assert [m.text for m in session.recorder.moves(session.game_id)] == played
    verdict = session.submit(board(Game("kalah")))
    assert verdict["kind"] == "ambiguous" and verdict["confirm"] == "takeback" and verdict["undo"] == 6
    assert verdict["message"] == ("the board is back where it was 6 moves ago: take the last 6 moves back? Choose it, "
                                  "or start a new game if the board was laid out for one")
    assert [m.text for m in session.recorder.moves(session.game_id)] == played  # nothing deleted unasked
    assert [c["kind"] for c in session.state()["choices"]] == ["takeback"]
    session.press("confirm")  # the board's button, or the dashboard's
    assert session.game.moves == [] and session.recorder.moves(session.game_id) == []


def test_a_move_the_players_enter_names_its_mover(session):
    """The dashboard said "Played C" of a move typed in, where the referee's say "Ann played C"."""
    typed = session.play_by_hand("A")
    assert (typed["player"], typed["players"]) == ("south", ["south"])
    after = session.play_by_hand("a")
    assert (after["player"], after["players"]) == ("north", ["north"])
    corrected = session.correct("b")
    assert (corrected["player"], corrected["players"]) == ("north", ["north"])  # played from the position before "a"
    assert session.recorder.verdicts(session.game_id)[-1]["verdict"]["players"] == ["north"]
    assert "player" not in session.takeback()


def test_controls_by_hand_take_back_correct_and_play(session):
    with pytest.raises(SessionError, match="no move to take back"):
        session.takeback()
    session.play_by_hand("C")
    session.correct("D")
    assert [m.text for m in session.game.moves] == ["D"]
    with pytest.raises(SessionError, match="not a legal move"):
        session.correct("S")
    session.takeback()
    assert session.game.moves == [] and session.recorder.moves(session.game_id) == []
    kinds = [v["kind"] for v in session.recorder.verdicts(session.game_id)]
    assert kinds == ["move", "correction", "takeback"]


def test_a_draw_is_agreed_only_where_the_rules_allow_it(recorder):
    session = Session(recorder)
    session.new_game("kalah", {}, "Ann", "Bob")
    with pytest.raises(SessionError, match="do not allow"):
        session.agree_draw()
    session.new_game("oware", {}, "Ann", "Bob")
    session.agree_draw()
    assert session.game.result.reason == "agreement"
    assert recorder.game(session.game_id).status == "finished"
    with pytest.raises(SessionError, match="already over"):
        session.agree_draw()


def test_bad_names_and_variants_are_refused(recorder):
    session = Session(recorder)
    with pytest.raises(SessionError, match="1 to 40 printable"):
        session.new_game("kalah", {}, "", "Bob")
    import rules
    with pytest.raises(rules.RulesError, match="unknown variant"):
        session.new_game("chess", {}, "Ann", "Bob")
    with pytest.raises(rules.RulesError, match="unknown option"):
        session.new_game("kalah", {"colour": 1}, "Ann", "Bob")


def test_pass_it_on_match_continues_with_the_score_carried_over(recorder):
    session = Session(recorder)
    session.new_game("pass-it-on", {"match_target": 60}, "Ann", "Bob")
    with pytest.raises(SessionError, match="not over"):
        session.next_game()
    import random
    rng = random.Random(3)
    while not session.game.is_over:
        session.play_by_hand(rng.choice(session.game.legal_moves()).text)
    first_match = session.game.position.to_json()["match"]
    session.next_game()
    state = session.state()["game"]
    assert state["position"]["game"] == 2
    assert state["match_history"] == [{"south": 0, "north": 0}, first_match, first_match]


def test_state_is_json_and_names_the_last_sowing(session):
    game = Game("kalah")
    game.play("C")
    session.submit(board(game))
    state = json.loads(json.dumps(session.state()))
    assert state["game"]["last"]["from"] == "C" and state["game"]["last"]["path"] == ["D", "E", "F", "S"]
    assert state["game"]["to_move"] == "south"  # extra turn
    assert state["game"]["score"] == {"south": 1, "north": 0}


def test_a_capture_from_the_hand_flashes_only_real_pits(recorder):
    """Nam Nam's "eight left": the capturer also takes the seeds still in the sower's hand."""
    rng = random.Random(0)
    session = Session(recorder)
    session.new_game("nam-nam", {}, "Ann", "Bob")
    game = session.game
    while not any(e.get("pit") == "hand" for e in (game.events[-1] if game.events else [])):
        session.play_by_hand(rng.choice(game.legal_moves()).text)
    state = session.state()
    labels = set(game.variant.layout.labels)
    assert set(state["flash"]) <= labels
    assert len(state["leds"]) == len(labels)


def test_the_boards_push_buttons_undo_and_confirm(session):
    session.press("confirm")  # nothing to confirm: said, not raised
    assert session.state()["verdict"]["button"] == "the confirm button does nothing now"
    session.play_by_hand("A")
    session.press("undo")
    assert session.game.moves == []
    game = session.game
    a, _ = game.variant.play(game.position, game.variant.parse_move(game.position, "A"))
    b, _ = game.variant.play(game.position, game.variant.parse_move(game.position, "B"))
    session.submit(between(a, b))
    best = session.state()["choices"][0]["moves"]
    session.press("confirm")
    assert [m.text for m in session.game.moves] == best


def _four_left_for_its_owner(seed: int):
    """A Nam Nam game prefix and a move of it during which a hollow reached 4 mid-sowing:
    (game, move, the board with that four left standing by its owner)."""
    truth = random_game("nam-nam", 120, seed)
    variant = truth.variant
    for ply, pos in enumerate(truth.positions[:-1]):
        for move in variant.legal_moves(pos):
            after, events = variant.play(pos, move)
            if any(e["type"] in ("round_end", "setup") for e in events):
                continue
            for k, e in enumerate(events):
                later = events[k + 1:]
                if (e["type"] == "capture" and e["seeds"] == 4 and e["pit"] in variant.layout.labels
                        and any(x["type"] == "drop" for x in later)
                        and not any(x.get("pit") == e["pit"] for x in later)):
                    prefix = Game("nam-nam")
                    for played in truth.moves[:ply]:
                        prefix.play(played)
                    pits = list(after.pits)
                    pits[variant.layout.index_of(e["pit"])] += 4
                    return prefix, move, pits
    raise AssertionError("no mid-sowing four in the sample game")


def _session_before_a_four_left(recorder):
    """A Nam Nam session played up to a move that can leave a four standing:
    (session, its game replayed, the move, the board with the four left)."""
    prefix, move, pits = _four_left_for_its_owner(seed=8)
    session = Session(recorder)
    session.new_game("nam-nam", {}, "Ann", "Bob")
    replay = Game("nam-nam")
    for played in prefix.moves:
        replay.play(played)
        assert session.submit(board(replay))["kind"] == "move"
    return session, replay, move, pits


def test_a_nam_nam_four_left_for_its_owner_is_accepted_recorded_and_resumed(recorder):
    session, replay, move, pits = _session_before_a_four_left(recorder)
    labels = replay.variant.layout.labels
    verdict = session.submit(Reading.exact(labels, pits, source="camera"))
    assert verdict["kind"] == "move" and verdict["moves"] == [move.text], verdict
    assert verdict["best"]["left_for_owner"], verdict
    assert list(session.game.position.pits) == pits  # the four stands: the engine did not take it
    assert recorder.moves(session.game_id)[-1].position["pits"] == dict(zip(labels, pits))
    resumed = Session(recorder)
    assert resumed.resume_or_start("nam-nam", {}, "Ann", "Bob")
    assert resumed.game.positions == session.game.positions


def test_a_takeback_that_cannot_be_recorded_leaves_the_four_standing_as_recorded(recorder, monkeypatch):
    """The disk is full when the players take back the move after which a four was left standing:
    the game goes on from the board as recorded, the four standing, and the record still replays."""
    session, replay, move, pits = _session_before_a_four_left(recorder)
    session.submit(Reading.exact(replay.variant.layout.labels, pits, source="camera"))
    recorded = session.game.positions

    def full_disk(*args, **kwargs):
        raise RecorderError("games.sqlite: cannot record: database or disk is full")
    monkeypatch.setattr(recorder, "record_verdict", full_disk)
    with pytest.raises(RecorderError):
        session.takeback()
    assert session.game.positions == recorded
    monkeypatch.undo()
    session.play_by_hand(session.game.legal_moves()[0].text)
    assert records.game_of(recorder, session.game_id)[1].positions == session.game.positions


def test_the_players_can_choose_a_four_left_standing_when_the_board_is_unsure(recorder):
    """The camera is unsure whether the hollow holds the four: the verdict is ambiguous, and
    the candidate the players choose keeps the four on the board and in the record."""
    session, replay, move, pits = _session_before_a_four_left(recorder)
    after, _ = replay.variant.play(replay.position, move)
    labels = replay.variant.layout.labels
    four = next(label for label, seen, taken in zip(labels, pits, after.pits) if seen != taken)
    unsure = dict(Reading.exact(labels, pits, source="camera").pits)
    unsure[four] = PitReading((0.5, 0.0, 0.0, 0.0, 0.5))
    verdict = session.submit(Reading(unsure, source="camera"))
    assert verdict["kind"] == "ambiguous", verdict
    choices = session.state()["choices"]
    index = next(k for k, c in enumerate(choices) if c["left_for_owner"] == [four])
    assert session.choose(index)["moves"] == [move.text]
    assert list(session.game.position.pits) == pits  # the four stands
    assert recorder.moves(session.game_id)[-1].position["pits"] == dict(zip(labels, pits))


def test_where_the_camera_stands_is_published_when_it_changes(session):
    """The camera loop judges the camera's place from every still board; the dashboard hears of it
    only when the judgement changed, as with a source's health."""
    angle = ("camera angle", False, "35 degrees from overhead at the board's middle: mount the camera higher")
    version = session.hub.version
    session.set_camera_placement([angle])
    assert session.hub.version == version + 1
    assert json.loads(session.hub.latest)["camera_placement"] == [
        {"name": "camera angle", "ok": False, "said": angle[2]}]
    session.set_camera_placement([angle])
    assert session.hub.version == version + 1
    session.set_camera_placement([("camera angle", True, "18 degrees from overhead at the board's middle")])
    assert session.hub.version == version + 2 and session.state()["camera_placement"][0]["ok"]
