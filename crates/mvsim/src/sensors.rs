//! `<sensor class="…">`: the six MVSim sensor classes (mvsim.md §1.11, §3).
//!
//! Sensor values see `${NAME}` (the sensor) and `${PARENT_NAME}` (its vehicle, or `world`).

use crate::loader::Loader;
use crate::params::Params;
use crate::xml::Element;
use passerby_world::budget::{Quantity, SensorBudget};
use passerby_world::*;

const CLASSES: &[&str] = &["laser", "lidar3d", "camera", "rgbd_camera", "imu", "gnss"];

/// Parameters MVSim reads only to draw its GUI; accepted and ignored.
const GUI_ONLY: &[&str] = &["viz_pointSize"];

impl Loader<'_> {
    /// Reads one sensor; `taken` are the names already used in the same owner.
    pub fn sensor(&mut self, el: &Element, parent: &str, taken: &[String]) -> Option<Sensor> {
        let (class, class_span) = self.required_attr(el, "class")?;
        let class = class.trim().to_owned();
        if !CLASSES.contains(&class.as_str()) {
            let hint = crate::loader::closest(&class, CLASSES)
                .map(|c| format!(" (did you mean `{c}`?)"))
                .unwrap_or_default();
            self.diags.error(
                class_span,
                format!(
                    "unknown sensor class `{class}`: expected one of {}{hint}",
                    CLASSES.join(", ")
                ),
            );
            return None;
        }
        self.object_vars
            .insert("PARENT_NAME".into(), parent.to_owned());
        let name = match self.optional_attr(el, "name") {
            Some((n, span)) => {
                let n = n.trim().to_owned();
                if taken.contains(&n) {
                    self.diags.error(span, format!("sensor name `{n}` is used twice in `{parent}`: sensor names must be unique per vehicle"));
                }
                n
            }
            None => {
                // MVSim's prefixes (it names lidar3d `laser<N>` too); gnss gets `gnss<N>`
                // where MVSim says `imu<N>`.
                let prefix = match class.as_str() {
                    "laser" | "lidar3d" => "laser",
                    "camera" | "rgbd_camera" => "camera",
                    "gnss" => "gnss",
                    _ => "imu",
                };
                let mut n = taken.len() + 1;
                while taken.contains(&format!("{prefix}{n}")) {
                    n += 1;
                }
                format!("{prefix}{n}")
            }
        };
        self.object_vars.insert("NAME".into(), name.clone());
        let mut p = Params::new(vec![el]);
        let pose = self.sensor_pose(&mut p);
        let period = self.p_positive(&mut p, "sensor_period", 0.1);
        let publish = p.find("publish").map(|e| self.publish(e));
        let mut visuals = Vec::new();
        for v in p.find_all("visual") {
            let visual = self.visual(v);
            visuals.push(visual);
        }
        let kind = match class.as_str() {
            "laser" => SensorKind::Laser(self.laser(&mut p)),
            "lidar3d" => SensorKind::Lidar3d(self.lidar3d(&mut p)),
            "camera" => SensorKind::Camera(self.camera(&mut p)),
            "rgbd_camera" => SensorKind::RgbdCamera(self.rgbd(&mut p)),
            "imu" => SensorKind::Imu(self.imu(&mut p)),
            _ => SensorKind::Gnss(self.gnss(&mut p)),
        };
        p.accept(GUI_ONLY);
        let sensor = Sensor {
            name,
            pose,
            period,
            publish,
            visuals,
            kind,
        };
        let within_budget = self.check_budget(el, &mut p, parent, &sensor);
        self.finish_params(p, &format!("a `{class}` sensor"));
        self.object_vars.clear();
        within_budget.then_some(sensor)
    }

    /// Refuses a sensor whose size or rate is over the load's [`Limits`], at the tag that
    /// makes it so, before anything is allocated for it; adds its output to the world's.
    fn check_budget(
        &mut self,
        el: &Element,
        p: &mut Params<'_>,
        parent: &str,
        sensor: &Sensor,
    ) -> bool {
        let limits = &self.opts.limits;
        let budget = SensorBudget::of(sensor);
        let label = format!("{} `{parent}/{}`", sensor.class_name(), sensor.name);
        if let Some(exceeded) = limits.exceeded(&budget) {
            let tag = blamed_tag(sensor, &budget, exceeded.quantity);
            let span = p.find(tag).map_or(el.span, |e| e.span);
            let shape = match &sensor.kind {
                SensorKind::Lidar3d(l) => {
                    let rings = l
                        .vertical_ray_angles
                        .as_ref()
                        .map_or(l.vert_nrays as usize, Vec::len);
                    format!(" ({rings} rings x {} columns)", l.horz_nrays)
                }
                _ => String::new(),
            };
            self.diags
                .error(span, format!("{label}{shape}: {exceeded}"));
            return false;
        }
        self.world_bytes_per_second += budget.bytes_per_second;
        if self.world_bytes_per_second > limits.max_world_bytes_per_second {
            self.diags.error(
                el.span,
                format!(
                    "with {label} the world's sensors record {:.3e} bytes per simulated second, over the limit of {:.3e} (docs/limits.md; --limits-scale raises it)",
                    self.world_bytes_per_second, limits.max_world_bytes_per_second
                ),
            );
            return false;
        }
        true
    }

    /// `<pose_3d>x y z yaw pitch roll</pose_3d>`, or 2D `<pose>x y yaw</pose>` with `<height>`.
    fn sensor_pose(&mut self, p: &mut Params<'_>) -> Pose3 {
        if let Some((text, span)) = self.p_text(p, "pose_3d") {
            return self
                .pose_text(&text, span, "<pose_3d>", true)
                .unwrap_or_default();
        }
        let height = self.p_f64(p, "height", 0.05);
        if let Some((text, span)) = self.p_text(p, "pose") {
            let mut pose = self
                .pose_text(&text, span, "<pose>", false)
                .unwrap_or_default();
            pose.z = height;
            return pose;
        }
        Pose3 {
            z: height,
            ..Pose3::default()
        }
    }

    fn laser(&mut self, p: &mut Params<'_>) -> LaserParams {
        let d = LaserParams::default();
        LaserParams {
            fov: self
                .p_f64_checked(
                    p,
                    "fov_degrees",
                    180.0,
                    |v| v > 0.0 && v <= 360.0,
                    "degrees in (0, 360]",
                )
                .to_radians(),
            nrays: self.p_count(p, "nrays", d.nrays, 1),
            max_range: self.p_positive(p, "max_range", d.max_range),
            range_std_noise: self.p_non_negative(p, "range_std_noise", d.range_std_noise),
            angle_std_noise: self
                .p_non_negative(p, "angle_std_noise_deg", 0.01)
                .to_radians(),
            bodies_visible: self.p_bool(p, "bodies_visible", d.bodies_visible),
            raytrace_3d: self.p_bool(p, "raytrace_3d", d.raytrace_3d),
            ignore_parent_body: self.p_bool(p, "ignore_parent_body", d.ignore_parent_body),
            viz_point_size: self.p_f64(p, "viz_pointSize", d.viz_point_size),
            viz_visible_plane: self.p_bool(p, "viz_visiblePlane", d.viz_visible_plane),
            viz_visible_lines: self.p_bool(p, "viz_visibleLines", d.viz_visible_lines),
            viz_visible_points: self.p_bool(p, "viz_visiblePoints", d.viz_visible_points),
            viz_points_color: self.p_color(p, "viz_pointsColor", d.viz_points_color),
            viz_plane_color: self.p_color(p, "viz_planeColor", d.viz_plane_color),
        }
    }

    fn lidar3d(&mut self, p: &mut Params<'_>) -> Lidar3dParams {
        let d = Lidar3dParams::default();
        let vert_nrays = self.p_count(p, "vert_nrays", d.vert_nrays, 1);
        let vert_fov = self
            .p_f64_checked(
                p,
                "vert_fov_degrees",
                30.0,
                |v| (0.0..=180.0).contains(&v),
                "degrees in [0, 180]",
            )
            .to_radians();
        let mut vertical_ray_angles = None;
        if let Some((text, span)) = self.p_text(p, "vertical_ray_angles")
            && !text.trim().is_empty()
            && let Some(mut angles) = self.numbers_at(
                &text,
                span,
                1,
                usize::MAX,
                "<vertical_ray_angles>: expected elevations in degrees",
            )
        {
            angles.sort_by(f64::total_cmp);
            if angles.len() != vert_nrays as usize {
                self.diags.error(
                    span,
                    format!(
                        "<vertical_ray_angles> lists {} angles but <vert_nrays> is {vert_nrays}",
                        angles.len()
                    ),
                );
            } else if angles.windows(2).any(|w| w[0] == w[1]) {
                self.diags
                    .error(span, "<vertical_ray_angles> lists the same angle twice");
            } else if angles.iter().any(|a| a.abs() > 90.0) {
                self.diags.error(
                    span,
                    "<vertical_ray_angles>: every angle must be within ±90 degrees",
                );
            } else {
                vertical_ray_angles = Some(angles.into_iter().map(f64::to_radians).collect());
            }
        }
        let min_range = self.p_non_negative(p, "min_range", d.min_range);
        let max_range = self.p_positive(p, "max_range", d.max_range);
        if min_range >= max_range
            && let Some(el) = p.find("min_range").or_else(|| p.find("max_range"))
        {
            self.diags.error(
                el.span,
                format!("<min_range> {min_range} is not below <max_range> {max_range}"),
            );
        }
        let scan_mode = match self.p_text(p, "scan_mode") {
            None => ScanMode::Rotating,
            Some((t, span)) => match t.trim() {
                "rotating" => ScanMode::Rotating,
                "flash" => ScanMode::Flash,
                other => {
                    self.diags.error(
                        span,
                        format!("<scan_mode> `{other}`: expected rotating or flash"),
                    );
                    ScanMode::Rotating
                }
            },
        };
        Lidar3dParams {
            vert_nrays,
            vert_fov,
            vertical_ray_angles,
            horz_nrays: self.p_count(p, "horz_nrays", d.horz_nrays, 1),
            azimuth_range: None,
            ring_column_stride: None,
            min_range,
            max_range,
            range_std_noise: self.p_non_negative(p, "range_std_noise", d.range_std_noise),
            generate_intensity: self.p_bool(p, "generate_intensity", d.generate_intensity),
            ignore_parent_body: self.p_bool(p, "ignore_parent_body", d.ignore_parent_body),
            horz_resolution_factor: self.p_positive(p, "horz_resolution_factor", 1.0),
            vert_resolution_factor: self.p_positive(p, "vert_resolution_factor", 1.0),
            max_vert_relative_depth_to_interpolate: self.p_f64(
                p,
                "max_vert_relative_depth_to_interpolate",
                0.30,
            ),
            max_horz_relative_depth_to_interpolate: self.p_f64(
                p,
                "max_horz_relative_depth_to_interpolate",
                0.10,
            ),
            viz_point_size: self.p_f64(p, "viz_pointSize", d.viz_point_size),
            scan_mode,
        }
    }

    /// Intrinsics from tags named `{prefix}ncols`, `{prefix}fx`, … and the clip tags given.
    fn intrinsics(
        &mut self,
        p: &mut Params<'_>,
        prefix: &str,
        clip: [&str; 2],
        d: &Intrinsics,
    ) -> Intrinsics {
        let t = |s: &str| format!("{prefix}{s}");
        let i = Intrinsics {
            ncols: self.p_count(p, &t("ncols"), d.ncols, 1),
            nrows: self.p_count(p, &t("nrows"), d.nrows, 1),
            cx: self.p_f64(p, &t("cx"), d.cx),
            cy: self.p_f64(p, &t("cy"), d.cy),
            fx: self.p_positive(p, &t("fx"), d.fx),
            fy: self.p_positive(p, &t("fy"), d.fy),
            clip_min: self.p_positive(p, clip[0], d.clip_min),
            clip_max: self.p_positive(p, clip[1], d.clip_max),
            distortion: match self.p_numbers(p, &t("distortion"), 5, 5, "expected k1 k2 p1 p2 k3") {
                Some(v) => [v[0], v[1], v[2], v[3], v[4]],
                None => d.distortion,
            },
        };
        if i.clip_min >= i.clip_max
            && let Some(el) = p.find(clip[0]).or_else(|| p.find(clip[1]))
        {
            self.diags.error(
                el.span,
                format!(
                    "<{}> {} is not below <{}> {}",
                    clip[0], i.clip_min, clip[1], i.clip_max
                ),
            );
        }
        i
    }

    fn camera(&mut self, p: &mut Params<'_>) -> CameraParams {
        CameraParams {
            intrinsics: self.intrinsics(p, "", ["clip_min", "clip_max"], &Intrinsics::default()),
            antialias: self.p_count(p, "antialias", 1, 1),
        }
    }

    fn rgbd(&mut self, p: &mut Params<'_>) -> RgbdCameraParams {
        let d = RgbdCameraParams::default();
        let rgb_pose_wrt_depth = match self.p_text(p, "relativePoseIntensityWRTDepth") {
            Some((t, span)) => self
                .pose_text(&t, span, "<relativePoseIntensityWRTDepth>", true)
                .unwrap_or_default(),
            None => d.rgb_pose_wrt_depth,
        };
        RgbdCameraParams {
            depth: self.intrinsics(p, "depth_", ["depth_clip_min", "depth_clip_max"], &d.depth),
            rgb: self.intrinsics(p, "rgb_", ["rgb_clip_min", "rgb_clip_max"], &d.rgb),
            rgb_pose_wrt_depth,
            sense_depth: self.p_bool(p, "sense_depth", d.sense_depth),
            sense_rgb: self.p_bool(p, "sense_rgb", d.sense_rgb),
            depth_resolution: self.p_positive(p, "depth_resolution", d.depth_resolution),
            depth_noise_sigma: self.p_non_negative(p, "depth_noise_sigma", d.depth_noise_sigma),
            show_3d_pointcloud: self.p_bool(p, "show_3d_pointcloud", d.show_3d_pointcloud),
            publish_ros_depth_image: self.p_bool(
                p,
                "publish_ros_depth_image",
                d.publish_ros_depth_image,
            ),
            publish_ros_colored_pointcloud: self.p_bool(
                p,
                "publish_ros_colored_pointcloud",
                d.publish_ros_colored_pointcloud,
            ),
            antialias: self.p_count(p, "antialias", d.antialias, 1),
        }
    }

    fn imu(&mut self, p: &mut Params<'_>) -> ImuParams {
        let d = ImuParams::default();
        // The new names win over the legacy ones when both are given.
        let legacy_gyro = self.p_non_negative(
            p,
            "angular_velocity_std_noise",
            d.angular_velocity_white_noise,
        );
        let legacy_acc = self.p_non_negative(
            p,
            "linear_acceleration_std_noise",
            d.linear_acceleration_white_noise,
        );
        ImuParams {
            angular_velocity_white_noise: self.p_non_negative(
                p,
                "angular_velocity_white_noise_std_noise",
                legacy_gyro,
            ),
            linear_acceleration_white_noise: self.p_non_negative(
                p,
                "linear_acceleration_white_noise_std_noise",
                legacy_acc,
            ),
            angular_velocity_random_walk: self.p_non_negative(
                p,
                "angular_velocity_random_walk_std_noise",
                0.0,
            ),
            linear_acceleration_random_walk: self.p_non_negative(
                p,
                "linear_acceleration_random_walk_std_noise",
                0.0,
            ),
            orientation_std_noise: self.p_non_negative(
                p,
                "orientation_std_noise",
                d.orientation_std_noise,
            ),
            measure_orientation: self.p_bool(p, "measure_orientation", d.measure_orientation),
        }
    }

    fn gnss(&mut self, p: &mut Params<'_>) -> GnssParams {
        let d = GnssParams::default();
        GnssParams {
            horizontal_std_noise: self.p_non_negative(
                p,
                "horizontal_std_noise",
                d.horizontal_std_noise,
            ),
            vertical_std_noise: self.p_non_negative(p, "vertical_std_noise", d.vertical_std_noise),
        }
    }
}

