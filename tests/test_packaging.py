"""What an installed tablier (``pip install .``, not ``-e``) carries besides its code.

A file a module opens beside itself (``Path(__file__).with_name(...)``) is only in a wheel when
``pyproject.toml``'s package-data names it; a missing one breaks every install but an editable
one (the stack net's weights did until the fifty-fourth round).
"""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")  # Python 3.11+

ROOT = Path(__file__).resolve().parents[1]
BESIDE = re.compile(r"""Path\(__file__\)\.with_name\(\s*["']([^"']+)["']\s*\)""")


def _setuptools() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
        "setuptools"]


def _files_opened_beside() -> list[tuple[str, str]]:
    """(package, file name) for every file a package's module opens beside itself."""
    table = _setuptools()
    found = []
    for package, folder in table["package-dir"].items():
        for source in sorted((ROOT / folder).glob("*.py")):
            for name in BESIDE.findall(source.read_text(encoding="utf-8")):
                found.append((package, name))
    return found


def test_the_scan_finds_the_nets_weights() -> None:
    names = {name for _, name in _files_opened_beside()}
    assert {"boardnet.npz", "dicenet.npz", "stacknet.npz"} <= names


@pytest.mark.parametrize("package,name", _files_opened_beside())
def test_every_file_opened_beside_a_module_is_package_data(package: str, name: str) -> None:
    table = _setuptools()
    data = table.get("package-data", {})
    patterns = list(data.get("*", [])) + list(data.get(package, []))
    assert package in table["packages"], f"{package} is not an installed package"
    assert any(fnmatch.fnmatch(name, p) for p in patterns), (
        f"{name} (opened by {package}) is not in pyproject.toml's package-data: "
        f"an installed tablier would lack it")
    folder = table["package-dir"][package]
    assert (ROOT / folder / name).is_file(), f"{folder}/{name} is missing"
