"""Ctrl-C in the interpreter stops a simulation: KeyboardInterrupt carrying the runs so far
(marked partial), no files left behind, and the interpreter's own Ctrl-C handling back."""

import os
import signal
import subprocess
import sys
import tempfile

SCRIPT = r"""
import os, signal, sys, tomllib
import storlab
array = tomllib.load(open(sys.argv[1], "rb"))  # a dict: written to a private directory
print("running", flush=True)
try:
    storlab.sim(array=array, profile="randread-8k", duration="100000s")
    print("finished")
except KeyboardInterrupt as e:
    print("interrupted", e.partial.partial, len(e.partial.runs), flush=True)
try:
    os.kill(os.getpid(), signal.SIGINT)  # the interpreter's handler again
    print("not raised")
except KeyboardInterrupt:
    print("python handler back", flush=True)
r = storlab.sim(array=array, profile="randread-8k", duration="1s", warmup="0")
print("next run partial", r.partial, flush=True)
"""


def test_sigint_stops_a_run(root):
    # A temporary directory of its own (removed however the test ends) as the call's TMPDIR,
    # so what the call leaves there is seen.
    with tempfile.TemporaryDirectory(prefix="storlab-interrupt-") as tmp:
        env = dict(os.environ, TMPDIR=tmp)
        p = subprocess.Popen([sys.executable, "-c", SCRIPT,
                              str(root / "examples/arrays/midrange-raid5.toml")],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        try:
            assert p.stdout.readline().strip() == "running"
            # The call starts writing its input and simulating at once; 100000 s of simulated
            # time would take many minutes, so the signal lands while it runs.
            import time
            time.sleep(1.0)
            p.send_signal(signal.SIGINT)
            out, err = p.communicate(timeout=60)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        assert p.returncode == 0, err
        assert out.splitlines() == [
            "interrupted True 1",
            "python handler back",
            "next run partial False",
        ]
        # Nothing left behind: no private directory (storlab-py-*), no other file.
        assert os.listdir(tmp) == []


KILLED = r"""
import sys
import storlab
print("running", flush=True)
storlab.sim(array=open(sys.argv[1]).read(), profile="randread-8k", duration="100000s")
"""


def test_a_killed_call_s_directory_goes_with_the_next_call(root, tmp_path, monkeypatch):
    """A process killed during a call (as Ray kills a cancelled worker) cannot remove its
    private directory; a call a minute later, in any process of the user, removes it, and
    keeps a directory of that name that holds anything storlab does not write there."""
    array = root / "examples/arrays/midrange-raid5.toml"
    env = dict(os.environ, TMPDIR=str(tmp_path))
    p = subprocess.Popen([sys.executable, "-c", KILLED, str(array)],
                         stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert p.stdout.readline().strip() == "running"
        import time
        time.sleep(1.0)
    finally:
        p.kill()
        p.wait()
    left = [d for d in os.listdir(tmp_path) if d.startswith(f"storlab-py-{p.pid}-")]
    assert len(left) == 1 and os.listdir(tmp_path / left[0]) == ["array.toml"]
    kept = tmp_path / f"storlab-py-{p.pid}-99"
    kept.mkdir()
    os.chmod(kept, 0o700)
    (kept / "array.toml").write_text("name = \"x\"\n")
    (kept / "notes.txt").write_text("mine\n")
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import storlab
    # Changed less than a minute ago: kept (its owner may have just created it, in a PID
    # namespace where its pid runs).
    r = storlab.sim(array=array.read_text(), profile="randread-8k", duration="1s", warmup="0")
    assert not r.partial
    assert sorted(os.listdir(tmp_path)) == sorted([left[0], kept.name])
    # A minute later (its time set back), unlocked and its pid gone: removed.
    past = os.stat(tmp_path / left[0]).st_mtime - 120
    os.utime(tmp_path / left[0], (past, past))
    os.utime(kept, (past, past))
    r = storlab.sim(array=array.read_text(), profile="randread-8k", duration="1s", warmup="0")
    assert not r.partial
    assert sorted(os.listdir(tmp_path)) == [kept.name]
    assert sorted(os.listdir(kept)) == ["array.toml", "notes.txt"]
