"""Reads a Passerby recording with readers we did not write (mcap + mcap-ros2-support, rosbags) and
checks its contract: every topic decodes, counts match the sensors' rates over the duration, point
fields are as listed, stamps increase, the walking actor's points carry its instance id.

With a dump folder, its PCDs must load with pypcd4 and hold the same points as the recording.

usage: readers.py RECORDING.mcap DURATION_SECONDS [DUMP_DIR]
"""
import json
import sys
from pathlib import Path

from mcap.reader import make_reader
from mcap_ros2.decoder import DecoderFactory
from rosbags.highlevel import AnyReader

path, duration = sys.argv[1], float(sys.argv[2])
expected_rates = {  # messages per second, from examples/sensor_rig.world.xml
    "/clock": 200, "/tf": 200, "/r1/odom": 200, "/r1/scan": 20, "/r1/imu": 20,
    "/r1/vlp16_points": 10, "/r1/gps": 1, "/r1/collision": 200,
    "/ground_truth/actors": 200, "/ground_truth/actor_markers": 200, "/ground_truth/actor_states": 200,
    "/r1/cam/image_raw": 10, "/r1/cam/camera_info": 10, "/r1/cam/labels/instance": 10,
    "/r1/cam/labels/class": 10, "/r1/cam/labels/boxes": 10,
    "/r1/rgbd_rgb/image_raw": 10, "/r1/rgbd_rgb/camera_info": 10, "/r1/rgbd_rgb/labels/instance": 10,
    "/r1/rgbd_rgb/labels/class": 10, "/r1/rgbd_rgb/labels/boxes": 10,
    "/r1/rgbd_depth/image_raw": 10, "/r1/rgbd_depth/camera_info": 10, "/r1/rgbd_points": 10,
}
fields = [("x", 0, 7), ("y", 4, 7), ("z", 8, 7), ("intensity", 12, 7), ("ring", 16, 4),
          ("time", 20, 7), ("instance", 24, 6), ("label", 18, 4)]

counts, last_stamp, actor_points, static_frames = {}, {}, 0, set()
with open(path, "rb") as f:
    reader = make_reader(f, decoder_factories=[DecoderFactory()])
    labels = {m.name: m.metadata for m in reader.iter_metadata()}["passerby.labels"]
    instances = {i["name"]: i["id"] for i in json.loads(labels["instances"])}
    walker = instances["passerby1"]
    for schema, channel, message, msg in reader.iter_decoded_messages():
        counts[channel.topic] = counts.get(channel.topic, 0) + 1
        stamp = None
        if hasattr(msg, "header"):
            stamp = msg.header.stamp.sec * 10**9 + msg.header.stamp.nanosec
        elif channel.topic == "/clock":
            stamp = msg.clock.sec * 10**9 + msg.clock.nanosec
        if stamp is not None:
            assert stamp > last_stamp.get(channel.topic, -1), f"{channel.topic}: stamps must increase"
            last_stamp[channel.topic] = stamp
        if channel.topic == "/r1/cam/image_raw":
            assert msg.encoding == "rgb8" and msg.width == 640 and msg.step == 1920, msg.encoding
            assert msg.header.frame_id == "r1/cam_optical"
        if channel.topic == "/r1/cam/labels/instance":
            assert msg.encoding == "32SC1" and len(msg.data) == 640 * 480 * 4
        if channel.topic == "/tf_static":
            static_frames |= {t.child_frame_id for t in msg.transforms}
        if channel.topic in ("/r1/cam/labels/boxes", "/r1/rgbd_rgb/labels/boxes"):
            for d in msg.detections:
                assert d.id == str(walker) and d.results[0].hypothesis.class_id == "pedestrian", d
                assert 0.0 <= d.results[0].hypothesis.score <= 1.0 and d.bbox.size_x > 0, d
        if channel.topic == "/r1/rgbd_depth/image_raw":
            assert msg.encoding == "16UC1" and msg.header.frame_id == "r1/rgbd_depth_optical"
            depths = [int.from_bytes(bytes(msg.data[i:i + 2]), "little") for i in range(0, len(msg.data), 2)]
            valid = [d for d in depths if d]
            assert valid and max(valid) <= 15000, "depth in mm within the clip range"
        if channel.topic == "/r1/rgbd_points":
            assert [x.name for x in msg.fields] == ["x", "y", "z", "instance", "label"], msg.fields
            assert msg.width > 0 and msg.header.frame_id == "r1/rgbd_depth_optical"
        if channel.topic == "/ground_truth/actors":
            d = msg.detections[0]
            assert d.id == str(walker) and d.results[0].hypothesis.class_id == "pedestrian", d
            assert abs(d.bbox.size.z - 1.7) < 1e-9 and abs(d.bbox.size.x - 0.6) < 1e-9, d.bbox
        if channel.topic == "/ground_truth/actor_markers":
            kinds = sorted(m.type for m in msg.markers)
            assert kinds[0] == 3, kinds  # the capsule; a skinned actor adds its skeleton (5)
        if channel.topic == "/ground_truth/actor_states":
            s = msg.actors[0]
            assert s.name == "passerby1" and s.instance == walker and s.gait in ("idle", "walk", "run", "turn"), s
        if channel.topic == "/r1/vlp16_points":
            assert [(x.name, x.offset, x.datatype) for x in msg.fields] == fields, msg.fields
            assert msg.point_step == 28 and msg.height == 1 and msg.header.frame_id == "r1/vlp16"
            data = bytes(msg.data)
            for i in range(msg.width):
                if int.from_bytes(data[28 * i + 24:28 * i + 28], "little") == walker:
                    actor_points += 1
