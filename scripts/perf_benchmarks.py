"""The benchmarks and runs that scripts/perf_report.py records and renders: each one's command,
where its figures come from and how a table shows them. What is measured lives here; how it is
recorded, rendered and checked is perf_report.py's.
"""


def get(d, path):
    """The value at a dotted path; in a list, an element is named by its label or workload."""
    for k in path.split("."):
        if isinstance(d, list):
            hits = [e for e in d if isinstance(e, dict) and k in (e.get("label"), e.get("workload"))]
            if len(hits) != 1:
                raise KeyError(k)
            d = hits[0]
        else:
            d = d[k]
    return d


# Each benchmark: its command (after the binary; {out} is a fresh directory), where its figures
# come from ("json": the command's JSON output, with the process's wall and CPU time under
# "process."; "summary": OUT/summary.json, its paths under "summary."; "time": the process's wall
# and CPU time and peak RSS), the figures kept (name -> JSON path, and how a table shows it),
# figures derived from those (derive: key -> function of the data), whether it is long (recorded
# by --long only) or a comparison's member only (member_only: recorded by --side-by-side), the
# settings it runs with (settings: environment variables that change what is measured, shown in
# its command), and a launcher (mpirun) with the environment the launcher needs (env, not shown).
MIB = 1 << 20
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
           "OMPI_MCA_rmaps_base_oversubscribe": "1"}
RUNNER_FIGURES = {
    "wall_s": ("wall", "{:.1f} s"),
    "cpu_s": ("cpu", "{:.1f} s"),
    "peak_rss_mib": ("peak_rss_bytes", "{:.0f} MiB", MIB),
}


def step_transport_figures(t):
    """One transport's part of multiplane-131k: its time, the connections it made and the time
    making them took, its events and events per second, the step's completion and each
    workload's mean."""
    return {"transport_s": ("summary.wall_clock.%s.seconds" % t, "{:.0f} s"),
            "connections": ("summary.wall_clock.%s.connections" % t, "{:.0f}"),
            "connect_s": ("summary.wall_clock.%s.connect_seconds" % t, "{:.1f} s"),
            "events_m": ("summary.runs.%s.events" % t, "{:.1f} M", 1e6),
            "events_per_s": ("summary.wall_clock.%s.events_per_second" % t, "{:.0f} k", 1e3),
            "completion_us": ("summary.runs.%s.completion_us" % t, "{:.1f} us"),
            "experts_us": ("summary.runs.%s.collectives.experts.time_us.mean" % t, "{:.1f} us"),
            "rings_us": ("summary.runs.%s.collectives.data-parallel.time_us.mean" % t, "{:.1f} us")}


def moe_step_figures():
    """multiplane-131k's figures: the whole run, then each transport's (step_transport_figures,
    named after it: mrc_s, mrc_connections, ...), then the workloads' ideals."""
    f = {"wall_s": ("wall", "{:.0f} s"), "peak_rss_mib": ("peak_rss_bytes", "{:.0f} MiB", MIB)}
    for t in ("mrc", "rocev2"):
        for k, v in step_transport_figures(t).items():
            f[t + "_" + ("s" if k == "transport_s" else k)] = v
    f["experts_ideal_us"] = ("summary.runs.mrc.collectives.experts.ideal_us", "{:.1f} us")
    f["rings_ideal_us"] = ("summary.runs.mrc.collectives.data-parallel.ideal_us", "{:.1f} us")
    return f


def moe_step_g64_figures(t):
    """The step with expert groups of 64, one transport: the whole process, the transport's part
    (step_transport_figures), whether every message was delivered, and the workloads' ideals."""
    f = {"wall_s": ("wall", "{:.0f} s"), "peak_rss_mib": ("peak_rss_bytes", "{:.0f} MiB", MIB),
         **step_transport_figures(t),
         "messages_failed": ("summary.runs.%s.messages.failed" % t, "{:.0f}"),
         "experts_ideal_us": ("summary.runs.%s.collectives.experts.ideal_us" % t, "{:.1f} us"),
         "rings_ideal_us": ("summary.runs.%s.collectives.data-parallel.ideal_us" % t, "{:.1f} us")}
    return f


