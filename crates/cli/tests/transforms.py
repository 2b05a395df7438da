"""What the dataset checks share: a recording's transform tree, read with mcap-ros2-support's
decoded messages, as 4 x 4 matrices (our own reading of /tf and /tf_static, not the export's)."""
import numpy as np


def ns(stamp):
    return stamp.sec * 10**9 + stamp.nanosec


class Transforms:
    """/tf_static edges and /tf edges by stamp."""

    def __init__(self):
        self.static, self.dynamic = {}, {}

    def add(self, topic, msg):
        for x in msg.transforms:
            r, q = x.transform.translation, x.transform.rotation
            edge = (x.header.frame_id, np.array([r.x, r.y, r.z]), np.array([q.x, q.y, q.z, q.w]))
            if topic == "/tf_static":
                self.static[x.child_frame_id] = edge
            else:
                self.dynamic.setdefault(x.child_frame_id, {})[ns(x.header.stamp)] = edge

    def map_from(self, frame, stamp):
        """The frame's pose in `map` at a stamp /tf has a sample at (sweeps and frames start on
        steps; the first, at 0, precedes the first sample, at the first step's end, and takes
        it)."""
        pose = np.eye(4)
        while frame != "map":
            if frame in self.dynamic:
                samples = self.dynamic[frame]
                parent, translation, q = samples[max(stamp, min(samples))]
            else:
                parent, translation, q = self.static[frame]
            pose = matrix(translation, q) @ pose
            frame = parent
        return pose


def matrix(translation, q):
    x, y, z, w = q / np.linalg.norm(q)
    m = np.eye(4)
    m[:3, :3] = [[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                 [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                 [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]]
    m[:3, 3] = translation
    return m
