"""`pitwatch games` on real files: looking at a database changes nothing, damaged rows are named,
and an imported record keeps its tags and date and is held to the app's rule for names.

Then what a fuzzer found in `games import` / `export` (2026-12-07): a record that imports exports
again and reads back (whatever its tags are named), and one that cannot is refused at import with
a named error, never a traceback; a record of too many games is refused before they are built;
comments, which the database does not keep, are counted rather than dropped in silence."""

from __future__ import annotations

import io
import json
import sqlite3
import time
from contextlib import closing

import pytest

import rules
from pitwatch import records
from pitwatch.cli import main
from pitwatch.recorder import AcceptedMove, Recorder
from pitwatch.session import Session
from rules import Game
from web import create_app

HUGE = "9" * 5000  # more digits than Python's int() converts from text (4,300)
MOVES = ["B", "e", "A", "c", "a", "E", "d", "D", "f", "D", "b", "A"]
GAME_JSON = {"tags": {"South": "Ada", "North": "Bo"}, "variant": "kalah",
             "options": {"houses": 6, "seeds": 4, "capture_needs_opposite": False}, "start": None,
             "moves": MOVES, "comments": {}, "left_for_owner": {}, "result": "*"}
TEXT = '[South "Ada"]\n[North "Bo"]\n[Variant "kalah"]\n\n1. C F *\n'

RECORD = """[Event "Club night"]
[Site "Leiden"]
[Date "2024.05.01"]
[Round "3"]
[South "Ada"]
[North "Bo"]
[Variant "kalah"]

1. C F *
"""


@pytest.fixture(autouse=True)
def no_user_config(monkeypatch, tmp_path):
    monkeypatch.setenv("PITWATCH_CONFIG", str(tmp_path / "no-such-config.toml"))


def games(args: list[str], capsys) -> tuple[int, str, str]:
    """``pitwatch games ARGS``: its exit status, standard output and standard error."""
    code = main(["games", *args])
    out, err = capsys.readouterr()
    return code, out, err


def record_games(path, count: int) -> list[int]:
    """``count`` games of Kalah, South playing C then F (an extra turn), in a new database at ``path``."""
    truth = Game("kalah")
    moves = []
    for text in ("C", "F"):
        truth.play(text)
        moves.append(AcceptedMove(text, "south", truth.position.to_json()))
    with closing(Recorder(path)) as rec:
        ids = [rec.start_game("kalah", {}, "Ann", "Bob") for _ in range(count)]
        for game_id in ids:
            rec.record_verdict(game_id, {"kind": "move"}, ply=0, accepted=moves)
    return ids


def test_looking_at_a_database_changes_no_byte_and_another_programs_is_refused(tmp_path, capsys):
    """`list` used to add Pitwatch's tables to any SQLite file and switch it to WAL."""
    other = tmp_path / "other.sqlite"
    with closing(sqlite3.connect(other)) as db:
        db.execute("CREATE TABLE foo (x)")
        db.commit()
    before = other.read_bytes()
    record = tmp_path / "rec.txt"
    record.write_text(RECORD)
    for action in (["list"], ["show", "1"], ["export", "1"], ["import", str(record)]):
        assert games(["--db", str(other), *action], capsys) == (
            2, "", f"pitwatch games: {other}: not a Pitwatch game database (it holds tables foo); "
                   "choose another file with --db or recorder.database\n"), action
        assert other.read_bytes() == before, action
    empty = tmp_path / "empty.sqlite"
    empty.touch()
    assert games(["--db", str(empty), "list"], capsys)[2].startswith(
        f"pitwatch games: {empty}: no game database in this file yet")
    assert empty.read_bytes() == b""
    ours = tmp_path / "games.sqlite"
    record_games(ours, 1)
    before = ours.read_bytes()
    for action in (["list"], ["show", "1"], ["export", "1"]):
        assert games(["--db", str(ours), *action], capsys)[0] == 0
    assert ours.read_bytes() == before


@pytest.mark.parametrize("limit", ["0", "-5", "99999999999999999999999", "1000001", "x", ""])
def test_list_limit_is_a_positive_whole_number_within_reason(tmp_path, capsys, limit):
    db = tmp_path / "games.sqlite"
    record_games(db, 1)
    with pytest.raises(SystemExit) as stop:
        main(["games", "--db", str(db), "list", "--limit", limit])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert f"argument --limit: must be a whole number of games from 1 to 100000, not {limit!r}" in err
    assert "Traceback" not in err


