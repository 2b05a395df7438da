//! Sensor descriptions: the six MVSim sensor classes with every parameter and its default
//! (`shared/reference/mvsim.md` §3).

use crate::{Color, Pose3, Publish, Visual};
use serde::Serialize;

/// A sensor of a world, by its owner and name: how sensors, their observations and their
/// recordings name it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct SensorRef {
    /// The vehicle carrying it; `None` for a standalone (world) sensor.
    pub vehicle: Option<String>,
    /// Its name (unique within its vehicle, or among standalone sensors).
    pub name: String,
}

/// A sensor, mounted on a vehicle or standalone.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Sensor {
    /// Name, unique within its vehicle (or among standalone sensors).
    pub name: String,
    /// `<pose_3d>` (or 2D `<pose>` + `<height>`) in the parent's frame.
    pub pose: Pose3,
    /// `<sensor_period>`, seconds.
    pub period: f64,
    /// `<publish>`.
    pub publish: Option<Publish>,
    /// Visuals of the sensor body.
    pub visuals: Vec<Visual>,
    /// Class-specific parameters.
    pub kind: SensorKind,
}

impl Sensor {
    /// The MVSim class name (`laser`, `lidar3d`, …).
    pub fn class_name(&self) -> &'static str {
        match self.kind {
            SensorKind::Laser(_) => "laser",
            SensorKind::Lidar3d(_) => "lidar3d",
            SensorKind::Camera(_) => "camera",
            SensorKind::RgbdCamera(_) => "rgbd_camera",
            SensorKind::Imu(_) => "imu",
            SensorKind::Gnss(_) => "gnss",
        }
    }

    /// Rays (range sensors) or pixels (cameras; RGB-D counts both images) per sample.
    pub fn samples_per_frame(&self) -> u64 {
        match &self.kind {
            SensorKind::Laser(l) => l.nrays as u64,
            SensorKind::Lidar3d(l) => l.rays_per_sweep(),
            SensorKind::Camera(c) => c.intrinsics.ncols as u64 * c.intrinsics.nrows as u64,
            SensorKind::RgbdCamera(c) => {
                let depth = if c.sense_depth {
                    c.depth.ncols as u64 * c.depth.nrows as u64
                } else {
                    0
                };
                let rgb = if c.sense_rgb {
                    c.rgb.ncols as u64 * c.rgb.nrows as u64
                } else {
                    0
                };
                depth + rgb
            }
            SensorKind::Imu(_) | SensorKind::Gnss(_) => 1,
        }
    }
}

/// Class-specific sensor parameters.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum SensorKind {
    /// 2D laser scanner.
    Laser(LaserParams),
    /// 3D lidar.
    Lidar3d(Lidar3dParams),
    /// RGB camera.
    Camera(CameraParams),
    /// RGB-D camera.
    RgbdCamera(RgbdCameraParams),
    /// Inertial measurement unit.
    Imu(ImuParams),
    /// Satellite positioning.
    Gnss(GnssParams),
}

/// `laser` (2D scanner).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LaserParams {
    /// Field of view, radians, centred on +X, scanned counter-clockwise.
    pub fov: f64,
    /// Rays per scan.
    pub nrays: u32,
    /// Metres.
    pub max_range: f64,
    /// Range noise sigma, metres.
    pub range_std_noise: f64,
    /// Angle noise sigma, radians.
    pub angle_std_noise: f64,
    /// Other bodies are seen.
    pub bodies_visible: bool,
    /// Cast in 3D against the full scene (else 2D footprints, MVSim's cheap mode).
    pub raytrace_3d: bool,
    /// Do not see the vehicle carrying the sensor.
    pub ignore_parent_body: bool,
    /// GUI: point size.
    pub viz_point_size: f64,
    /// GUI: draw the scan plane.
    pub viz_visible_plane: bool,
    /// GUI: draw lines.
    pub viz_visible_lines: bool,
    /// GUI: draw points.
    pub viz_visible_points: bool,
    /// GUI: points colour.
    pub viz_points_color: Color,
    /// GUI: plane colour.
    pub viz_plane_color: Color,
}

impl Default for LaserParams {
    fn default() -> Self {
        LaserParams {
            fov: 180f64.to_radians(),
            nrays: 181,
            max_range: 80.0,
            range_std_noise: 0.01,
            angle_std_noise: 0.01f64.to_radians(),
            bodies_visible: true,
            raytrace_3d: false,
            ignore_parent_body: false,
            viz_point_size: 3.0,
            viz_visible_plane: false,
            viz_visible_lines: true,
            viz_visible_points: false,
            viz_points_color: Color::rgba(0xff, 0, 0, 0x80),
            viz_plane_color: Color::rgba(0, 0, 0xff, 0x10),
        }
    }
}

