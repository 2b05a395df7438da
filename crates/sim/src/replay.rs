//! Replay of timed inputs: transforms set on objects and their parts, and vehicle velocity
//! commands, at their times.
//!
//! Transform rows of one (object, part) form a track: between two rows the transform is
//! interpolated (linear translation and scale, spherical rotation), so a step that ends exactly
//! on a row's time puts the object exactly where the row says; after the last row it holds.
//! Before its first row an object moves on its own. A command applies from the first step that
//! starts at or after its time.

use glam::DVec3;
use passerby_world::{Pose3, TimedCommand, TimedTransform, Transform};
use std::collections::BTreeMap;

/// An object and one of its parts (`None`: the whole body).
type Target = (String, Option<String>);
/// Rows of one target, in time order.
type Track = Vec<(f64, Transform)>;

/// Rows sorted into tracks, and commands in time order.
#[derive(Clone, Debug, Default)]
pub struct Replay {
    tracks: BTreeMap<Target, Track>,
    /// Objects whose body rows are planar (x, y, yaw; the rest from the ground).
    planar: std::collections::BTreeSet<String>,
    commands: Vec<TimedCommand>,
    next_command: usize,
}

impl Replay {
    /// Sorts rows by time (stable: rows with equal times keep their file order, the later
    /// winning).
    pub fn new(transforms: Vec<TimedTransform>, mut commands: Vec<TimedCommand>) -> Replay {
        let mut tracks: BTreeMap<Target, Track> = BTreeMap::new();
        let mut planar = std::collections::BTreeSet::new();
        for row in transforms {
            if row.planar && row.part.is_none() {
                planar.insert(row.object.clone());
            }
            tracks
                .entry((row.object, row.part))
                .or_default()
                .push((row.time, row.transform));
        }
        for rows in tracks.values_mut() {
            rows.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
        commands.sort_by(|a, b| a.time.total_cmp(&b.time));
        Replay {
            tracks,
            planar,
            commands,
            next_command: 0,
        }
    }

    /// Commands whose time has come by `now` and were not applied yet, in time order.
    pub fn commands_due(&mut self, now: f64) -> Vec<(&str, [f64; 3])> {
        // Half a microsecond of slack: times written as decimals meet step times computed as
        // multiples of the step.
        let start = self.next_command;
        while self
            .commands
            .get(self.next_command)
            .is_some_and(|c| c.time <= now + 5e-7)
        {
            self.next_command += 1;
        }
        self.commands[start..self.next_command]
            .iter()
            .map(|c| (c.vehicle.as_str(), c.twist))
            .collect()
    }

    /// Every track's transform at time `t`, for the tracks that have begun.
    pub fn transforms_at(&self, t: f64) -> Vec<(&str, Option<&str>, Transform)> {
        self.tracks
            .iter()
            .filter_map(|((object, part), rows)| {
                sample(rows, t).map(|tr| (object.as_str(), part.as_deref(), tr))
            })
            .collect()
    }

    /// Whether `object`'s body rows are planar (2D trajectories).
    pub fn is_planar(&self, object: &str) -> bool {
        self.planar.contains(object)
    }
}

/// A track's transform at `t`: `None` before its first row.
fn sample(rows: &[(f64, Transform)], t: f64) -> Option<Transform> {
    let first = rows.first()?;
    if t < first.0 - 5e-7 {
        return None;
    }
    let i = rows.partition_point(|(ti, _)| *ti <= t + 5e-7);
    if i >= rows.len() {
        return rows.last().map(|r| r.1);
    }
    let ((t0, a), (t1, b)) = (rows[i - 1], rows[i]);
    let f = ((t - t0) / (t1 - t0)).clamp(0.0, 1.0);
    let lerp = |x: [f64; 3], y: [f64; 3]| -> [f64; 3] {
        DVec3::from_array(x)
            .lerp(DVec3::from_array(y), f)
            .to_array()
    };
    let as_pose = |tr: &Transform| Pose3 {
        yaw: tr.yaw_pitch_roll[0],
        pitch: tr.yaw_pitch_roll[1],
        roll: tr.yaw_pitch_roll[2],
        ..Pose3::default()
    };
    let turned = Pose3::from_translation_rotation(
        DVec3::ZERO,
        as_pose(&a).rotation().slerp(as_pose(&b).rotation(), f),
    );
    Some(Transform {
        translation: lerp(a.translation, b.translation),
        yaw_pitch_roll: [turned.yaw, turned.pitch, turned.roll],
        scale: lerp(a.scale, b.scale),
    })
}
