"""The live runtime's web server: a real socket, the access token when served to the network."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request

import pytest

from pitwatch import config as cfg
from pitwatch.config import ConfigError
from pitwatch.runtime import Runtime


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
