"""Whole games refereed by the camera alone: what a club table without pit sensors gets.

    .venv/bin/python benchmarks/camera_referee_bench.py [--setups 3] [--plies 60] [--seed 1]
        [--still-frames 1] [--easy] [--lamp] [--defocus 0] [--flicker 0] [--no-looks] [--frame 1280x720] [--variants kalah,oware] [--misses]
        [--models vision/models] [--corners] [--relief] [--far 1]

For every variant, ``--setups`` set-ups (seed kind, wood, lamp, camera; the
vision benchmark's, calibrated from an easy empty and start frame) each play
one random game of up to ``--plies`` moves, shown as a table shows it: the
set-up's camera, lens and lamp stay (hard conditions by default: blur, noise,
JPEG, uneven light, drawn once per set-up), the light drifts a little from move
to move, the board is nudged by up to 3 mm after one move in five, and seeds
lie where they fell: a pit keeps its pile until it is lifted or captured, seeds
sown into it land on top, and a penalty chip taken from an outbox is the topmost
of its colour, the other chips left as they lay (the renderer's ``Shot.piles``
and ``Shot.stacks``). ``--lamp`` adds a lamp switched on after calibration, whose
reflection in the varnish lies near one hollow for the whole game (the vision
benchmark's reflection, ``Shot.lamp`` keeping it in place). ``--defocus PX`` puts
the lens out of focus all game (calibration in focus: a camera knocked out of
focus after it, or focused for another distance). ``--flicker SWING`` lights the
board all game with a lamp on mains power seen by a rolling shutter: bands of rows
SWING brighter and darker (0.1: 10 % either way) that move a third of a band from
one frame to the next (``Shot.flicker``). ``--frame`` renders
another camera picture size with the same lenses (a webcam left at 640x480).
``--models`` reads with newly trained networks instead of the shipped ones.
``--corners`` calibrates every board by its four corners in the empty picture, as
a board without markers is (the markers are drawn but not used). ``--relief``
sees every board in depth, as a real camera does (``Scene.relief``: hollows
sunk, seeds standing in them), the same set-ups and games otherwise. ``--far
TIMES`` puts every camera TIMES as far from the board, with the same lens (a
camera far off: ``vision_bench.py --far``).

After every move that changes the board, its frames go through the live
pipeline's own parts: the reader, the stillness gate (reset by the players'
hands, then the board's first frame after the move and ``--still-frames`` more), the
fusion (camera only), the stable-board gate, and the referee with the pits the
camera saw untouched pinned as the session pins them (``pitwatch.settled``;
``--no-looks`` leaves them out, everything else as it is). The game then goes on
as the players would take it on:

- committed, right: the referee commits the board that was played;
- committed, wrong: it commits another board (a silent error: the worst); the players correct it;
- asked, truth offered: ambiguous, the players pick the truth among the choices;
- asked, truth not offered; false alarm (illegal): the players enter the move by hand;
- waited: in progress, unchanged or unreadable: nothing is committed, and the next
  board is judged against the game as it stands, a move or more behind;
- not judged: the stable-board gate passed nothing (the board read as before), or
  the reader gave no Reading (no board found, a pit out of view, a hand seen).
Beside them, how often every pit's most likely count was the truth (the board
read exactly): the gap between the two is what the rules recover.
"""

from __future__ import annotations

import argparse
import os
import random
import time
from collections import Counter
from dataclasses import replace

import cv2
import numpy as np

import rules
from rules import Reading
from rules.reading import STILL_BOARD
from calibration.calibfile import CalibrationError
from pitwatch.fusion import Fusion, StableGate
from pitwatch.runtime import source_weights
from pitwatch.settled import SettledBoard
from rules.referee import Referee
from rules.referee.explain import board_of
from vision.live import StillnessGate
from vision.picture_size import picture_size_text
from vision.reader import BoardReader, FrameResult, FrameStatus
from vision.render import Shot, Stack, random_shot, render, restacked, stack_of
from setups import GLARE, add_models_option, add_setup_options, calibrated_scene, use_models

OUTCOMES = ("committed, right", "committed, wrong", "asked, truth offered", "asked, truth not offered",
            "false alarm (illegal)", "waited", "not judged")
LAMP = 7  # the last word of the lamp's random stream
NUDGED = 0.2  # share of moves after which the board is found nudged
NUDGE_MM = 3.0
UNPILED = {"lift", "lap", "capture", "sweep"}  # events after which a pit's seeds lie anew
HANDS = FrameResult(Reading({}, "vision"), FrameStatus(False, (), (), True, "hand over board"))  # stands in for the
# frames of the players' hands (rendering them would double the benchmark's time): the gate resets on either


def random_game(variant: rules.Variant, rng: random.Random, plies: int) -> tuple[list[rules.Position], list[list[dict]]]:
    """The positions of one random game (the start first), at most ``plies`` moves long, and
    the events of each move."""
    positions, events = [variant.start()], []
    while len(positions) <= plies:
        moves = variant.legal_moves(positions[-1])
        if not moves:
            break
        after, happened = variant.play(positions[-1], rng.choice(moves))
        positions.append(after)
        events.append(happened)
    return positions, events


