//! Sampling animation clips into a pose, and blending two poses.
//!
//! A [`Pose`] holds every node's local transform. Sampling starts from the rest pose and
//! overrides the animated properties. Times before a channel's first key hold the first key,
//! after the last key the last key; a looping clip wraps `t` into `[0, duration)` first.
//! Rotations interpolate along the shortest arc (a key whose quaternion has the opposite sign
//! of the previous one is flipped).

use crate::model::{Channel, Clip, Interpolation, Model, Property, Trs};
use glam::{Quat, Vec3, Vec4};

/// Every node's local transform at one instant.
#[derive(Clone, Debug, PartialEq)]
pub struct Pose {
    /// `parent_from_node` per node.
    pub locals: Vec<Trs>,
}

/// How time outside a clip's range is mapped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wrap {
    /// `t` modulo the duration.
    Loop,
    /// `t` clamped to `[0, duration]`.
    Clamp,
}

impl Pose {
    /// The rest pose of a model.
    pub fn rest(model: &Model) -> Pose {
        Pose {
            locals: model.nodes.iter().map(|n| n.rest).collect(),
        }
    }

    /// Sets this pose to `clip` at time `t` (seconds), starting from the rest pose.
    /// Allocation-free once the pose has the model's node count.
    pub fn sample(&mut self, model: &Model, clip: &Clip, t: f32, wrap: Wrap) {
        self.locals.clear();
        self.locals.extend(model.nodes.iter().map(|n| n.rest));
        let t = clip_time(clip.duration, t, wrap);
        for channel in &clip.channels {
            let Some(local) = self.locals.get_mut(channel.node) else {
                continue;
            };
            match channel.property {
                Property::Translation => local.translation = sample_vec3(channel, t),
                Property::Scale => local.scale = sample_vec3(channel, t),
                Property::Rotation => local.rotation = sample_quat(channel, t),
            }
        }
    }

    /// Blends towards `other` by `alpha` in [0, 1] (0 keeps this pose): translations and
    /// scales linearly, rotations by shortest-arc slerp. Used for cross-fades between clips.
    pub fn blend_towards(&mut self, other: &Pose, alpha: f32) {
        let alpha = alpha.clamp(0.0, 1.0);
        for (a, b) in self.locals.iter_mut().zip(&other.locals) {
            a.translation = a.translation.lerp(b.translation, alpha);
            a.scale = a.scale.lerp(b.scale, alpha);
            let target = if a.rotation.dot(b.rotation) < 0.0 {
                -b.rotation
            } else {
                b.rotation
            };
            a.rotation = a.rotation.slerp(target, alpha).normalize();
        }
    }
}

/// Plays one clip at a time and cross-fades over `fade_secs` when the clip changes, so that a
/// switch from walking to running never snaps the skeleton. The caller owns the clip time
/// (MVSim advances it by `dt · playback scale`, and does not reset it on a clip change).
#[derive(Clone, Debug)]
pub struct ClipPlayer {
    /// Cross-fade duration, seconds (0 switches instantly).
    pub fade_secs: f32,
    active: Option<usize>,
    fading_from: Option<usize>,
    fade_started: f32,
    scratch: Pose,
}

impl ClipPlayer {
    /// A player with the given cross-fade duration.
    pub fn new(fade_secs: f32) -> ClipPlayer {
        ClipPlayer {
            fade_secs,
            active: None,
            fading_from: None,
            fade_started: 0.0,
            scratch: Pose { locals: Vec::new() },
        }
    }

    /// The clip playing now.
    pub fn active(&self) -> Option<usize> {
        self.active
    }

