#!/usr/bin/python3
"""Runs the fuzz corpus (tests/fuzz/corpus/, see generate.py for its layout) against mrcsim.

usage: run_fuzz.py MRCSIM_BINARY SOURCE_DIR [--python-path DIR] [-j N] [-k SUBSTRING ...]
                   [--keep] [--list] [--timeout-scale X]

Each case runs in a temporary directory of its own (its working directory; runs write only
below it), with a timeout. A case fails on a signal (a negative status, or above 128), a
timeout, exit 0 where an error was expected (or an error where the input is valid), another
status than expected, or a message without the expected substrings (the file, the key or the
option at fault). One line per failing case: its id, the cause, the exit status, the command
and the first line of stderr; then a summary. Exit status 1 if any case failed.

mrcsim runs with MRCSIM_HUGE_PAGES=0 (no re-execution of itself per case: half the start-up
time; --huge-pages keeps the default).

Python cases (kind "python") need --python-path, the directory of the built module (CTest
passes it); without it they are skipped, and said to be. They run in children forked from one
process that imported the module once (--python-zygote: the import takes most of a second), so
that a crash of the module is seen as the case's signal. To reproduce one by hand:

    PYTHONPATH=build/python /usr/bin/python3 tests/fuzz/run_fuzz.py --python-case '<its "python" entry>'
"""
import argparse
import concurrent.futures
import errno
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

DEFAULT_TIMEOUT = 20

# ---------------------------------------------------------------------------------------------
# The child of a Python case.

PY_SPEC_ERROR, PY_OTHER, PY_TYPE_ERROR = 1, 3, 4


def decode_value(v):
    """{"$float": "nan"} -> float('nan'); the rest as is, recursively."""
    if isinstance(v, dict):
        if set(v) == {"$float"}:
            return float(v["$float"])
        return {k: decode_value(x) for k, x in v.items()}
    if isinstance(v, list):
        return [decode_value(x) for x in v]
    return v


def python_case(spec):
    try:
        import mrcsim  # noqa: F401  (PYTHONPATH set by the parent)
    except Exception as e:  # the module cannot be imported: not a verdict on the case
        sys.stderr.write(f"cannot import mrcsim: {type(e).__name__}: {e}\n")
        return 5
    func = getattr(mrcsim, spec["func"])
    args = decode_value(spec.get("args", []))
    kwargs = decode_value(spec.get("kwargs", {}))
    if spec["func"] == "run":
        kwargs.setdefault("quiet", True)
    try:
        func(*args, **kwargs)
    except mrcsim.SpecError as e:
        sys.stderr.write(f"{e}\n[mrcsim.SpecError]\n".encode("utf-8", "backslashreplace").decode("utf-8"))
        return PY_SPEC_ERROR
    except TypeError as e:
        sys.stderr.write(f"{e}\n[TypeError]\n".encode("utf-8", "backslashreplace").decode("utf-8"))
        return PY_TYPE_ERROR
    except BaseException as e:  # noqa: B902  (KeyboardInterrupt included: it is a verdict too)
        text = f"{e}\n[{type(e).__module__}.{type(e).__name__}]\n"
        sys.stderr.write(text.encode("utf-8", "backslashreplace").decode("utf-8"))
        return PY_OTHER
    return 0


