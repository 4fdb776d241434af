#!/usr/bin/python3
"""Compare the multiplane two-tier design with conventional fat trees built for the same GPUs.

For each GPU count, builds (with `mrcsim topo --json`) the 8 x 100G multiplane fabric of 512-port
switches and 800G fat trees of 64-port switches (the same 51.2 Tb/s silicon) of 2, 3 and 4 tiers
wherever that tier count is the natural one (more GPUs than one tier fewer holds, and no more than it
holds); plots switches, optics, max switch hops and power, and writes the figures as CSV.

usage: plot_fabrics.py --mrcsim build/bin/mrcsim --out results/fabrics [--gpus 2048,8192,...]
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def multiplane_spec(gpus):
    t0 = gpus // 256
    return {"kind": "multiplane", "name": f"multiplane-{gpus}", "planes": 8, "port_rate_gbps": 100,
            "gpus": gpus, "t0_down_ports": 256, "t0_up_ports": 256, "t1_per_plane": max(1, t0 // 2),
            "switch_ports": 512}


def fat_tree_spec(gpus, tiers):
    return {"kind": "fat_tree", "name": f"fat-tree-{tiers}tier-{gpus}", "tiers": tiers, "radix": 64,
            "port_rate_gbps": 800, "gpus": gpus}


def fat_tree_capacity(tiers, radix=64):
    return radix * (radix // 2) ** (tiers - 1)


def figures(mrcsim, spec, tmp):
    path = os.path.join(tmp, spec["name"] + ".json")
    with open(path, "w") as f:
        json.dump(spec, f)
    p = subprocess.run([mrcsim, "topo", "--spec", path, "--json", "--no-groups"], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"plot_fabrics: mrcsim failed on {spec['name']}: {p.stderr.strip()}")
    return json.loads(p.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mrcsim", default="build/bin/mrcsim")
    ap.add_argument("--out", default="results/fabrics")
    ap.add_argument("--gpus", default="2048,8192,32768,65536,131072")
    args = ap.parse_args()
    counts = [int(x) for x in args.gpus.split(",")]
    os.makedirs(args.out, exist_ok=True)

    designs = {"multiplane 2-tier (8 x 100G, 512-port)": [], "fat tree 2-tier (800G, 64-port)": [],
               "fat tree 3-tier (800G, 64-port)": [], "fat tree 4-tier (800G, 64-port)": []}
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in counts:
            built = {"multiplane 2-tier (8 x 100G, 512-port)": multiplane_spec(n)}
            for tiers in (2, 3, 4):
                # A tree with far fewer GPUs than one tier fewer holds would keep mostly empty
                # upper-tier blocks; nobody builds that, so it is not plotted.
                smaller = fat_tree_capacity(tiers - 1) if tiers > 2 else 0
                if smaller <= n <= fat_tree_capacity(tiers):
                    built[f"fat tree {tiers}-tier (800G, 64-port)"] = fat_tree_spec(n, tiers)
            for label, spec in built.items():
                f = figures(args.mrcsim, spec, tmp)
                designs[label].append((n, f))
                rows.append({"design": label, "name": f["name"], "gpus": f["gpus"], "tiers": f["tiers"],
                             "planes": f["planes"], "switches": f["switches"]["total"], "links": f["links"]["total"],
                             "transceivers_800g_eq": f["optics"]["transceivers_800g_equivalent"],
                             "max_switch_hops": f["max_switch_hops"], "paths_total": f["shortest_paths"]["total"],
                             "bisection_tbps": f["bisection_tbps"], "power_kw": f["power_kw"]["total"]})

    csv_path = os.path.join(args.out, "fabric-comparison.csv")
    with open(csv_path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)

    metrics = [("switches", lambda f: f["switches"]["total"], "switches"),
               ("optics", lambda f: f["optics"]["transceivers_800g_equivalent"], "transceivers (800G equivalent)"),
               ("hops", lambda f: f["max_switch_hops"], "max switch hops, GPU to GPU"),
               ("power", lambda f: f["power_kw"]["total"] / 1000, "power estimate (MW)")]
    styles = {"multiplane 2-tier (8 x 100G, 512-port)": dict(color="tab:blue", marker="o", lw=2.5),
              "fat tree 2-tier (800G, 64-port)": dict(color="tab:green", marker="s", lw=2),
              "fat tree 3-tier (800G, 64-port)": dict(color="tab:orange", marker="^", lw=2, ls="--"),
              "fat tree 4-tier (800G, 64-port)": dict(color="tab:red", marker="v", lw=2, ls=":")}
    fig, axes = plt.subplots(2, 2, figsize=(11, 8))
    for ax, (_, get, label) in zip(axes.flat, metrics):
        for design, points in designs.items():
            if points:
                ax.plot([n for n, _ in points], [get(f) for _, f in points], label=design, **styles[design])
        ax.set_xscale("log", base=2)
        ax.set_xlabel("GPUs")
        ax.set_ylabel(label)
        if label != "max switch hops, GPU to GPU":
            ax.set_yscale("log")
        ax.grid(True, which="both", alpha=0.3)
    axes[0, 0].legend(fontsize=8)
    fig.suptitle("Multiplane two-tier fabric vs. conventional fat trees (same GPUs, same 51.2T switch silicon)")
    fig.tight_layout()
    png = os.path.join(args.out, "fabric-comparison.png")
    fig.savefig(png, dpi=120)

    last = counts[-1]
    mp = dict(designs["multiplane 2-tier (8 x 100G, 512-port)"])[last]
    ft = next(dict(designs[d])[last] for d in ("fat tree 2-tier (800G, 64-port)", "fat tree 3-tier (800G, 64-port)",
                                               "fat tree 4-tier (800G, 64-port)") if last in dict(designs[d]))
    print(f"{last} GPUs vs a {ft['tiers']}-tier fat tree: multiplane uses {mp['switches']['total']} switches vs {ft['switches']['total']} "
          f"({mp['switches']['total'] / ft['switches']['total']:.0%}), "
          f"{mp['optics']['transceivers_800g_equivalent']:.0f} vs {ft['optics']['transceivers_800g_equivalent']:.0f} "
          f"800G-equivalent optics ({mp['optics']['transceivers_800g_equivalent'] / ft['optics']['transceivers_800g_equivalent']:.0%}), "
          f"{mp['max_switch_hops']} vs {ft['max_switch_hops']} max switch hops")
    print(f"wrote {png} and {csv_path}")


if __name__ == "__main__":
    main()
