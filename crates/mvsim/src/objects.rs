//! Blocks, vehicles and actors, and what they share: visuals, initial pose, keyframes,
//! publishing (MVSim `Simulable.cpp`, `VisualObject.cpp`, `Block.cpp`, `VehicleBase.cpp`,
//! `HumanActor.cpp`; mvsim.md §1.7–1.12).
//!
//! Precedence: an instance's tags override its class's. (MVSim reads block scalars class
//! first, so there the class wins; we follow the obvious intent, see the compatibility doc.)

use crate::loader::{ClassKind, Loader};
use crate::params::Params;
use crate::values;
use crate::xml::Element;
use passerby_world::*;
use std::collections::BTreeMap;

const VISUAL_TAGS: &[&str] = &[
    "model_uri",
    "model_scale",
    "model_offset_x",
    "model_offset_y",
    "model_offset_z",
    "model_yaw",
    "model_pitch",
    "model_roll",
    "show_bounding_box",
    "model_cull_faces",
    "model_color",
    "model_split_size",
    "name",
];

impl Loader<'_> {
    /// A `<model_uri>` or file value made absolute against the file it was written in,
    /// unless it is a URL or already absolute.
    pub fn resolve_uri(&self, uri: &str, span: passerby_diag::Span) -> String {
        let uri = uri.trim();
        if uri.is_empty() || uri.contains("://") {
            return uri.to_owned();
        }
        // Absolute paths are tidied too (`${MVSIM_CURRENT_FILE_DIRECTORY}/../models/x.dae`).
        crate::loader::normalize(&self.dir_of(span).join(uri))
            .display()
            .to_string()
    }

    /// `<visual>`.
    pub fn visual(&mut self, el: &Element) -> Visual {
        let d = Visual::default();
        let enabled = self.attr_bool(el, "enabled", true);
        let mut p = Params::new(vec![el]);
        let model_uri = match self.p_text(&mut p, "model_uri") {
            Some((uri, span)) => self.resolve_uri(&uri, span),
            None => {
                self.diags
                    .warning(el.span, "`<visual>` without `<model_uri>` shows nothing");
                String::new()
            }
        };
        let visual = Visual {
            enabled,
            model_uri,
            model_scale: self.p_positive(&mut p, "model_scale", d.model_scale),
            model_offset: [
                self.p_f64(&mut p, "model_offset_x", 0.0),
                self.p_f64(&mut p, "model_offset_y", 0.0),
                self.p_f64(&mut p, "model_offset_z", 0.0),
            ],
            model_yaw: self.p_deg(&mut p, "model_yaw", 0.0),
            model_pitch: self.p_deg(&mut p, "model_pitch", 0.0),
            model_roll: self.p_deg(&mut p, "model_roll", 0.0),
            show_bounding_box: self.p_bool(&mut p, "show_bounding_box", false),
            model_cull_faces: self.cull_face(&mut p, "model_cull_faces"),
            model_color: self.p_text(&mut p, "model_color").and_then(
                |(t, span)| match values::color(&t) {
                    Ok(c) => Some(c),
                    Err(e) => {
                        self.diags.error(span, format!("<model_color>: {e}"));
                        None
                    }
                },
            ),
            model_split_size: self.p_non_negative(&mut p, "model_split_size", 0.0),
            name: self.p_string(&mut p, "name", &d.name),
        };
        p.accept(VISUAL_TAGS);
        self.finish_params(p, "a <visual>");
        visual
    }

    /// `NONE`, `FRONT` or `BACK`.
    pub fn cull_face(&mut self, p: &mut Params<'_>, name: &str) -> String {
        let Some((text, span)) = self.p_text(p, name) else {
            return "NONE".into();
        };
        let t = text.trim().to_ascii_uppercase();
        if ["NONE", "FRONT", "BACK"].contains(&t.as_str()) {
            t
        } else {
            self.diags.error(
                span,
                format!(
                    "<{name}> is `{}`: expected NONE, FRONT or BACK",
                    text.trim()
                ),
            );
            "NONE".into()
        }
    }

    /// A pose tag: `x y yaw_deg` (3 values) or `x y z yaw pitch roll` (6 values, degrees).
    pub fn pose_text(
        &mut self,
        text: &str,
        span: passerby_diag::Span,
        what: &str,
        three_d: bool,
    ) -> Option<Pose3> {
        let n = if three_d { 6 } else { 3 };
        let v = self.numbers_at(
            text,
            span,
            n,
            n,
            &format!(
                "{what}: expected `{}`",
                if three_d {
                    "x y z yaw pitch roll"
                } else {
                    "x y yaw"
                }
            ),
        )?;
        Some(if three_d {
            Pose3 {
                x: v[0],
                y: v[1],
                z: v[2],
                yaw: v[3].to_radians(),
                pitch: v[4].to_radians(),
                roll: v[5].to_radians(),
            }
        } else {
            Pose3 {
                x: v[0],
                y: v[1],
                z: 0.0,
                yaw: v[2].to_radians(),
                ..Pose3::default()
            }
        })
    }

    /// Tags every simulated object has; `object` names the tag for messages.
    pub fn simulable(
        &mut self,
        p: &mut Params<'_>,
        el: &Element,
        object: &str,
        name: &str,
    ) -> SimulableCommon {
        let mut common = SimulableCommon::default();
        let pose2 = self.p_text(p, "init_pose");
        let pose3 = self.p_text(p, "init_pose3d");
        // MVSim reads <init_pose> first; <init_pose3d> only when there is none.
        match (pose2, pose3) {
            (Some((text, span)), _) => {
                if let Some(pose) = self.pose_text(&text, span, "<init_pose>", false) {
                    common.init_pose = pose;
                }
            }
            (None, Some((text, span))) => {
                if let Some(pose) = self.pose_text(&text, span, "<init_pose3d>", true) {
                    common.init_pose = pose;
                    common.init_pose_is_3d = true;
                }
            }
            (None, None) => self.diags.error(
                el.span,
                format!("`<{object}>` `{name}` has no `<init_pose>x y yaw_deg</init_pose>` (or `<init_pose3d>`)"),
            ),
        }
        common.skip_elevation_adjust = p.flag("skip_elevation_adjust");
        if let Some(v) = self.p_numbers(p, "init_vel", 3, 3, "expected `vx vy omega_deg_s`") {
            common.init_vel = [v[0], v[1], v[2].to_radians()];
        }
        if let Some(publish) = p.find("publish") {
            self.object_vars.insert("NAME".into(), name.to_owned());
            common.publish = Some(self.publish(publish));
            self.object_vars.remove("NAME");
        }
        if let Some(anim) = p.find("animation") {
            common.keyframes = self.keyframes(anim);
        }
        common.label = self
            .p_text(p, "label")
            .map(|(t, _)| t.trim().to_owned())
            .filter(|t| !t.is_empty());
        common
    }

    /// Puts an object on the highest ground surface (plane or elevation map defined so far)
    /// not above its query point, `z + query_height`, unless `<skip_elevation_adjust/>`
    /// (MVSim `Simulable::parseSimulable`). With no surface there, z becomes 0, as in MVSim.
    pub fn adjust_elevation(&self, common: &mut SimulableCommon, query_height: f64) {
        if common.skip_elevation_adjust {
            return;
        }
        let p = &mut common.init_pose;
        p.z = self
            .world
            .highest_elevation_under(p.x, p.y, p.z + query_height);
    }

    /// `<publish enabled="…">`.
    pub fn publish(&mut self, el: &Element) -> Publish {
        let enabled = self.attr_bool(el, "enabled", true);
        let mut p = Params::new(vec![el]);
        let publish = Publish {
            enabled,
            topic: self.p_string(&mut p, "publish_topic", ""),
            pose_topic: self.p_string(&mut p, "publish_pose_topic", ""),
            pose_period: self.p_positive(&mut p, "publish_pose_period", 0.1),
            relative_pose_topic: self.p_string(&mut p, "publish_relative_pose_topic", ""),
            relative_pose_objects: self
                .p_string(&mut p, "publish_relative_pose_objects", "")
                .split(',')
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty())
                .collect(),
        };
        self.finish_params(p, "a <publish>");
        publish
    }

    /// `<animation type="keyframes">`.
    fn keyframes(&mut self, el: &Element) -> Option<KeyframeAnimation> {
        let kind = self.optional_attr(el, "type");
        if let Some((kind, span)) = &kind
            && kind.trim() != "keyframes"
        {
            self.diags.error(
                *span,
                format!(
                    "animation type `{}`: expected `keyframes` (the only kind MVSim has)",
                    kind.trim()
                ),
            );
            return None;
        }
        let mut frames: Vec<(f64, Pose3)> = Vec::new();
        for child in el.elements() {
            let three_d = match child.name.as_str() {
                "time_pose" => false,
                "time_pose3d" => true,
                _ => {
                    self.unknown_tag(child, "an <animation>", &["time_pose", "time_pose3d"]);
                    continue;
                }
            };
            let (raw, span) = child.text();
            let Some(text) = self.value(&raw, span) else {
                continue;
            };
            let n = if three_d { 7 } else { 4 };
            let what = if three_d {
                "`t x y z yaw pitch roll`"
            } else {
                "`t x y yaw`"
            };
            let Some(v) = self.numbers_at(
                &text,
                span,
                n,
                n,
                &format!("<{}>: expected {what}", child.name),
            ) else {
                continue;
            };
            let pose = if three_d {
                Pose3 {
                    x: v[1],
                    y: v[2],
                    z: v[3],
                    yaw: v[4].to_radians(),
                    pitch: v[5].to_radians(),
                    roll: v[6].to_radians(),
                }
            } else {
                Pose3 {
                    x: v[1],
                    y: v[2],
                    yaw: v[3].to_radians(),
                    ..Pose3::default()
                }
            };
            if let Some(&(last, _)) = frames.last()
                && v[0] < last
            {
                self.diags.error(span, format!("keyframe time {} is before the previous one ({last}): times must not decrease", v[0]));
            }
            frames.push((v[0], pose));
        }
        if frames.is_empty() {
            self.diags
                .error(el.span, "`<animation>` without any `<time_pose>`");
            return None;
        }
        Some(KeyframeAnimation { keyframes: frames })
    }

    /// `<shape><pt>x y</pt>…</shape>`: at least three points.
    pub fn polygon(&mut self, el: &Element) -> Option<Vec<[f64; 2]>> {
        let mut pts = Vec::new();
        for pt in el.elements() {
            if pt.name != "pt" {
                self.unknown_tag(pt, "a <shape>", &["pt"]);
                continue;
            }
            let (raw, span) = pt.text();
            let text = self.value(&raw, span)?;
            let v = self.numbers_at(&text, span, 2, 2, "<pt>: expected `x y`")?;
            pts.push([v[0], v[1]]);
        }
        if pts.len() < 3 {
            self.diags.error(
                el.span,
                format!(
                    "`<shape>` has {} point(s): a polygon needs at least 3 `<pt>`",
                    pts.len()
                ),
            );
            return None;
        }
        Some(pts)
    }

    /// `<block>` (instance), with its class.
    pub fn block(&mut self, el: &Element) {
        let class = self.class_of(el, ClassKind::Block);
        if el.attr("class").is_some() && class.is_none() {
            return;
        }
        let body = self.expand_body(el);
        let mut bodies = vec![&body];
        if let Some((_, c)) = &class {
            bodies.push(c);
        }
        let mut p = Params::new(bodies);
        let count = self.world.blocks.len() + 1;
        let name = self.body_name(el, |n| format!("block{n:03}"), count);
        let d = Block::default();
        let mut block = Block {
            name: name.clone(),
            class: class.as_ref().map(|(n, _)| n.clone()),
            common: self.simulable(&mut p, el, "block", &name),
            mass: self.p_positive(&mut p, "mass", d.mass),
            zmin: self.p_opt_f64(&mut p, "zmin"),
            zmax: self.p_opt_f64(&mut p, "zmax"),
            ground_friction: self.p_non_negative(&mut p, "ground_friction", d.ground_friction),
            lateral_friction: self.p_non_negative(&mut p, "lateral_friction", d.lateral_friction),
            restitution: self.p_non_negative(&mut p, "restitution", d.restitution),
            color: self.p_color(&mut p, "color", d.color),
            intangible: self.p_bool(&mut p, "intangible", false),
            is_static: self.p_bool(&mut p, "static", false),
            visual_scale: self.p_opt_f64(&mut p, "visual_scale"),
            linear_damping: self.p_non_negative(&mut p, "linear_damping", d.linear_damping),
            angular_damping: self.p_non_negative(&mut p, "angular_damping", d.angular_damping),
            shape: BlockShape::Default,
            visuals: Vec::new(),
        };
        if let (Some(lo), Some(hi)) = (block.zmin, block.zmax)
            && lo > hi
        {
            self.diags.error(
                el.span,
                format!("block `{name}`: zmin {lo} is above zmax {hi}"),
            );
        }
        let geometry = p.find("geometry");
        let shape = p.find("shape");
        let from_visual = p.flag("shape_from_visual");
        block.shape = match (geometry, shape) {
            (Some(g), _) => self
                .geometry(g)
                .map_or(BlockShape::Default, BlockShape::Geometry),
            (None, Some(s)) => self
                .polygon(s)
                .map_or(BlockShape::Default, BlockShape::Polygon),
            (None, None) if from_visual => BlockShape::FromVisual,
            (None, None) => BlockShape::Default,
        };
        for v in p.find_first_body("visual") {
            let visual = self.visual(v);
            block.visuals.push(visual);
        }
        // The height of a visual-derived shape is not known before models load: 1 m, MVSim's default.
        let zmax = block.zmax.unwrap_or(1.0);
        self.adjust_elevation(&mut block.common, 0.5 * zmax);
        if matches!(block.shape, BlockShape::FromVisual) && block.visuals.is_empty() {
            self.diags.error(
                el.span,
                format!("block `{name}` has `<shape_from_visual/>` but no `<visual>`"),
            );
        }
        self.finish_params(p, "a <block>");
        self.world.blocks.push(block);
    }

    fn geometry(&mut self, el: &Element) -> Option<Geometry> {
        let (kind_text, span) = self.required_attr(el, "type")?;
        let kind = match kind_text.trim() {
            "cylinder" => GeometryKind::Cylinder,
            "sphere" => GeometryKind::Sphere,
            "box" => GeometryKind::Box,
            "ramp" => GeometryKind::Ramp,
            "semi_cylinder_bump" => GeometryKind::SemiCylinderBump,
            other => {
                self.diags.error(span, format!("geometry type `{other}`: expected cylinder, sphere, box, ramp or semi_cylinder_bump"));
                return None;
            }
        };
        let vertex_count = match self.optional_attr(el, "vertex_count") {
            Some((t, span)) => match values::integer(&t) {
                Ok(s) if s.value >= 3 && s.value <= 100_000 => s.value as u32,
                _ => {
                    self.diags.error(span, format!("attribute `vertex_count` is `{}`: expected an integer from 3 to 100000", t.trim()));
                    10
                }
            },
            None => 10,
        };
        Some(Geometry {
            kind,
            radius: self.attr_positive(el, "radius", 1.0),
            length: self.attr_positive(el, "length", 1.0),
            lx: self.attr_positive(el, "lx", 1.0),
            ly: self.attr_positive(el, "ly", 1.0),
            lz: self.attr_positive(el, "lz", 1.0),
            vertex_count,
        })
    }

    /// `<vehicle>` (instance), with its class and sensors.
    pub fn vehicle(&mut self, el: &Element) {
        let class = self.class_of(el, ClassKind::Vehicle);
        if el.attr("class").is_some() && class.is_none() {
            return;
        }
        let body = self.expand_body(el);
        let mut bodies = vec![&body];
        if let Some((_, c)) = &class {
            bodies.push(c);
        }
        let mut p = Params::new(bodies);
        let count = self.world.vehicles.len() + 1;
        let name = self.body_name(el, |n| format!("veh{n}"), count);
        let mut common = self.simulable(&mut p, el, "vehicle", &name);
        let dynamics = match p.find("dynamics") {
            Some(d) => self.dynamics(d),
            None => {
                self.diags.error(el.span, format!("vehicle `{name}` has no `<dynamics class=\"…\">` (in the instance or its class)"));
                Dynamics::default()
            }
        };
        self.adjust_elevation(&mut common, 0.5 * dynamics.chassis.zmax);
        let friction = match p.find("friction") {
            Some(f) => self.friction(f),
            None => Friction::default(),
        };
        let odometry_multipliers = match p.find("odometry") {
            Some(o) => [
                self.attr_f64(o, "x_multiplier", 1.0),
                self.attr_f64(o, "y_multiplier", 1.0),
                self.attr_f64(o, "yaw_multiplier", 1.0),
            ],
            None => [1.0; 3],
        };
        let mut visuals = Vec::new();
        for v in p.find_first_body("visual") {
            let visual = self.visual(v);
            visuals.push(visual);
        }
        let log_path = self.p_string(&mut p, "log_path", "");
        let auto_start_recording = self.p_bool(&mut p, "auto_start_recording", false);
        let mut sensors: Vec<Sensor> = Vec::new();
        for s in p.find_all("sensor") {
            let taken: Vec<String> = sensors.iter().map(|s| s.name.clone()).collect();
            if let Some(sensor) = self.sensor(s, &name, &taken) {
                sensors.push(sensor);
            }
        }
        self.finish_params(p, "a <vehicle>");
        self.world.vehicles.push(Vehicle {
            name,
            class: class.map(|(n, _)| n),
            common,
            dynamics,
            friction,
            odometry_multipliers,
            visuals,
            sensors,
            log_path,
            auto_start_recording,
        });
    }

    fn dynamics(&mut self, el: &Element) -> Dynamics {
        let mut dynamics = Dynamics::default();
        let class_text = self.required_attr(el, "class");
        let class = match class_text.as_ref().map(|(t, s)| (t.trim(), *s)) {
            Some(("differential", _)) => DynamicsClass::Differential,
            Some(("differential_3_wheels", _)) => DynamicsClass::Differential3Wheels,
            Some(("differential_4_wheels", _)) => DynamicsClass::Differential4Wheels,
            Some(("ackermann", _)) => DynamicsClass::Ackermann,
            Some(("ackermann_drivetrain", _)) => DynamicsClass::AckermannDrivetrain,
            Some((other, span)) => {
                self.diags.error(span, format!("dynamics class `{other}`: expected differential, differential_3_wheels, differential_4_wheels, ackermann or ackermann_drivetrain"));
                return dynamics;
            }
            None => return dynamics,
        };
        dynamics.class = class;
        let mut p = Params::new(vec![el]);
        let ackermann = matches!(
            class,
            DynamicsClass::Ackermann | DynamicsClass::AckermannDrivetrain
        );
        if ackermann {
            dynamics.f_wheels_x = Some(self.p_f64(&mut p, "f_wheels_x", 1.3));
            dynamics.f_wheels_d = Some(self.p_positive(&mut p, "f_wheels_d", 2.0));
            dynamics.max_steer_ang =
                Some(self.p_deg(&mut p, "max_steer_ang_deg", 30f64.to_radians()));
        }
        let fx = dynamics.f_wheels_x.unwrap_or(0.0);
        let half_d = dynamics.f_wheels_d.unwrap_or(0.0) / 2.0;
        let roles: &[(&str, [f64; 2])] = match class {
            DynamicsClass::Differential => &[("l_wheel", [0.0, 0.5]), ("r_wheel", [0.0, -0.5])],
            DynamicsClass::Differential3Wheels => &[
                ("l_wheel", [0.0, 0.5]),
                ("r_wheel", [0.0, -0.5]),
                ("caster_wheel", [0.5, 0.0]),
            ],
            DynamicsClass::Differential4Wheels => &[
                ("lr_wheel", [-0.5, 0.5]),
                ("rr_wheel", [-0.5, -0.5]),
                ("lf_wheel", [0.5, 0.5]),
                ("rf_wheel", [0.5, -0.5]),
            ],
            DynamicsClass::Ackermann | DynamicsClass::AckermannDrivetrain => &[
                ("rl_wheel", [0.0, 1.0]),
                ("rr_wheel", [0.0, -1.0]),
                ("fl_wheel", [fx, half_d]),
                ("fr_wheel", [fx, -half_d]),
            ],
        };
        for (role, default_pos) in roles {
            let wheel_el = p.find(role);
            dynamics.wheels.push(self.wheel(
                role,
                wheel_el,
                *default_pos,
                ackermann && role.starts_with('f'),
            ));
        }
        if let Some(ch) = p.find("chassis") {
            dynamics.chassis = self.chassis(ch);
        }
        match p.find("controller") {
            Some(c) => dynamics.controller = self.controller(c, class),
            None => self
                .diags
                .error(el.span, "`<dynamics>` has no `<controller class=\"…\">`"),
        }
        if class == DynamicsClass::AckermannDrivetrain {
            if let Some(d) = p.find("drivetrain") {
                let kind = self
                    .required_attr(d, "type")
                    .map(|(t, _)| t.trim().to_owned())
                    .unwrap_or_default();
                let params = self.numeric_children(d, "a <drivetrain>");
                dynamics.drivetrain = Some(Drivetrain { kind, params });
            } else {
                self.diags.error(
                    el.span,
                    "`ackermann_drivetrain` needs a `<drivetrain type=\"…\">`",
                );
            }
        } else {
            // Shipped definitions carry a <drivetrain> also for plain ackermann; MVSim ignores it.
            p.accept(&["drivetrain"]);
        }
        self.finish_params(p, "a <dynamics>");
        dynamics
    }

    fn wheel(
        &mut self,
        role: &str,
        el: Option<&Element>,
        default_pos: [f64; 2],
        steered_front: bool,
    ) -> Wheel {
        let mut wheel = Wheel {
            role: role.to_owned(),
            pose: Pose2 {
                x: default_pos[0],
                y: default_pos[1],
                yaw: 0.0,
            },
            mass: 2.0,
            width: 0.2,
            diameter: 0.4,
            color: Color::rgb(0x32, 0x32, 0x32),
            ..Wheel::default()
        };
        let Some(el) = el else { return wheel };
        // Ackermann front wheels are placed by f_wheels_x/f_wheels_d unless `pos` is given.
        let _ = steered_front;
        if let Some((text, span)) = self.optional_attr(el, "pos")
            && let Some(v) = self.numbers_at(
                &text,
                span,
                2,
                3,
                "attribute `pos`: expected `x y [yaw_deg]`",
            )
        {
            // A third value is the wheel's yaw in MVSim's 2D wheels; shipped files also use it
            // as z (agricobiot2), which MVSim reads as yaw degrees too.
            wheel.pose = Pose2 {
                x: v[0],
                y: v[1],
                yaw: v.get(2).copied().unwrap_or(0.0).to_radians(),
            };
        }
        wheel.mass = self.attr_positive(el, "mass", wheel.mass);
        wheel.width = self.attr_positive(el, "width", wheel.width);
        wheel.diameter = self.attr_positive(el, "diameter", wheel.diameter);
        if let Some((t, span)) = self.optional_attr(el, "color") {
            match values::color(&t) {
                Ok(c) => wheel.color = c,
                Err(e) => self.diags.error(span, format!("attribute `color`: {e}")),
            }
        }
        wheel.inertia = self.attr_opt_f64(el, "inertia");
        wheel.linked_yaw = self
            .optional_attr(el, "linked_yaw")
            .map(|(t, _)| t.trim().to_owned())
            .unwrap_or_default();
        wheel.linked_yaw_offset = self.attr_f64(el, "linked_yaw_offset_deg", 0.0).to_radians();
        for child in el.elements() {
            if child.name == "visual" {
                let v = self.visual(child);
                wheel.visuals.push(v);
            } else {
                self.unknown_tag(child, "a wheel", &["visual"]);
            }
        }
        wheel
    }

    fn chassis(&mut self, el: &Element) -> Chassis {
        let d = Chassis::default();
        let mut chassis = Chassis {
            mass: self.attr_positive(el, "mass", d.mass),
            zmin: self.attr_f64(el, "zmin", d.zmin),
            zmax: self.attr_f64(el, "zmax", d.zmax),
            color: d.color,
            linear_damping: self.attr_f64(el, "linear_damping", d.linear_damping),
            angular_damping: self.attr_f64(el, "angular_damping", d.angular_damping),
            shape: None,
            shape_from_visual: false,
        };
        if let Some((t, span)) = self.optional_attr(el, "color") {
            match values::color(&t) {
                Ok(c) => chassis.color = c,
                Err(e) => self.diags.error(span, format!("attribute `color`: {e}")),
            }
        }
        for child in el.elements() {
            match child.name.as_str() {
                "shape" => chassis.shape = self.polygon(child),
                "shape_from_visual" => chassis.shape_from_visual = true,
                _ => self.unknown_tag(child, "a <chassis>", &["shape", "shape_from_visual"]),
            }
        }
        chassis
    }

    fn controller(&mut self, el: &Element, class: DynamicsClass) -> Controller {
        let allowed: &[&str] = match class {
            DynamicsClass::Differential
            | DynamicsClass::Differential3Wheels
            | DynamicsClass::Differential4Wheels => &["raw", "twist_pid", "twist_ideal"],
            DynamicsClass::Ackermann => &[
                "raw",
                "front_steer_pid",
                "twist_front_steer_pid",
                "twist_ideal",
            ],
            DynamicsClass::AckermannDrivetrain => &[
                "raw",
                "front_steer_pid",
                "twist_front_steer_pid",
                "twist_ideal",
            ],
        };
        let mut controller = Controller::default();
        if let Some((text, span)) = self.required_attr(el, "class") {
            let name = text.trim();
            if allowed.contains(&name) {
                controller.class = name.to_owned();
            } else {
                self.diags.error(
                    span,
                    format!("controller class `{name}` does not exist for `{}` dynamics: expected one of {}", class.xml_name(), allowed.join(", ")),
                );
            }
        }
        controller.params = self.numeric_children(el, "a <controller>");
        // MVSim reads W and STEER_ANG in degrees.
        for key in ["W", "STEER_ANG", "steer_ang_deg"] {
            if let Some(v) = controller.params.get_mut(key) {
                *v = v.to_radians();
            }
        }
        controller
    }

    /// Every child of `el` as a number (controller gains, friction coefficients, …).
    fn numeric_children(&mut self, el: &Element, context: &str) -> BTreeMap<String, f64> {
        let mut out = BTreeMap::new();
        for child in el.elements() {
            let (raw, span) = child.text();
            if raw.trim().is_empty() && child.elements().next().is_some() {
                self.unknown_tag(child, context, &[]);
                continue;
            }
            let Some(text) = self.value(&raw, span) else {
                continue;
            };
            if let Some(v) = self.scan(&text, span, &format!("<{}>", child.name), values::real) {
                out.insert(child.name.clone(), v);
            }
        }
        out
    }

    fn friction(&mut self, el: &Element) -> Friction {
        let class = self
            .optional_attr(el, "class")
            .map(|(t, s)| (t.trim().to_owned(), s));
        let class_name = class
            .as_ref()
            .map_or("default", |(t, _)| t.as_str())
            .to_owned();
        let defaults: &[(&str, f64)] = match class_name.as_str() {
            "default" => &[("mu", 0.8), ("C_damping", 0.01), ("C_rr", 0.0)],
            "wardiagnemma" => &[
                ("mu", 0.8),
                ("C_damping", 0.01),
                ("A_roll", 50.0),
                ("R1", 0.0075),
                ("R2", 0.02),
            ],
            "ellipse" => &[
                ("mu", 0.8),
                ("C_damping", 0.01),
                ("C_alpha", 8.5),
                ("C_s", 7.5),
            ],
            other => {
                if let Some((_, span)) = class {
                    self.diags.error(
                        span,
                        format!(
                            "friction class `{other}`: expected default, wardiagnemma or ellipse"
                        ),
                    );
                }
                &[]
            }
        };
        let mut params: BTreeMap<String, f64> = defaults
            .iter()
            .map(|(k, v)| ((*k).to_owned(), *v))
            .collect();
        params.extend(self.numeric_children(el, "a <friction>"));
        Friction {
            class: class_name,
            params,
        }
    }

    /// `<actor>` (instance), with its class.
    pub fn actor(&mut self, el: &Element) {
        let class = self.class_of(el, ClassKind::Actor);
        if el.attr("class").is_some() && class.is_none() {
            return;
        }
        let body = self.expand_body(el);
        let mut bodies = vec![&body];
        if let Some((_, c)) = &class {
            bodies.push(c);
        }
        let mut p = Params::new(bodies);
        let count = self.world.actors.len() + 1;
        let name = self.body_name(el, |n| format!("actor{n:03}"), count);
        let d = Actor::default();
        let mut common = self.simulable(&mut p, el, "actor", &name);
        self.adjust_elevation(&mut common, 1.5);
        let walking_speed = self.p_positive(&mut p, "walking_speed", d.walking_speed);
        let running_speed = self.p_positive(&mut p, "running_speed", d.running_speed);
        let turning_rate_deg = self.p_non_negative(&mut p, "turning_rate", 120.0);
        let run_threshold = self.p_opt_f64(&mut p, "run_threshold");
        let mut actor = Actor {
            name: name.clone(),
            class: class.as_ref().map(|(n, _)| n.clone()),
            common,
            walking_speed,
            running_speed,
            turning_rate: (turning_rate_deg > 0.0).then(|| turning_rate_deg.to_radians()),
            run_threshold,
            height: self.p_positive(&mut p, "height", d.height),
            collision_radius: self.p_positive(&mut p, "collision_radius", d.collision_radius),
            collision_height: self.p_positive(&mut p, "collision_height", d.collision_height),
            animation_idle: self.p_string(&mut p, "animation_idle", &d.animation_idle),
            animation_walk: self.p_string(&mut p, "animation_walk", &d.animation_walk),
            animation_run: self.p_string(&mut p, "animation_run", &d.animation_run),
            animation_turn: self
                .p_text(&mut p, "animation_turn")
                .map(|(t, _)| t.trim().to_owned()),
            visuals: Vec::new(),
            path: None,
            behavior: None,
        };
        // Class and instance visuals are both shown (MVSim HumanActor).
        for v in p.find_all("visual") {
            let visual = self.visual(v);
            actor.visuals.push(visual);
        }
        if let Some(path) = p.find("path") {
            actor.path = self.actor_path(path);
        }
        if let Some(b) = p.find("behavior") {
            actor.behavior = self.behavior(b, walking_speed);
            if actor.path.is_some() && actor.behavior.is_some() {
                self.diags.error(
                    b.span,
                    format!("actor `{name}` has both a `<path>` and a `<behavior>`: choose one"),
                );
            }
        }
        self.finish_params(p, "an <actor>");
        self.world.actors.push(actor);
    }

    fn actor_path(&mut self, el: &Element) -> Option<ActorPath> {
        // MVSim: loop is true unless the attribute is present and not exactly "true" or "1".
        let looped = el
            .attr("loop")
            .is_none_or(|a| matches!(a.value.trim(), "true" | "1"));
        let mut waypoints = Vec::new();
        for wp in el.elements() {
            if wp.name != "waypoint" {
                self.unknown_tag(wp, "a <path>", &["waypoint"]);
                continue;
            }
            let (raw, span) = wp.text();
            let Some(text) = self.value(&raw, span) else {
                continue;
            };
            let Some(v) = self.numbers_at(
                &text,
                span,
                3,
                6,
                "<waypoint>: expected `x y yaw_deg` or `x y z yaw pitch roll`",
            ) else {
                continue;
            };
            let (pose, is_3d) = match v.len() {
                3 => (
                    Pose3 {
                        x: v[0],
                        y: v[1],
                        yaw: v[2].to_radians(),
                        ..Pose3::default()
                    },
                    false,
                ),
                6 => (
                    Pose3 {
                        x: v[0],
                        y: v[1],
                        z: v[2],
                        yaw: v[3].to_radians(),
                        pitch: v[4].to_radians(),
                        roll: v[5].to_radians(),
                    },
                    true,
                ),
                n => {
                    self.diags.error(span, format!("<waypoint> has {n} numbers: expected 3 (`x y yaw_deg`) or 6 (`x y z yaw pitch roll`)"));
                    continue;
                }
            };
            let pause = match self.optional_attr(wp, "pause") {
                Some((t, span)) => match self.scan(&t, span, "attribute `pause`", values::real) {
                    Some(p) if p >= 0.0 => p,
                    Some(p) => {
                        self.diags
                            .error(span, format!("pause {p}: expected zero or more seconds"));
                        0.0
                    }
                    None => 0.0,
                },
                None => 0.0,
            };
            let animation = match self.optional_attr(wp, "animation") {
                None => WaypointAnimation::Walk,
                Some((t, span)) => match t.trim() {
                    "walk" => WaypointAnimation::Walk,
                    "run" => WaypointAnimation::Run,
                    "idle" => WaypointAnimation::Idle,
                    other => {
                        self.diags.error(
                            span,
                            format!("waypoint animation `{other}`: expected walk, run or idle"),
                        );
                        WaypointAnimation::Walk
                    }
                },
            };
            waypoints.push(Waypoint {
                pose,
                is_3d,
                pause,
                animation,
            });
        }
        if waypoints.is_empty() {
            self.diags
                .error(el.span, "`<path>` without any `<waypoint>`");
            return None;
        }
        Some(ActorPath { looped, waypoints })
    }

    fn behavior(&mut self, el: &Element, walking_speed: f64) -> Option<Behavior> {
        let (kind, span) = self.required_attr(el, "type")?;
        let speed = self.attr_positive(el, "speed", walking_speed);
        let behavior = match kind.trim() {
            "walker" => Behavior::Walker {
                duration: self.attr_positive(el, "duration", 4.0),
                speed,
            },
            "wander" => Behavior::Wander {
                speed,
                radius: self.attr_positive(el, "radius", 10.0),
            },
            "straight" => Behavior::Straight { speed },
            "circle" => Behavior::Circle {
                speed,
                radius: self.attr_positive(el, "radius", 5.0),
            },
            other => {
                self.diags.error(
                    span,
                    format!("behavior type `{other}`: expected walker, wander, straight or circle"),
                );
                return None;
            }
        };
        Some(behavior)
    }
}
