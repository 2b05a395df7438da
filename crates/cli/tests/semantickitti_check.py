"""Checks a SemanticKITTI export against the recording it came from, with readers we did not
write: pykitti's odometry loader (velodyne scans, poses, times, calibration) and numpy.fromfile
for the labels as the format's spec lays them out (uint32: class in the lower 16 bits, instance
in the upper 16), the recording read with mcap + mcap-ros2-support.

usage: semantickitti_check.py RECORDING.mcap EXPORT_DIR TOPIC
"""
import json
import sys
from pathlib import Path

import numpy as np
import pykitti
from mcap.reader import make_reader
from mcap_ros2.decoder import DecoderFactory

from transforms import Transforms

recording, out, topic = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
THINGS = set(range(10, 33))

clouds, tree = [], Transforms()
with open(recording, "rb") as f:
    reader = make_reader(f, decoder_factories=[DecoderFactory()])
    labels = {m.name: m.metadata for m in reader.iter_metadata()}["passerby.labels"]
    for _, channel, _, msg in reader.iter_decoded_messages(topics=[topic, "/tf", "/tf_static"]):
        if channel.topic == topic:
            clouds.append(msg)
            continue
        tree.add(channel.topic, msg)


classes = {c["id"]: c["name"] for c in json.loads(labels["classes"])}
instances = {i["name"]: i["id"] for i in json.loads(labels["instances"])}
about = json.loads((out / "sequences/00/passerby.json").read_text())
mapping = {c["id"]: c["semantic_kitti_id"] for c in about["classes"]}
assert {c["id"]: c["name"] for c in about["classes"]} == classes
by_name = {classes[i]: k for i, k in mapping.items()}
assert by_name["pedestrian"] == 30 and by_name["ground"] == 49 and by_name["wall"] == 50, by_name
mapping[0] = 0

data = pykitti.odometry(str(out), "00")
assert len(data) == len(clouds) == about["scans"] > 0, (len(data), len(clouds))
assert np.allclose(data.calib.T_cam0_velo, np.eye(4))
stamp0 = clouds[0].header.stamp.sec * 10**9 + clouds[0].header.stamp.nanosec
first = tree.map_from(clouds[0].header.frame_id, stamp0)
person_points = 0
for i, msg in enumerate(clouds):
    raw = np.frombuffer(bytes(msg.data), dtype=np.uint8).reshape(-1, msg.point_step)
    xyzi = raw[:, :16].copy().view(np.float32)
    velo = data.get_velo(i)
    assert velo.shape == (msg.width, 4) and velo.dtype == np.float32
    assert velo.tobytes() == xyzi.tobytes(), f"scan {i}: points differ"
    ours = raw[:, 18:20].copy().view(np.uint16).ravel()
    instance = raw[:, 24:28].copy().view(np.uint32).ravel()
    label = np.fromfile(out / f"sequences/00/labels/{i:06d}.label", dtype=np.uint32)
    semantic, upper = label & 0xFFFF, label >> 16
    expected = np.array([mapping[c] for c in ours], dtype=np.uint32)
    assert (semantic == expected).all(), f"scan {i}: classes"
    things = np.isin(expected, list(THINGS))
    assert (upper == np.where(things, instance, 0)).all(), f"scan {i}: instances"
    person_points += int(((semantic == 30) & (upper == instances["passerby1"])).sum())
    stamp = msg.header.stamp.sec * 10**9 + msg.header.stamp.nanosec
    truth = np.linalg.inv(first) @ tree.map_from(msg.header.frame_id, stamp)
    assert np.abs(data.poses[i] - truth).max() < 1e-9, f"scan {i}: pose {data.poses[i]} vs {truth}"
    assert abs(data.timestamps[i].total_seconds() - (stamp - stamp0) * 1e-9) < 1e-6
sequence_poses = np.loadtxt(out / "sequences/00/poses.txt").reshape(-1, 3, 4)
assert np.array_equal(sequence_poses, np.array(data.poses)[:, :3, :])
assert person_points > 50, person_points
moved = np.linalg.norm(data.poses[-1][:3, 3])
assert moved > 1.0, moved
print(f"{len(clouds)} scans, {person_points} person points, moved {moved:.2f} m")
