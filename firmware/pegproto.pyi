# Types for pegproto.py, which carries none at run time (it must run under MicroPython).
PROTOCOL: int
FIRMWARE: str
FIRMWARE_VERSION: str
MAX_LINE: int
MAX_REPLY: int
CAPS: str
ERR_CHECKSUM: int
ERR_TOO_LONG: int
ERR_SYNTAX: int
ERR_UNKNOWN: int
ERR_VALUE: int
ERR_PROTOCOL: int
ERR_TEXT: dict[int, str]
TOKEN_SPOTS: tuple[int, ...]
LIT_SPOTS: tuple[int, ...]
PAVILLON: tuple[str, ...]
STATUSES: tuple[str, ...]
KEYS: tuple[str, ...]
RAIL: int
PIXELS: int
PIX_MIDDLE: int
PIX_STATUS: int
COLOURS: dict[str, tuple[int, int, int]]
OFF: tuple[int, int, int]

def crc16(data: bytes) -> int: ...
def frame(body: str) -> str: ...
def unframe(line: str) -> str | None: ...
def parse_reply(line: str) -> tuple[str, str, str] | None: ...

class PegState:
    values: dict[str, int | str]
    test: int
    def __init__(self) -> None: ...
    def copy(self) -> PegState: ...
    def encode(self) -> str: ...
    def check(self, key: str, text: str) -> int | str | None: ...
    def pixels(self) -> list[tuple[int, int, int]]: ...

class Device:
    state: PegState
    boot_id: int
    buf: bytearray
    overflow: bool
    events: int
    changes: int
    def __init__(self, boot_id: int = ...) -> None: ...
    def banner(self) -> str: ...
    def event(self, text: str) -> str: ...
    def feed(self, data: bytes) -> list[str]: ...
    def handle_bytes(self, raw: bytes) -> str: ...
    def command(self, seq: str, name: str, args: list[str]) -> str: ...
