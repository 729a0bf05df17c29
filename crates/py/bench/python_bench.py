"""Benchmark of the Python package (`make bench`): writes target/bench/python.json.

Goals: a 64-cell simulated sweep on local Ray with 2 CPUs runs at least 1.7x the cells per
second of the same cells one after another; Ray's overhead per cell under 50 ms; `sim`
called from Python within 5% of the command line's simulator speed; `to_arrow` of a
10,000-interval series in under 10 ms.

Ratios are measured in one run with A and B alternating (serial and Ray sweeps, Python and
the binary), and reported as medians of the rounds.

Usage: python python_bench.py STORLAB_BIN OUT.json
"""

import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import storlab

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
ARRAY = os.path.join(ROOT, "examples", "arrays", "midrange-raid5.toml")
CELLS = {"controllers.cache": [f"{g}g" for g in range(1, 17)],
         "raid_groups[0].disks": [3, 5, 7, 9]}  # 64 cells


def timed(f):
    t = time.perf_counter()
    value = f()
    return time.perf_counter() - t, value


def sweep_case(duration, ray, rounds=2):
    """The 64 cells one after another and on Ray (2 CPUs), in alternating rounds (serial,
    Ray, serial, Ray ...: both see the same machine load over the run), each round in a
    fresh directory so no cell is read back; the medians of the walls and their ratio."""
    base = {"array": ARRAY, "profile": "randread-8k", "duration": duration, "warmup": "0",
            "seed": 1}
    serial, on_ray = [], []
    first = None
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(rounds):
            t, a = timed(lambda: storlab.sweep(base, CELLS, out=os.path.join(tmp, f"s{i}")))
            serial.append(t)
            t, b = timed(lambda: storlab.sweep(base, CELLS, engine="ray",
                                               out=os.path.join(tmp, f"r{i}")))
            on_ray.append(t)
            assert a.equals(b), "the Ray sweep differs from the serial one"
            first = a if first is None else first
            assert a.equals(first), "a serial round differs from the first"
    n = first.height
    m = statistics.median
    serial_s, ray_s = m(serial), m(on_ray)
    return {"cells": n, "simulated_per_cell": duration, "rounds": rounds,
            "serial_s": round(serial_s, 3), "ray_s": round(ray_s, 3),
            "serial_s_rounds": [round(t, 3) for t in serial],
            "ray_s_rounds": [round(t, 3) for t in on_ray],
            "serial_cells_per_s": round(n / serial_s, 2),
            "ray_cells_per_s": round(n / ray_s, 2),
            # The median of the rounds' own ratios: each pair ran back to back.
            "speedup": round(m([s / r for s, r in zip(serial, on_ray)]), 3),
            # What Ray adds per cell: 2 CPUs' time on Ray beyond the cells' own time.
            "overhead_ms_per_cell": round((2 * ray_s - serial_s) / n * 1e3, 2)}


def sim_speed(storlab_bin, rounds=6):
    """The same simulation from Python and by the binary: the simulator's own wall time
    (sim.wall_s of the result), the call's wall time and its CPU time, medians of rounds.

    Both run the same simulator code (the extension module and the binary are linked from
    the same compiled crates and execute the same instructions: checked with cachegrind), so
    a wall-time ratio away from 1 is the machine's load while each ran. This runs before
    Ray starts (Ray's processes keep the CPUs busy for a while after ray.shutdown(), and
    Python, always first, met more of that: 1.14 in the first round, about 1.0 after), and
    the rounds alternate which goes first. CPU times (the calling thread's for Python, the
    child's for the binary) depend far less on other processes than wall times do."""
    args = dict(profile="randread-8k", duration="600s", warmup="0", seed=1)
    py, cli, py_call, cli_call, py_cpu, cli_cpu = [], [], [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.json")

        def run_python():
            cpu = time.thread_time()
            t, r = timed(lambda: storlab.sim(array=ARRAY, **args))
            py_cpu.append(time.thread_time() - cpu)
            py.append(r.runs[0]["sim"]["wall_s"])
            py_call.append(t)

        def run_binary():
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t, _ = timed(lambda: subprocess.run(
                [storlab_bin, "sim", "--array", ARRAY, "--profile", "randread-8k",
                 "--duration", "600s", "--warmup", "0", "--seed", "1", "--json", out],
                check=True, capture_output=True))
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cli_cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
            with open(out) as f:
                cli.append(json.load(f)["runs"][0]["sim"]["wall_s"])
            cli_call.append(t)

        for i in range(rounds):
            pair = (run_python, run_binary) if i % 2 == 0 else (run_binary, run_python)
            for run in pair:
                run()
    m = statistics.median
    return {"python_sim_wall_s": m(py), "cli_sim_wall_s": m(cli),
            "python_call_s": round(m(py_call), 4), "cli_process_s": round(m(cli_call), 4),
            "python_over_cli": round(m(py) / m(cli), 4),
            "python_over_cli_rounds": [round(p / c, 4) for p, c in zip(py, cli)],
            "python_cpu_s": round(m(py_cpu), 4), "cli_cpu_s": round(m(cli_cpu), 4),
            "python_over_cli_cpu": round(m(py_cpu) / m(cli_cpu), 4), "rounds": rounds}


def to_arrow_speed(rounds=20):
    r = storlab.sim(array=ARRAY, profile="randread-8k", duration="10000s", warmup="0")
    times = []
    for _ in range(rounds):
        t, table = timed(lambda: r.to_arrow("series"))
        times.append(t)
    return {"intervals": table.num_rows, "median_ms": round(statistics.median(times) * 1e3, 3),
            "min_ms": round(min(times) * 1e3, 3), "rounds": rounds}


def main():
    storlab_bin, out = sys.argv[1], sys.argv[2]
    # Before Ray starts: its processes keep the CPUs busy for a while after ray.shutdown().
    sim = sim_speed(storlab_bin)
    import ray
    from storlab._ray import start_env

    start_env()  # as storlab.sweep starts Ray
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             configure_logging=False)
    try:
        long_cells = sweep_case("120s", ray)
        short_cells = sweep_case("10s", ray)
    finally:
        ray.shutdown()
    arrow = to_arrow_speed()
    report = {
        "machine": {"nproc": os.cpu_count(), "python": platform.python_version(),
                    "load_average_1m_at_start": os.getloadavg()[0]},
        "sweep_64_cells_ray_2_cpus": long_cells | {"goal_speedup_min": 1.7,
                                                    "goal_overhead_ms_max": 50},
        "sweep_64_short_cells_ray_2_cpus": short_cells,
        "sim_python_vs_cli": sim | {"goal_ratio_max": 1.05},
        "to_arrow_series": arrow | {"goal_ms_max": 10},
    }
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w") as f:
        json.dump(report, f, indent=2)
        f.write("\n")
    print(json.dumps(report, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