for topic, rate in expected_rates.items():
    want = round(rate * duration)
    assert abs(counts.get(topic, 0) - want) <= 1, f"{topic}: {counts.get(topic)} messages, expected {want}"
assert actor_points > 0, "the walking actor is seen with its instance id"
for frame in ["r1/cam", "r1/cam_optical", "r1/rgbd", "r1/rgbd_depth_optical", "r1/rgbd_rgb_optical"]:
    assert frame in static_frames, (frame, static_frames)

with AnyReader([Path(path)]) as bag:
    decoded = 0
    for connection, timestamp, raw in bag.messages():
        bag.deserialize(raw, connection.msgtype)
        decoded += 1
    assert decoded == sum(counts.values()), (decoded, counts)
if len(sys.argv) > 3:
    from pypcd4 import PointCloud
    dump = Path(sys.argv[3])
    pcds = sorted((dump / "r1" / "vlp16").glob("*.pcd"))
    assert len(pcds) == counts["/r1/vlp16_points"], (len(pcds), counts["/r1/vlp16_points"])
    cloud = PointCloud.from_path(pcds[0])
    assert cloud.fields == ("x", "y", "z", "intensity", "ring", "time", "instance", "label"), cloud.fields
    assert cloud.points > 0
    for name in ["README.md", "labels.json", "poses.csv", "actors.jsonl", "r1/imu/imu.csv",
                 "r1/gps/gnss.csv", "r1/scan/scans.csv"]:
        assert (dump / name).is_file(), name
    assert len(list((dump / "r1" / "cam").glob("*[0-9].png"))) == counts["/r1/cam/image_raw"]
    assert len(list((dump / "r1" / "cam").glob("*_labels.png"))) == counts["/r1/cam/image_raw"]
    assert len(list((dump / "r1" / "rgbd").glob("*_depth.png"))) == counts["/r1/rgbd_depth/image_raw"]
    rgbd_pcds = sorted((dump / "r1" / "rgbd").glob("*_points.pcd"))
    assert len(rgbd_pcds) == counts["/r1/rgbd_points"]
    cloud = PointCloud.from_path(rgbd_pcds[0])
    assert cloud.fields == ("x", "y", "z", "rgb", "instance", "label"), cloud.fields
    assert cloud.points > 0
    imu_rows = (dump / "r1/imu/imu.csv").read_text().strip().splitlines()
    assert len(imu_rows) - 1 == counts["/r1/imu"], len(imu_rows)
print(f"ok: {sum(counts.values())} messages on {len(counts)} topics, {actor_points} points on the walker")
