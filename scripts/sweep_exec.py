"""Where scripts/sweep.py runs its `mrcsim run` commands: threads of this process (the default,
LocalExecutor) or a Dask distributed cluster (DaskExecutor, sweep.py --scheduler ADDRESS).

Both run each command as a subprocess with run_command(): its exit code, its wall time and the
last line of its stderr come back; its output (summary.json, <transport>/*.csv) and its log
(run.log) are written into the command's own directory. A Dask worker therefore needs the same
filesystem as the machine that runs sweep.py: the mrcsim binary, the scenario file and the output
directory must be visible at the same (absolute) paths on every worker, e.g. a shared home or
NFS/Lustre mount; sweep.py passes absolute paths to the workers. The workers run Python with
Dask distributed and cloudpickle (Debian: python3-distributed); they need neither this module
(it is sent by value) nor the mrcsim Python module.

  --scheduler tcp://host:8786   connects to a running scheduler (dask-scheduler, dask-worker);
                                every worker thread runs one point at a time (-j is not used)
  --scheduler local             starts a LocalCluster inside sweep.py: -j workers of one thread,
                                no dashboard (for tests and laptops)

Dask is imported only by DaskExecutor. A command's timeout is enforced where it runs; Ctrl-C
stops both executors the same way: no new point starts and running mrcsim processes get SIGINT
(locally the terminal sends it; on a cluster a Dask Event tells the workers), so they write their
partial results. A task the executor itself loses (a worker that died, a cluster that went away)
comes back as the exit code LOST.
"""
import concurrent.futures
import os
import signal
import subprocess
import sys
import time
import uuid

# run_command's codes for a command that did not exit by itself.
TIMED_OUT = -1000
NOT_STARTED = -1001
LOST = -1002


class ExecutorError(Exception):
    pass


def run_command(cmd, directory, timeout, stop=None):
    """Runs one mrcsim command, its output into `directory` and its log into directory/run.log;
    returns (exit code, seconds, last line of its stderr), or None when stop() was already true
    (interrupted before it started). stop, polled twice a second, ends it as Ctrl-C does. Runs
    where the executor puts it: the standard library only."""
    if stop is not None and stop():
        return None
    os.makedirs(directory, exist_ok=True)
    start = time.monotonic()
    try:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    except OSError as e:
        code, out, err = NOT_STARTED, "", f"cannot run {cmd[0]}: {e}"
    else:
        stopped = False
        while True:
            wait = None if stop is None or stopped else 0.5
            if timeout is not None:
                left = max(0.0, timeout - (time.monotonic() - start))
                wait = left if wait is None else min(wait, left)
            try:
                out, err = p.communicate(timeout=wait)
                code = p.returncode
                break
            except subprocess.TimeoutExpired:
                if timeout is not None and time.monotonic() - start >= timeout:
                    p.kill()
                    out, err = p.communicate()
                    code, err = TIMED_OUT, (err or "") + f"\nsweep: timed out after {timeout} s"
                    break
                if not stopped and stop is not None and stop():
                    p.send_signal(signal.SIGINT)
                    stopped = True
    with open(os.path.join(directory, "run.log"), "w") as f:
        f.write("$ " + " ".join(cmd) + "\n" + (out or "") + (err or ""))
    lines = [line for line in (err or "").strip().splitlines() if line.strip()]
    return code, time.monotonic() - start, lines[-1] if lines else ""


def lost(e):
    return LOST, 0.0, f"sweep: the executor lost the run: {type(e).__name__}: {e}"


class LocalExecutor:
    """Threads of this process, `jobs` commands at a time."""
    absolute_paths = False

    def __init__(self, jobs):
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=jobs)
        self.description = f"{jobs} at a time"

    def submit(self, cmd, directory, timeout):
        return self.pool.submit(run_command, cmd, directory, timeout)

    def as_completed(self, futures):
        return concurrent.futures.as_completed(futures)

    @staticmethod
    def result(future):
        try:
            return future.result()
        except Exception as e:  # noqa: BLE001 - a run that broke is a failed point, not a crash
            return lost(e)

    def interrupt(self, futures):
        """After Ctrl-C (which mrcsim got too): starts nothing new, waits for the running ones;
        returns {future: result} of those that ran."""
        self.pool.shutdown(wait=True, cancel_futures=True)
        return {f: self.result(f) for f in futures if f.done() and not f.cancelled()}

    def close(self):
        self.pool.shutdown(wait=True)


def run_on_worker(cmd, directory, timeout, stop_event):
    """run_command on a Dask worker, stopped when the sweep sets the Dask Event `stop_event`."""
    from distributed import Event

    event = Event(stop_event)
    return run_command(cmd, directory, timeout, stop=event.is_set)


class DaskExecutor:
    """A Dask distributed cluster: `address` of a scheduler, or "local" for a LocalCluster of
    `jobs` single-threaded workers in this process."""
    absolute_paths = True

    def __init__(self, address, jobs):
        try:
            import cloudpickle
            import distributed
        except ImportError as e:
            raise ExecutorError(f"--scheduler needs Dask distributed, which is not importable ({e}); install "
                                "the Debian package python3-distributed (apt-get install python3-distributed)")
        self.distributed = distributed
        # Workers need not have scripts/ on their path: send this module's functions by value.
        cloudpickle.register_pickle_by_value(sys.modules[__name__])
        self.cluster = None
        try:
            if address == "local":
                self.cluster = distributed.LocalCluster(n_workers=jobs, threads_per_worker=1, processes=False,
                                                        dashboard_address=None)
                self.client = distributed.Client(self.cluster)
                self.description = f"{jobs} at a time on a local Dask cluster"
            else:
                self.client = distributed.Client(address, timeout="20s")
                threads = sum(self.client.nthreads().values())
                self.description = f"on the Dask cluster at {address} ({threads} worker threads)"
        except (OSError, TimeoutError, ValueError) as e:
            self.close()
            raise ExecutorError(f"--scheduler {address}: cannot connect: {e}")
        self.stop_event = f"mrcsim-sweep-stop-{uuid.uuid4().hex}"
        self.event = distributed.Event(self.stop_event, client=self.client)

    def submit(self, cmd, directory, timeout):
        return self.client.submit(run_on_worker, cmd, directory, timeout, self.stop_event, pure=False,
                                  key=f"mrcsim-run-{os.path.basename(directory)}-{uuid.uuid4().hex[:8]}")

    def as_completed(self, futures):
        return self.distributed.as_completed(list(futures))

    @staticmethod
    def result(future):
        try:
            return future.result()
        except Exception as e:  # noqa: BLE001 - a worker that died, a cancelled task, ...
            return lost(e)

    def interrupt(self, futures):
        """After Ctrl-C: tells the workers to stop (running mrcsim processes get SIGINT and write
        partial results; runs not started yet return None), waits; returns {future: result}
        of those that ran."""
        self.event.set()
        self.distributed.wait(list(futures))
        results = {f: self.result(f) for f in futures}
        return {f: r for f, r in results.items() if r is not None}

    def close(self):
        for closing in ("client", "cluster"):
            thing = getattr(self, closing, None)
            if thing is not None:
                try:
                    thing.close()
                except Exception:  # noqa: BLE001 - closing after an error
                    pass


def make_executor(scheduler, jobs):
    """LocalExecutor without a scheduler, else DaskExecutor (raises ExecutorError)."""
    return LocalExecutor(jobs) if scheduler is None else DaskExecutor(scheduler, jobs)
