"""Run the docstring examples of every installed tablier module (doctests are tests too)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import tablier

# Modules whose import needs hardware or optional packages are still imported: they must not
# touch devices at import time (no import-time side effects).
PACKAGES = ["tablier", "tablier.engine", "tablier.vision", "tablier.hardware",
            "tablier.calibration", "tablier.commands"]


def _modules() -> list[str]:
    names: list[str] = []
    for package_name in PACKAGES:
        package = importlib.import_module(package_name)
        names.append(package_name)
        for info in pkgutil.iter_modules(package.__path__, prefix=package_name + "."):
            if info.name.endswith("__main__"):
                continue
            names.append(info.name)
    return sorted(set(names))


@pytest.mark.parametrize("module_name", _modules())
def test_doctests(module_name: str) -> None:
    module = importlib.import_module(module_name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} doctest(s) failed in {module_name}"


def test_version() -> None:
    assert tablier.__version__.count(".") == 2
