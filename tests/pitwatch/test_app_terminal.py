"""The players' prompts at the terminal (`pitwatch calibrate`, the sensors learned by `pitwatch run`)."""

from __future__ import annotations

import pytest

from pitwatch.config import ConfigError
from pitwatch.terminal import wait_for_enter


def answered(monkeypatch, answer: BaseException) -> None:
    def typed(prompt: str) -> str:
        print(prompt, end="")
        raise answer
    monkeypatch.setattr("builtins.input", typed)


def test_ctrl_c_instead_of_enter_ends_the_prompts_line_and_stops(monkeypatch, capsys):
    """The shell's prompt followed the unanswered one on its line."""
    answered(monkeypatch, KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt):
        wait_for_enter("empty every pit, then press Enter... ", "no terminal")
    assert capsys.readouterr().out == "empty every pit, then press Enter... \n"


def test_no_terminal_to_answer_at_says_what_to_do_instead(monkeypatch, capsys):
    answered(monkeypatch, EOFError())
    with pytest.raises(ConfigError, match="give pictures instead"):
        wait_for_enter("press Enter... ", "give pictures instead")
    assert capsys.readouterr().out == "press Enter... \n"
