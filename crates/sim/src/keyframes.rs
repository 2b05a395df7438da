//! MVSim's `<animation type="keyframes">` (`mvsim.md` §1.7): the pose at simulated time `t` is
//! the initial pose composed with the keyframe pose interpolated at `t mod t_last` (linear in
//! translation, spherical in rotation). Before the first keyframe's time the first pose holds.

use glam::DVec3;
use passerby_world::{KeyframeAnimation, Pose3};

/// The keyframe pose (relative to the initial pose) at simulated time `t`.
pub fn relative_pose_at(anim: &KeyframeAnimation, t: f64) -> Option<Pose3> {
    let frames = &anim.keyframes;
    let (first, last) = (frames.first()?, frames.last()?);
    let period = last.0;
    let t = if period > 0.0 {
        t.rem_euclid(period)
    } else {
        0.0
    };
    if t <= first.0 || frames.len() == 1 {
        return Some(first.1);
    }
    let i = frames
        .partition_point(|(ti, _)| *ti <= t)
        .clamp(1, frames.len() - 1);
    let ((t0, p0), (t1, p1)) = (&frames[i - 1], &frames[i]);
    let f = if t1 > t0 {
        ((t - t0) / (t1 - t0)).clamp(0.0, 1.0)
    } else {
        1.0
    };
    let a = DVec3::new(p0.x, p0.y, p0.z);
    let b = DVec3::new(p1.x, p1.y, p1.z);
    Some(Pose3::from_translation_rotation(
        a.lerp(b, f),
        p0.rotation().slerp(p1.rotation(), f),
    ))
}

/// The world pose of an object with keyframes at time `t`.
pub fn pose_at(init: &Pose3, anim: &KeyframeAnimation, t: f64) -> Option<Pose3> {
    Some(init.compose(&relative_pose_at(anim, t)?))
}
