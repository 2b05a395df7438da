"""`passerby.sweep` on the local engine and on a real local Ray cluster: the same scenarios give
byte-identical outputs and the same manifest hashes as each other and as `passerby sweep`'s
process pool would (both run the engine the same way); the cluster listens on loopback only;
a second sweep skips what is done."""

import json
import pathlib

import pytest

import passerby

ROOT = pathlib.Path(__file__).resolve().parents[2]
WORLD = ROOT / "examples" / "sensor_rig.world.xml"


def spec(tmp_path, world=WORLD):
    path = tmp_path / "spec.toml"
    path.write_text(
        f'worlds = ["{world}"]\nseeds = [1, 2]\nduration = 0.5\nexports = ["semantickitti"]\n'
        "offline = true\n[variables]\nYARD = [8, 12]\n"
    )
    return path


def hashes(records):
    return {r["scenario"]: [(o["path"].split("/", 1)[1], o["sha256"], o["bytes"]) for o in r["outputs"]]
            for r in records if r["status"] != "failed"}


def listening():
    """Local addresses of listening TCP sockets, as (hex address, port)."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in pathlib.Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            if state == "0A":
                address, port = local.split(":")
                found.add((address, int(port, 16)))
    return found


LOOPBACK = {"0100007F", "0000000000000000FFFF00000100007F", "00000000000000000000000001000000"}


def test_local_and_ray_sweeps_are_byte_identical_and_resume(tmp_path):
    ray = pytest.importorskip("ray")
    path = spec(tmp_path)
    local = passerby.sweep(path, tmp_path / "local", engine="local", jobs=2)
    assert [r["status"] for r in local] == ["ok"] * 4
    manifest = [json.loads(l) for l in (tmp_path / "local" / "manifest.jsonl").read_text().splitlines()]
    assert sorted(r["scenario"] for r in manifest) == [r["scenario"] for r in local]

    before = listening()
    runner = passerby._ray_runner(None)  # starts the cluster passerby.sweep would
    try:
        new = listening() - before
        assert new, "the cluster listens"
        assert all(address in LOOPBACK for address, _ in new), sorted(new)
        assert all(n["NodeManagerAddress"] == "127.0.0.1" for n in ray.nodes())
        on_ray = passerby.sweep(path, tmp_path / "ray", engine="ray")
        assert [r["engine"] for r in on_ray] == ["ray"] * 4
        assert hashes(on_ray) == hashes(local)
        for r in local:
            for o in r["outputs"]:
                if o["path"].endswith("run.mcap"):
                    assert (tmp_path / "local" / o["path"]).read_bytes() == (tmp_path / "ray" / o["path"]).read_bytes()
        again = passerby.sweep(path, tmp_path / "ray", engine="ray")
        assert [r["status"] for r in again] == ["skipped"] * 4
        assert hashes(again) == hashes(local)
    finally:
        runner.close()


def test_a_failing_scenario_is_retried_once_and_a_bad_spec_names_its_line(tmp_path):
    bad = tmp_path / "bad.world.xml"
    bad.write_text('<mvsim_world version="1.0">\n  <vehicle name="r1" class="nope"/>\n</mvsim_world>\n')
    records = passerby.sweep(spec(tmp_path, bad), tmp_path / "out")
    assert len(records) == 8 and {r["attempt"] for r in records} == {1, 2}
    assert all(r["status"] == "failed" and "bad.world.xml:2:" in r["error"] for r in records)
    typo = tmp_path / "typo.toml"
    typo.write_text('worlds = ["a"]\nduration = 1\nseedz = [1]\n')
    with pytest.raises(ValueError, match=r"typo.toml:3:1"):
        passerby.sweep(typo, tmp_path / "typo")
    shards = [passerby.sweep(spec(tmp_path), tmp_path / "shards", shard=(i, 3)) for i in range(3)]
    assert sorted(r["scenario"] for s in shards for r in s) == [f"{i:04}" + s for i, s in enumerate(
        ["_sensor_rig_s1_YARD-8", "_sensor_rig_s1_YARD-12", "_sensor_rig_s2_YARD-8", "_sensor_rig_s2_YARD-12"])]
    assert (tmp_path / "shards" / "manifest-shard-2-of-3.jsonl").exists()


def test_the_cli_runs_a_sweep_on_ray_through_the_package(tmp_path):
    import os
    import subprocess
    import sys

    path = spec(tmp_path)
    local = passerby.sweep(path, tmp_path / "local", engine="local")
    env = dict(os.environ, PASSERBY_PYTHON=sys.executable, PASSERBY_OFFLINE="1", RAY_AUTH_MODE="disabled")
    env.pop("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", None)  # the package must set it itself
    head_env = dict(env, RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0")
    # A cluster already running on loopback, reached by its address (a driver that looked for
    # its raylet at the machine's own address would wait for ever).
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    ray_cli = str(pathlib.Path(sys.executable).with_name("ray"))
    subprocess.run([ray_cli, "start", "--head", "--node-ip-address", "127.0.0.1", "--port", str(port),
                    "--include-dashboard", "false", "--disable-usage-stats"], env=head_env, check=True,
                   capture_output=True)
    try:
        ran = subprocess.run([os.environ["PASSERBY_BIN"], "sweep", str(path), "--out", str(tmp_path / "ray"),
                              "--engine", "ray", "--shard", "1/2", "--ray-address", f"127.0.0.1:{port}"],
                             env=env, capture_output=True, text=True, timeout=300)
    finally:
        subprocess.run([ray_cli, "stop", "--force"], env=head_env, capture_output=True)
    assert ran.returncode == 0, ran.stderr
    assert "Connecting to existing Ray cluster" in ran.stderr
    assert "2 scenarios on Ray: 2 done, 0 failed" in ran.stdout
    records = [json.loads(l) for l in (tmp_path / "ray" / "manifest-shard-1-of-2.jsonl").read_text().splitlines()]
    assert [r["engine"] for r in records] == ["ray", "ray"]
    assert hashes(records) == {k: v for k, v in hashes(local).items() if int(k[:4]) % 2 == 1}
