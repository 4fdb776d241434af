"""The fresh-machine check (scripts/check_hermetic.py) on made-up build trees: it names a header
whose package scripts/setup.sh does not install, and a file no package owns; it passes what is
allowed. (CTest's hermetic-build test runs it on the real build.)"""
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHECK = os.path.join(ROOT, "scripts", "check_hermetic.py")
HEADER = "/usr/include/stdio.h"  # libc6-dev's, on every machine that builds C++


def fake_build(tmp_path, headers):
    obj = tmp_path / "build" / "CMakeFiles" / "x.dir"
    obj.mkdir(parents=True)
    (obj / "x.cc.o.d").write_text("x.cc.o: " + " \\\n  ".join([str(ROOT) + "/sim/cli/main.cc", *headers]) + "\n")
    return tmp_path / "build"


def check(build, allowed, tmp_path):
    packages = tmp_path / "allowed.txt"
    packages.write_text("".join(p + "\n" for p in allowed))
    return subprocess.run(["/usr/bin/python3", CHECK, "--build", str(build), "--packages", str(packages)],
                          capture_output=True, text=True)


def test_a_header_of_a_package_setup_does_not_install_is_named_with_its_package(tmp_path):
    r = check(fake_build(tmp_path, [HEADER]), ["cmake"], tmp_path)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "package libc6-dev (not installed by scripts/setup.sh)" in r.stdout
    assert HEADER in r.stdout


def test_the_same_header_passes_when_its_package_is_allowed(tmp_path):
    r = check(fake_build(tmp_path, [HEADER]), ["libc6-dev"], tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "check_hermetic: ok" in r.stdout


def test_a_file_no_package_owns_is_named(tmp_path):
    stray = tmp_path / "opt" / "include" / "stray.h"
    stray.parent.mkdir(parents=True)
    stray.write_text("#pragma once\n")
    r = check(fake_build(tmp_path, [HEADER, str(stray)]), ["libc6-dev"], tmp_path)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "files no Debian package owns" in r.stdout and str(stray) in r.stdout


def test_a_build_tree_without_dependency_files_is_an_error(tmp_path):
    (tmp_path / "build").mkdir()
    r = check(tmp_path / "build", ["cmake"], tmp_path)
    assert r.returncode != 0 and "no dependency files" in r.stderr
