"""The package's re-exports: each name from its module, imported only when asked for."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from tablier import vision


@pytest.mark.parametrize("name", vision.__all__)
def test_each_name_is_its_module_s(name: str) -> None:
    module = importlib.import_module(f"tablier.vision.{vision._HOME[name]}")
    assert getattr(vision, name) is getattr(module, name)


def test_every_home_is_listed_and_an_unknown_name_is_refused() -> None:
    assert sorted(vision.__all__) == sorted(vision._HOME)
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        _ = vision.nothing  # type: ignore[attr-defined]


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=120)


def test_one_module_does_not_import_the_others() -> None:
    # tablier dice needs the dice reader, not the renderer nor the board's recogniser
    out = _run("import sys, tablier.vision.imageio; "
               "print(sorted(m for m in sys.modules if m.startswith('tablier.vision.')))")
    assert out.stdout.strip() == "['tablier.vision.errors', 'tablier.vision.imageio']"


def test_a_stage_module_runs_without_runpy_s_warning() -> None:
    done = subprocess.run([sys.executable, "-m", "tablier.vision.board", "--help"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0 and "usage" in done.stdout
    assert "RuntimeWarning" not in done.stderr