def test_list_limit_lists_that_many_games(tmp_path, capsys):
    db = tmp_path / "games.sqlite"
    ids = record_games(db, 3)
    code, out, _ = games(["--db", str(db), "list", "--limit", "2"], capsys)
    assert code == 0 and [int(line.split()[0]) for line in out.splitlines()] == ids[:0:-1]


def damage(db, sql: str, *args) -> None:
    with closing(sqlite3.connect(db)) as connection:
        connection.execute(sql, args)
        connection.commit()


def test_a_damaged_game_is_named_and_the_others_still_list(tmp_path, capsys):
    db = tmp_path / "games.sqlite"
    first, broken, moved = record_games(db, 3)
    damage(db, "UPDATE games SET options='not json' WHERE id=?", broken)
    damage(db, "UPDATE moves SET position='{' WHERE game_id=? AND ply=1", moved)
    code, out, _ = games(["--db", str(db), "list"], capsys)
    lines = out.splitlines()
    assert code == 0 and len(lines) == 3
    assert lines[1] == f"{broken:5d}  game {broken} is damaged: games.options is not a JSON object"
    assert lines[0].startswith(f"{moved:5d}  kalah") and lines[2].startswith(f"{first:5d}  kalah")
    listed = json.loads(games(["--db", str(db), "list", "--json"], capsys)[1])
    assert [g["damaged"] for g in listed] == [None, f"game {broken} is damaged: games.options is not a JSON object",
                                              None]
    for action in ("show", "export"):
        assert games(["--db", str(db), action, str(broken)], capsys) == (
            2, "", f"pitwatch games: game {broken} is damaged: games.options is not a JSON object\n")
        assert games(["--db", str(db), action, str(moved)], capsys) == (
            2, "", f"pitwatch games: game {moved}, move 2 is damaged: moves.position is not a JSON object\n")
    assert games(["--db", str(db), "export", str(first)], capsys)[0] == 0


def test_the_dashboard_answers_a_damaged_game_with_a_json_error(tmp_path):
    db = tmp_path / "games.sqlite"
    first, broken = record_games(db, 2)
    damage(db, "UPDATE games SET options='not json' WHERE id=?", broken)
    with closing(Recorder(db)) as recorder:
        client = create_app(Session(recorder)).test_client()
        listed = client.get("/api/games")
        assert listed.status_code == 200 and [g["id"] for g in listed.get_json()] == [broken, first]
        for url in (f"/api/games/{broken}", f"/api/games/{broken}/export", f"/api/games/{broken}/snapshot/0"):
            answer = client.get(url)
            assert answer.status_code == 422, url
            assert answer.get_json() == {"error": f"game {broken} is damaged: games.options is not a JSON object"}
        assert client.get(f"/games/{broken}").status_code == 200  # the page says the API's error
        assert client.get(f"/api/games/{first}").status_code == 200


def test_a_game_the_rules_cannot_replay_is_named_with_its_move(tmp_path, capsys):
    db = tmp_path / "games.sqlite"
    (game,) = record_games(db, 1)
    damage(db, "UPDATE moves SET text='Z' WHERE game_id=? AND ply=1", game)
    assert games(["--db", str(db), "show", str(game)], capsys) == (
        2, "", f"pitwatch games: game {game} cannot be replayed: move 2 (Z): kalah: 'Z' is not a legal move for "
               "south; legal moves: A, B, D, E, F\n")
    with closing(Recorder(db)) as recorder:
        answer = create_app(Session(recorder)).test_client().get(f"/api/games/{game}")
    assert answer.status_code == 422 and answer.get_json()["error"].startswith(
        f"game {game} cannot be replayed: move 2 (Z): kalah:")


