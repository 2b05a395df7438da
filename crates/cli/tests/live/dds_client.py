"""A ROS 2 peer of `passerby serve --ros2` that shares no code with it: Eclipse Cyclone DDS
(the `cyclonedds` package from PyPI, a DDS implementation ROS 2 ships as one of its
middlewares), with the ROS 2 message types written out as IDL structs under their DDS names
(`rt/` topics, `pkg::msg::dds_::Type_` types), as rmw_cyclonedds_cpp would see them.

Modes:
  check      subscribe to the VLP-16's PointCloud2 and the odometry, publish cmd_vel, see the
             robot move
  lockstep N a closed-loop controller stepping N times by /passerby/control (commands carried
             in the requests), each answered on /passerby/status

It stays on the loopback interface: CYCLONEDDS_URI (set by the caller) names `lo`, turns
multicast off and gives 127.0.0.1 as the only peer. Prints one JSON line.
"""

import json
import os
import math
import sys
import time
from dataclasses import dataclass

from cyclonedds.core import Qos, Policy
from cyclonedds.domain import DomainParticipant
from cyclonedds.idl import IdlStruct
from cyclonedds.idl.types import array, float64, int32, sequence, uint8, uint32, uint64
from cyclonedds.pub import DataWriter
from cyclonedds.sub import DataReader
from cyclonedds.topic import Topic
from cyclonedds.util import duration


@dataclass
class Time(IdlStruct, typename="builtin_interfaces::msg::dds_::Time_"):
    sec: int32
    nanosec: uint32


@dataclass
class Header(IdlStruct, typename="std_msgs::msg::dds_::Header_"):
    stamp: Time
    frame_id: str


@dataclass
class PointField(IdlStruct, typename="sensor_msgs::msg::dds_::PointField_"):
    name: str
    offset: uint32
    datatype: uint8
    count: uint32


@dataclass
class PointCloud2(IdlStruct, typename="sensor_msgs::msg::dds_::PointCloud2_"):
    header: Header
    height: uint32
    width: uint32
    fields: sequence[PointField]
    is_bigendian: bool
    point_step: uint32
    row_step: uint32
    data: sequence[uint8]
    is_dense: bool


@dataclass
class Vector3(IdlStruct, typename="geometry_msgs::msg::dds_::Vector3_"):
    x: float64
    y: float64
    z: float64


@dataclass
class Point(IdlStruct, typename="geometry_msgs::msg::dds_::Point_"):
    x: float64
    y: float64
    z: float64


@dataclass
class Quaternion(IdlStruct, typename="geometry_msgs::msg::dds_::Quaternion_"):
    x: float64
    y: float64
    z: float64
    w: float64


@dataclass
class Pose(IdlStruct, typename="geometry_msgs::msg::dds_::Pose_"):
    position: Point
    orientation: Quaternion


@dataclass
class PoseWithCovariance(IdlStruct, typename="geometry_msgs::msg::dds_::PoseWithCovariance_"):
    pose: Pose
    covariance: array[float64, 36]


@dataclass
class Twist(IdlStruct, typename="geometry_msgs::msg::dds_::Twist_"):
    linear: Vector3
    angular: Vector3


@dataclass
class TwistWithCovariance(IdlStruct, typename="geometry_msgs::msg::dds_::TwistWithCovariance_"):
    twist: Twist
    covariance: array[float64, 36]


@dataclass
class Odometry(IdlStruct, typename="nav_msgs::msg::dds_::Odometry_"):
    header: Header
    child_frame_id: str
    pose: PoseWithCovariance
    twist: TwistWithCovariance


@dataclass
class Control(IdlStruct, typename="passerby_msgs::msg::dds_::Control_"):
    command: str
    steps: uint64
    id: uint64
    vehicles: sequence[str]
    twists: sequence[Twist]


@dataclass
class Status(IdlStruct, typename="passerby_msgs::msg::dds_::Status_"):
    id: uint64
    ok: bool
    error: str
    time: float64
    steps: uint64
    paused: bool


@dataclass
class TransformSet(IdlStruct, typename="passerby_msgs::msg::dds_::TransformSet_"):
    object: str
    part: str
    translation: Vector3
    yaw_pitch_roll: Vector3
    scale: Vector3
    release: bool


RELIABLE = Qos(
    Policy.Reliability.Reliable(max_blocking_time=duration(milliseconds=100)),
    Policy.History.KeepLast(100),
)
BEST_EFFORT = Qos(Policy.Reliability.BestEffort, Policy.History.KeepLast(5))


def fail(why):
    print(f"dds client: {why}", file=sys.stderr)
    sys.exit(1)


def twist(vx, w):
    return Twist(Vector3(vx, 0.0, 0.0), Vector3(0.0, 0.0, w))


