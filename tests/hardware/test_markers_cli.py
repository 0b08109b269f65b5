"""``tablier markers test``: runs unattended on the console and the simulated peg driver."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable

import pytest
from tablier.hardware import pegsim

from tablier.cli import main
from tablier.commands.markers import steps

SimUrl = Callable[..., str]


def test_markers_test_on_the_simulated_driver(sim_url: SimUrl,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    url = sim_url()
    assert main(["markers", "test", url, "--no-wait"]) == 0
    out = capsys.readouterr().out
    assert out.count(" ok\n") == len(list(steps()))
    assert out.count("seen (simulated press)") == 5
    # The last step left the device showing the last status alone.
    assert pegsim.device(pegsim.parse_url(url)[0]).state_words.endswith("pav=O st=DECIDE")


def test_markers_test_reports_a_mute_device(sim_url: SimUrl,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    url = sim_url("fail=timeout")
    assert main(["markers", "test", url, "--no-wait", "--connect-timeout", "1"]) == 1
    captured = capsys.readouterr()
    assert "no reply" in captured.err
    assert captured.err.count("\n") == 1


def test_markers_test_bad_url_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["markers", "test", "lcd://"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("tablier markers: marker URL 'lcd://'")
    assert captured.err.count("\n") == 1


def test_markers_test_console_runs_without_a_terminal() -> None:
    proc = subprocess.run([sys.executable, "-m", "tablier", "markers", "test", "console:"],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count(" shown\n") == len(list(steps()))
    assert "fichet .|...........#| 12" in proc.stdout
    assert "buttons: ConsoleMarkers has none, skipped" in proc.stdout
