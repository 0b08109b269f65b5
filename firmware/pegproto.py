"""The peg driver's line protocol and marker state, shared by the firmware and the simulator.

This file runs unchanged under MicroPython on the RP2040 (imported by ``main.py``) and under
CPython (the ``pegsim://`` simulated device and the host driver import it). It therefore keeps
to the subset both understand: no dataclasses, no typing at run time, no f-strings, no
``str.format`` specs MicroPython lacks, no exceptions escaping ``Device.feed``.

PROTOCOL.md beside this file is the specification; this is its reference implementation.
"""

PROTOCOL = 1
FIRMWARE = "tablier-pegs"
FIRMWARE_VERSION = "1.0"
MAX_LINE = 96
MAX_REPLY = 120
CAPS = "SET,GET,TEST,PING,HELLO"

ERR_CHECKSUM = 1
ERR_TOO_LONG = 2
ERR_SYNTAX = 3
ERR_UNKNOWN = 4
ERR_VALUE = 5
ERR_PROTOCOL = 6
ERR_TEXT = {
    ERR_CHECKSUM: "bad checksum",
    ERR_TOO_LONG: "line too long",
    ERR_SYNTAX: "malformed line",
    ERR_UNKNOWN: "unknown command",
    ERR_VALUE: "bad value",
    ERR_PROTOCOL: "protocol version not supported",
}

TOKEN_SPOTS = (0, 2, 4, 6, 7, 12)
LIT_SPOTS = (2, 4, 6, 7, 12)
PAVILLON = ("M", "W", "B", "O")
STATUSES = ("IDLE", "MARK", "SCHOOL", "REROLL", "FALSE", "DECIDE")
KEYS = ("wt", "wb", "wh", "bt", "bb", "bh", "pav", "st")

# Pixel layout along the strip: White's rail, Black's rail, the middle pavillon, the status.
RAIL = 19
PIXELS = 2 * RAIL + 2
PIX_MIDDLE = 2 * RAIL
PIX_STATUS = 2 * RAIL + 1

COLOURS = {
    "w": (60, 60, 48),
    "b": (70, 14, 0),
    "bred": (0, 60, 0),
    "pav": (70, 50, 0),
    "IDLE": (0, 0, 0),
    "MARK": (0, 60, 0),
    "SCHOOL": (70, 30, 0),
    "REROLL": (0, 0, 70),
    "FALSE": (80, 0, 0),
    "DECIDE": (50, 0, 50),
    "test": (80, 80, 80),
}
OFF = (0, 0, 0)


def _crc_table():
    # One entry per byte value: 256 x 8 shifts once at boot, then one lookup per byte
    # (bit by bit costs several milliseconds a line on the RP2040's MicroPython).
    table = []
    for value in range(256):
        crc = value << 8
        for _ in range(8):
            if crc & 0x8000:
                crc = ((crc << 1) ^ 0x1021) & 0xFFFF
            else:
                crc = (crc << 1) & 0xFFFF
        table.append(crc)
    return table


_CRC_TABLE = _crc_table()