def counts_of(position: rules.Position) -> tuple[dict[str, int], dict[str, int] | None]:
    labels = position.variant.layout.labels
    white = None if position.white is None else dict(zip(labels, position.white))
    return dict(zip(labels, position.pits)), white


def outcome(verdict: rules.referee.Verdict, truth: rules.Position) -> str:
    """Which of ``OUTCOMES`` a verdict on a board showing ``truth`` is."""
    if verdict.kind in ("move", "takeback"):
        return "committed, right" if verdict.best.seen_board == board_of(truth) else "committed, wrong"
    if verdict.kind == "ambiguous":
        offered = any(c.seen_board == board_of(truth) for c in verdict.candidates)
        return "asked, truth offered" if offered else "asked, truth not offered"
    if verdict.kind == "illegal":
        return "false alarm (illegal)"
    return "waited"


class Table:
    """One set-up's board as a table shows it from move to move (see the module)."""

    def __init__(self, name: str, setup: int, args: argparse.Namespace) -> None:
        self.rng = np.random.default_rng([args.seed, sorted(rules.VARIANTS).index(name), setup])
        self.scene, calibration = calibrated_scene(name, self.rng, args.frame, args.corners, args.relief, args.far)
        self.reader = BoardReader(calibration)
        self.conditions = replace(random_shot(self.rng, hard=not args.easy), hand=False, defocus=args.defocus,
                                  flicker=args.flicker)
        if args.lamp:  # drawn from a stream of its own, so that the set-up is the same with or without the lamp
            lamp = int(np.random.default_rng([args.seed, sorted(rules.VARIANTS).index(name), setup, LAMP]).integers(1 << 30))
            self.conditions = replace(self.conditions, glare=GLARE, lamp=lamp)
        self.piles = {label: int(self.rng.integers(1 << 30)) for label in calibration.profile.layout.labels}
        self.stacks: dict[str, Stack] = {}  # which of its pile's seeds each pit holds (none yet: a fresh pile)
        self.still_frames = args.still_frames

    def moved(self, events: list[dict]) -> None:
        """After a move: a pit lifted or captured from lies anew; the board may have been nudged."""
        for event in events:
            if event["type"] in UNPILED and event.get("pit") in self.piles:
                self.piles[event["pit"]] = int(self.rng.integers(1 << 30))
                self.stacks.pop(event["pit"], None)
        if self.rng.random() < NUDGED:
            dx, dy, turn = self.conditions.nudge
            self.conditions = replace(self.conditions, nudge=(dx + float(self.rng.uniform(-NUDGE_MM, NUDGE_MM)),
                                                              dy + float(self.rng.uniform(-NUDGE_MM, NUDGE_MM)), turn))

    def frames(self, position: rules.Position) -> list:
        """The reader's results for the board settling after a move: one frame, then the still ones."""
        counts, white = counts_of(position)
        self.stacks = {label: restacked(self.stacks[label], n, (white or {}).get(label, 0)) if label in self.stacks
                       else stack_of(n, (white or {}).get(label, 0)) for label, n in counts.items()}
        shot: Shot = replace(self.conditions, gain=self.conditions.gain * float(self.rng.uniform(0.97, 1.03)),
                             piles=dict(self.piles), stacks=dict(self.stacks), seed=int(self.rng.integers(1 << 30)))
        return [self.reader.read(render(self.scene, counts, white, replace(shot, exposure=shot.seed + k)).image)
                for k in range(1 + self.still_frames)]