    /// Writes into `out` the pose of clip `clip` (index into `model.clips`) at `clip_time`,
    /// blended with the previous clip while a cross-fade that began at a clip change is running.
    /// `now` is the simulation time, which measures the fade.
    pub fn pose(&mut self, model: &Model, clip: usize, clip_time: f32, now: f32, out: &mut Pose) {
        if self.active != Some(clip) {
            self.fading_from = self.active.filter(|_| self.fade_secs > 0.0);
            self.active = Some(clip);
            self.fade_started = now;
        }
        let Some(current) = model.clips.get(clip) else {
            *out = Pose::rest(model);
            return;
        };
        out.sample(model, current, clip_time, Wrap::Loop);
        let Some(from) = self.fading_from.and_then(|c| model.clips.get(c)) else {
            return;
        };
        let alpha = (now - self.fade_started) / self.fade_secs;
        if alpha.is_nan() || alpha >= 1.0 {
            self.fading_from = None;
            return;
        }
        self.scratch.sample(model, from, clip_time, Wrap::Loop);
        self.scratch.blend_towards(out, alpha.max(0.0));
        std::mem::swap(&mut self.scratch, out);
    }
}

/// Maps a time onto the clip's range.
pub fn clip_time(duration: f32, t: f32, wrap: Wrap) -> f32 {
    if !t.is_finite() || duration <= 0.0 {
        return 0.0;
    }
    match wrap {
        Wrap::Clamp => t.clamp(0.0, duration),
        Wrap::Loop => t.rem_euclid(duration),
    }
}

/// The key interval `[k, k+1]` containing `t` and the fraction within it, or a single key.
enum Segment {
    Key(usize),
    Between(usize, f32, f32),
}

fn segment(times: &[f32], t: f32) -> Segment {
    let n = times.len();
    if n <= 1 || t <= times[0] {
        return Segment::Key(0);
    }
    if t >= times[n - 1] {
        return Segment::Key(n - 1);
    }
    // First key strictly after t; keys are strictly increasing (checked at import).
    let upper = times.partition_point(|&k| k <= t);
    let k = upper - 1;
    let dt = times[k + 1] - times[k];
    Segment::Between(k, (t - times[k]) / dt, dt)
}

/// The `i`-th group of `width` floats of a channel's values; for cubic splines, `part` picks
/// in-tangent (0), value (1) or out-tangent (2).
fn group(channel: &Channel, key: usize, part: usize, width: usize) -> &[f32] {
    let stride = if channel.interpolation == Interpolation::CubicSpline {
        3
    } else {
        1
    };
    let part = if stride == 3 { part } else { 0 };
    let start = (key * stride + part) * width;
    channel
        .values
        .get(start..start + width)
        .unwrap_or(&[0.0; 4][..width])
}

fn vec3(v: &[f32]) -> Vec3 {
    Vec3::new(v[0], v[1], v[2])
}

fn vec4(v: &[f32]) -> Vec4 {
    Vec4::new(v[0], v[1], v[2], v[3])
}

fn hermite(p0: Vec4, m0: Vec4, p1: Vec4, m1: Vec4, s: f32, dt: f32) -> Vec4 {
    let (s2, s3) = (s * s, s * s * s);
    p0 * (2.0 * s3 - 3.0 * s2 + 1.0)
        + m0 * (dt * (s3 - 2.0 * s2 + s))
        + p1 * (-2.0 * s3 + 3.0 * s2)
        + m1 * (dt * (s3 - s2))
}

fn sample_vec3(channel: &Channel, t: f32) -> Vec3 {
    match segment(&channel.times, t) {
        Segment::Key(k) => vec3(group(channel, k, 1, 3)),
        Segment::Between(k, s, dt) => match channel.interpolation {
            Interpolation::Step => vec3(group(channel, k, 1, 3)),
            Interpolation::Linear => {
                vec3(group(channel, k, 1, 3)).lerp(vec3(group(channel, k + 1, 1, 3)), s)
            }
            Interpolation::CubicSpline => {
                let p = |key, part| vec3(group(channel, key, part, 3)).extend(0.0);
                hermite(p(k, 1), p(k, 2), p(k + 1, 1), p(k + 1, 0), s, dt).truncate()
            }
        },
    }
}

fn quat(v: Vec4) -> Quat {
    let q = Quat::from_vec4(v);
    let len = q.length();
    if len > 1e-12 && len.is_finite() {
        q / len
    } else {
        Quat::IDENTITY
    }
}