def python_zygote():
    """Imports the module once (numpy and ns-3 take most of a second), then forks a child per
    case read from stdin: {"python": spec, "cwd": dir, "stderr": file, "timeout": s}; replies
    {"status": exit status or -signal, "timed_out": bool} on stdout, one line each."""
    import_error = None
    try:
        import mrcsim  # noqa: F401
    except Exception as e:
        import_error = f"cannot import mrcsim: {type(e).__name__}: {e}\n"
    replies = os.fdopen(os.dup(1), "w")
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 1)  # nothing a case prints may reach the replies
    for line in sys.stdin:
        req = json.loads(line)
        pid = os.fork()
        if pid == 0:
            code = 3
            try:
                os.setsid()
                os.chdir(req["cwd"])
                fd = os.open(req["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                os.dup2(fd, 2)
                sys.stderr = os.fdopen(2, "w", encoding="utf-8", errors="backslashreplace")
                if import_error:
                    sys.stderr.write(import_error)
                    code = 5
                else:
                    code = python_case(req["python"])
                sys.stderr.flush()
            finally:
                os._exit(code)
        deadline = time.monotonic() + req["timeout"]
        timed_out = False
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > deadline:
                timed_out = True
                try:
                    os.killpg(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                _, status = os.waitpid(pid, 0)
                break
            time.sleep(0.005)
        replies.write(json.dumps({"status": os.waitstatus_to_exitcode(status), "timed_out": timed_out}) + "\n")
        replies.flush()
    return 0


# ---------------------------------------------------------------------------------------------
# The parent.


class Zygote:
    """The parent's end of python_zygote(): one case at a time."""

    def __init__(self, python_path):
        import threading

        self.lock = threading.Lock()
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
        env["PYTHONPATH"] = python_path + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        self.env = env
        self.proc = None

    def run(self, spec, cwd, stderr_file, timeout):
        with self.lock:
            for attempt in range(2):
                if self.proc is None or self.proc.poll() is not None:
                    self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--python-zygote"],
                                                 env=self.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                                 text=True, encoding="ascii")
                try:
                    self.proc.stdin.write(json.dumps({"python": spec, "cwd": cwd, "stderr": stderr_file,
                                                      "timeout": timeout}) + "\n")
                    self.proc.stdin.flush()
                    reply = self.proc.stdout.readline()
                except (BrokenPipeError, OSError):
                    reply = ""
                if reply:
                    r = json.loads(reply)
                    return r["status"], r["timed_out"]
                self.proc = None
            raise RuntimeError("the Python zygote died twice")

    def close(self):
        if self.proc and self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait()


def build(parts):
    """The text a generated file or argument is made of (see generate.py)."""
    out = []
    for p in parts:
        if "text" in p:
            out.append(p["text"])
        elif p.get("numbered"):
            out.append("".join(p["repeat"].replace("{i}", str(i)) for i in range(p["count"])))
        else:
            out.append(p["repeat"] * p["count"])
    return "".join(out)


def arg_text(a, src):
    text = build(a["parts"]) if isinstance(a, dict) else a
    return text.replace("{src}", src)


def shown(a, limit=60):
    """An argument as a shell would take it, long ones cut, raw bytes as \\xNN."""
    s = a.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace") if isinstance(a, str) else str(a)
    if len(s) > limit:
        s = s[: limit - 20] + f"...<{len(s)} chars>"
    return shlex.quote(s)


class Result:
    def __init__(self, case, status, stderr, seconds, command, cause=None, detail=""):
        self.case, self.status, self.stderr, self.seconds = case, status, stderr, seconds
        self.command, self.cause, self.detail = command, cause, detail


def message_of(stderr):
    """stderr up to the usage text that follows a usage error."""
    lines = []
    for line in stderr.splitlines():
        if line.startswith("usage:"):
            break
        lines.append(line)
    return "\n".join(lines)


def judge(case, status, stderr, timed_out):
    expect = case["expect"]
    codes = expect["exit"] if isinstance(expect["exit"], list) else [expect["exit"]]
    if timed_out:
        return "timeout", ""
    if status < 0 or status > 128:
        sig = -status if status < 0 else status - 128
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = f"signal {sig}"
        return "signal", name
    if case["kind"] == "python" and status == 5:
        return "no-module", ""
    if status not in codes:
        if status == 0:
            return "accepted", f"expected exit {'/'.join(map(str, codes))}"
        if codes == [0]:
            return "rejected-valid", "expected exit 0"
        if case["kind"] == "python" and status == PY_OTHER:
            return "wrong-exception", "expected " + ("mrcsim.SpecError" if 1 in codes else "TypeError")
        return "wrong-exit", f"expected exit {'/'.join(map(str, codes))}"
    if status == 0:
        return None, ""
    message = message_of(stderr).lower()
    # A key or word is looked for outside the case's own file names ("gml.struct.no-gpu.graphml"
    # names no GPU); a file name is looked for as it is.
    names = sorted([n.lower() for n in case_files(case)], key=len, reverse=True)
    bare = message
    for n in names:
        bare = bare.replace(n, "\0")
    missing = []
    for want in expect["message"]:
        alternatives = want if isinstance(want, list) else [want]
        if not any(alt.lower() in (message if any(n in alt.lower() for n in names) else bare)
                   for alt in alternatives):
            missing.append(" or ".join(repr(x) for x in alternatives))
    if missing:
        return "message", "missing " + ", ".join(missing)
    return None, ""


def case_files(case):
    return (case.get("files", []) + [g["name"] for g in case.get("generate", [])] + case.get("dirs", []))


def wait_for_binary(binary, seconds=60):
    """The binary may be relinked under us: wait for it to be back."""
    deadline = time.monotonic() + seconds
    while not os.access(binary, os.X_OK):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.5)
    return True


def run_case(case, args, root):
    work = tempfile.mkdtemp(prefix="case-", dir=root)
    corpus_files = os.path.join(args.source_dir, "tests", "fuzz", "corpus", "files")
    for name in case.get("files", []):
        shutil.copyfile(os.path.join(corpus_files, name), os.path.join(work, name))
    for g in case.get("generate", []):
        with open(os.path.join(work, g["name"]), "wb") as f:
            f.write(build(g["parts"]).encode("utf-8", "surrogateescape"))
    for d in case.get("dirs", []):
        os.makedirs(os.path.join(work, d), exist_ok=True)
    os.makedirs(os.path.join(work, "out"), exist_ok=True)
    timeout = case.get("timeout", DEFAULT_TIMEOUT) * args.timeout_scale
    start = time.monotonic()
    if case["kind"] == "python":
        py = case["python"]
        call = ", ".join([repr(a) for a in py.get("args", [])] + [f"{k}={v!r}" for k, v in py.get("kwargs", {}).items()])
        command = f"python: mrcsim.{py['func']}({call if len(call) <= 80 else call[:70] + '...'})"
        stderr_file = work + ".stderr"
        status, timed_out = args.zygote.run(py, work, stderr_file, timeout)
        with open(stderr_file, "rb") as f:
            stderr = f.read().decode("utf-8", "surrogateescape")
        cause, detail = judge(case, status, stderr, timed_out)
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
            os.unlink(stderr_file)
        return Result(case, status, stderr, time.monotonic() - start, command, cause, detail)
    env = dict(os.environ)
    if not args.huge_pages:
        env["MRCSIM_HUGE_PAGES"] = "0"  # no re-execution per case: half the start-up time
    argv = [arg_text(a, args.source_dir) for a in case["argv"]]
    cmd = [args.binary] + argv
    command = "mrcsim " + " ".join(shown(a) for a in argv)
    for attempt in range(20):
        if case["kind"] != "python" and not wait_for_binary(args.binary):
            break
        try:
            proc = subprocess.Popen([os.fsencode(x) for x in cmd], cwd=work, env=env, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
            break
        except OSError as e:  # relinked while we exec'd it
            if e.errno not in (errno.ETXTBSY, errno.ENOENT, errno.EACCES) or attempt == 19:
                raise
            time.sleep(0.5)
    else:
        proc = None
    if proc is None:
        return Result(case, None, "", 0, command, "no-binary", f"{args.binary} is missing")
    timed_out = False
    try:
        _, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        _, err = proc.communicate()
    seconds = time.monotonic() - start
    stderr = err.decode("utf-8", "surrogateescape")
    cause, detail = judge(case, proc.returncode, stderr, timed_out)
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return Result(case, proc.returncode, stderr, seconds, command, cause, detail)


def first_line(text):
    for line in text.splitlines():
        if line.strip():
            line = line.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
            return line if len(line) <= 200 else line[:200] + "..."
    return "(empty)"


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "--python-case":  # one case, for reproducing it by hand
        return python_case(json.loads(sys.argv[2]))
    if len(sys.argv) == 2 and sys.argv[1] == "--python-zygote":
        return python_zygote()
    ap = argparse.ArgumentParser(description="Runs the fuzz corpus against mrcsim.")
    ap.add_argument("binary", help="the mrcsim binary")
    ap.add_argument("source_dir", help="the source directory (holds tests/fuzz/corpus)")
    ap.add_argument("--python-path", help="directory of the built Python module (mrcsim.*.so)")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("-k", dest="filters", action="append", default=[], help="run the cases whose id has SUBSTRING")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directories (printed)")
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    ap.add_argument("--timeout-scale", type=float, default=1.0, help="multiply every timeout (slow machines)")
    ap.add_argument("--verbose", "-v", action="store_true", help="one line per case, passed ones too")
    ap.add_argument("--huge-pages", action="store_true",
                    help="let mrcsim re-execute itself for huge pages (by default MRCSIM_HUGE_PAGES=0)")
    args = ap.parse_args()
    args.binary = os.path.abspath(args.binary)
    args.source_dir = os.path.abspath(args.source_dir)
    with open(os.path.join(args.source_dir, "tests", "fuzz", "corpus", "cases.json"), encoding="ascii") as f:
        cases = json.load(f)["cases"]
    if args.filters:
        cases = [c for c in cases if any(k in c["id"] for k in args.filters)]
    if args.list:
        for c in cases:
            print(f"{c['id']:60} {c['kind']:9} {c['mutation']:14} {c['note']}")
        return 0
    skipped = []
    if not args.python_path:
        skipped = [c for c in cases if c["kind"] == "python"]
        cases = [c for c in cases if c["kind"] != "python"]
    else:
        args.python_path = os.path.abspath(args.python_path)
        args.zygote = Zygote(args.python_path)
    if not wait_for_binary(args.binary):
        print(f"run_fuzz: {args.binary} is not an executable", file=sys.stderr)
        return 2

    root = tempfile.mkdtemp(prefix="mrcsim-fuzz-")
    start = time.monotonic()
    results = []
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            # Longest timeouts first, so that a slow case does not start last.
            order = sorted(cases, key=lambda c: -c.get("timeout", DEFAULT_TIMEOUT) if "timeout" in c else 0)
            futures = {pool.submit(run_case, c, args, root): c for c in order}
            for fut in concurrent.futures.as_completed(futures):
                try:
                    r = fut.result()
                except Exception as e:  # a bug of the runner or the corpus: report it as the case's
                    c = futures[fut]
                    r = Result(c, None, "", 0, str(c.get("argv", c.get("python")))[:100], "runner-error",
                               f"{type(e).__name__}: {e}")
                results.append(r)
                if r.cause:
                    print(f"FAIL {r.case['id']} [{r.cause}{': ' + r.detail if r.detail else ''}] exit={r.status} "
                          f"({r.seconds:.1f} s) $ {r.command} :: {first_line(r.stderr)}", flush=True)
                elif args.verbose:
                    print(f"ok   {r.case['id']} exit={r.status} ({r.seconds:.1f} s) :: {first_line(r.stderr)}", flush=True)
    finally:
        if args.python_path:
            args.zygote.close()
        if args.keep:
            print(f"run_fuzz: temporary directories kept in {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    elapsed = time.monotonic() - start
    failed = [r for r in results if r.cause]
    by_cause = {}
    for r in failed:
        by_cause[r.cause] = by_cause.get(r.cause, 0) + 1
    slowest = max(results, key=lambda r: r.seconds) if results else None
    print(f"fuzz: {len(results)} cases, {len(results) - len(failed)} passed, {len(failed)} failed"
          + (" (" + ", ".join(f"{k} {v}" for k, v in sorted(by_cause.items())) + ")" if failed else "")
          + f" in {elapsed:.1f} s with -j {args.jobs}"
          + (f"; slowest {slowest.case['id']} {slowest.seconds:.1f} s" if slowest else "")
          + (f"; {len(skipped)} python cases skipped (no --python-path)" if skipped else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