def moe_step_g64(transport):
    """multiplane-131k with expert groups of 64 (4.26 M connections), one transport in one
    partition (the machine's other core free; both transports together do not fit its memory)."""
    return {"args": ["run", "scenarios/multiplane-131k.json", "--quiet", "--partitions", "1",
                     "--set", "workloads.0.group_size=64",
                     "--set", 'transport=[{"type": "%s"}]' % transport, "--out", "{out}"],
            "source": "summary", "long": True, "runs": 1, "figures": moe_step_g64_figures(transport)}


def failure_storm_figures():
    """failure-storm's figures: the whole run, then per transport its time, how far it got in
    simulated time, its events and whether it was stopped (by its wall-time limit) before the end."""
    f = {"wall_s": ("wall", "{:.0f} s"), "peak_rss_mib": ("peak_rss_bytes", "{:.0f} MiB", MIB)}
    for t in ("mrc", "rocev2"):
        f[t + "_s"] = ("summary.wall_clock.%s.seconds" % t, "{:.0f} s")
        f[t + "_events_m"] = ("summary.runs.%s.events" % t, "{:.1f} M", 1e6)
        f[t + "_stopped_at_us"] = ("summary.runs.%s.stopped_at_us" % t, "{:.0f} us")
        f[t + "_partial"] = ("summary.runs.%s.partial" % t, lambda v: "yes" if v else "no")
    return f


def connection_figures(label):
    """A connection-cost run's figures: its transport's time (the connections made and the run of
    one packet per directed pair), the connections made (GPU pairs, both directions), the wall
    time spent making them, per connection, and the process's peak memory per connection."""
    wc = "summary.wall_clock.%s." % label
    return {
        "transport_s": (wc + "seconds", "{:.1f} s"),
        "connections": (wc + "connections", "{:.0f}"),
        "connect_s": (wc + "connect_seconds", "{:.2f} s"),
        "us_per_connection": ("per_connection.us", "{:.1f} us"),
        "peak_rss_mib": ("peak_rss_bytes", "{:.0f} MiB", MIB),
        "peak_kib_per_connection": ("per_connection.peak_bytes", "{:.1f} KiB", 1024),
    }


def per_connection(data, label):
    """Per connection: the wall time spent making it, and the whole process's peak memory (the
    fabric's share included, so an upper bound)."""
    wc = get(data, "summary.wall_clock." + label)
    n = float(wc["connections"])
    return {"us": float(wc["connect_seconds"]) * 1e6 / n, "peak_bytes": data["peak_rss_bytes"] / n}


# How a connection's cost grows: the connections benchmark with groups of 4 to 64 GPUs
# (24,576 to 516,096 directed pairs on multiplane-8k), and with groups of 16 on smaller fabrics,
# each transport, one run each. A point: (fabric preset, group size).
GROWTH_FABRIC = "multiplane-8k"
GROWTH_GROUPS = (4, 8, 16, 32, 64)
GROWTH_SMALLER_FABRICS = ("multiplane-64", "multiplane-512", "multiplane-1k")
GROWTH_POINTS = [(GROWTH_FABRIC, g) for g in GROWTH_GROUPS] + [(f, 16) for f in GROWTH_SMALLER_FABRICS]
GROWTH_TRANSPORTS = ("mrc", "rocev2")


def growth_name(transport, fabric, group):
    suffix = "" if fabric == GROWTH_FABRIC else "-" + fabric.split("-", 1)[1]
    return "growth-%s%s-g%d" % (transport, suffix, group)


def growth_figures(label):
    """A growth point's figures: what the transport made (connections: GPU pairs, both
    directions; directed pairs: the messages) and what it cost: the wall time spent making the
    connections, per connection, the process's peak memory per connection (the fabric
    included), and the events per second of the whole transport's run."""
    wc = "summary.wall_clock.%s." % label
    return {
        "directed_pairs": ("summary.runs.%s.messages.count" % label, "{:.0f}"),
        "connections": (wc + "connections", "{:.0f}"),
        "transport_s": (wc + "seconds", "{:.1f} s"),
        "connect_s": (wc + "connect_seconds", "{:.2f} s"),
        "us_per_connection": ("growth.us_per_connection", "{:.0f} us"),
        "peak_rss_mib": ("peak_rss_bytes", "{:.0f} MiB", MIB),
        "kib_per_connection": ("growth.peak_bytes_per_connection", "{:.1f} KiB", 1024),
        "events_per_s": (wc + "events_per_second", "{:.0f} k", 1e3),
    }


