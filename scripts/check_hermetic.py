#!/usr/bin/python3
"""Checks that a build read nothing a fresh machine lacks.

After a build, every header the compiler read (the `.d` dependency files), every library the
linker was given (the `link.txt` link lines) and every shared library the built programs load
(`ldd`) must come from the repository (deps/ included), or from a Debian package that a fresh
machine has (Essential or Priority required) or that `scripts/setup.sh` installs, with its
dependencies. Anything else (a header of a package installed by hand, a file no package owns)
builds on this machine and fails on a fresh one: it is named, with the package that owns it, and
the check exits 1.

usage: check_hermetic.py [--build DIR ...] [--packages FILE] [--verbose]

--packages FILE replaces the allowed packages (one name a line) instead of deriving them from
scripts/setup.sh and dpkg; the tests use it.
"""
import argparse
import glob
import os
import re
import shlex
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DPKG_BATCH = 200


def setup_packages():
    """The names in scripts/setup.sh's `packages=( ... )` list."""
    with open(os.path.join(HERE, "setup.sh")) as f:
        text = f.read()
    m = re.search(r"^packages=\((.*?)^\)", text, re.S | re.M)
    if not m:
        sys.exit("check_hermetic: scripts/setup.sh has no packages=( ... ) list")
    return [w for w in m.group(1).split() if re.fullmatch(r"[a-z0-9][a-z0-9.+-]+", w)]


def allowed_packages():
    """setup.sh's packages with their dependencies, and what every Debian machine has."""
    names = setup_packages()
    out = subprocess.run(
        ["apt-cache", "depends", "--recurse", "--no-recommends", "--no-suggests", "--no-conflicts",
         "--no-breaks", "--no-replaces", "--no-enhances", *names],
        capture_output=True, text=True, check=True).stdout
    allowed = set(names)
    for line in out.splitlines():
        if not line.startswith(" "):
            allowed.add(line.strip().strip("<>").split(":")[0])
    base = subprocess.run(["dpkg-query", "-W", "-f", "${Package} ${Essential} ${Priority}\n"],
                          capture_output=True, text=True, check=True).stdout
    for line in base.splitlines():
        name, essential, priority = (line.split() + ["", ""])[:3]
        if essential == "yes" or priority == "required":
            allowed.add(name)
    return allowed


def cache_entry(build, name):
    """A CMakeCache.txt entry of the build, or None."""
    try:
        with open(os.path.join(build, "CMakeCache.txt")) as f:
            for line in f:
                if line.startswith(name + ":"):
                    return os.path.normpath(line.split("=", 1)[1].strip())
    except OSError:
        pass
    return None


def source_root(build):
    """The source tree a build was configured from, else this repository."""
    return cache_entry(build, "CMAKE_HOME_DIRECTORY") or ROOT


def inside(path, root):
    return (path + "/").startswith(root + "/") or (os.path.realpath(path) + "/").startswith(
        os.path.realpath(root) + "/")


def dependency_files(build):
    """Absolute paths named in the build's make-style dependency files."""
    paths = set()
    for d in glob.glob(os.path.join(build, "**", "*.d"), recursive=True):
        with open(d, errors="replace") as f:
            text = f.read().replace("\\\n", " ")
        for token in text.split():
            token = token.rstrip(":")
            if token.startswith("/"):
                paths.add(os.path.normpath(token))
    return paths


def compiler_search_dirs():
    """The linker's library directories, for resolving -lNAME."""
    out = subprocess.run(["c++", "-print-search-dirs"], capture_output=True, text=True).stdout
    for line in out.splitlines():
        if line.startswith("libraries: ="):
            return [os.path.normpath(p) for p in line[len("libraries: ="):].split(":") if p]
    return []


def link_inputs(build):
    """Libraries on the build's link lines (full paths, and -lNAME resolved as the linker does)."""
    paths = set()
    search = compiler_search_dirs()
    for link in glob.glob(os.path.join(build, "**", "link.txt"), recursive=True):
        with open(link) as f:
            words = shlex.split(f.read())
        dirs = [w[2:] for w in words if w.startswith("-L")] + search
        for w in words:
            if w.startswith("/") and re.search(r"\.(so(\.[0-9]+)*|a)$", w):
                paths.add(os.path.normpath(w))
            elif w.startswith("-l") and len(w) > 2:
                for d in dirs:
                    found = [os.path.join(d, f"lib{w[2:]}{ext}") for ext in (".so", ".a")]
                    found = [p for p in found if os.path.exists(p)]
                    if found:
                        paths.add(os.path.normpath(found[0]))
                        break
    return paths


