"""The install: constraints.txt pins every package pyproject.toml asks for, within its range, and
the environment the tests run in is the pinned one (scripts/venv installs with ``-c``)."""

from __future__ import annotations

import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]


def pins() -> dict[str, str]:
    """constraints.txt as package name (canonical) -> the one version it allows."""
    pinned = {}
    for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            requirement = Requirement(line)
            (specifier,) = requirement.specifier
            assert specifier.operator == "==", f"constraints.txt: {line!r} is not an exact pin"
            pinned[canonicalize_name(requirement.name)] = specifier.version
    return pinned


def asked_for() -> list[Requirement]:
    """What pyproject.toml asks for to run Pitwatch and its tests (the extras scripts/test installs)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return [Requirement(text) for text in project["dependencies"] + project["optional-dependencies"]["test"]]


def test_every_package_pitwatch_and_its_tests_ask_for_is_pinned_within_its_range():
    pinned = pins()
    for requirement in asked_for():
        name = canonicalize_name(requirement.name)
        assert name in pinned, f"constraints.txt does not pin {requirement.name}: run scripts/lock"
        assert requirement.specifier.contains(pinned[name], prereleases=True), (
            f"constraints.txt pins {requirement.name} {pinned[name]}, outside pyproject.toml's {requirement.specifier}")


def test_the_tests_run_on_the_pinned_versions():
    installed = {canonicalize_name(d.metadata["Name"]): d.version for d in metadata.distributions()}
    differ = {name: (version, installed.get(name)) for name, version in pins().items() if installed.get(name) != version}
    assert not differ, f"installed versions differ from constraints.txt (pinned, installed): {differ}; run scripts/venv test"
