"""Shared by the script tests: where the repository, the mrcsim binary and its Python module are.

CTest passes the binary it built in MRCSIM and the module's directory in MRCSIM_PYTHONPATH; run
by hand, the tests use build/bin/mrcsim and build/python."""
import importlib
import os
import struct
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
MODULE_DIR = os.environ.get("MRCSIM_PYTHONPATH") or os.path.join(ROOT, "build", "python")
# Scripts run as subprocesses find the same module (scripts/sweep.py imports it).
SCRIPT_ENV = {**os.environ, "PYTHONPATH": MODULE_DIR + (os.pathsep + os.environ["PYTHONPATH"]
                                                        if os.environ.get("PYTHONPATH") else "")}


@pytest.fixture(scope="session")
def mrcsim():
    path = os.environ.get("MRCSIM") or os.path.join(ROOT, "build", "bin", "mrcsim")
    if not os.access(path, os.X_OK):
        if os.environ.get("MRCSIM"):
            pytest.fail(f"MRCSIM={path} is not an executable")
        pytest.skip(f"no mrcsim binary at {path}; build first or set MRCSIM")
    return path


@pytest.fixture(scope="session")
def mrcsim_module():
    """The mrcsim Python module of MODULE_DIR; missing, a failure (as in test_module.py)."""
    sys.path.insert(0, MODULE_DIR)
    try:
        return importlib.import_module("mrcsim")
    except ImportError as e:
        pytest.fail(f"the mrcsim module is not built in {MODULE_DIR} (build the project first): {e}")
    finally:
        sys.path.remove(MODULE_DIR)


def png_size(path):
    """(width, height) of a PNG file; fails the test if it is not one."""
    with open(path, "rb") as f:
        head = f.read(33)
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    assert head[12:16] == b"IHDR", f"{path} has no IHDR chunk"
    return struct.unpack(">II", head[16:24])
