"""Runs across MPI ranks (issue 33, D2a and D2b): ranks that were given different runs stop at once,
all of them, naming what differs; a stop signal to one rank stops every rank with partial results.
Each mpirun is bounded by `timeout`, so a regression fails instead of hanging.

usage: test_mpi_ranks.py MRCSIM ROOT agree|signal   (exit 77: no mpirun here, skipped)
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")
# Rank 0 runs its arguments, the others theirs (rankwrap.sh in ../shared/bad-inputs does the same).
WRAP = 'if [ "${OMPI_COMM_WORLD_RANK:-0}" = 0 ]; then exec "$0" $1; else exec "$0" $2; fi'


def mpirun_two(mrcsim, rank0, others, bound=60):
    """Rank 0 runs `mrcsim rank0`, rank 1 `mrcsim others` (argument strings, split on spaces)."""
    return subprocess.run(["timeout", str(bound), "mpirun", "-np", "2", "sh", "-c", WRAP, mrcsim, rank0, others],
                          capture_output=True, text=True, env=ENV)


def test_agree(mrcsim, root, out):
    base = os.path.join(root, "tests/mpi/two-transports.json")
    common = f"run {base} --out {out} --quiet"
    cases = [
        ("other bytes", common + " --set workloads.0.bytes=8192",
         ["rank 1's run differs from rank 0's", "scenario: key 'workloads.0.bytes' (8192 here, 16384 on rank 0)"]),
        ("one transport of two", common + " --set transport=[{\"type\":\"mrc\"}]", ["key 'transport.1'"]),
        ("transports swapped", common + " --set transport.0.type=rocev2 --set transport.1.type=mrc",
         ["key 'transport.0.type'"]),
        ("other partitions", common + " --partitions 3", ["--partitions: 3 here, default on rank 0"]),
    ]
    failed = []
    for what, others, expect in cases:
        start = time.monotonic()
        p = mpirun_two(mrcsim, common, others)
        took = time.monotonic() - start
        text = p.stdout + p.stderr
        if p.returncode == 124:
            failed.append(f"{what}: still running after 60 s (hang)")
        elif p.returncode != 2:
            failed.append(f"{what}: exit status {p.returncode}, not 2\n{text}")
        elif any(e not in text for e in expect):
            failed.append(f"{what}: the message misses {[e for e in expect if e not in text]}\n{text}")
        elif "MPI_ERR" in text or "MPI_ABORT" in text:
            failed.append(f"{what}: an MPI error or abort\n{text}")
        else:
            print(f"ok {what} ({took:.1f} s)")
    # The same run on both ranks still runs (the check lets it through).
    p = mpirun_two(mrcsim, common, common)
    if p.returncode != 0:
        failed.append(f"the same run: exit status {p.returncode}\n{p.stdout + p.stderr}")
    else:
        print("ok the same run")
    return failed


def test_signal(mrcsim, root, out):
    failed = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        for target in (1, 0):
            shutil.rmtree(out, ignore_errors=True)
            # quickstart at 16 times its bytes runs for over a minute in two ranks here (as it is,
            # about 6 s: a loaded machine could reach its end before the signal).
            job = subprocess.Popen(["timeout", "120", "mpirun", "-np", "2", mrcsim, "run",
                                    os.path.join(root, "scenarios/quickstart.json"), "--set",
                                    "workloads.0.bytes=4194304", "--out", out, "--quiet"],
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=ENV,
                                   start_new_session=True)
            pid = None
            deadline = time.monotonic() + 30
            while pid is None and time.monotonic() < deadline:
                time.sleep(0.2)
                pid = rank_pid(job.pid, target)
            if pid is None:
                job.kill()
                failed.append(f"rank {target}'s process not found")
                continue
            time.sleep(3)  # under way
            os.kill(pid, sig)
            start = time.monotonic()
            try:
                text, _ = job.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(job.pid, signal.SIGKILL)
                failed.append(f"{sig.name} to rank {target}: the job still runs 60 s later")
                continue
            took = time.monotonic() - start
            what = f"{sig.name} to rank {target}"
            if job.returncode != 3:
                failed.append(f"{what}: exit status {job.returncode}, not 3\n{text}")
                continue
            with open(os.path.join(out, "summary.json")) as f:
                summary = json.load(f)
            reasons = [r["stop_reason"] for r in summary["runs"]]
            if not summary["partial"] or reasons[-1] != f"interrupted ({sig.name})":
                failed.append(f"{what}: partial {summary['partial']}, stop reasons {reasons}")
            elif took > 30:
                failed.append(f"{what}: the job ended {took:.0f} s after the signal")
            else:
                print(f"ok {what}: ended {took:.1f} s after it, {reasons}")
    return failed


def rank_pid(root_pid, rank):
    """The pid of the mrcsim process of MPI rank `rank` under `root_pid` (from /proc)."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = dict(kv.split(b"=", 1) for kv in f.read().split(b"\0") if b"=" in kv)
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().split(b"\0")
        except OSError:
            continue
        if (env.get(b"OMPI_COMM_WORLD_RANK") == str(rank).encode() and b"run" in cmd
                and os.path.basename(cmd[0].decode()) in ("mrcsim", "exe") and is_below(int(pid), root_pid)):
            return int(pid)
    return None


def is_below(pid, ancestor):
    while pid > 1:
        if pid == ancestor:
            return True
        try:
            with open(f"/proc/{pid}/stat") as f:
                pid = int(f.read().rsplit(")", 1)[1].split()[1])
        except OSError:
            return False
    return False


def main(mrcsim, root, which):
    if shutil.which("mpirun") is None:
        print("no mpirun: skipped")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        failed = {"agree": test_agree, "signal": test_signal}[which](mrcsim, root, os.path.join(tmp, "out"))
    for f in failed:
        print("FAIL", f)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