def growth_derived(data, label):
    d = per_connection(data, label)
    return {"us_per_connection": d["us"], "peak_bytes_per_connection": d["peak_bytes"]}


def connections_args(transport, fabric, group, partitions=()):
    """`mrcsim run` of the connections benchmark at one point (`partitions`: e.g. ("--partitions", "1"))."""
    args = ["run", "scenarios/bench/connections.json", "--quiet", *partitions,
            "--set", "workloads.0.group_size=%d" % group]
    if fabric != GROWTH_FABRIC:
        args += ["--set", "topology.preset=" + fabric]
    if transport != "mrc":
        args += ["--set", 'transport=[{"type": "%s"}]' % transport]
    return args + ["--out", "{out}"]


def growth_benchmark(transport, fabric, group):
    args = connections_args(transport, fabric, group, ("--partitions", "1"))
    return {"args": args, "source": "summary", "long": True, "growth": True, "runs": 1,
            "derive": {"growth": lambda data: growth_derived(data, transport)},
            "figures": growth_figures(transport)}


BENCHMARKS = {
    "topology": {
        "args": ["bench", "topology", "--json"],
        "source": "json",
        "figures": {
            "generate_s": ("seconds.generate", "{:.2f} s"),
            "route_s": ("seconds.route", "{:.2f} s"),
            "validate_s": ("seconds.validate", "{:.2f} s"),
            "total_s": ("seconds.total", "{:.2f} s"),
            "peak_rss_mib": ("peak_rss_bytes", "{:.0f} MiB", MIB),
        },
    },
    "topo-fat-tree-131k": {
        "args": ["topo", "--preset", "fat-tree-4tier-131k", "--no-groups"],
        "source": "time",
        "figures": {
            "wall_s": ("wall", "{:.2f} s"),
            "cpu_s": ("cpu", "{:.2f} s"),
            "peak_rss_mib": ("peak_rss_bytes", "{:.0f} MiB", MIB),
        },
    },
    "forwarding": {
        "args": ["bench", "forwarding", "--json"],
        "source": "json",
        "figures": {
            "packet_hops_per_s": ("packet_hops_per_second", "{:.2f} M/s", 1e6),
            "events_per_packet_hop": ("events_per_packet_hop", "{:.3f}"),
            "bytes_per_link": ("bytes_per_link", "{:.0f} B"),
            "peak_rss_mib": ("peak_rss_bytes", "{:.0f} MiB", MIB),
        },
    },
    "perm-8192": {
        "args": ["bench", "perm-8192", "--json"],
        "source": "json",
        "figures": {
            "run_s": ("seconds.run", "{:.1f} s"),
            "events_m": ("events", "{:.2f} M", 1e6),
            "packet_hops_per_s": ("packet_hops_per_second", "{:.2f} M/s", 1e6),
            "peak_rss_mib": ("peak_rss_bytes", "{:.1f} MiB", MIB),
        },
    },
    # What perm-8192 simulates (deterministic: one run, whatever the machine's load).
    "perm-8192-simulated": {
        "args": ["bench", "perm-8192", "--json"],
        "source": "json",
        "runs": 1,
        "figures": {
            "packet_hops_m": ("packet_hops", "{:.2f} M", 1e6),
            "data_packets": ("data_packets_sent", "{:.0f}"),
            "completion_us": ("simulated_seconds", "{:.2f} us", 1e-6),
            "trims": ("trims", "{:.0f}"),
            "retransmissions": ("retransmissions", "{:.0f}"),
            "timeouts": ("timeouts", "{:.0f}"),
            "links_between_partitions": ("links_between_partitions", "{:.0f}"),
            "windows": ("windows", "{:.0f}"),
        },
    },
    "perm-8192-1p": {
        "args": ["bench", "perm-8192", "--partitions", "1", "--json"],
        "source": "json",
        "figures": {
            "run_s": ("seconds.run", "{:.1f} s"),
            "packet_hops_per_s": ("packet_hops_per_second", "{:.2f} M/s", 1e6),
            "peak_rss_mib": ("peak_rss_bytes", "{:.1f} MiB", MIB),
        },
    },
    "perm-8192-256k": {
        "args": ["bench", "perm-8192", "--bytes", "262144", "--json"],
        "source": "json",
        "figures": {
            "run_s": ("seconds.run", "{:.2f} s"),
            "events_m": ("events", "{:.2f} M", 1e6),
            "peak_rss_mib": ("peak_rss_bytes", "{:.0f} MiB", MIB),
        },
    },
    "perm-512": {
        "args": ["bench", "perm-8192", "--preset", "perm-512", "--bytes", "1048576", "--partitions", "1", "--json"],
        "source": "json",
        "figures": {
            "run_s": ("seconds.run", "{:.2f} s"),
            "packet_hops_per_s": ("packet_hops_per_second", "{:.2f} M/s", 1e6),
        },
    },
    "quickstart": {
        "args": ["run", "scenarios/quickstart.json", "--quiet", "--out", "{out}"],
        "source": "summary",
        "figures": {
            "wall_s": ("wall", "{:.2f} s"),
            "cpu_s": ("cpu", "{:.2f} s"),
            "peak_rss_mib": ("peak_rss_bytes", "{:.0f} MiB", MIB),
        },
    },
    "runner-perm-8192": {
        "args": ["run", "scenarios/bench/perm-8192.json", "--quiet", "--out", "{out}"],
        "source": "summary",
        "figures": RUNNER_FIGURES,
    },
    "runner-perm-8192-1p": {
        "args": ["run", "scenarios/bench/perm-8192.json", "--quiet", "--partitions", "1", "--out", "{out}"],
        "source": "summary",
        "figures": RUNNER_FIGURES,
    },
    "connections-mrc": {
        "args": ["run", "scenarios/bench/connections.json", "--quiet", "--partitions", "1", "--out", "{out}"],
        "source": "summary",
        "derive": {"per_connection": lambda data: per_connection(data, "mrc")},
        "figures": connection_figures("mrc"),
    },
    "connections-rocev2": {
        "args": ["run", "scenarios/bench/connections.json", "--quiet", "--partitions", "1", "--set",
                 'transport=[{"type": "rocev2"}]', "--out", "{out}"],
        "source": "summary",
        "derive": {"per_connection": lambda data: per_connection(data, "rocev2")},
        "figures": connection_figures("rocev2"),
    },
    "runner-perm-8192-mpi": {
        "launcher": ["mpirun", "-np", "2"],
        "env": MPI_ENV,
        "args": ["run", "scenarios/bench/perm-8192.json", "--quiet", "--out", "{out}"],
        "source": "summary",
        "long": True,
        "figures": {
            "wall_s": ("wall", "{:.1f} s"),
            "cpu_s": ("cpu", "{:.1f} s"),
            "peak_rss_mib_rank0": ("peak_rss_bytes", "{:.0f} MiB", MIB),
        },
    },
    "multiplane-131k": {
        "args": ["run", "scenarios/multiplane-131k.json", "--quiet", "--out", "{out}"],
        "source": "summary",
        "long": True,
        "runs": 1,
        "figures": moe_step_figures(),
    },
    "failure-storm": {
        "args": ["run", "scenarios/failure-storm.json", "--quiet", "--out", "{out}"],
        "source": "summary",
        "long": True,
        "runs": 1,
        "partial_ok": True,
        "figures": failure_storm_figures(),
    },
}
for _t in GROWTH_TRANSPORTS:
    BENCHMARKS["multiplane-131k-g64-" + _t] = moe_step_g64(_t)
    for _f, _g in GROWTH_POINTS:
        BENCHMARKS[growth_name(_t, _f, _g)] = growth_benchmark(_t, _f, _g)


