"""The live runtime: its web server (a real socket, the access token when served to the network),
the variant it plays, and how a signal stops it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
import urllib.error
import urllib.request

import pytest

import rules
from pitwatch import config as cfg
from pitwatch.config import ConfigError
from pitwatch.runtime import Runtime
from pitwatch.session import SessionError


def post(url: str, body: dict, headers: dict) -> int:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json", **headers})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


@pytest.fixture
def runtime(tmp_path):
    config = cfg.load(tmp_path / "none.toml", [f"recorder.database={tmp_path / 'g.sqlite'}", "web.port=0",
                                               "web.allow_network=true", "web.token=open-sesame"])
    rt = Runtime(config)
    rt.start_session()
    yield rt
    rt.stop()


def test_served_to_the_network_every_control_needs_the_printed_token(runtime):
    url = runtime.serve()
    assert url.endswith("?token=open-sesame")
    base = url.split("?")[0]
    page = urllib.request.urlopen(base, timeout=5).read().decode()
    csrf = re.search(r'name="csrf-token" content="([^"]+)"', page).group(1)
    assert post(base + "api/move", {"move": "C"}, {"X-CSRF-Token": csrf}) == 401
    assert post(base + "api/move", {"move": "C"}, {"X-CSRF-Token": csrf, "X-Pitwatch-Token": "open-sesame"}) == 200
    assert [m.text for m in runtime.session.game.moves] == ["C"]


def test_a_connection_that_says_nothing_is_closed_and_its_thread_freed(runtime, monkeypatch):
    """Each one held a server thread for ever (a dashboard audit opened 400, 2026-12-07)."""
    import socket
    import threading
    import time

    from pitwatch import runtime as runtime_module

    monkeypatch.setattr(runtime_module._RequestHandler, "timeout", 0.5)
    port = int(runtime.serve().split(":")[2].split("/")[0])
    before = threading.active_count()
    silent = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(5)]
    silent[0].sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1")  # a request left half-sent
    try:
        started = time.monotonic()
        assert all(conn.recv(1024) == b"" for conn in silent)  # closed by the server
        assert time.monotonic() - started < 4
        deadline = time.monotonic() + 5
        while threading.active_count() > before and time.monotonic() < deadline:
            time.sleep(0.05)
        assert threading.active_count() <= before
    finally:
        for conn in silent:
            conn.close()
    assert urllib.request.urlopen(runtime.url.split("?")[0] + "api/state", timeout=5).status == 200


def test_a_taken_port_is_a_clear_error(runtime, tmp_path):
    runtime.serve()
    port = runtime.url.split(":")[2].split("/")[0]
    other = Runtime(cfg.load(tmp_path / "none.toml", [f"recorder.database={tmp_path / 'h.sqlite'}",
                                                      f"web.port={port}"]))
    other.start_session()
    try:
        with pytest.raises(ConfigError, match=f"cannot serve the dashboard on 127.0.0.1:{port}"):
            other.serve()
        assert other.serve(any_port_if_busy=True) != runtime.url
    finally:
        other.stop()


def runtime_of(tmp_path, *overrides: str) -> Runtime:
    return Runtime(cfg.load(tmp_path / "none.toml", [f"recorder.database={tmp_path / 'games.sqlite'}", *overrides]))


def test_a_variant_named_on_the_command_line_is_played_and_the_game_in_progress_kept_on_record(tmp_path):
    """``--variant oware`` asks for a game of Oware; the configuration file's variant is only that of
    a new game, so a restart goes on with the game in progress."""
    first = runtime_of(tmp_path)
    first.start_session()
    first.session.play_by_hand("C")
    first.stop()
    configured = runtime_of(tmp_path, "game.variant=oware")
    assert configured.start_session() is True  # the file's variant: the kalah game goes on
    assert configured.session.game.variant.name == "kalah" and len(configured.session.game.moves) == 1
    configured.stop()
    watched = runtime_of(tmp_path, "game.variant=oware")  # pitwatch run: its board is calibrated for Kalah's
    watched.start_session()
    watched.session.fixed_board = watched.session.game.variant.layout.labels
    with pytest.raises(SessionError, match=r"oware is played on a 2x6 board, not on the board being watched \(on which "
                                           r"kalah, kalah-3, egyptian, ethiopian, nigerian are played\)"):
        watched.play_asked_variant()
    assert watched.recorder.active_game().variant == "kalah"  # refused before the game was set aside
    watched.stop()
    asked = runtime_of(tmp_path, "game.variant=oware")
    assert asked.start_session() is True
    assert asked.play_asked_variant() is True
    assert asked.session.game.variant.name == "oware" and not asked.session.game.moves
    kept = {game.variant: game for game in asked.recorder.games()}
    assert kept["kalah"].status == "abandoned" and kept["kalah"].move_count == 1
    asked.stop()
    again = runtime_of(tmp_path, "game.variant=oware")
    again.start_session()
    assert again.play_asked_variant() is False  # the game in progress is of the variant asked
    again.stop()


@pytest.mark.parametrize("override, named", [("game.variant=kalha", "unknown variant 'kalha'"),
                                             ("game.options={ house = 6 }", "kalah: unknown option 'house'")])
def test_a_misspelt_variant_is_named_at_start_even_with_a_game_in_progress(tmp_path, override, named):
    first = runtime_of(tmp_path)
    first.start_session()
    first.stop()
    with pytest.raises(rules.RulesError, match=named):
        runtime_of(tmp_path, override).start_session()


SIGTERM_AT_EVERY_STEP_OF_WAIT = textwrap.dedent("""
    import _signal, signal, sys, time
    from pitwatch import config as cfg
    from pitwatch.runtime import Runtime

    runtime = Runtime(cfg.load(sys.argv[1], [f"recorder.database={sys.argv[2]}"]))
    steps = installed_at = 0

    def tracer(frame, event, arg):
        \"\"\"Counts every line and bytecode that wait() runs, raising SIGTERM at the step asked.\"\"\"
        global steps
        frame.f_trace_opcodes = True
        steps += 1
        if steps == sigterm_at:
            signal.raise_signal(signal.SIGTERM)
        return tracer

    def watch_the_first_wait(frame, event, arg):
        \"\"\"Notes the step where the handler is in place, and stops the wait at its first sleep.\"\"\"
        global installed_at
        if event == "c_return" and arg is _signal.signal:
            installed_at = steps
        if event == "c_call" and arg is time.sleep:
            signal.raise_signal(signal.SIGTERM)

    def wait_traced(at):
        global steps, sigterm_at
        steps, sigterm_at = 0, at
        sys.settrace(tracer)
        runtime.wait()
        sys.settrace(None)

    sys.setprofile(watch_the_first_wait)
    wait_traced(at=0)
    sys.setprofile(None)
    print(f"handler in place after step {installed_at}, first sleep after step {steps}", flush=True)
    for at in range(installed_at + 1, steps + 1):
        wait_traced(at)
        print("stopped at step", at, flush=True)
""")


def test_sigterm_stops_the_runtime_at_every_step_of_its_wait(tmp_path):
    """A real race, made certain: the demo hung once in 1,000 SIGTERMs (and once in CI) when the
    interrupt landed inside ``Event.wait`` while its lock was held. Here SIGTERM arrives at each
    line and bytecode of ``wait`` in turn, from the instant its handler is in place up to its
    first sleep (the steps after that repeat these); before that instant SIGTERM ends the process
    the default way, with nothing to lose. Run in a child, so that a hang fails this test."""
    child = subprocess.run([sys.executable, "-c", SIGTERM_AT_EVERY_STEP_OF_WAIT, str(tmp_path / "none.toml"),
                            str(tmp_path / "g.sqlite")], capture_output=True, text=True, timeout=60)
    assert (child.returncode, child.stderr) == (0, "")
    first, *stops = child.stdout.splitlines()
    installed_at, steps = map(int, re.fullmatch(r"handler in place after step (\d+), first sleep after step (\d+)",
                                                first).groups())
    assert steps - installed_at >= 10, child.stdout  # the rest of signal.signal() and the loop's test
    assert stops == [f"stopped at step {at}" for at in range(installed_at + 1, steps + 1)]