def check(dp):
    clouds = DataReader(dp, Topic(dp, "rt/r1/vlp16_points", PointCloud2), qos=BEST_EFFORT)
    odoms = DataReader(dp, Topic(dp, "rt/r1/odom", Odometry), qos=RELIABLE)
    cmd = DataWriter(dp, Topic(dp, "rt/r1/cmd_vel", Twist), qos=RELIABLE)
    seen = {"odom": []}
    deadline = time.monotonic() + 40
    while time.monotonic() < deadline:
        cmd.write(twist(1.0, 0.0))
        for c in clouds.take(N=10):
            seen.setdefault("cloud", {
                "points": c.width * c.height,
                "fields": [f.name for f in c.fields],
                "bytes": len(c.data),
                "point_step": c.point_step,
                "frame": c.header.frame_id,
            })
        for o in odoms.take(N=100):
            t = o.header.stamp.sec + o.header.stamp.nanosec * 1e-9
            seen["odom"].append([t, o.pose.pose.position.x])
        if "cloud" in seen and seen["odom"] and seen["odom"][-1][1] > 0.5:
            break
        time.sleep(0.05)
    if not seen["odom"]:
        fail(f"no odometry; saw {seen}")
    seen["odom"] = [seen["odom"][0], seen["odom"][-1]]
    # A transform set holds the robot at (10, -3).
    transforms = DataWriter(dp, Topic(dp, "rt/passerby/transforms", TransformSet), qos=RELIABLE)
    placed = None
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        transforms.write(TransformSet("r1", "", Vector3(10.0, -3.0, 0.0), Vector3(0.0, 0.0, 0.0), Vector3(1.0, 1.0, 1.0), False))
        for o in odoms.take(N=100):
            placed = [o.pose.pose.position.x, o.pose.pose.position.y]
        if placed and abs(placed[0] - 10.0) < 0.01:
            break
        time.sleep(0.05)
    seen["placed"] = placed
    print(json.dumps(seen))


def lockstep(dp, iterations):
    """A closed-loop controller: read this step's odometry, steer towards (2, 1), and ask for
    10 steps with the command carried in the request (so it holds for exactly those steps)."""
    control = DataWriter(dp, Topic(dp, "rt/passerby/control", Control), qos=RELIABLE)
    status = DataReader(dp, Topic(dp, "rt/passerby/status", Status), qos=RELIABLE)
    odoms = DataReader(dp, Topic(dp, "rt/r1/odom", Odometry), qos=RELIABLE)
    # Wait for the server's reader of requests and its writer of answers before the first
    # request (discovery takes a moment, longer on a busy machine; an answer written before
    # our reader is matched is lost, as the status topic is volatile).
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (
        control.get_matched_subscriptions() and status.get_matched_publications()
    ):
        time.sleep(0.05)
    poses = {}

    def step(i, steps, command):
        vehicles, twists = (["r1"], [command]) if command else ([], [])
        control.write(Control("step", steps, i, vehicles, twists))
        while time.monotonic() < deadline:
            for s in status.take(N=10):
                if s.id == i:
                    if not s.ok:
                        fail(f"step {i}: {s.error}")
                    return s
            time.sleep(0.001)
        fail(f"step {i}: no answer")

    def odom_at(t):
        while time.monotonic() < deadline:
            for o in odoms.take(N=100):
                stamp = o.header.stamp.sec + o.header.stamp.nanosec * 1e-9
                q = o.pose.pose.orientation
                poses[round(stamp, 6)] = (o.pose.pose.position.x, o.pose.pose.position.y, 2 * math.atan2(q.z, q.w))
            if round(t, 6) in poses:
                return poses[round(t, 6)]
            time.sleep(0.001)
        fail(f"no odometry at {t}")

    answers = []
    state = step(1, 1, None)
    for i in range(2, iterations + 2):
        x, y, yaw = odom_at(state.time)
        err = math.atan2(1.0 - y, 2.0 - x) - yaw
        err = math.atan2(math.sin(err), math.cos(err))
        v = min(0.8, math.hypot(2.0 - x, 1.0 - y)) * max(0.0, math.cos(err))
        state = step(i, 10, twist(v, 1.5 * err))
        answers.append([state.steps, state.time, x, y])
    print(json.dumps({"answers": answers}))


def main():
    mode = sys.argv[1]
    dp = DomainParticipant(int(os.environ.get("ROS_DOMAIN_ID", "0")))
    if mode == "check":
        check(dp)
    elif mode == "lockstep":
        lockstep(dp, int(sys.argv[2]))
    else:
        fail(f"unknown mode {mode}")


if __name__ == "__main__":
    main()
