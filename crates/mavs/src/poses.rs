//! Pose files of MAVS simulation input files. ANVEL replay files (`.vprp`, `Pose Type: anvel`):
//! a vehicle's poses in time, each record `t:x y z:qw qx qy qz` followed by one
//! `x y z:qw qx qy qz` line per `Vehicle Objects` (wheels), between `@Data` and
//! `@END OF REPLAY FILE`. Text pose files (`Pose Type: text`): `x y z qw qx qy qz` per pose,
//! separated by any white space, untimed (MAVS renders one frame per pose).

use glam::{DQuat, DVec3};
use passerby_world::Pose3;

/// One pose of the vehicle body.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimedPose {
    /// Seconds.
    pub time: f64,
    /// Metres, local East-North-Up.
    pub position: [f64; 3],
    /// Radians: yaw about Z, pitch about Y, roll about X.
    pub yaw_pitch_roll: [f64; 3],
}

/// A line that is not what the format wants there: its 1-based number and what was expected.
#[derive(Clone, Debug, PartialEq)]
pub struct PoseError {
    /// 1-based line number.
    pub line: usize,
    /// What was expected.
    pub message: String,
}

/// Reads a replay file's text.
pub fn read_vprp(text: &str) -> Result<Vec<TimedPose>, PoseError> {
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim()));
    let mut wheels = 0usize;
    let mut in_data = false;
    for (n, line) in lines.by_ref() {
        if let Some(count) = line.strip_prefix("Vehicle Objects:") {
            wheels = count.trim().parse().map_err(|_| PoseError {
                line: n,
                message: format!(
                    "expected a count of vehicle objects, found `{}`",
                    count.trim()
                ),
            })?;
        }
        if line == "@Data" {
            in_data = true;
            break;
        }
    }
    if !in_data {
        return Err(PoseError {
            line: text.lines().count(),
            message: "no `@Data` line: not an ANVEL replay file".into(),
        });
    }
    let mut poses: Vec<TimedPose> = Vec::new();
    let mut skip = 0usize;
    for (n, line) in lines {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if line.starts_with("@END") {
            break;
        }
        if skip > 0 {
            skip -= 1;
            continue;
        }
        let fields: Vec<&str> = line.split(':').collect();
        let bad = |message: String| PoseError { line: n, message };
        if fields.len() != 3 {
            return Err(bad(format!(
                "expected `time:x y z:qw qx qy qz`, found `{line}`"
            )));
        }
        let time: f64 = fields[0]
            .trim()
            .parse()
            .map_err(|_| bad(format!("expected a time in seconds, found `{}`", fields[0])))?;
        let position = numbers::<3>(fields[1])
            .ok_or_else(|| bad(format!("expected x y z, found `{}`", fields[1])))?;
        let [w, x, y, z] = numbers::<4>(fields[2])
            .ok_or_else(|| bad(format!("expected qw qx qy qz, found `{}`", fields[2])))?;
        if poses.last().is_some_and(|p| time <= p.time) {
            return Err(bad(format!(
                "time {time} does not come after the previous record's"
            )));
        }
        let q = DQuat::from_xyzw(x, y, z, w);
        if q.length() <= 1e-9 {
            return Err(bad("a zero quaternion".into()));
        }
        let Pose3 {
            yaw, pitch, roll, ..
        } = Pose3::from_translation_rotation(DVec3::ZERO, q.normalize());
        poses.push(TimedPose {
            time,
            position,
            yaw_pitch_roll: [yaw, pitch, roll],
        });
        skip = wheels;
    }
    Ok(poses)
}

