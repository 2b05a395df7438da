//! World-level settings: `<gui>`, `<lights>`, `<georeference>` and the global scalar
//! parameters such as `<simul_timestep>` and `<gravity>` (MVSim `World.h`, mvsim.md §1.2).

use crate::loader::Loader;
use crate::params::Params;
use crate::xml::Element;
use passerby_world::*;

impl Loader<'_> {
    /// `<gui>`.
    pub fn gui(&mut self, el: &Element) {
        let mut p = Params::new(vec![el]);
        let d = self.world.gui.clone();
        let gui = GuiOptions {
            win_w: self.p_int(&mut p, "win_w", d.win_w),
            win_h: self.p_int(&mut p, "win_h", d.win_h),
            ortho: self.p_bool(&mut p, "ortho", d.ortho),
            show_forces: self.p_bool(&mut p, "show_forces", d.show_forces),
            show_sensor_points: self.p_bool(&mut p, "show_sensor_points", d.show_sensor_points),
            force_scale: self.p_f64(&mut p, "force_scale", d.force_scale),
            fov: self.p_deg(&mut p, "fov_deg", d.fov),
            follow_vehicle: self.p_string(&mut p, "follow_vehicle", &d.follow_vehicle),
            start_maximized: self.p_bool(&mut p, "start_maximized", d.start_maximized),
            refresh_fps: self.p_int(&mut p, "refresh_fps", d.refresh_fps),
            headless: self.p_bool(&mut p, "headless", d.headless),
            clip_plane_min: self.p_positive(&mut p, "clip_plane_min", d.clip_plane_min),
            clip_plane_max: self.p_positive(&mut p, "clip_plane_max", d.clip_plane_max),
            cam_distance: self.p_positive(&mut p, "cam_distance", d.cam_distance),
            cam_azimuth: self.p_deg(&mut p, "cam_azimuth", d.cam_azimuth),
            cam_elevation: self.p_deg(&mut p, "cam_elevation", d.cam_elevation),
            cam_point_to: self
                .p_numbers(&mut p, "cam_point_to", 2, 3, "expected `x y [z]`")
                .map_or(d.cam_point_to, |v| {
                    [v[0], v[1], v.get(2).copied().unwrap_or(0.0)]
                }),
        };
        self.finish_params(p, "<gui>");
        self.world.gui = gui;
    }

    /// `<lights>`.
    pub fn lights(&mut self, el: &Element) {
        let mut p = Params::new(vec![el]);
        let d = self.world.lights.clone();
        let lights = LightOptions {
            enable_shadows: self.p_bool(&mut p, "enable_shadows", d.enable_shadows),
            shadow_map_size: self.p_int(&mut p, "shadow_map_size", d.shadow_map_size),
            light_azimuth: self.p_deg(&mut p, "light_azimuth_deg", d.light_azimuth),
            light_elevation: self.p_deg(&mut p, "light_elevation_deg", d.light_elevation),
            light_clip_plane_min: self.p_f64(
                &mut p,
                "light_clip_plane_min",
                d.light_clip_plane_min,
            ),
            light_clip_plane_max: self.p_f64(
                &mut p,
                "light_clip_plane_max",
                d.light_clip_plane_max,
            ),
            light_color: self.p_color(&mut p, "light_color", d.light_color),
            shadow_bias: self.p_f64(&mut p, "shadow_bias", d.shadow_bias),
            shadow_bias_cam2frag: self.p_f64(
                &mut p,
                "shadow_bias_cam2frag",
                d.shadow_bias_cam2frag,
            ),
            shadow_bias_normal: self.p_f64(&mut p, "shadow_bias_normal", d.shadow_bias_normal),
            light_ambient: self.p_f64_checked(
                &mut p,
                "light_ambient",
                d.light_ambient,
                |v| (0.0..=1.0).contains(&v),
                "a fraction in [0, 1]",
            ),
            eye_distance_to_shadow_map_extension: self.p_f64(
                &mut p,
                "eye_distance_to_shadow_map_extension",
                d.eye_distance_to_shadow_map_extension,
            ),
            minimum_shadow_map_extension_ratio: self.p_f64(
                &mut p,
                "minimum_shadow_map_extension_ratio",
                d.minimum_shadow_map_extension_ratio,
            ),
        };
        self.finish_params(p, "<lights>");
        self.world.lights = lights;
    }

    /// `<georeference>`.
    pub fn georeference(&mut self, el: &Element) {
        let mut p = Params::new(vec![el]);
        let g = Georeference {
            latitude_deg: self.p_f64_checked(
                &mut p,
                "latitude",
                0.0,
                |v| (-90.0..=90.0).contains(&v),
                "degrees in [-90, 90]",
            ),
            longitude_deg: self.p_f64_checked(
                &mut p,
                "longitude",
                0.0,
                |v| (-180.0..=180.0).contains(&v),
                "degrees in [-180, 180]",
            ),
            height: self.p_f64(&mut p, "height", 0.0),
            world_to_enu_rotation: self.p_deg(&mut p, "world_to_enu_rotation_deg", 0.0),
            world_is_utm: self.p_bool(&mut p, "world_is_utm", false),
        };
        if g.world_is_utm && g.world_to_enu_rotation != 0.0 {
            self.diags.error(
                el.span,
                "`world_is_utm` cannot be combined with a non-zero `world_to_enu_rotation_deg`",
            );
        }
        self.finish_params(p, "<georeference>");
        self.world.georeference = Some(g);
    }

    /// A global scalar parameter; returns whether `el` was one.
    pub fn global_param(&mut self, el: &Element) -> bool {
        // Read the tag as the only child of a wrapper, so the usual parameter readers apply.
        let wrapper = Element {
            name: String::new(),
            span: el.span,
            attrs: vec![],
            children: vec![crate::xml::Node::Element(el.clone())],
        };
        let mut p = Params::new(vec![&wrapper]);
        let w = &mut self.world.params.clone();
        match el.name.as_str() {
            "simul_timestep" => {
                let mut dt = self.p_non_negative(&mut p, "simul_timestep", 0.0);
                // As the simulation's own bound (MVSim recommends 1 to 20 ms).
                if dt > 1.0
                    && let Some(el) = p.find("simul_timestep")
                {
                    self.diags.error(
                        el.span,
                        format!("<simul_timestep> is {dt:e} s: at most 1 s a step"),
                    );
                    dt = 0.0;
                }
                w.simul_timestep = if dt == 0.0 {
                    Timestep::Auto
                } else {
                    Timestep::Fixed(dt)
                };
            }
            "gravity" => w.gravity = self.p_f64(&mut p, "gravity", w.gravity),
            "server_address" => {
                w.server_address = self.p_string(&mut p, "server_address", &w.server_address)
            }
            "b2d_vel_iters" => {
                w.b2d_vel_iters = self.p_int(&mut p, "b2d_vel_iters", w.b2d_vel_iters)
            }
            "b2d_pos_iters" => {
                w.b2d_pos_iters = self.p_int(&mut p, "b2d_pos_iters", w.b2d_pos_iters)
            }
            "collision_threshold" => {
                w.collision_threshold =
                    self.p_non_negative(&mut p, "collision_threshold", w.collision_threshold)
            }
            "joystick_enabled" => {
                w.joystick_enabled = self.p_bool(&mut p, "joystick_enabled", w.joystick_enabled)
            }
            "save_to_rawlog" => w.save_to_rawlog = self.p_string(&mut p, "save_to_rawlog", ""),
            "rawlog_odometry_rate" => {
                w.rawlog_odometry_rate =
                    self.p_positive(&mut p, "rawlog_odometry_rate", w.rawlog_odometry_rate)
            }
            "save_ground_truth_trajectory" => {
                w.save_ground_truth_trajectory =
                    self.p_string(&mut p, "save_ground_truth_trajectory", "")
            }
            "ground_truth_rate" => {
                w.ground_truth_rate =
                    self.p_positive(&mut p, "ground_truth_rate", w.ground_truth_rate)
            }
            "max_slope_to_collide" => {
                w.max_slope_to_collide =
                    self.p_f64(&mut p, "max_slope_to_collide", w.max_slope_to_collide)
            }
            "min_slope_to_collide" => {
                w.min_slope_to_collide =
                    self.p_f64(&mut p, "min_slope_to_collide", w.min_slope_to_collide)
            }
            _ => return false,
        }
        self.world.params = w.clone();
        true
    }
}
