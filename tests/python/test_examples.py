"""examples/: the sweep-to-DataFrame example runs its tiny sweep in seconds, gives a row per point
and transport, and writes its figure."""
import importlib.util
import os
import subprocess
import sys

from conftest import ROOT, SCRIPT_ENV, png_size

EXAMPLE = os.path.join(ROOT, "examples", "sweep_dataframe.py")


def load_example(mrcsim_module):
    """The example as a module (it imports mrcsim, already imported from MODULE_DIR)."""
    spec = importlib.util.spec_from_file_location("sweep_dataframe", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.mrcsim is mrcsim_module
    return module


def test_the_sweep_example_writes_its_figure(tmp_path):
    figure = tmp_path / "ev.png"
    p = subprocess.run([sys.executable, EXAMPLE, str(figure)], capture_output=True, text=True, timeout=120,
                       env=SCRIPT_ENV)
    assert p.returncode == 0, p.stdout + p.stderr
    width, height = png_size(figure)
    assert width > 500 and height > 300
    assert f"figure: {figure}" in p.stdout and "message_p99_us" in p.stdout


def test_the_sweep_example_gives_a_row_per_point_and_transport(mrcsim_module):
    example = load_example(mrcsim_module)
    df = example.sweep([8, 32], seeds=2)
    assert len(df) == 2 * 2 * 2
    assert sorted(set(df["ev_count"])) == [8, 32] and sorted(set(df["seed"])) == [1, 2]
    assert df.groupby(["ev_count", "seed"])["transport"].apply(list).tolist() == [["mrc", "rocev2"]] * 4
    assert (df["message_p99_us"] > 0).all() and (df["messages_completed"] == 8 * 7).all()


def test_the_example_refuses_bad_ev_counts(tmp_path):
    p = subprocess.run([sys.executable, EXAMPLE, str(tmp_path / "x.png"), "--ev-counts", "8,many"],
                       capture_output=True, text=True, timeout=60, env=SCRIPT_ENV)
    assert p.returncode == 2 and "--ev-counts 8,many: expected integers" in p.stderr, p.stderr
    assert not (tmp_path / "x.png").exists()
