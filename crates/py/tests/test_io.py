"""storlab.io runs `storlab io` with its safety checks: real I/O on a file it creates, and
an existing file is refused unless named by ``overwrite`` (the command line's gate)."""

import pytest
import storlab


def test_io_on_a_new_file(tmp_path):
    target = tmp_path / "data.dat"
    r = storlab.io(target=target, profile="randread-8k", size="16MiB", duration="1s",
                   warmup="0s")
    run = r.runs[0]
    assert run["target"]["kind"] == "real"
    assert run["metrics"]["ios"] > 0
    assert r.to_arrow().column("iops")[0].as_py() == run["metrics"]["iops"]
    assert not target.exists()  # created for the run and removed, as the command does


def test_io_refuses_an_existing_file(tmp_path):
    target = tmp_path / "precious.dat"
    target.write_bytes(b"keep me" * 1000)
    with pytest.raises(storlab.BadInput, match="precious.dat"):
        storlab.io(target=target, profile="randwrite-8k", size="16MiB", duration="1s",
                   warmup="0s")
    assert target.read_bytes() == b"keep me" * 1000