def test_an_imported_game_keeps_its_tags_and_date_through_export_and_import(tmp_path, capsys):
    record, db = tmp_path / "rec.txt", tmp_path / "games.sqlite"
    record.write_text(RECORD)
    assert games(["--db", str(db), "import", str(record)], capsys)[1] == "imported as game 1\n"
    code, exported, _ = games(["--db", str(db), "export", "1"], capsys)
    assert code == 0
    for tag in ('[Event "Club night"]', '[Site "Leiden"]', '[Date "2024.05.01"]', '[Round "3"]', '[South "Ada"]'):
        assert tag in exported, tag
    (listed,) = json.loads(games(["--db", str(db), "list", "--json"], capsys)[1])
    assert listed["started_at"] == 1714564800  # 2024-05-01 12:00 UTC: the same day in every time zone
    as_json = tmp_path / "rec.json"
    assert games(["--db", str(db), "export", "1", "--format", "json", "-o", str(as_json)], capsys)[0] == 0
    assert games(["--db", str(db), "import", str(as_json)], capsys)[1] == "imported as game 2\n"
    assert games(["--db", str(db), "export", "2"], capsys)[1] == exported
    refereed = tmp_path / "refereed.sqlite"
    record_games(refereed, 1)
    assert '[Event "Pitwatch game"]' in games(["--db", str(refereed), "export", "1"], capsys)[1]


@pytest.fixture
def in_sydney(monkeypatch):
    """The machine's clock set to Sydney's time zone (UTC+11 in December), for this test only."""
    monkeypatch.setenv("TZ", "Australia/Sydney")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_a_game_refereed_here_exports_the_day_it_was_played_at_the_table(tmp_path, capsys, in_sydney, monkeypatch):
    """08:00 on 8 December in Sydney is 21:00 UTC on the 7th: the record says the 8th."""
    db = tmp_path / "games.sqlite"
    monkeypatch.setattr(time, "time", lambda: 1796677200.0)  # the game starts 2026-12-08 08:00 AEDT
    record_games(db, 1)
    assert '[Date "2026.12.08"]' in games(["--db", str(db), "export", "1"], capsys)[1]


@pytest.mark.parametrize("name", ["", "   ", "x" * 5000, "A\x00da", "Tab\there"])
def test_import_refuses_a_name_the_app_refuses_naming_the_line(tmp_path, capsys, name):
    """All or nothing: a bad name in the second game of a record stores neither game."""
    db, record = tmp_path / "games.sqlite", tmp_path / "rec.txt"
    escaped = name.replace("\\", "\\\\").replace('"', '\\"')
    record.write_text(RECORD + RECORD.replace('[North "Bo"]', f'[North "{escaped}"]'))
    assert games(["--db", str(db), "import", str(record)], capsys) == (
        2, "", f"pitwatch games: {record}: line 15, column 1: North player's name must be 1 to 40 printable "
               "characters\n")
    assert not db.exists()  # a refused import leaves no database behind
    as_json = tmp_path / "rec.json"
    as_json.write_text(json.dumps({"variant": "kalah", "moves": ["C"], "tags": {"South": name}}))
    assert games(["--db", str(db), "import", str(as_json)], capsys)[2] == (
        f"pitwatch games: {as_json}: tags.South: South player's name must be 1 to 40 printable characters\n")
    assert not db.exists()


def test_show_writes_the_options_as_the_records_do(tmp_path, capsys):
    db = tmp_path / "games.sqlite"
    record_games(db, 1)
    assert games(["--db", str(db), "show", "1"], capsys)[1].splitlines()[0] == (
        "game 1: kalah (houses=6 seeds=4 capture_needs_opposite=false), Ann (South) v Bob (North)")


@pytest.mark.parametrize("text, kind", [("[]", "an array"), ("null", "null"), ('"kalah"', "a string"),
                                        ("[" * 100_000, None)])
def test_json_that_is_no_game_object_is_named_as_such(tmp_path, capsys, text, kind):
    record, db = tmp_path / "rec.txt", tmp_path / "games.sqlite"
    record.write_text(text)
    code, _, err = games(["--db", str(db), "import", str(record)], capsys)
    assert code == 2 and "Traceback" not in err
    if kind:
        assert err == (f"pitwatch games: {record}: not a game object: the record is JSON, {kind} (a game's JSON is "
                       "an object with its variant and moves)\n")
    assert not db.exists()


