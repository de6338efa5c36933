"""Session benchmark: stable board -> dashboard update in a real browser, and the demo's memory.

1. Latency. The demo runs in this process (emulated microcontroller, real
   bridge, fusion, referee, SQLite recorder, web server); headless Chromium
   shows the dashboard. For every move, the time from the moment the board
   is stable (the still-board gate hands the Reading to the session) to the
   moment the browser has drawn the new state. Also printed: the time from
   the seeds' last movement on the virtual board to the browser's update
   (this includes the sensors' report rate and the settle time).
2. Memory. ``pitwatch demo`` as its own process with time compressed (a move
   every ``--move-seconds``, i.e. an hour of play at one move per 5 s in
   ``3600 / 5 * move_seconds`` seconds) with a browser watching; its
   resident memory (VmRSS) at the start and after the hour of play, and
   its peak (VmHWM, the kernel's high-water mark: a frame being rendered
   lasts a fraction of a second, so once-a-second samples can miss it).

Targets: median <= 100 ms, p99 <= 250 ms, resident memory < 250 MB.

    .venv/bin/python benchmarks/session_bench.py                 # both
    .venv/bin/python benchmarks/session_bench.py --moves 200 --hour-moves 720
    .venv/bin/python benchmarks/session_bench.py --skip-latency --hour-moves 120   # a shorter memory run
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent.parent / "tests" / folder) for folder in ("web", "shared")]
from pitwatch_browser import chromium  # noqa: E402  (the tests' headless Chromium set-up)

from pitwatch import config as cfg  # noqa: E402
from pitwatch.demo import build_demo  # noqa: E402


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


def latency(moves: int, camera: bool) -> None:
    workdir = Path(tempfile.mkdtemp(prefix="pitwatch-bench-"))
    config = cfg.load(workdir / "none.toml", [
        f"demo.database={workdir / 'games.sqlite'}", "web.port=0", "demo.seed=11",
        "demo.move_seconds=0.6" if not camera else "demo.move_seconds=3.0",
        f"demo.camera={'true' if camera else 'false'}",
    ])
    runtime, demo, _ = build_demo(config)
    url = runtime.serve()
    browser = chromium(workdir / "chromium")  # started first: its start-up would otherwise slow the first moves
    browser.get(url)
    demo.start()
    runtime.start()
    stable, physical, judging, server, committing = [], [], [], [], []
    chosen = 0
    try:
        seen = 0
        deadline = time.monotonic() + moves * 10
        while len(stable) < moves and time.monotonic() < deadline:
            time.sleep(0.2)
            renders = browser.execute_script("return window.__pitwatchRenders.splice(0)")
            for render in renders:
                if render["moves"] != seen and render["stableAt"]:
                    if render["moves"] > seen and render["byPlayers"]:
                        chosen += 1  # an ambiguous board the (simulated) players settled: not the referee's time
                    elif render["moves"] > seen:  # a new move judged and drawn (not a new game's empty list)
                        stable.append(render["at"] - render["stableAt"] * 1000)
                        judging.append(render["judgeMs"])
                        committing.append(render["commitMs"])
                        server.append((render["publishedAt"] - render["stableAt"]) * 1000)
                        if render["boardChangedAt"]:
                            physical.append(render["at"] - render["boardChangedAt"] * 1000)
                    seen = render["moves"]
    finally:
        browser.quit()
        runtime.stop()
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"moves settled by the players' choice (not timed): {chosen}")
    report("stable board -> browser drawn", stable)
    print("  slowest:", sorted(round(v) for v in stable)[-5:], "first:", [round(v) for v in stable[:3]])
    report("  of which the referee (from the stable board, any wait for the session included)", judging)
    report("  of which the SQLite commit (fsync)", committing)
    report("  of which the server (referee, SQLite commit, state)", server)
    report("seeds last moved -> browser drawn", physical)


def report(what: str, values: list[float]) -> None:
    if not values:
        print(f"{what}: no samples")
        return
    print(f"{what}: n={len(values)} median {statistics.median(values):.1f} ms, "
          f"p99 {percentile(values, 99):.1f} ms, max {max(values):.1f} ms")


def rss_mb(pid: int, field: str = "VmRSS") -> float:
    """Resident memory of ``pid`` now (VmRSS) or at its highest so far (VmHWM), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {field}")


def rss_samples(pid: int, seconds: int) -> list[float]:
    """VmRSS once a second: the camera's frames come and go, so one sample says little."""
    samples = []
    for _ in range(seconds):
        samples.append(rss_mb(pid))
        time.sleep(1)
    return samples


def summary(samples: list[float]) -> str:
    return f"median {statistics.median(samples):.0f} MB, min {min(samples):.0f}, max {max(samples):.0f}"


def memory(hour_moves: int, move_seconds: float) -> None:
    workdir = Path(tempfile.mkdtemp(prefix="pitwatch-bench-"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "pitwatch.cli", "demo", "--db", str(workdir / "games.sqlite"), "--port", "0",
         "--move-seconds", str(move_seconds), "--seed", "5", "--set", "session.settle_seconds=0.1"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        env={**os.environ, "PITWATCH_CONFIG": str(workdir / "none.toml")})
    browser = None
    try:
        url = next(m.group(1) for line in proc.stdout if (m := re.search(r"dashboard at (http://\S+)", line)))
        browser = chromium(workdir / "chromium")
        browser.get(url)
        start = rss_samples(proc.pid, 20)
        start_peak = rss_mb(proc.pid, "VmHWM")
        started = time.monotonic()
        played = 0
        while played < hour_moves:
            time.sleep(5)
            with urllib.request.urlopen(url + "api/state", timeout=10) as response:
                played = json.loads(response.read())["demo"]["moves_played"]
            print(f"  {played} moves, {rss_mb(proc.pid):.1f} MB", flush=True)
        elapsed = time.monotonic() - started
        end = rss_samples(proc.pid, 30)
        print(f"pitwatch demo resident memory (camera, sensors, a browser watching): first 20 s {summary(start)}; "
              f"after {played} moves ({played * 5 / 3600:.2f} h of play at one move per 5 s, compressed into "
              f"{elapsed:.0f} s) {summary(end)}")
        print(f"  peak resident memory (VmHWM): {start_peak:.0f} MB in the first 20 s, "
              f"{rss_mb(proc.pid, 'VmHWM'):.0f} MB over the whole run")
    finally:
        if browser is not None:
            browser.quit()
        proc.terminate()
        proc.wait(timeout=15)
        shutil.rmtree(workdir, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--moves", type=int, default=100, help="moves timed for the latency")
    parser.add_argument("--camera", action="store_true", help="time with the synthetic camera on (slower moves)")
    parser.add_argument("--hour-moves", type=int, default=720, help="moves that make an hour of play")
    parser.add_argument("--move-seconds", type=float, default=0.3, help="compressed seconds per move")
    parser.add_argument("--skip-memory", action="store_true")
    parser.add_argument("--skip-latency", action="store_true")
    args = parser.parse_args()
    if not args.skip_latency:
        latency(args.moves, args.camera)
    if not args.skip_memory:
        memory(args.hour_moves, args.move_seconds)


if __name__ == "__main__":
    main()