def loaded_libraries(build):
    """Shared libraries the built programs and libraries load, as the dynamic loader finds them."""
    paths = set()
    for f in glob.glob(os.path.join(build, "bin", "*")) + glob.glob(os.path.join(build, "lib", "*.so*")) + \
            glob.glob(os.path.join(build, "**", "*.cpython-*.so"), recursive=True):
        if not os.path.isfile(f) or not os.access(f, os.X_OK) and not f.endswith(".so"):
            continue
        out = subprocess.run(["ldd", f], capture_output=True, text=True).stdout
        for line in out.splitlines():
            m = re.search(r"=>\s*(/\S+)", line) or re.match(r"\s*(/\S+)\s+\(", line)
            if m:
                paths.add(os.path.normpath(m.group(1)))
            elif "not found" in line:
                paths.add("not found: " + line.split()[0] + " (loaded by " + os.path.relpath(f, build) + ")")
    return paths


def owners(paths):
    """The package owning each path (None where none does); /lib and /usr/lib are the same here."""
    result = {}
    queries = {}
    for p in paths:
        candidates = [p, os.path.realpath(p)]
        for c in list(candidates):
            if c.startswith("/usr/lib/") or c.startswith("/usr/bin/"):
                candidates.append(c[4:])
            elif c.startswith("/lib") or c.startswith("/bin/"):
                candidates.append("/usr" + c)
        queries[p] = list(dict.fromkeys(candidates))
    owner_of = {}
    todo = sorted({c for cs in queries.values() for c in cs})
    for i in range(0, len(todo), DPKG_BATCH):
        out = subprocess.run(["dpkg-query", "-S", *todo[i:i + DPKG_BATCH]],
                             capture_output=True, text=True).stdout
        for line in out.splitlines():
            pkgs, _, path = line.partition(": ")
            if path in todo[i:i + DPKG_BATCH]:
                owner_of[path] = [q.strip().split(":")[0] for q in pkgs.split(",")]
    for p, cs in queries.items():
        result[p] = next((owner_of[c] for c in cs if c in owner_of), None)
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", action="append", help="build tree (default: build/); repeatable")
    ap.add_argument("--packages", help="file of allowed package names, one a line (replaces setup.sh's)")
    ap.add_argument("--verbose", action="store_true", help="print the counts of what was checked")
    args = ap.parse_args()
    builds = [os.path.abspath(b) for b in (args.build or [os.path.join(ROOT, "build")])]

    paths = set()
    outside = set()
    for build in builds:
        if not os.path.isdir(build):
            sys.exit(f"check_hermetic: {build}: no such build tree (build first: scripts/setup.sh)")
        found = dependency_files(build)
        if not found:
            sys.exit(f"check_hermetic: {build}: no dependency files (*.d): nothing was compiled there")
        found |= link_inputs(build) | loaded_libraries(build)
        # The source tree, and the ns-3 the build was given (setup.sh's deps/ inside it, or another
        # clone's deps/ named with -DMRCSIM_NS3_PREFIX).
        roots = [source_root(build), ROOT] + [p for p in [cache_entry(build, "MRCSIM_NS3_PREFIX")] if p]
        paths |= found
        outside |= {p for p in found if not p.startswith("not found: ") and not any(inside(p, r) for r in roots)}
    missing = sorted(p for p in paths if p.startswith("not found: "))
    outside = sorted(outside)

    if args.packages:
        with open(args.packages) as f:
            allowed = {line.strip() for line in f if line.strip() and not line.startswith("#")}
    else:
        allowed = allowed_packages()
    owned = owners(outside)
    bad = {}
    unowned = []
    for p in outside:
        pkgs = owned[p]
        if pkgs is None:
            unowned.append(p)
        elif not any(q in allowed for q in pkgs):
            bad.setdefault(", ".join(pkgs), []).append(p)

    if args.verbose:
        print(f"check_hermetic: {len(paths)} files read by {', '.join(builds)}; {len(outside)} outside the "
              f"source tree, from {len({q for v in owned.values() if v for q in v})} packages; "
              f"{len(allowed)} packages allowed")
    if not bad and not unowned and not missing:
        print("check_hermetic: ok: every header and library the build used comes from the repository, "
              "deps/, or a package scripts/setup.sh installs (or every Debian machine has)")
        return 0
    print("check_hermetic: FAILED: the build used files that a fresh machine does not have:")
    for pkgs, files in sorted(bad.items()):
        print(f"  package {pkgs} (not installed by scripts/setup.sh):")
        for f in files[:5]:
            print(f"    {f}")
        if len(files) > 5:
            print(f"    ... and {len(files) - 5} more")
    if unowned:
        print("  files no Debian package owns:")
        for f in unowned[:10]:
            print(f"    {f}")
    for m in missing:
        print(f"  {m}")
    print("Install the package in scripts/setup.sh, or stop the build from reading the file.")
    return 1


if __name__ == "__main__":
    sys.exit(main())
