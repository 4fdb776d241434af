#!/usr/bin/python3
"""Checks that the models' layers, and sim/'s folders, depend only downwards.

models/ is one folder per layer, in the order models/CMakeLists.txt lists them (MODEL_LAYERS). A
file may include files of its own layer and of the layers below it; the layers after rdma are
transports (mrc, roce, and any added there), on one level: they may not include each other. topologies/ (the fabric description) may be used from the fabric layer up; nothing
in models/ may include sim/. sim/ is one folder per concern (docs/ARCHITECTURE.md), each allowed
the folders SIM_ALLOWED names; every folder may include models/ and topologies/. Prints every
offending include and exits 1 if there is any.

usage: check_layers.py [REPOSITORY_ROOT]
"""
import os
import re
import sys

# Layer -> the layers (and other top-level folders) it may include; transports are added from
# MODEL_LAYERS (allowed_layers).
BASE_ALLOWED = {
    "engine": {"engine"},
    "wire": {"engine", "wire"},
    "fabric": {"engine", "wire", "fabric", "topologies"},
    "rdma": {"engine", "wire", "fabric", "rdma", "topologies"},
}
MODEL_LAYERS = re.compile(r"^\s*set\(MODEL_LAYERS\s+([^)]*)\)", re.M)


def allowed_layers(root):
    """BASE_ALLOWED, plus each transport layer models/CMakeLists.txt lists after rdma."""
    with open(os.path.join(root, "models", "CMakeLists.txt"), encoding="utf-8") as f:
        match = MODEL_LAYERS.search(f.read())
    layers = match.group(1).split() if match else []
    allowed = dict(BASE_ALLOWED)
    for layer in layers:
        if layer not in allowed:
            allowed[layer] = {"engine", "wire", "fabric", "rdma", layer, "topologies"}
    return allowed
# sim/ folder -> the sim/ folders it may include (its own included). The scenario reader
# dispatches each entry to its type's registry, which lives with the type (workloads, failures,
# network); the rest only point down.
SIM_ALLOWED = {
    "references": set(),
    "scenario": {"workloads", "failures", "network"},
    "workloads": {"scenario", "references"},
    "failures": {"scenario", "workloads"},
    "network": {"scenario", "workloads", "references"},
    "parallel": set(),
    "run": {"scenario", "workloads", "failures", "network", "references", "parallel"},
    "cli": {"scenario", "workloads", "failures", "network", "references", "parallel", "run"},
    "python": {"scenario", "workloads", "failures", "network", "references", "parallel", "run"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def target_layer(path):
    """The layer (or top-level folder) an include names, or None for system/ns-3 headers."""
    parts = path.split("/")
    if parts[0] == "models" and len(parts) >= 3:
        return parts[1]
    if parts[0] in ("sim", "topologies"):
        return parts[0]
    return None


def sources(folder):
    """(name, includes) of each C++ file directly in `folder`, by name."""
    for name in sorted(os.listdir(folder)):
        if name.endswith((".h", ".cc")):
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                yield name, INCLUDE.findall(f.read())


def check(root):
    problems = []
    allowed = allowed_layers(root)
    models = os.path.join(root, "models")
    for layer in sorted(os.listdir(models)):
        folder = os.path.join(models, layer)
        if not os.path.isdir(folder):
            continue
        if layer not in allowed:
            problems.append(f"models/{layer}/: not a layer (add it to MODEL_LAYERS in models/CMakeLists.txt)")
            continue
        for name, includes in sources(folder):
            for inc in includes:
                to = target_layer(inc)
                if to is not None and to not in allowed[layer]:
                    problems.append(f"models/{layer}/{name}: includes {inc} ({layer} may not depend on {to})")
    sim = os.path.join(root, "sim")
    for folder in sorted(os.listdir(sim)):
        path = os.path.join(sim, folder)
        if not os.path.isdir(path) or folder == "__pycache__":
            continue
        if folder not in SIM_ALLOWED:
            problems.append(f"sim/{folder}/: not a known folder (add it to {os.path.basename(__file__)})")
            continue
        for name, includes in sources(path):
            for inc in includes:
                parts = inc.split("/")
                if parts[0] == "sim" and len(parts) >= 3 and parts[1] != folder and parts[1] not in SIM_ALLOWED[folder]:
                    problems.append(f"sim/{folder}/{name}: includes {inc} ({folder} may not depend on {parts[1]})")
    for name, _ in sources(sim):
        problems.append(f"sim/{name}: outside sim/'s folders")
    return problems


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    problems = check(root)
    for p in problems:
        print(p)
    if problems:
        return 1
    print("layers: every include points down (models/ and sim/)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
