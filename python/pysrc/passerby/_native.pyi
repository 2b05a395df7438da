"""Passerby, a headless robot-sensor simulator: MVSim worlds and MAVS scenes, lidars, lasers,
cameras, RGB-D cameras, IMU and GNSS with ground-truth labels, bit-identical for a seed at any
thread count."""

from typing import Any, Optional

class WorldError(Exception):
    """A world that cannot be loaded: the message lists each error at its file:line:column,
    with the offending source line."""

class Simulation:
    """A running world. Use it as a context manager so that a recording is finished (its
    summary and index written) when the block ends."""

    def __init__(
        self,
        world: str,
        *,
        seed: int = 0,
        threads: Optional[int] = None,
        variables: Optional[dict[str, str]] = None,
        noise_scale: float = 1.0,
        record: Optional[str] = None,
        tum: Optional[str] = None,
        asset_cache: Optional[str] = None,
        offline: bool = True,
    ) -> None:
        """Loads `world` (MVSim `.world.xml` or MAVS `.json`) and builds its scene.

        seed: seeds the world's random values and every sensor's noise.
        threads: worker threads (default: all cores); any count gives the same output.
        variables: MVSim world variables (what `--var NAME=VALUE` sets).
        noise_scale: every noise times this (sensors' sigmas, wheel-odometry errors); 0 is
            noiseless. The same draws are made, so only the noise changes.
        record: also record the run to this MCAP file (ROS 2 messages).
        tum: also write ground-truth TUM trajectories (each vehicle, each of its sensors)
            into this folder, as `passerby run --tum`.
        asset_cache, offline: where remote models come from; offline never downloads.

        Raises WorldError with positions when the world has errors."""

    @property
    def time(self) -> float:
        """Simulated seconds so far."""

    def step(self) -> list[dict[str, Any]]:
        """Advances one step (the GIL released) and returns the observations it completed.

        Every observation has `kind`, `sensor` ("vehicle/name") and `stamp` (seconds), and:
        - "point_cloud": `points`, a structured array with the recording's PointCloud2 fields
          (x, y, z, intensity float32; ring uint16; time float32; instance uint32; label
          uint16; 28 bytes a point) and `range_image` (rings x columns float32, NaN: no
          return);
        - "laser_scan": `ranges` (float32, inf: no return), `angle_min`, `angle_max`,
          `angle_increment`, `range_max`;
        - "camera": `rgb` (H x W x 3 uint8), `depth` (H x W float32 metres), `instance`
          (H x W int32), `label` (H x W uint16), `boxes` (each actor in view: `name`,
          `instance`, `label`, `min`, `max` pixel corners, `visible_fraction`);
        - "rgbd": the camera's arrays for its colour image and `depth_image` (H x W uint16 in
          `depth_units` metres);
        - "imu": `angular_velocity`, `linear_acceleration`, `orientation` (or None);
        - "gnss": `latitude_deg`, `longitude_deg`, `altitude`, `position_variance`."""

    def run(self, duration: float) -> int:
        """Steps until `duration` more simulated seconds have passed (observations are
        recorded, not returned); returns the number of steps."""

    def set_command(self, vehicle: str, vx: float, vy: float = 0.0, omega: float = 0.0) -> None:
        """Sets a vehicle's velocity command (m/s forward and left, rad/s), as `cmd_vel`."""

    def set_transform(
        self,
        object: str,
        part: Optional[str] = None,
        translation: tuple[float, float, float] = (0.0, 0.0, 0.0),
        yaw_pitch_roll: tuple[float, float, float] = (0.0, 0.0, 0.0),
        scale: tuple[float, float, float] = (1.0, 1.0, 1.0),
    ) -> None:
        """Sets an object's body (part None: its pose in the world) or one of its parts (a
        node or wheel name, or "#K"; in the body's frame), from the next step on, as the
        transform-set topic does. Radians. An unknown part is refused by the next step."""

    def set_pose(
        self,
        object: str,
        x: float,
        y: float,
        z: float = 0.0,
        yaw: float = 0.0,
        pitch: float = 0.0,
        roll: float = 0.0,
    ) -> None:
        """Holds an actor, vehicle or block at a pose (metres, radians) until release()."""

    def release(self, object: str) -> None:
        """Lets a held object move on its own again."""

    def actors(self) -> list[dict[str, Any]]:
        """Each actor: `name`, `instance` (its id in labels), `class`, `pose` (x, y, z, yaw,
        pitch, roll), `speed` (m/s), `held`, `box` (its ground-truth 3D box as
        /ground_truth/actors records it: `center` x, y, z, `yaw_pitch_roll`, `size` along its
        own x, y, z: around its collision capsule), `skeleton` (bones x 2 x 3 world points,
        float64; empty without a skinned model)."""

    def vehicles(self) -> list[dict[str, Any]]:
        """Each vehicle: `name`, `pose` (x, y, z, yaw, pitch, roll), `velocity` (vx, vy,
        omega in its frame), `in_collision`."""

    def close(self) -> list[str]:
        """Finishes the outputs; returns the lines they report. Later calls raise."""

    def __enter__(self) -> "Simulation": ...
    def __exit__(self, kind: Any, value: Any, traceback: Any) -> bool: ...

def export_semantic_kitti(
    recording: str,
    out: str,
    *,
    sensor: Optional[str] = None,
    sequence: str = "00",
    class_map: Optional[dict[str, int]] = None,
) -> dict[str, Any]:
    """`passerby export REC --format semantickitti` (docs/datasets.md): the lidar `sensor`
    (`vehicle/name`; needed when there are several) into `out/sequences/<sequence>`.
    `class_map` gives our class names SemanticKITTI ids. Returns `dir`, `topic`, `scans`,
    `points`. Raises ValueError for a recording it cannot use, OSError for files."""

def export_kitti(
    recording: str,
    out: str,
    *,
    camera: Optional[str] = None,
    lidar: Optional[str] = None,
    first_index: int = 0,
) -> dict[str, Any]:
    """`passerby export REC --format kitti`: the `camera`'s frames (`vehicle/name`) with the
    actors' labels into `out/training`, and the `lidar`'s nearest sweeps. Returns `dir`,
    `topic`, `frames`, `objects`."""

__all__ = ["Simulation", "WorldError", "export_semantic_kitti", "export_kitti"]


# Sweep primitives (passerby.sweep schedules them; docs/sweeps.md).
def _sweep_pending(
    spec: str, out: str, shard: Optional[tuple[int, int]] = None, engine: str = "local"
) -> tuple[list[str], list[int]]:
    """Records (JSON lines, status "skipped") of the scenarios already done, and the indices
    of the others. Raises ValueError for a bad spec."""

def _sweep_attempt(spec: str, out: str, index: int, attempt: int = 1, engine: str = "local") -> str:
    """One attempt at scenario `index`, the GIL released: its record as a JSON line."""

def _sweep_append(out: str, line: str, shard: Optional[tuple[int, int]] = None) -> None:
    """Appends a record to the sweep's manifest (the shard's, with `shard`)."""
