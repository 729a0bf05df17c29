"""Shared fixtures: the repository's example files and the `storlab` binary the Python
package is compared with (STORLAB_BIN, else target/release/storlab, built when missing)."""

import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def root() -> pathlib.Path:
    return ROOT


@pytest.fixture(scope="session")
def storlab_bin() -> str:
    path = os.environ.get("STORLAB_BIN") or str(ROOT / "target" / "release" / "storlab")
    if not os.path.exists(path):
        subprocess.run(["cargo", "build", "--release", "--locked", "-p", "storlab-cli"],
                       cwd=ROOT, check=True)
    return path


def without_wall_clock(text: str) -> str:
    """The result text with the one wall-clock field (sim.wall_s) blanked, and the build's
    commit (the binary may have been built at an earlier commit than the wheel)."""
    import re

    text = re.sub(r'"git_commit": "[^"]*"', '"git_commit": ""', text)
    return re.sub(r'"wall_s": [0-9.e+-]+', '"wall_s": 0', text)


@pytest.fixture(scope="session")
def ray_local():
    """One local Ray with 2 CPUs for every test that needs it (starting Ray takes seconds,
    so the tests share one)."""
    import ray
    from storlab._ray import start_env

    start_env()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             configure_logging=False)
    yield ray
    ray.shutdown()