def test_a_file_where_the_databases_folder_should_be_is_named(tmp_path, capsys):
    sheet, record = tmp_path / "sheet.png", tmp_path / "rec.txt"
    sheet.write_bytes(b"\x89PNG")
    record.write_text(RECORD)
    for db in (sheet / "x.sqlite", sheet / "deeper" / "x.sqlite"):
        assert games(["--db", str(db), "import", str(record)], capsys) == (
            2, "", f"pitwatch games: {db}: cannot be created, {sheet} is not a folder; choose another file with --db "
                   "or recorder.database\n")
    assert sheet.read_bytes() == b"\x89PNG"


def test_standard_input_that_is_not_utf8_is_named_as_a_file_would_be(tmp_path, capsys, monkeypatch):
    db, record = tmp_path / "games.sqlite", tmp_path / "rec.txt"
    data = RECORD.replace("Club night", "Caf\xe9").encode("latin-1")
    record.write_bytes(data)
    assert games(["--db", str(db), "import", str(record)], capsys)[2] == (
        f"pitwatch games: {record}: not a game record (not UTF-8 text, byte 11)\n")
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="surrogateescape"))
    assert games(["--db", str(db), "import", "-"], capsys)[2] == (
        "pitwatch games: standard input: not a game record (not UTF-8 text, byte 11)\n")
    assert not db.exists()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(RECORD.encode())))
    assert games(["--db", str(db), "import", "-"], capsys)[1] == "imported as game 1\n"


# -- what the record fuzzer found ---------------------------------------------------------------
def refused(tmp_path, capsys, content: str) -> str:
    """What `games import` says of a record file holding ``content``, which it must refuse storing nothing."""
    record, db = tmp_path / "rec.txt", tmp_path / "games.sqlite"
    record.write_text(content)
    code, out, err = games(["--db", str(db), "import", str(record)], capsys)
    assert (code, out) == (2, "") and "Traceback" not in err
    assert not db.exists()
    prefix = f"pitwatch games: {record}: "
    assert err.startswith(prefix) and err.endswith("\n")
    return err[len(prefix):-1]


def round_trip(folder, capsys, content: str) -> dict[str, str]:
    """Import ``content`` into a new database in ``folder``, export it as text and as JSON, import both
    again: every export must read back as the same game. The tags of the text export."""
    folder.mkdir()
    record, db = folder / "rec.txt", folder / "games.sqlite"
    record.write_text(content)
    assert games(["--db", str(db), "import", str(record)], capsys)[1] == "imported as game 1\n"
    code, exported, err = games(["--db", str(db), "export", "1"], capsys)
    assert (code, err) == (0, "")
    as_json = folder / "rec.json"
    assert games(["--db", str(db), "export", "1", "--format", "json", "-o", str(as_json)], capsys)[0] == 0
    record.write_text(exported)
    assert games(["--db", str(db), "import", str(record)], capsys)[1] == "imported as game 2\n"
    assert games(["--db", str(db), "import", str(as_json)], capsys)[1] == "imported as game 3\n"
    assert games(["--db", str(db), "export", "2"], capsys)[1] == games(["--db", str(db), "export", "3"], capsys)[1] \
        == exported
    return rules.notation.read(exported).tags


# -- 1: tags named like a parameter --------------------------------------------------------------
@pytest.mark.parametrize("name", ["comments", "game", "cls"])
def test_a_tag_named_like_a_parameter_imports_and_exports(tmp_path, capsys, name):
    tags = round_trip(tmp_path / "text", capsys, f'[{name} "x"]\n' + TEXT)
    assert tags[name] == "x"
    as_json = json.dumps({**GAME_JSON, "tags": {name: "x", "South": "A", "North": "B"}})
    tags = round_trip(tmp_path / "json", capsys, as_json)
    assert (tags[name], tags["South"]) == ("x", "A")


@pytest.mark.parametrize("stored", ['{"South": "x"}', '{"North": "x", "Event": "E"}'])
def test_stored_tags_holding_a_players_name_export_the_players_column(tmp_path, capsys, stored):
    record, db = tmp_path / "rec.txt", tmp_path / "games.sqlite"
    record.write_text(TEXT)
    games(["--db", str(db), "import", str(record)], capsys)
    with closing(sqlite3.connect(db)) as connection:
        connection.execute("UPDATE games SET tags = ? WHERE id = 1", (stored,))
        connection.commit()
    code, exported, err = games(["--db", str(db), "export", "1"], capsys)
    assert (code, err) == (0, "")
    assert '[South "Ada"]' in exported and '[North "Bo"]' in exported


