"""The `passerby` package end to end on the bundled example (a jackal with a laser, a VLP-16, a
camera, an RGB-D camera, an IMU and a GNSS, in a walled yard with a walking person): arrays are
checked against the MCAP recording of the same run, read with the `mcap` readers."""

import pathlib

import numpy as np
import pytest
from mcap.reader import make_reader
from mcap_ros2.decoder import DecoderFactory

import passerby

ROOT = pathlib.Path(__file__).resolve().parents[2]
WORLD = ROOT / "examples" / "sensor_rig.world.xml"
CACHE = ROOT.parent / "shared" / "assets" / "mvsim-models"


def simulation(**options):
    return passerby.Simulation(str(WORLD), asset_cache=str(CACHE), **options)


def recorded(path, topic):
    """Every message of `topic` in the recording, decoded, in log order."""
    with open(path, "rb") as f:
        reader = make_reader(f, decoder_factories=[DecoderFactory()])
        return [m for _, _, _, m in reader.iter_decoded_messages(topics=[topic])]


def test_arrays_equal_the_recording_of_the_same_run(tmp_path):
    out = tmp_path / "run.mcap"
    clouds, images, scans = [], [], []
    with simulation(seed=3, threads=1, record=str(out)) as sim:
        sim.set_command("r1", 1.0)
        while sim.time < 0.5 - 1e-9:
            for o in sim.step():
                assert o["stamp"] <= sim.time + 1e-9
                if o["kind"] == "point_cloud":
                    clouds.append(o)
                elif o["kind"] == "camera":
                    images.append(o)
                elif o["kind"] == "laser_scan":
                    scans.append(o)
        x = sim.vehicles()[0]["pose"][0]
    assert abs(x - 0.5) < 0.05, x
    assert [c["sensor"] for c in clouds] == ["r1/vlp16"] * 5

    messages = recorded(out, "/r1/vlp16_points")
    assert len(messages) == len(clouds)
    for ours, msg in zip(clouds, messages):
        points = ours["points"]
        assert points.dtype.names == ("x", "y", "z", "intensity", "ring", "time", "instance", "label")
        assert points.dtype.itemsize == msg.point_step
        assert len(points) == msg.width * msg.height > 1000
        assert points.tobytes() == bytes(msg.data)
        assert ours["range_image"].shape == (16, 1808)

    image = images[0]
    assert all({"name", "instance", "label", "min", "max", "visible_fraction"} <= set(b) for b in image["boxes"])
    (msg,) = recorded(out, "/r1/cam/image_raw")[:1]
    assert image["rgb"].shape == (msg.height, msg.width, 3)
    assert image["rgb"].tobytes() == bytes(msg.data)
    assert image["depth"].shape == image["label"].shape == (msg.height, msg.width)

    msg = recorded(out, "/r1/scan")[0]
    assert np.array_equal(scans[0]["ranges"], np.array(msg.ranges, dtype=np.float32), equal_nan=True)


def test_any_thread_count_gives_the_same_points():
    def first_cloud(threads):
        with simulation(seed=1, threads=threads) as sim:
            while True:
                for o in sim.step():
                    if o["kind"] == "point_cloud":
                        return o["points"].tobytes()

    assert first_cloud(1) == first_cloud(2)


def test_world_variables_change_the_world():
    def ranges(yard):
        with simulation(variables={"YARD": yard}) as sim:
            while True:
                for o in sim.step():
                    if o["kind"] == "laser_scan":
                        return o["ranges"]

    assert not np.array_equal(ranges("12"), ranges("20"), equal_nan=True)


def test_a_bad_world_raises_with_its_position(tmp_path):
    bad = tmp_path / "bad.world.xml"
    bad.write_text('<mvsim_world version="1.0">\n  <vehicle name="r1"></vehicle>\n</mvsim_world>\n')
    with pytest.raises(passerby.WorldError) as raised:
        passerby.Simulation(str(bad))
    message = str(raised.value)
    assert f"{bad}:2:3: error:" in message and "init_pose" in message, message


def test_bad_arguments_and_a_closed_simulation_raise():
    with pytest.raises(ValueError):
        simulation(threads=0)
    sim = simulation()
    with pytest.raises(RuntimeError, match="no vehicle|unknown|nope"):
        sim.set_command("nope", 1.0)
    with pytest.raises(ValueError):
        sim.run(float("nan"))
    sim.close()
    with pytest.raises(RuntimeError, match="closed"):
        sim.step()