/// `lidar3d`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Lidar3dParams {
    /// Beams (rings).
    pub vert_nrays: u32,
    /// Symmetric vertical field of view, radians (used when no explicit angles are given).
    pub vert_fov: f64,
    /// Explicit beam elevations, radians, sorted ascending (ring 0 = lowest).
    pub vertical_ray_angles: Option<Vec<f64>>,
    /// Columns per sweep.
    pub horz_nrays: u32,
    /// Azimuths of the first and last column, radians (MAVS's `Horizontal Range`, columns
    /// evenly between them); `None` is a full turn starting at +180°, clockwise (MVSim).
    pub azimuth_range: Option<(f64, f64)>,
    /// Per ring (ascending like the elevations): the ring fires on every n-th column only
    /// (the HDL-64E's lower block fires once for four of the upper block's); `None` = every
    /// ring on every column.
    pub ring_column_stride: Option<Vec<u32>>,
    /// Metres.
    pub min_range: f64,
    /// Metres.
    pub max_range: f64,
    /// Range noise sigma, metres.
    pub range_std_noise: f64,
    /// Produce intensities.
    pub generate_intensity: bool,
    /// Do not see the vehicle carrying the sensor.
    pub ignore_parent_body: bool,
    /// MVSim depth-render oversampling; no effect here (every beam is one exact ray).
    pub horz_resolution_factor: f64,
    /// MVSim depth-render oversampling; no effect here.
    pub vert_resolution_factor: f64,
    /// MVSim interpolation threshold; no effect here (nothing is interpolated).
    pub max_vert_relative_depth_to_interpolate: f64,
    /// MVSim interpolation threshold; no effect here.
    pub max_horz_relative_depth_to_interpolate: f64,
    /// GUI point size.
    pub viz_point_size: f64,
    /// Our extension `<scan_mode>`: rotating (default) or flash (MVSim's all-at-once).
    pub scan_mode: ScanMode,
}

impl Default for Lidar3dParams {
    fn default() -> Self {
        Lidar3dParams {
            vert_nrays: 16,
            vert_fov: 30f64.to_radians(),
            vertical_ray_angles: None,
            horz_nrays: 180,
            azimuth_range: None,
            ring_column_stride: None,
            min_range: 0.01,
            max_range: 80.0,
            range_std_noise: 0.01,
            generate_intensity: true,
            ignore_parent_body: false,
            horz_resolution_factor: 1.0,
            vert_resolution_factor: 1.0,
            max_vert_relative_depth_to_interpolate: 0.30,
            max_horz_relative_depth_to_interpolate: 0.10,
            viz_point_size: 3.0,
            scan_mode: ScanMode::Rotating,
        }
    }
}

impl Lidar3dParams {
    /// Column azimuths in radians (about +Z, 0 = +X), in firing order.
    pub fn column_azimuths(&self) -> Vec<f64> {
        let n = self.horz_nrays.max(1) as usize;
        match self.azimuth_range {
            Some((first, last)) => {
                let step = if n > 1 {
                    (last - first) / (n - 1) as f64
                } else {
                    0.0
                };
                (0..n).map(|i| first + i as f64 * step).collect()
            }
            None => (0..n)
                .map(|i| std::f64::consts::PI - i as f64 * std::f64::consts::TAU / n as f64)
                .collect(),
        }
    }

    /// Whether ring `ring` fires on column `column` (see `ring_column_stride`).
    pub fn fires(&self, ring: usize, column: usize) -> bool {
        match &self.ring_column_stride {
            Some(strides) => strides
                .get(ring)
                .is_none_or(|&n| column.is_multiple_of(n.max(1) as usize)),
            None => true,
        }
    }

    /// Rays cast per sweep (rings that skip columns count only their firings).
    pub fn rays_per_sweep(&self) -> u64 {
        let columns = u64::from(self.horz_nrays.max(1));
        // Counted, not listed: a huge `vert_nrays` must be refused before anything is allocated.
        let rings = match &self.vertical_ray_angles {
            Some(angles) => angles.len() as u64,
            None => u64::from(self.vert_nrays),
        };
        match &self.ring_column_stride {
            Some(strides) => (0..rings as usize)
                .map(|r| {
                    let n = u64::from(strides.get(r).copied().unwrap_or(1).max(1));
                    columns.div_ceil(n)
                })
                .sum(),
            None => rings.saturating_mul(columns),
        }
    }

    /// Beam elevations in radians, ascending: the explicit list, or `vert_nrays` evenly
    /// spread over the vertical field of view.
    pub fn beam_elevations(&self) -> Vec<f64> {
        if let Some(angles) = &self.vertical_ray_angles {
            return angles.clone();
        }
        let n = self.vert_nrays as usize;
        if n == 1 {
            return vec![0.0];
        }
        (0..n)
            .map(|j| self.vert_fov * (-0.5 + j as f64 / (n - 1) as f64))
            .collect()
    }
}

/// How a lidar sweep is timed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub enum ScanMode {
    /// Columns spread over the period (real spinning lidars; motion distortion).
    #[default]
    Rotating,
    /// Every column at the stamp (MVSim).
    Flash,
}