/// The tag to point at when `quantity` is over its limit: the one that contributes most.
fn blamed_tag(sensor: &Sensor, budget: &SensorBudget, quantity: Quantity) -> &'static str {
    // A rate this high is the likelier mistake than the frame's size.
    const HIGH_RATE_HZ: f64 = 1000.0;
    let per_second = matches!(
        quantity,
        Quantity::SamplesPerSecond | Quantity::BytesPerSecond
    );
    if quantity == Quantity::Rate || (per_second && budget.rate_hz > HIGH_RATE_HZ) {
        return "sensor_period";
    }
    let image = |i: &Intrinsics, cols: &'static str, rows: &'static str, aa: u32| {
        if aa > 4 && quantity != Quantity::ImageSide {
            "antialias"
        } else if i.ncols >= i.nrows {
            cols
        } else {
            rows
        }
    };
    match &sensor.kind {
        SensorKind::Laser(_) => "nrays",
        SensorKind::Lidar3d(l) => {
            let rings = l
                .vertical_ray_angles
                .as_ref()
                .map_or(l.vert_nrays as usize, Vec::len);
            if rings as u64 > u64::from(l.horz_nrays) {
                "vert_nrays"
            } else {
                "horz_nrays"
            }
        }
        SensorKind::Camera(c) => image(&c.intrinsics, "ncols", "nrows", c.antialias),
        SensorKind::RgbdCamera(c) => {
            let depth = u64::from(c.depth.ncols) * u64::from(c.depth.nrows);
            let rgb = u64::from(c.rgb.ncols) * u64::from(c.rgb.nrows);
            if c.sense_depth && (depth >= rgb || !c.sense_rgb) {
                image(&c.depth, "depth_ncols", "depth_nrows", 1)
            } else {
                image(&c.rgb, "rgb_ncols", "rgb_nrows", c.antialias)
            }
        }
        SensorKind::Imu(_) | SensorKind::Gnss(_) => "sensor_period",
    }
}
