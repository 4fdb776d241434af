"""Shared by the script tests: where the repository and the mrcsim binary are.

CTest passes the binary it built in MRCSIM; run by hand, the tests use build/bin/mrcsim."""
import os
import struct
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))


@pytest.fixture(scope="session")
def mrcsim():
    path = os.environ.get("MRCSIM") or os.path.join(ROOT, "build", "bin", "mrcsim")
    if not os.access(path, os.X_OK):
        if os.environ.get("MRCSIM"):
            pytest.fail(f"MRCSIM={path} is not an executable")
        pytest.skip(f"no mrcsim binary at {path}; build first or set MRCSIM")
    return path


def png_size(path):
    """(width, height) of a PNG file; fails the test if it is not one."""
    with open(path, "rb") as f:
        head = f.read(33)
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    assert head[12:16] == b"IHDR", f"{path} has no IHDR chunk"
    return struct.unpack(">II", head[16:24])