/// Pinhole intrinsics and clip range of one image.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Intrinsics {
    /// Image width, pixels.
    pub ncols: u32,
    /// Image height, pixels.
    pub nrows: u32,
    /// Principal point x, pixels.
    pub cx: f64,
    /// Principal point y, pixels.
    pub cy: f64,
    /// Focal length x, pixels.
    pub fx: f64,
    /// Focal length y, pixels.
    pub fy: f64,
    /// Near clip, metres.
    pub clip_min: f64,
    /// Far clip, metres.
    pub clip_max: f64,
    /// Brown-Conrady lens distortion `[k1, k2, p1, p2, k3]` (OpenCV's and ROS's `plumb_bob`);
    /// zeros for an ideal pinhole (MVSim's only model).
    pub distortion: [f64; 5],
}

impl Default for Intrinsics {
    fn default() -> Self {
        Intrinsics {
            ncols: 640,
            nrows: 480,
            cx: 320.0,
            cy: 240.0,
            fx: 500.0,
            fy: 500.0,
            clip_min: 0.01,
            clip_max: 1e4,
            distortion: [0.0; 5],
        }
    }
}

/// `camera`: the pose is the optical frame (+Z forward, +X right, +Y down).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CameraParams {
    /// Intrinsics and clip range.
    pub intrinsics: Intrinsics,
    /// Colour samples per pixel side (1: one ray through each pixel centre).
    pub antialias: u32,
}

impl Default for CameraParams {
    fn default() -> Self {
        CameraParams {
            intrinsics: Intrinsics::default(),
            antialias: 1,
        }
    }
}

/// `rgbd_camera`: the pose is the depth sensor's (+X forward, MRPT convention).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RgbdCameraParams {
    /// Depth image intrinsics (clip default 0.1..15 m).
    pub depth: Intrinsics,
    /// Colour image intrinsics.
    pub rgb: Intrinsics,
    /// Colour camera pose relative to the depth sensor (`relativePoseIntensityWRTDepth`).
    pub rgb_pose_wrt_depth: Pose3,
    /// Produce depth.
    pub sense_depth: bool,
    /// Produce colour.
    pub sense_rgb: bool,
    /// Metres per depth unit in the 16-bit image.
    pub depth_resolution: f64,
    /// Depth noise sigma, metres.
    pub depth_noise_sigma: f64,
    /// GUI: show the point cloud.
    pub show_3d_pointcloud: bool,
    /// Publish the depth image.
    pub publish_ros_depth_image: bool,
    /// Publish XYZRGB instead of XYZ points.
    pub publish_ros_colored_pointcloud: bool,
    /// Colour samples per pixel side of the colour image.
    pub antialias: u32,
}

impl Default for RgbdCameraParams {
    fn default() -> Self {
        RgbdCameraParams {
            depth: Intrinsics {
                clip_min: 0.1,
                clip_max: 15.0,
                ..Intrinsics::default()
            },
            rgb: Intrinsics::default(),
            // MRPT's default: the colour optical frame on the depth body, looking along +X.
            rgb_pose_wrt_depth: Pose3 {
                yaw: -std::f64::consts::FRAC_PI_2,
                roll: -std::f64::consts::FRAC_PI_2,
                ..Pose3::default()
            },
            sense_depth: true,
            sense_rgb: true,
            depth_resolution: 1e-3,
            depth_noise_sigma: 1e-3,
            show_3d_pointcloud: false,
            publish_ros_depth_image: true,
            publish_ros_colored_pointcloud: false,
            antialias: 1,
        }
    }
}

/// `imu`: white noise plus bias random walk (Forster et al. 2016).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ImuParams {
    /// Gyro white noise sigma, rad/s (legacy name `angular_velocity_std_noise`).
    pub angular_velocity_white_noise: f64,
    /// Accelerometer white noise sigma, m/s² (legacy `linear_acceleration_std_noise`).
    pub linear_acceleration_white_noise: f64,
    /// Gyro bias random walk, rad/s/√s.
    pub angular_velocity_random_walk: f64,
    /// Accelerometer bias random walk, m/s²/√s.
    pub linear_acceleration_random_walk: f64,
    /// Orientation noise sigma, radians.
    pub orientation_std_noise: f64,
    /// Report orientation too.
    pub measure_orientation: bool,
}

impl Default for ImuParams {
    fn default() -> Self {
        ImuParams {
            angular_velocity_white_noise: 2e-4,
            linear_acceleration_white_noise: 0.017,
            angular_velocity_random_walk: 0.0,
            linear_acceleration_random_walk: 0.0,
            orientation_std_noise: 0.005,
            measure_orientation: false,
        }
    }
}

/// `gnss`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GnssParams {
    /// Horizontal noise sigma, metres.
    pub horizontal_std_noise: f64,
    /// Vertical noise sigma, metres.
    pub vertical_std_noise: f64,
}

impl Default for GnssParams {
    fn default() -> Self {
        GnssParams {
            horizontal_std_noise: 2.0,
            vertical_std_noise: 4.0,
        }
    }
}
