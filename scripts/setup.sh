#!/usr/bin/env bash
# Installs the Debian packages the project needs (only those missing) and ns-3 into deps/, then
# configures and builds a Release tree into build/. Idempotent: a second run only rebuilds what
# changed. --deps-only stops after the packages and ns-3 (the sanitizer job builds a tree of its
# own). The packages below are the whole set a fresh Debian bookworm machine needs: the build
# reads nothing else (scripts/check_hermetic.py checks it after a build, CTest's hermetic-build).
#   scripts/setup.sh [--deps-only]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"

packages=(
  build-essential cmake
  libgsl-dev libxml2-dev libsqlite3-dev libpython3.11-dev dpkg-dev bzip2 xz-utils
  libopenmpi-dev openmpi-bin
  libboost-graph-dev nlohmann-json3-dev catch2 libtcmalloc-minimal4
  pybind11-dev python3-pybind11 python3-matplotlib python3-numpy python3-pytest
  tshark doxygen python3-jsonschema python3-distributed python3-pandas
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  sudo_cmd=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "setup: not root and no sudo; install: ${missing[*]}" >&2; exit 1; }
    sudo_cmd=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  # tshark asks whether non-root users may capture; answer once, non-interactively.
  echo "wireshark-common wireshark-common/install-setuid boolean false" | "${sudo_cmd[@]}" debconf-set-selections
  # Only refresh the package lists when an install from the current lists fails.
  if ! "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"; then
    "${sudo_cmd[@]}" apt-get update -qq
    "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
fi

jobs="$(nproc 2>/dev/null || echo 2)"

# ns-3 3.37 with its MPI module: Debian's ns-3 has none, so its core, network (with stats) and mpi
# modules are built from Debian's source package against Debian's Open MPI, as Debian builds ns-3
# (release profile, logs on), into deps/ns-3.37, which CMakeLists.txt prefers. Once per clone.
ns3_prefix="$here/deps/ns-3.37"
if [ ! -f "$ns3_prefix/lib/cmake/ns3/ns3Config.cmake" ]; then
  sudo_cmd=()
  [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
  if ! apt-get source --print-uris ns3 >/dev/null 2>&1; then
    echo "setup: adding Debian's source packages (deb-src) to apt" >&2
    printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' |
      "${sudo_cmd[@]}" tee /etc/apt/sources.list.d/mrcsim-deb-src.sources >/dev/null
    "${sudo_cmd[@]}" apt-get update -qq
  fi
  src="$here/deps/src"
  rm -rf "$src" && mkdir -p "$src"
  echo "setup: building ns-3 3.37 (core, network, mpi) from Debian's source into $ns3_prefix (a few minutes)" >&2
  (cd "$src" && apt-get source --download-only ns3 >/dev/null 2>&1 && tar xjf ns3_3.37.orig.tar.bz2)
  ns3_src="$(ls -d "$src"/ns-allinone-3.37/ns-3.37)"
  cmake -S "$ns3_src" -B "$src/build" -DCMAKE_BUILD_TYPE=release -DNS3_ENABLED_MODULES="core;network;mpi" \
    -DNS3_MPI=ON -DNS3_LOG=ON -DNS3_EXAMPLES=OFF -DNS3_TESTS=OFF -DNS3_PYTHON_BINDINGS=OFF \
    -DPython3_EXECUTABLE=/usr/bin/python3 -DCMAKE_INSTALL_PREFIX="$ns3_prefix" \
    -DCMAKE_INSTALL_RPATH="$ns3_prefix/lib" >"$src/configure.log" 2>&1 ||
    { tail -20 "$src/configure.log" >&2; exit 1; }
  cmake --build "$src/build" -j "$jobs" >"$src/build.log" 2>&1 || { tail -30 "$src/build.log" >&2; exit 1; }
  cmake --install "$src/build" >/dev/null
  rm -rf "$src"
fi

if [ "${1:-}" = "--deps-only" ]; then
  exit 0
fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE=/usr/bin/python3 >/dev/null
cmake --build build -j "$jobs"
