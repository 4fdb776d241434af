#!/usr/bin/python3
"""Checks that the models' layers depend only downwards.

models/ is one folder per layer (see models/CMakeLists.txt). A file may include files of its own
layer and of the layers below it; mrc and roce, two transports on the same layer, may not include
each other. topologies/ (the fabric description) may be used from the fabric layer up; nothing
in models/ may include sim/. Prints every offending include and exits 1 if there is any.

usage: check_layers.py [REPOSITORY_ROOT]
"""
import os
import re
import sys

# Layer -> the layers (and other top-level folders) it may include.
ALLOWED = {
    "engine": {"engine"},
    "wire": {"engine", "wire"},
    "fabric": {"engine", "wire", "fabric", "topologies"},
    "rdma": {"engine", "wire", "fabric", "rdma", "topologies"},
    "mrc": {"engine", "wire", "fabric", "rdma", "mrc", "topologies"},
    "roce": {"engine", "wire", "fabric", "rdma", "roce", "topologies"},
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


def check(root):
    problems = []
    models = os.path.join(root, "models")
    for layer in sorted(os.listdir(models)):
        folder = os.path.join(models, layer)
        if not os.path.isdir(folder):
            continue
        if layer not in ALLOWED:
            problems.append(f"models/{layer}/: not a known layer (add it to {os.path.basename(__file__)})")
            continue
        for name in sorted(os.listdir(folder)):
            if not name.endswith((".h", ".cc")):
                continue
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                text = f.read()
            for inc in INCLUDE.findall(text):
                to = target_layer(inc)
                if to is not None and to not in ALLOWED[layer]:
                    problems.append(f"models/{layer}/{name}: includes {inc} ({layer} may not depend on {to})")
    return problems


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    problems = check(root)
    for p in problems:
        print(p)
    if problems:
        return 1
    print("layers: every include points down")
    return 0


if __name__ == "__main__":
    sys.exit(main())