# The growth sweep's largest point in 4 MPI ranks: what a rank holds (its GPUs' QPs and the ports
# of the links touching its nodes; the switches, channels, NICs and the workloads' state are every
# rank's). Set beside the sweep's one-process run.
RANKS = 4


def by_rank(data, label):
    """The largest of the ranks' QP counts and peaks (summary.json's wall_clock, by rank)."""
    wc = get(data, "summary.wall_clock." + label)
    return {"qps": sum(wc["qps_by_rank"]), "qps_max": max(wc["qps_by_rank"]),
            "links_max": max(wc["links_built_by_rank"]),
            "peak_bytes_max": max(wc["peak_rss_bytes_by_rank"]), "peak_bytes_sum": sum(wc["peak_rss_bytes_by_rank"]),
            "ranks": len(wc["qps_by_rank"])}


def ranks_benchmark(transport):
    args = connections_args(transport, GROWTH_FABRIC, GROWTH_GROUPS[-1])  # a partition per rank
    wc = "summary.wall_clock.%s." % transport
    return {"launcher": ["mpirun", "-np", str(RANKS)], "env": MPI_ENV, "args": args, "source": "summary",
            "long": True, "runs": 1, "derive": {"by_rank": lambda data: by_rank(data, transport)},
            "figures": {"ranks": ("by_rank.ranks", "{:.0f}"),
                        "transport_s": (wc + "seconds", "{:.1f} s"),
                        "qps": ("by_rank.qps", "{:.0f}"),
                        "qps_per_rank_max": ("by_rank.qps_max", "{:.0f}"),
                        "links_built_per_rank_max": ("by_rank.links_max", "{:.0f}"),
                        "peak_rss_mib_per_rank_max": ("by_rank.peak_bytes_max", "{:.0f} MiB", MIB)}}