# -- 2: numbers too long to read -------------------------------------------------------------------
@pytest.mark.parametrize("content", [
    json.dumps({**GAME_JSON, "options": {"houses": 6, "seeds": 4}})[:-1] + f', "x": {HUGE}}}',
    json.dumps({**GAME_JSON, "options": {"houses": 6}}).replace('"houses": 6', f'"houses": {HUGE}'),
    HUGE,
    f"[-{HUGE}]",
])
def test_json_with_a_number_too_long_to_read_is_named(tmp_path, capsys, content):
    said = "not valid JSON: a number of 5,000 digits (a record's numbers are a few digits long)"
    with pytest.raises(rules.RulesError) as raised:
        records.read_import(content)
    assert str(raised.value) == said
    assert refused(tmp_path, capsys, content) == said


def test_json_that_gives_a_key_twice_is_named_not_taken_by_where_it_stands(tmp_path, capsys):
    content = json.dumps(GAME_JSON).replace('"South": "Ada"', '"South": "Ada", "South": "Cy"')
    assert refused(tmp_path, capsys, content) == (
        'not valid JSON: "South" is given twice in one object: which one is meant?')
    start = TEXT.replace("\n\n", '\n[Start "{\\"houses\\": [4], \\"houses\\": [5]}"]\n\n')
    assert refused(tmp_path, capsys, start).startswith(
        'line 4, column 1: the Start tag is not JSON: "houses" is given twice in one object')
    options = TEXT.replace("\n\n", '\n[Options "houses=6 houses=5"]\n\n')  # the text's own way of giving one twice
    assert refused(tmp_path, capsys, options) == "line 4, column 1: option 'houses' is given twice: which one is meant?"


def test_a_start_tag_with_a_number_too_long_to_read_is_named_with_its_line(tmp_path, capsys):
    content = TEXT.replace("\n\n", f'\n[Start "[{HUGE}]"]\n\n')
    assert refused(tmp_path, capsys, content) == (
        "line 4, column 1: the Start tag is not JSON: a number of 5,000 digits (a record's numbers are a few "
        "digits long)")


START = Game("kalah").position.to_json()


@pytest.mark.parametrize("number, said", [
    ("Infinity", "Infinity is not a number JSON allows, nor any count or score"),
    ("-Infinity", "-Infinity is not a number JSON allows, nor any count or score"),
    ("NaN", "NaN is not a number JSON allows, nor any count or score"),
    ("1e400", "the number 1e400 is too large for any count or score"),
])
def test_a_number_no_count_can_be_is_named_not_a_traceback(tmp_path, capsys, number, said):
    """``json`` reads Infinity and NaN, which JSON has not; as a count they reached ``int()`` as an
    OverflowError (a fuzzer, 2026-12-07), in a position's captures, a result's score, a Nam Nam round."""
    start = {**START, "captured": {"south": "CAPTURED", "north": 0}}
    content = json.dumps({**GAME_JSON, "moves": [], "start": start}).replace('"CAPTURED"', number)
    assert refused(tmp_path, capsys, content) == f"not valid JSON: {said}"
    tag = json.dumps(json.dumps(start)).replace('\\"CAPTURED\\"', number)
    assert refused(tmp_path, capsys, TEXT.replace("\n\n", f"\n[Start {tag}]\n\n")) == (
        f"line 4, column 1: the Start tag is not JSON: {said}")


def test_a_start_whose_result_is_no_object_is_named(tmp_path, capsys):
    content = json.dumps({**GAME_JSON, "moves": [], "start": {**START, "result": "yes"}})
    assert refused(tmp_path, capsys, content) == "kalah: malformed result 'yes'"