/// Reads a text pose file, pose `i` at `i · period` seconds. Unlike MAVS, which always drops
/// its last read, every complete pose is kept; an incomplete one is an error.
pub fn read_text_poses(text: &str, period: f64) -> Result<Vec<TimedPose>, PoseError> {
    let tokens = text.lines().enumerate().flat_map(|(i, line)| {
        let line = line.split('#').next().unwrap_or("");
        line.split_whitespace().map(move |t| (i + 1, t))
    });
    let mut poses = Vec::new();
    let mut pose = [0.0f64; 7];
    let mut filled = 0;
    let mut last_line = 1;
    for (line, token) in tokens {
        last_line = line;
        pose[filled] = token
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .ok_or_else(|| PoseError {
                line,
                message: format!("expected a number, found `{token}`"),
            })?;
        filled += 1;
        if filled < 7 {
            continue;
        }
        filled = 0;
        let [x, y, z, w, qx, qy, qz] = pose;
        let q = DQuat::from_xyzw(qx, qy, qz, w);
        if q.length() <= 1e-9 {
            return Err(PoseError {
                line,
                message: "a zero quaternion".into(),
            });
        }
        let Pose3 {
            yaw, pitch, roll, ..
        } = Pose3::from_translation_rotation(DVec3::ZERO, q.normalize());
        poses.push(TimedPose {
            time: poses.len() as f64 * period,
            position: [x, y, z],
            yaw_pitch_roll: [yaw, pitch, roll],
        });
    }
    if filled != 0 {
        return Err(PoseError {
            line: last_line,
            message: format!(
                "the file ends inside a pose ({filled} of `x y z qw qx qy qz`'s 7 numbers)"
            ),
        });
    }
    Ok(poses)
}

fn numbers<const N: usize>(text: &str) -> Option<[f64; N]> {
    let values: Vec<f64> = text
        .split_whitespace()
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    values
        .try_into()
        .ok()
        .filter(|v: &[f64; N]| v.iter().all(|x| x.is_finite()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shared(name: &str) -> String {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/scenes/mavs/waypoints")
            .join(name);
        std::fs::read_to_string(path).unwrap_or_default()
    }

    #[test]
    fn the_shared_replays_read_with_their_wheel_lines_skipped() {
        let poses = read_vprp(&shared("x_axis_points.vprp")).unwrap();
        assert_eq!(poses.len(), 2);
        assert_eq!(poses[1].position, [1000.0, 0.0, 2.0]);
        assert_eq!(poses[0].yaw_pitch_roll, [0.0, 0.0, 0.0]);
        let poses = read_vprp(&shared("vehicle2_pos_1.vprp")).unwrap();
        assert_eq!(poses.len(), 1700);
        assert_eq!(poses[0].time, 0.01);
        assert_eq!(poses[0].position, [-12.5825, 2.35755, 0.725]);
        assert!(poses.windows(2).all(|w| w[1].time > w[0].time));
    }

    #[test]
    fn a_turned_pose_and_bad_lines() {
        let text =
            "Vehicle Objects: 0\n@Data\n1.0:1 2 3:0.7071067811865476 0 0 0.7071067811865476\n";
        let p = read_vprp(text).unwrap();
        assert!((p[0].yaw_pitch_roll[0] - std::f64::consts::FRAC_PI_2).abs() < 1e-12);
        let e = read_vprp("Vehicle Objects: 0\n@Data\n1.0:1 2:1 0 0 0\n").unwrap_err();
        assert_eq!(
            (e.line, e.message.as_str()),
            (3, "expected x y z, found `1 2`")
        );
        let e = read_vprp("@Data\n2:0 0 0:1 0 0 0\n1:0 0 0:1 0 0 0\n").unwrap_err();
        assert_eq!(e.line, 3);
        assert!(read_vprp("no data").is_err());
    }

    #[test]
    fn text_poses_are_untimed_frames_spaced_by_the_period() {
        let text = "0 0 0 1 0 0 0\n1 2 3\n0.7071068 0 0 0.7071068 # a quarter turn\n";
        let poses = read_text_poses(text, 0.1).unwrap();
        assert_eq!(poses.len(), 2);
        assert_eq!((poses[0].time, poses[1].time), (0.0, 0.1));
        assert_eq!(poses[1].position, [1.0, 2.0, 3.0]);
        assert!((poses[1].yaw_pitch_roll[0] - std::f64::consts::FRAC_PI_2).abs() < 1e-6);
        let short = read_text_poses("0 0 0 1 0 0 0\n1 2 3 1", 0.1).unwrap_err();
        assert_eq!(short.line, 2);
        assert!(short.message.contains("4 of"), "{}", short.message);
        let word = read_text_poses("0 0 zero 1 0 0 0", 0.1).unwrap_err();
        assert!(word.message.contains("`zero`"));
        assert!(read_text_poses("0 0 0 0 0 0 0", 0.1).is_err());
    }
}