for _t in GROWTH_TRANSPORTS:
    BENCHMARKS["ranks-%s-g%d" % (_t, GROWTH_GROUPS[-1])] = ranks_benchmark(_t)


def moe_step_g64_ranks(transport):
    """multiplane-131k with expert groups of 64, one transport, in 4 MPI ranks (a partition per
    rank, on this machine's 2 cores): the step's figures (step_transport_figures) and what the
    ranks hold, the largest rank's peak and the sum of all ranks' peaks. Set beside the one-process
    run (moe_step_g64)."""
    args = moe_step_g64(transport)["args"]
    at = args.index("--partitions")
    args = args[:at] + args[at + 2:]
    return {"launcher": ["mpirun", "-np", str(RANKS)], "env": MPI_ENV, "args": args, "source": "summary",
            "long": True, "runs": 1, "derive": {"by_rank": lambda data: by_rank(data, transport)},
            "figures": {"wall_s": ("wall", "{:.0f} s"),
                        **step_transport_figures(transport),
                        "messages_failed": ("summary.runs.%s.messages.failed" % transport, "{:.0f}"),
                        "ranks": ("by_rank.ranks", "{:.0f}"),
                        "qps_per_rank_max": ("by_rank.qps_max", "{:.0f}"),
                        "links_built_per_rank_max": ("by_rank.links_max", "{:.0f}"),
                        "peak_rss_mib_per_rank_max": ("by_rank.peak_bytes_max", "{:.0f} MiB", MIB),
                        "peak_rss_mib_all_ranks": ("by_rank.peak_bytes_sum", "{:.0f} MiB", MIB)}}


# RoCEv2 only: MRC's four ranks outgrow this 23.5 GiB machine (each rank held 5.25 GiB three
# minutes in, still making connections, 21 GiB together; docs/PERFORMANCE.md).
BENCHMARKS["multiplane-131k-g64-rocev2-ranks"] = moe_step_g64_ranks("rocev2")

def perm_8192_with(settings=None):
    """`bench perm-8192` (two partitions) as a member of a comparison, with `settings` (one off):
    what it simulates and what that costs, the process's CPU time included."""
    b = {"args": ["bench", "perm-8192", "--json"], "source": "json", "member_only": True,
         "figures": {"events": ("events", "{:,.0f}"),
                     "cpu_s": ("process.cpu", "{:.1f} s"),
                     "wall_s": ("process.wall", "{:.1f} s"),
                     "peak_rss_mib": ("peak_rss_bytes", "{:.1f} MiB", MIB)}}
    if settings:
        b["settings"] = settings
    return b


