"""The example scripts in docs/examples/ import and run."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from types import ModuleType

import pytest
from markers_support import ROOT
from tablier.hardware import Decision


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "docs" / "examples" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_show_score_on_the_console(capsys: pytest.CaptureFixture[str]) -> None:
    assert load("show_score").main(["console:"]) == 0
    out = capsys.readouterr().out
    assert out.count("status: mark now") == 2 and "status: tenir or go?" in out


def test_show_score_on_the_simulated_driver(sim_url: Callable[..., str]) -> None:
    assert load("show_score").main([sim_url()]) == 0


def test_wait_for_decision_with_a_simulated_press(sim_url: Callable[..., str]) -> None:
    assert load("wait_for_decision").ask(sim_url(), simulate=True) is Decision.GO


def test_wait_for_decision_times_out_without_a_press() -> None:
    assert load("wait_for_decision").ask("record:", timeout=0.1) is None
