//! Blocks, and what every object shares: visuals, initial pose, keyframes,
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
    pub(crate) fn keyframes(&mut self, el: &Element) -> Option<KeyframeAnimation> {
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
}