# Members of the comparisons below only (recorded by --side-by-side, never on their own).
BENCHMARKS["perm-8192-default"] = perm_8192_with()
BENCHMARKS["perm-8192-no-prefetch-lists"] = perm_8192_with(
    {"NS_ATTRIBUTE_DEFAULT": "ns3::FabricScheduler::PrefetchLists=false"})
BENCHMARKS["perm-8192-eager-start"] = perm_8192_with({"NS_ATTRIBUTE_DEFAULT": "ns3::FabricPort::LazyStart=false"})
PERM_COLUMNS = ("events", "CPU time (user + system)", "wall time", "peak RSS")
PERM_KEYS = ("events", "cpu_s", "wall_s", "peak_rss_mib")

# Benchmarks run side by side (`record --side-by-side`): in turn, A B C A B C ..., so that their
# figures come from one machine at a like load, which records taken apart on a shared machine do
# not. Each member: the row's text, its benchmark and the keys of that benchmark's figures that
# fill the columns; the table shows each member's medians and, per round, its ratio to the first
# member (the baseline).
SIDE_BY_SIDE = {
    "side-by-side-perm-8192": {
        "columns": ("wall", "CPU", "peak RSS"),
        "members": (
            ("1 partition (`--partitions 1`)", "runner-perm-8192-1p", ("wall_s", "cpu_s", "peak_rss_mib")),
            ("2 threads (2 partitions, the default)", "runner-perm-8192", ("wall_s", "cpu_s", "peak_rss_mib")),
            ("2 MPI ranks on this machine (rank 0's peak)", "runner-perm-8192-mpi",
             ("wall_s", "cpu_s", "peak_rss_mib_rank0")),
        ),
        "runs": 3,
    },
    "side-by-side-prefetch-lists": {
        "columns": PERM_COLUMNS,
        "members": (
            ("lists prefetched (default)", "perm-8192-default", PERM_KEYS),
            ("`NS_ATTRIBUTE_DEFAULT=ns3::FabricScheduler::PrefetchLists=false`", "perm-8192-no-prefetch-lists",
             PERM_KEYS),
        ),
        "runs": 3,
    },
    "side-by-side-lazy-start": {
        "columns": PERM_COLUMNS,
        "members": (
            ("lazy start (default)", "perm-8192-default", PERM_KEYS),
            ("`NS_ATTRIBUTE_DEFAULT=ns3::FabricPort::LazyStart=false`", "perm-8192-eager-start", PERM_KEYS),
        ),
        "runs": 3,
    },
}

# The README's results table, a row per run (`mrcsim run ARGS --quiet --out DIR`, once): the
# row's text, the collective whose mean time and ideal it shows, whether it also shows the whole
# run's completion, and whether the run is long (recorded by --long only).
RUNS = {
    "quickstart-no-failure": {
        "label": "`quickstart` without its failure (`--set 'failures=[]'`)",
        "args": ["run", "scenarios/quickstart.json", "--set", "failures=[]"],
        "workload": "a2a",
    },
    "quickstart-link-failure": {
        "label": "`quickstart` (a T0-T1 link fails at 100 us; ECMP repair after 1 ms)",
        "args": ["run", "scenarios/quickstart.json"],
        "workload": "a2a",
    },
    "quickstart-64k-no-failure": {
        "label": "`quickstart` at 64 KiB per pair, no failure",
        "args": ["run", "scenarios/quickstart.json", "--set", "workloads.0.bytes=65536", "--set", "failures=[]"],
        "workload": "a2a",
    },
    "incast": {
        "label": "`incast` (32 x 1 MiB into one GPU)",
        "args": ["run", "scenarios/incast.json"],
        "workload": "incast",
    },
    "moe-all-to-all": {
        "label": "`moe-all-to-all` (512 GPUs: expert all-to-all mean; whole run)",
        "args": ["run", "scenarios/moe-all-to-all.json"],
        "workload": "experts",
        "whole_run": True,
    },
    "a2a-32k": {
        "label": "`a2a-32k` (32,768 GPUs, groups of 64; RoCEv2 1 QP per pair; mean)",
        "args": ["run", "scenarios/a2a-32k.json"],
        "workload": "experts",
        "long": True,
    },
}
TABLE_TRANSPORTS = ("mrc", "rocev2")