def test_a_recorded_position_no_count_can_be_and_a_draw_the_rules_have_not_are_named_as_damage(tmp_path, capsys):
    db = tmp_path / "games.sqlite"
    infinite, agreed = record_games(db, 2)
    damage(db, "UPDATE moves SET position=replace(position, '\"south\": 0', '\"south\": Infinity') "
               "WHERE game_id=? AND ply=0", infinite)
    damage(db, "UPDATE games SET result='{\"winner\": null, \"reason\": \"agreement\", \"score\": "
               "{\"south\": 0, \"north\": 0}}' WHERE id=?", agreed)
    assert games(["--db", str(db), "show", str(infinite)], capsys) == (
        2, "", f"pitwatch games: game {infinite}, move 1 is damaged: moves.position is not a JSON object\n")
    assert games(["--db", str(db), "show", str(agreed)], capsys) == (
        2, "", f"pitwatch games: game {agreed} cannot be replayed: its result: kalah: the rules do not allow a draw "
               "by agreement\n")


# -- 3: move numbers --------------------------------------------------------------------------------
def test_a_move_number_only_isdigit_takes_is_named(tmp_path, capsys):
    content = json.dumps({**GAME_JSON, "left_for_owner": {"\u00b2": ["a"]}})
    assert refused(tmp_path, capsys, content) == (
        "'left_for_owner' maps move numbers to lists of hollows: '²' is not a move number")


# -- 4: what import takes, export must write back --------------------------------------------------
@pytest.mark.parametrize("tags, said", [
    ({"bad name]": "x"}, "'tags': the tag name 'bad name]' is not one a record can hold (a letter, then letters, "
                         "digits or _)"),
    ({"": "x"}, "'tags': the tag name '' is not one a record can hold (a letter, then letters, digits or _)"),
    ({"Event": {"a": [1, 2]}}, "'tags.Event': the value is dict, not text"),
    ({"South": 12}, "'tags.South': the value is int, not text"),
    ({"Event": "a\nb"}, "'tags.Event': the value holds a line break, which a tag pair cannot: a record's text "
                         "keeps each tag on one line"),
    ({"Event": "\ud800"}, "'tags.Event': the value holds a lone surrogate ('\\ud800'), which no UTF-8 text can "
                          "hold"),
])
def test_json_tags_a_text_record_cannot_hold_are_refused_at_import(tmp_path, capsys, tags, said):
    assert refused(tmp_path, capsys, json.dumps({**GAME_JSON, "tags": tags})) == said


# -- 5: games in one record ------------------------------------------------------------------------
def test_a_record_of_more_games_than_a_record_may_hold_is_refused_naming_the_first_too_many(monkeypatch):
    monkeypatch.setattr(records, "MAX_RECORD_GAMES", 3)
    tiny = '[Variant "kalah"]*\n'
    assert len(records.read_import(tiny * 3).games) == 3
    with pytest.raises(rules.notation.NotationError) as raised:
        records.read_import(tiny * 4 + "[Variant")  # the game past the limit is not even read
    assert str(raised.value) == ("line 4, column 1: game 4 starts here, but a record may hold at most 3 games: "
                                 "split it into smaller files")


def test_a_record_file_of_the_most_bytes_of_tiny_games_is_refused_by_their_count(tmp_path, capsys):
    tiny = '[Variant "kalah"]*\n'
    content = tiny * (records.MAX_RECORD_BYTES // len(tiny))
    most = records.MAX_RECORD_GAMES
    assert refused(tmp_path, capsys, content) == (
        f"line {most + 1}, column 1: game {most + 1:,} starts here, but a record may hold at most {most:,} games: "
        "split it into smaller files")


# -- 6: comments the database does not keep --------------------------------------------------------
def test_the_comments_an_import_leaves_out_are_counted():
    text = '[Variant "kalah"]\n{opening} 1. C {sharp} ; and a line comment\nF *\n'
    read = records.read_import(text + text.replace("{sharp}", ""))
    assert len(read.games) == 2 and read.comments_left_out == 5
    commented = json.dumps({**GAME_JSON, "comments": {"0": ["a"], "3": ["b", "c"]}})
    assert records.read_import(commented).comments_left_out == 3
    assert records.read_import(TEXT).comments_left_out == 0


def test_an_import_says_how_many_comments_it_left_out(tmp_path, capsys):
    (tmp_path / "rec.txt").write_text('[Variant "kalah"]\n{opening} 1. C {sharp} F *\n')
    assert main(["games", "import", str(tmp_path / "rec.txt"), "--db", str(tmp_path / "g.sqlite")]) == 0
    assert capsys.readouterr().out == "imported as game 1\n2 comments left out: the game database keeps none\n"