def crc16(data):
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF) of a bytes object.

    >>> hex(crc16(b"123456789"))
    '0x29b1'
    """
    crc = 0xFFFF
    table = _CRC_TABLE
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[((crc >> 8) ^ byte) & 0xFF]
    return crc


def frame(body):
    """Append ``*`` and the four hex digits of the body's CRC.

    >>> frame("1 PING")
    '1 PING*8C6F'
    """
    return body + "*" + f"{crc16(body.encode()):04X}"


def unframe(line):
    """The body of a framed line, or None when the checksum is missing or wrong.

    >>> unframe("1 PING*8C6F")
    '1 PING'
    >>> unframe("1 PING*8C6E") is None
    True
    """
    star = line.rfind("*")
    if star < 0 or len(line) - star != 5:
        return None
    body = line[:star]
    digits = line[star + 1:]
    for ch in digits:
        if ch not in "0123456789ABCDEF":
            return None
    if int(digits, 16) != crc16(body.encode()):
        return None
    return body


def _small_int(text, low, high):
    # A decimal in [low, high], or None (no sign, no spaces, at most 5 digits).
    if not text or len(text) > 5:
        return None
    for ch in text:
        if ch not in "0123456789":
            return None
    value = int(text)
    if value < low or value > high:
        return None
    return value


class PegState:
    """The target of every marker, as the device holds it (all fields absolute)."""

    def __init__(self):
        self.values = {"wt": 0, "wb": 0, "wh": 0, "bt": 0, "bb": 0, "bh": 0,
                       "pav": "M", "st": "IDLE"}
        self.test = -1

    def copy(self):
        other = PegState()
        for key in KEYS:
            other.values[key] = self.values[key]
        other.test = self.test
        return other

    def encode(self):
        """The state as ``key=value`` words in the fixed key order."""
        words = []
        for key in KEYS:
            words.append(key + "=" + str(self.values[key]))
        return " ".join(words)

    def check(self, key, text):
        """The parsed value for ``key``, or None when it is out of range."""
        if key in ("wt", "bt"):
            value = _small_int(text, 0, 12)
            if value is None or value not in TOKEN_SPOTS:
                return None
            return value
        if key in ("wb", "bb"):
            return _small_int(text, 0, 1)
        if key in ("wh", "bh"):
            return _small_int(text, 0, 12)
        if key == "pav":
            return text if text in PAVILLON else None
        if key == "st":
            return text if text in STATUSES else None
        return None

    def pixels(self):
        """The colour of every pixel of the strip, as a list of (r, g, b)."""
        out = [OFF] * PIXELS
        if self.test >= 0:
            out[self.test] = COLOURS["test"]
            return out
        v = self.values
        for side, base in (("w", 0), ("b", RAIL)):
            spot = v[side + "t"]
            colour = COLOURS[side]
            if spot in LIT_SPOTS:
                out[base + LIT_SPOTS.index(spot)] = colour
            if v[side + "b"]:
                out[base + 5] = COLOURS["bred"]
            hole = v[side + "h"]
            if hole > 0:
                out[base + 5 + hole] = colour
            if v["pav"] == side.upper():
                out[base + 18] = COLOURS["pav"]
        if v["pav"] == "M":
            out[PIX_MIDDLE] = COLOURS["pav"]
        out[PIX_STATUS] = COLOURS[v["st"]]
        return out


class Device:
    """The device side of the protocol: bytes in, framed reply lines out.

    ``feed`` never raises: every malformed input becomes an ``err`` reply, and every complete
    line gets exactly one reply (blank lines get none). A line longer than ``MAX_LINE`` is
    discarded up to its newline and answered ``err - 2``.
    """

    def __init__(self, boot_id=1):
        self.state = PegState()
        self.boot_id = boot_id & 0xFFFF
        self.buf = bytearray()
        self.overflow = False
        self.events = 0
        self.changes = 0

    def banner(self):
        """The line sent once at power-up, so the host notices a reset."""
        return frame("boot " + FIRMWARE + " proto=" + str(PROTOCOL) + " fw=" + FIRMWARE_VERSION
                     + " id=" + f"{self.boot_id:04X}")

    def event(self, text):
        """A framed unsolicited event line, e.g. ``event("DECIDE W STAY")``."""
        self.events = (self.events + 1) % 10000
        return frame("evt " + str(self.events) + " " + text)

    def feed(self, data):
        """Take received bytes; return the reply lines (without newlines) they complete."""
        replies = []
        for byte in data:
            if byte == 10:
                if self.overflow:
                    replies.append(self._err("-", ERR_TOO_LONG, "max " + str(MAX_LINE)))
                elif len(self.buf) > 0:
                    replies.append(self.handle_bytes(bytes(self.buf)))
                self.buf = bytearray()
                self.overflow = False
            elif byte == 13 or self.overflow:
                continue
            elif len(self.buf) >= MAX_LINE:
                self.overflow = True
                self.buf = bytearray()
            else:
                self.buf.append(byte)
        return replies

    def handle_bytes(self, raw):
        """The one reply to one complete line (bytes without the newline)."""
        for byte in raw:
            if byte < 32 or byte > 126:
                return self._err("-", ERR_SYNTAX, "non-ASCII byte")
        line = raw.decode()
        if line.strip() == "":
            return self._err("-", ERR_SYNTAX, "blank")
        body = unframe(line)
        if body is None:
            return self._err("-", ERR_CHECKSUM, "")
        words = body.split()
        if len(words) < 2:
            return self._err("-", ERR_SYNTAX, "need SEQ COMMAND")
        seq = _small_int(words[0], 0, 65535)
        if seq is None:
            return self._err("-", ERR_SYNTAX, "bad sequence number")
        seq = str(seq)
        return self.command(seq, words[1], words[2:])

    def command(self, seq, name, args):
        """Run one checked command; return its framed reply."""
        if name == "PING":
            return self._ok(seq, "PONG")
        if name == "HELLO":
            if len(args) > 1:
                return self._err(seq, ERR_SYNTAX, "HELLO [PROTO]")
            if args and _small_int(args[0], 0, 99) != PROTOCOL:
                return self._err(seq, ERR_PROTOCOL, "device speaks " + str(PROTOCOL))
            return self._ok(seq, "HELLO " + FIRMWARE + " proto=" + str(PROTOCOL)
                            + " fw=" + FIRMWARE_VERSION + " pixels=" + str(PIXELS)
                            + " maxline=" + str(MAX_LINE) + " caps=" + CAPS
                            + " id=" + f"{self.boot_id:04X}")
        if name == "GET":
            if args:
                return self._err(seq, ERR_SYNTAX, "GET takes nothing")
            return self._ok(seq, "STATE " + self.state.encode() + " id=" + f"{self.boot_id:04X}")
        if name == "SET":
            return self._set(seq, args)
        if name == "TEST":
            if len(args) != 1:
                return self._err(seq, ERR_SYNTAX, "TEST N|OFF")
            if args[0] == "OFF":
                self.state.test = -1
            else:
                index = _small_int(args[0], 0, PIXELS - 1)
                if index is None:
                    return self._err(seq, ERR_VALUE, "pixel 0.." + str(PIXELS - 1))
                self.state.test = index
            self.changes += 1
            return self._ok(seq, "TEST " + args[0])
        return self._err(seq, ERR_UNKNOWN, name[:12])

    def _set(self, seq, args):
        if not args:
            return self._err(seq, ERR_SYNTAX, "SET key=value...")
        staged = {}
        for word in args:
            eq = word.find("=")
            if eq <= 0:
                return self._err(seq, ERR_SYNTAX, "key=value")
            key = word[:eq]
            if key not in KEYS:
                return self._err(seq, ERR_VALUE, "unknown key")
            value = self.state.check(key, word[eq + 1:])
            if value is None:
                return self._err(seq, ERR_VALUE, key)
            staged[key] = value
        # All or nothing: a bad word leaves the state untouched.
        for key, value in staged.items():
            self.state.values[key] = value
        self.state.test = -1
        self.changes += 1
        return self._ok(seq, "SET")

    def _ok(self, seq, text):
        return frame("ok " + seq + " " + text)

    def _err(self, seq, code, detail):
        text = "err " + seq + " " + str(code) + " " + ERR_TEXT[code]
        if detail:
            text = text + ": " + detail
        return frame(text)


def parse_reply(line):
    """Split a device line into (kind, seq, rest), or None when it is not a valid framed line.

    ``kind`` is ``ok``, ``err``, ``evt`` or ``boot``; ``seq`` is the sequence number as a string
    (``-`` when the device could not trust it; ``""`` for ``boot``).

    >>> parse_reply("ok 7 PONG*5F2A") is None
    True
    >>> parse_reply(frame("ok 7 PONG"))
    ('ok', '7', 'PONG')
    """
    body = unframe(line)
    if body is None:
        return None
    words = body.split(" ", 2)
    kind = words[0]
    if kind == "boot":
        return ("boot", "", body[5:])
    if kind not in ("ok", "err", "evt") or len(words) < 2:
        return None
    rest = words[2] if len(words) > 2 else ""
    return (kind, words[1], rest)