fn sample_quat(channel: &Channel, t: f32) -> Quat {
    match segment(&channel.times, t) {
        Segment::Key(k) => quat(vec4(group(channel, k, 1, 4))),
        Segment::Between(k, s, dt) => match channel.interpolation {
            Interpolation::Step => quat(vec4(group(channel, k, 1, 4))),
            Interpolation::Linear => {
                let a = quat(vec4(group(channel, k, 1, 4)));
                let mut b = quat(vec4(group(channel, k + 1, 1, 4)));
                if a.dot(b) < 0.0 {
                    b = -b;
                }
                a.slerp(b, s).normalize()
            }
            Interpolation::CubicSpline => {
                let p = |key, part| vec4(group(channel, key, part, 4));
                quat(hermite(p(k, 1), p(k, 2), p(k + 1, 1), p(k + 1, 0), s, dt))
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Node;

    fn channel(
        property: Property,
        interpolation: Interpolation,
        times: &[f32],
        values: &[f32],
    ) -> Channel {
        Channel {
            node: 0,
            property,
            interpolation,
            times: times.to_vec(),
            values: values.to_vec(),
        }
    }

    #[test]
    fn linear_translation_clamps_outside_the_keys() {
        let c = channel(
            Property::Translation,
            Interpolation::Linear,
            &[1.0, 3.0],
            &[0.0, 0.0, 0.0, 2.0, 4.0, 6.0],
        );
        assert_eq!(sample_vec3(&c, 0.0), Vec3::ZERO, "before the first key");
        assert_eq!(sample_vec3(&c, 2.0), Vec3::new(1.0, 2.0, 3.0));
        assert_eq!(
            sample_vec3(&c, 9.0),
            Vec3::new(2.0, 4.0, 6.0),
            "after the last key"
        );
        let single = channel(
            Property::Scale,
            Interpolation::Linear,
            &[0.5],
            &[2.0, 2.0, 2.0],
        );
        assert_eq!(sample_vec3(&single, 0.0), Vec3::splat(2.0));
        assert_eq!(sample_vec3(&single, 7.0), Vec3::splat(2.0));
    }

    #[test]
    fn step_holds_the_previous_key() {
        let c = channel(
            Property::Translation,
            Interpolation::Step,
            &[0.0, 1.0],
            &[0.0, 0.0, 0.0, 1.0, 1.0, 1.0],
        );
        assert_eq!(sample_vec3(&c, 0.999), Vec3::ZERO);
        assert_eq!(sample_vec3(&c, 1.0), Vec3::ONE);
    }

    #[test]
    fn rotations_take_the_shortest_arc() {
        let a = Quat::from_rotation_z(0.1);
        let b = -Quat::from_rotation_z(0.3); // same rotation as +0.3, opposite sign
        let c = channel(
            Property::Rotation,
            Interpolation::Linear,
            &[0.0, 1.0],
            &[a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w],
        );
        let mid = sample_quat(&c, 0.5);
        assert!(
            mid.angle_between(Quat::from_rotation_z(0.2)) < 1e-5,
            "{mid:?}"
        );
    }

    #[test]
    fn cubic_spline_uses_tangents_scaled_by_the_interval() {
        // p(s) over [0, 2] with p0 = 0, p1 = 1, out-tangent of key 0 = 1, in-tangent of key 1 = 0.
        let values = [
            0.0, 0.0, 0.0, /*v0*/ 0.0, 0.0, 0.0, /*out0*/ 1.0, 0.0, 0.0,
            /*in1*/ 0.0, 0.0, 0.0, /*v1*/ 1.0, 0.0, 0.0, /*out1*/ 0.0, 0.0, 0.0,
        ];
        let c = channel(
            Property::Translation,
            Interpolation::CubicSpline,
            &[0.0, 2.0],
            &values,
        );
        let s: f32 = 0.5;
        let expected =
            (s.powi(3) - 2.0 * s * s + s) * 2.0 * 1.0 + (-2.0 * s.powi(3) + 3.0 * s * s) * 1.0;
        assert!((sample_vec3(&c, 1.0).x - expected).abs() < 1e-6);
        assert_eq!(sample_vec3(&c, 0.0).x, 0.0);
        assert_eq!(sample_vec3(&c, 2.0).x, 1.0);
    }

    #[test]
    fn clip_changes_cross_fade() {
        let model = Model {
            source: "m".into(),
            frame: crate::model::ModelFrame {
                description: String::new(),
                right: Vec3::X,
                up: Vec3::Y,
                front: Vec3::Z,
                metres_per_unit: 1.0,
                assimp_from_file: glam::Mat4::IDENTITY,
            },
            nodes: vec![Node {
                name: "a".into(),
                parent: None,
                rest: Trs::default(),
            }],
            eval_order: vec![0],
            meshes: vec![],
            skins: vec![],
            clips: [0.0, 2.0]
                .iter()
                .map(|x| Clip {
                    name: format!("at {x}"),
                    duration: 1.0,
                    channels: vec![channel(
                        Property::Translation,
                        Interpolation::Step,
                        &[0.0],
                        &[*x, 0.0, 0.0],
                    )],
                })
                .collect(),
            materials: vec![],
            lines: vec![],
            warnings: vec![],
        };
        let mut player = ClipPlayer::new(0.2);
        let mut pose = Pose::rest(&model);
        let x = |p: &Pose| p.locals[0].translation.x;
        player.pose(&model, 0, 0.0, 10.0, &mut pose);
        assert_eq!(x(&pose), 0.0);
        player.pose(&model, 1, 0.0, 11.0, &mut pose);
        assert_eq!(x(&pose), 0.0, "the switch starts from the old clip");
        player.pose(&model, 1, 0.0, 11.1, &mut pose);
        assert!((x(&pose) - 1.0).abs() < 1e-5, "half-way: {}", x(&pose));
        player.pose(&model, 1, 0.0, 11.25, &mut pose);
        assert_eq!(x(&pose), 2.0, "after the fade, only the new clip");
        assert_eq!(player.active(), Some(1));
        let mut instant = ClipPlayer::new(0.0);
        instant.pose(&model, 0, 0.0, 0.0, &mut pose);
        instant.pose(&model, 1, 0.0, 0.0, &mut pose);
        assert_eq!(x(&pose), 2.0);
    }

    #[test]
    fn looping_wraps_and_clamping_holds() {
        assert_eq!(clip_time(2.0, 5.0, Wrap::Loop), 1.0);
        assert_eq!(clip_time(2.0, -0.5, Wrap::Loop), 1.5);
        assert_eq!(clip_time(2.0, 5.0, Wrap::Clamp), 2.0);
        assert_eq!(clip_time(0.0, 5.0, Wrap::Loop), 0.0);
        assert_eq!(clip_time(2.0, f32::NAN, Wrap::Loop), 0.0);
    }

    #[test]
    fn sampling_starts_from_rest_and_blending_mixes_poses() {
        let model = Model {
            source: "m".into(),
            frame: crate::model::ModelFrame {
                description: String::new(),
                right: Vec3::X,
                up: Vec3::Y,
                front: Vec3::Z,
                metres_per_unit: 1.0,
                assimp_from_file: glam::Mat4::IDENTITY,
            },
            nodes: vec![Node {
                name: "a".into(),
                parent: None,
                rest: Trs {
                    scale: Vec3::splat(2.0),
                    ..Trs::default()
                },
            }],
            eval_order: vec![0],
            meshes: vec![],
            skins: vec![],
            clips: vec![],
            materials: vec![],
            lines: vec![],
            warnings: vec![],
        };
        let clip = Clip {
            name: "c".into(),
            duration: 1.0,
            channels: vec![channel(
                Property::Translation,
                Interpolation::Linear,
                &[0.0, 1.0],
                &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0],
            )],
        };
        let mut pose = Pose::rest(&model);
        pose.sample(&model, &clip, 0.25, Wrap::Loop);
        assert_eq!(pose.locals[0].translation, Vec3::new(0.25, 0.0, 0.0));
        assert_eq!(
            pose.locals[0].scale,
            Vec3::splat(2.0),
            "unanimated properties keep the rest pose"
        );
        let mut other = pose.clone();
        other.sample(&model, &clip, 0.75, Wrap::Loop);
        pose.blend_towards(&other, 0.5);
        assert_eq!(pose.locals[0].translation, Vec3::new(0.5, 0.0, 0.0));
    }
}