def test_poses_and_transforms_set_from_python_move_objects():
    with simulation() as sim:
        sim.step()
        sim.set_pose("r1", 2.0, 1.0, yaw=0.5)
        sim.set_transform("passerby1", translation=(4.0, -3.0, 0.0), yaw_pitch_roll=(1.0, 0.0, 0.0))
        sim.step()
        (r1,) = sim.vehicles()
        assert r1["pose"][:2] == (2.0, 1.0) and r1["pose"][3] == 0.5
        actor = next(a for a in sim.actors() if a["name"] == "passerby1")
        assert actor["pose"][:2] == (4.0, -3.0) and abs(actor["pose"][3] - 1.0) < 1e-9
        sim.release("r1")
        sim.set_command("r1", 1.0)
        sim.run(0.5)
        assert sim.vehicles()[0]["pose"][0] > 2.3
        with pytest.raises(RuntimeError):
            sim.set_pose("nobody", 0.0, 0.0)


def test_actors_skeletons_stand_where_the_actors_are(tmp_path):
    walker = ROOT.parent / "shared" / "assets" / "characters" / "Walker.glb"
    world = tmp_path / "walker.world.xml"
    world.write_text(f"""<mvsim_world version="1.0">
  <actor name="walker1">
    <init_pose>2 1 0</init_pose>
    <visual><model_uri>{walker}</model_uri><model_roll>90</model_roll></visual>
    <path loop="true"><waypoint>6 1 0</waypoint><waypoint>2 1 180</waypoint></path>
  </actor>
</mvsim_world>
""")
    with passerby.Simulation(str(world)) as sim:
        sim.run(0.3)
        (person,) = sim.actors()
        bones = person["skeleton"]
        assert bones.ndim == 3 and bones.shape[1:] == (2, 3) and len(bones) >= 5, bones.shape
        x, y = person["pose"][:2]
        assert np.abs(bones[:, :, 0] - x).max() < 1.5 and np.abs(bones[:, :, 1] - y).max() < 1.5
        assert bones[:, :, 2].max() > 1.2  # a head well above the feet


def test_noise_scale_scales_the_noise_and_tum_writes_ground_truth(tmp_path):
    def scans(k):
        found = []
        with simulation(seed=1, threads=1, noise_scale=k, tum=str(tmp_path / f"tum{k}")) as sim:
            while sim.time < 0.3 - 1e-9:
                found += [o["ranges"].astype(np.float64) for o in sim.step() if o["kind"] == "laser_scan"]
        return np.concatenate(found)

    exact, once, twice = scans(0.0), scans(1.0), scans(2.0)
    finite = np.isfinite(exact) & np.isfinite(once) & np.isfinite(twice)
    spread1 = np.median(np.abs(once[finite] - exact[finite]))
    spread2 = np.median(np.abs(twice[finite] - exact[finite]))
    assert 0.004 < spread1 < 0.01 and abs(spread2 / spread1 - 2) < 0.1, (spread1, spread2)
    lines = (tmp_path / "tum0.0" / "r1_scan.tum").read_text().splitlines()
    assert len(lines) == 60 and len(lines[0].split()) == 8
    with pytest.raises(ValueError, match="noise_scale"):
        simulation(noise_scale=-1.0)


def test_actors_carry_their_recorded_box_and_recordings_export(tmp_path):
    out = tmp_path / "run.mcap"
    with simulation(seed=2, threads=1, record=str(out)) as sim:
        sim.set_command("r1", 0.5)
        sim.run(1.0)
        actors = sim.actors()
    (walker,) = actors
    truth = recorded(out, "/ground_truth/actors")[-1].detections[0]
    assert walker["instance"] == int(truth.id) and walker["class"] == truth.results[0].hypothesis.class_id
    c, s = truth.bbox.center.position, truth.bbox.size
    assert walker["box"]["center"] == pytest.approx((c.x, c.y, c.z), abs=1e-12)
    assert walker["box"]["size"] == pytest.approx((s.x, s.y, s.z), abs=1e-12)
    semantic = passerby.export_semantic_kitti(str(out), str(tmp_path / "sk"))
    assert semantic["scans"] == 10 and semantic["topic"] == "/r1/vlp16_points"
    labels = np.fromfile(tmp_path / "sk/sequences/00/labels/000000.label", dtype=np.uint32)
    assert labels.size == np.fromfile(tmp_path / "sk/sequences/00/velodyne/000000.bin", dtype=np.float32).size // 4
    kitti = passerby.export_kitti(str(out), str(tmp_path / "kitti"), camera="r1/cam")
    assert kitti["frames"] == 10
    with pytest.raises(ValueError, match="r1/rgbd_rgb"):
        passerby.export_kitti(str(out), str(tmp_path / "k2"))