def referee_game(name: str, setup: int, args: argparse.Namespace) -> tuple[Counter, Counter, list[str]]:
    """One set-up's game: (outcomes, boards read exactly / judged, notes on every miss)."""
    variant = rules.variant(name)
    table = Table(name, setup, args)
    gate = StillnessGate(args.still_frames)
    fusion = Fusion(variant.layout.labels, source_weights(camera=True, sensors=False))
    stable = StableGate(settle_seconds=1.0)
    settled, referee = SettledBoard(), Referee()
    positions, events = random_game(variant, random.Random(f"{args.seed}:{name}:{setup}"), args.plies)
    known = positions[:1]  # the game as the session holds it
    outcomes: Counter = Counter()
    exact: Counter = Counter()
    misses: list[str] = []
    for ply in range(1, len(positions)):
        truth = positions[ply]
        table.moved(events[ply - 1])
        if board_of(truth) == board_of(positions[ply - 1]):
            known = positions[:ply + 1] if len(known) == ply else known  # a forced pass: nothing to see
            continue
        gate.update(HANDS)  # the players' hands over the board reset the gate
        reading = None
        for result in table.frames(truth):
            reading = gate.update(result) or reading
        now = float(ply)
        if reading is not None:
            fusion.update("camera", reading, now)
            stable.offer(fusion.fused(now), now)
            reading = stable.offer(fusion.fused(now + 1.0), now + 1.0)
        if reading is None:
            outcomes["not judged"] += 1
            why = "the board read as before" if gate.state.state == "still" else f"the gate: {gate.state.state}"
            misses.append(f"{name} set-up {setup} ply {ply}: not judged ({why}; the reader: {result.status.message})")
            continue
        read = tuple(reading.most_likely_counts().values())
        exact["boards"] += 1
        exact["read exactly"] += read == truth.pits
        verdict = referee.judge(known, reading if args.no_looks else settled.pinned(reading, known[-1]))
        kind = outcome(verdict, truth)
        outcomes[kind] += 1
        if kind != "waited":
            known = positions[:ply + 1]
        settled.settle(reading if kind in ("committed, right", "asked, truth offered") or verdict.kind == "unchanged"
                       else None)  # the players' choice settles the board as a commit does; a move by hand, not
        if kind != "committed, right":
            wrong = ", ".join(f"{label} {n} as {m}" for label, n, m in zip(variant.layout.labels, truth.pits, read) if n != m)
            looks = reading.notes.get(STILL_BOARD, {})
            misses.append(f"{name} set-up {setup} ply {ply}: {kind} ({verdict.kind}: {verdict.reason}); misread: "
                          f"{wrong or 'none'}; kept {looks.get('kept')}, changed {looks.get('changed')}, "
                          f"of which moved {looks.get('moved')}")
    return outcomes, exact, misses


def percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:5.1f} %" if whole else "    -  "


def row(name: str, outcomes: Counter, exact: Counter) -> str:
    judged = sum(outcomes.values())
    return (f"{name:18}{judged:6d}  " + "  ".join(f"{percent(outcomes[o], judged):>{max(len(o), 7)}}" for o in OUTCOMES)
            + f"  {percent(exact['read exactly'], exact['boards'])}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--setups", type=int, default=3, help="set-ups (and games) per variant")
    parser.add_argument("--plies", type=int, default=60, help="moves per game at most")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--still-frames", type=int, default=1, help="still frames the gate averages into a Reading")
    parser.add_argument("--easy", action="store_true", help="easy conditions (little noise and blur) instead of hard ones")
    parser.add_argument("--lamp", action="store_true", help="a lamp's reflection near one hollow, all game long")
    add_setup_options(parser, "defocus",
                      defocus="the lens out of focus all game by a Gaussian blur of PX pixels of a 1280 px wide picture")
    parser.add_argument("--flicker", type=float, default=0.0, metavar="SWING",
                        help="bands of mains flicker across the picture, SWING brighter and darker (0.1: 10 %%)")
    parser.add_argument("--no-looks", action="store_true", help="judge without the pits the camera saw untouched")
    add_setup_options(parser, "frame")
    parser.add_argument("--variants", help="comma-separated variants (default: all)")
    parser.add_argument("--misses", action="store_true", help="list every move not committed right")
    add_setup_options(parser, "corners", "relief", "far",
                      corners="boards calibrated by their four corners, not their markers (a board without markers)",
                      relief="boards seen in depth, as a real camera sees them (hollows sunk, seeds standing)")
    add_models_option(parser)
    args = parser.parse_args()
    use_models(parser, args.models)
    cv2.setNumThreads(1)
    names = args.variants.split(",") if args.variants else sorted(rules.VARIANTS)
    started, load = time.time(), os.getloadavg()[0]
    total, total_exact, all_misses = Counter(), Counter(), []
    print(f"{'variant':18}{'moves':>6}  " + "  ".join(f"{o:>{max(len(o), 7)}}" for o in OUTCOMES) + "  board read exactly")
    for name in names:
        outcomes, exact = Counter(), Counter()
        for setup in range(args.setups):
            try:
                found, read, misses = referee_game(name, setup, args)
            except CalibrationError as error:
                print(f"{name} set-up {setup}: not calibrated ({error})")
                continue
            outcomes += found
            exact += read
            all_misses += misses
        print(row(name, outcomes, exact))
        total += outcomes
        total_exact += exact
    print(row("all", total, total_exact))
    print(f"conditions: {'easy' if args.easy else 'hard'}{', a lamp reflected' if args.lamp else ''}"
          f"{f', the lens {args.defocus} px out of focus' if args.defocus else ''}"
          f"{f', mains flicker in bands {100 * args.flicker:g} % either way' if args.flicker else ''}, "
          f"{picture_size_text(args.frame)} pictures{', boards found by their corners' if args.corners else ''}{', seen in depth' if args.relief else ''}"
          f"{f', cameras {args.far:g} times farther' if args.far != 1 else ''}; {args.still_frames} still frame(s) a Reading; pits seen untouched "
          f"{'not used' if args.no_looks else 'pinned'}; {time.time() - started:.0f} s, load average {load:.2f} -> "
          f"{os.getloadavg()[0]:.2f}" + (f"; the seed counter's networks from {args.models}" if args.models else ""))
    if args.misses:
        print("\n".join(all_misses))


if __name__ == "__main__":
    main()
