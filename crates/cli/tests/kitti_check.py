"""Checks a KITTI object export against the recording it came from, per the object devkit's
readme (label fields, calib keys, corners of a 3D box from h, w, l, location and rotation_y,
projected with P2), with Pillow for the images and mcap + mcap-ros2-support for the recording.

usage: kitti_check.py RECORDING.mcap EXPORT_DIR CAMERA_TOPIC LIDAR_TOPIC
"""
import math
import sys
from pathlib import Path

import numpy as np
from PIL import Image
from mcap.reader import make_reader
from mcap_ros2.decoder import DecoderFactory

from transforms import Transforms, matrix, ns

recording, out, camera, lidar = sys.argv[1], Path(sys.argv[2]), sys.argv[3], sys.argv[4]


images, boxes2d, truth, sweeps, tree = [], {}, {}, {}, Transforms()
with open(recording, "rb") as f:
    reader = make_reader(f, decoder_factories=[DecoderFactory()])
    topics = [camera + "/image_raw", camera + "/labels/boxes", "/ground_truth/actors", lidar, "/tf", "/tf_static"]
    for _, channel, _, msg in reader.iter_decoded_messages(topics=topics):
        t = channel.topic
        if t == camera + "/image_raw":
            images.append(msg)
        elif t == camera + "/labels/boxes":
            boxes2d[ns(msg.header.stamp)] = msg.detections
        elif t == "/ground_truth/actors":
            truth[ns(msg.header.stamp)] = msg
        elif t == lidar:
            sweeps[ns(msg.header.stamp)] = msg
        else:
            tree.add(t, msg)


def read_calib(path):
    calib = {}
    for line in path.read_text().splitlines():
        key, values = line.split(":", 1)
        calib[key] = np.array([float(v) for v in values.split()])
    return calib


def devkit_corners(h, w, l, loc, ry):
    """The object devkit's computeBox3D."""
    R = np.array([[math.cos(ry), 0, math.sin(ry)], [0, 1, 0], [-math.sin(ry), 0, math.cos(ry)]])
    x = [l / 2, l / 2, -l / 2, -l / 2, l / 2, l / 2, -l / 2, -l / 2]
    y = [0, 0, 0, 0, -h, -h, -h, -h]
    z = [w / 2, -w / 2, -w / 2, w / 2, w / 2, -w / 2, -w / 2, w / 2]
    return R @ np.array([x, y, z]) + np.array(loc).reshape(3, 1)


train = (out / "ImageSets/train.txt").read_text().split()
assert len(train) == len(images) > 0, (len(train), len(images))
labelled, framed = 0, 0
for name, msg in zip(train, images):
    stamp = ns(msg.header.stamp)
    png = Image.open(out / f"training/image_2/{name}.png")
    assert png.mode == "RGB" and png.size == (msg.width, msg.height)
    assert png.tobytes() == bytes(msg.data), f"{name}: pixels differ"
    calib = read_calib(out / f"training/calib/{name}.txt")
    assert set(calib) == {"P0", "P1", "P2", "P3", "R0_rect", "Tr_velo_to_cam", "Tr_imu_to_velo"}
    P2 = calib["P2"].reshape(3, 4)
    cam_from_map = np.linalg.inv(tree.map_from(msg.header.frame_id, stamp))
    # velodyne: the sweep stamped nearest the frame, with its transform to the camera.
    sweep_stamp = min(sweeps, key=lambda s: (abs(s - stamp), s))
    sweep = sweeps[sweep_stamp]
    velo = np.fromfile(out / f"training/velodyne/{name}.bin", dtype=np.float32).reshape(-1, 4)
    raw = np.frombuffer(bytes(sweep.data), dtype=np.uint8).reshape(-1, sweep.point_step)
    assert velo.tobytes() == raw[:, :16].tobytes(), f"{name}: sweep differs"
    velo_to_cam = cam_from_map @ tree.map_from(sweep.header.frame_id, sweep_stamp)
    assert np.abs(calib["Tr_velo_to_cam"].reshape(3, 4) - velo_to_cam[:3]).max() < 1e-9

    recorded = {d.id: d for d in boxes2d.get(stamp, [])}
    actors = {d.id: d for d in truth[stamp].detections}
    lines = (out / f"training/label_2/{name}.txt").read_text().splitlines()
    assert len(lines) == len(recorded), f"{name}: {len(lines)} labels for {len(recorded)} boxes in view"
    for line in lines:
        f = line.split()
        assert len(f) == 15 and f[0] == "Pedestrian", line
        truncated, occluded, alpha = float(f[1]), int(f[2]), float(f[3])
        box = [float(v) for v in f[4:8]]
        h, w, l = (float(v) for v in f[8:11])
        loc, ry = np.array([float(v) for v in f[11:14]]), float(f[14])
        # The 2D box is the recorded one; occlusion follows its visible fraction.
        match = [d for d in recorded.values()
                 if np.allclose(box, [d.bbox.center.position.x - d.bbox.size_x / 2,
                                      d.bbox.center.position.y - d.bbox.size_y / 2,
                                      d.bbox.center.position.x + d.bbox.size_x / 2,
                                      d.bbox.center.position.y + d.bbox.size_y / 2], atol=1e-5)]
        assert len(match) == 1, (line, recorded)
        seen = match[0].results[0].hypothesis.score
        assert occluded == (0 if seen >= 0.8 else 1 if seen >= 0.5 else 2), (occluded, seen)
        # Location and rotation_y: the ground-truth box seen from the camera through /tf.
        actor = actors[match[0].id].bbox
        p, q = actor.center.position, actor.center.orientation
        map_from_box = matrix([p.x, p.y, p.z], np.array([q.x, q.y, q.z, q.w]))
        cam_from_box = cam_from_map @ map_from_box
        bottom = cam_from_box @ np.array([0, 0, -actor.size.z / 2, 1])
        forward = cam_from_box[:3, :3] @ np.array([1.0, 0, 0])
        assert np.abs(loc - bottom[:3]).max() < 2e-6, (loc, bottom)
        assert abs(math.remainder(ry - math.atan2(-forward[2], forward[0]), math.tau)) < 2e-6
        assert abs(math.remainder(alpha - (ry - math.atan2(loc[0], loc[2])), math.tau)) < 2e-6
        assert (h, w, l) == (round(actor.size.z, 6), round(actor.size.y, 6), round(actor.size.x, 6))
        # The devkit's corners, projected with P2, frame the recorded 2D box where the box is
        # not cut by the image's edge (actors' heads may rise above the capsule's box).
        corners = devkit_corners(h, w, l, loc, ry)
        uvw = P2 @ np.vstack([corners, np.ones(8)])
        u, v = uvw[0] / uvw[2], uvw[1] / uvw[2]
        if truncated < 0.05:
            projected = [u.min(), v.min(), u.max(), v.max()]
            ix = max(0, min(box[2], projected[2]) - max(box[0], projected[0]))
            iy = max(0, min(box[3], projected[3]) - max(box[1], projected[1]))
            union = ((box[2] - box[0]) * (box[3] - box[1])
                     + (projected[2] - projected[0]) * (projected[3] - projected[1]) - ix * iy)
            assert ix * iy / union > 0.6, (name, box, projected)
            assert box[3] <= projected[3] + 2 and abs(box[0] - projected[0]) < 0.25 * (box[2] - box[0]), (box, projected)
            framed += 1
        labelled += 1
assert labelled >= 5 and framed >= 3, (labelled, framed)
print(f"{len(images)} frames, {labelled} labelled pedestrians, {framed} framed by the devkit's corners")
