//! MVSim's `ackermann_drivetrain` (`VehicleAckermann_Drivetrain.cpp`): one motor torque shared
//! among the wheels by open or Torsen (torque-sensing, limited-slip) differentials, front, rear
//! or four-wheel drive, with split ratios and Torsen bias ratios.
//!
//! Owns: the torque split. Must not touch: controllers, friction.

use std::collections::BTreeMap;

/// Which wheels are driven, and through what.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Differential {
    /// `open_front`: front-wheel drive, fixed left/right split.
    OpenFront,
    /// `open_rear`: rear-wheel drive, fixed split.
    OpenRear,
    /// `open_4wd`: four-wheel drive, fixed splits.
    Open4wd,
    /// `torsen_front`: front-wheel drive through a Torsen.
    TorsenFront,
    /// `torsen_rear`: rear-wheel drive through a Torsen.
    TorsenRear,
    /// `torsen_4wd`: three Torsens (centre, front, rear); MVSim's default.
    Torsen4wd,
}

/// A drivetrain: its differential, split ratios (the share of the first side) and bias ratios.
#[derive(Clone, Debug, PartialEq)]
pub struct Drivetrain {
    /// Kind of differential.
    pub differential: Differential,
    /// Front share of front/rear.
    pub front_rear_split: f64,
    /// Torsen bias ratio front/rear.
    pub front_rear_bias: f64,
    /// Left share of the front axle.
    pub front_left_right_split: f64,
    /// Torsen bias ratio of the front axle.
    pub front_left_right_bias: f64,
    /// Left share of the rear axle.
    pub rear_left_right_split: f64,
    /// Torsen bias ratio of the rear axle.
    pub rear_left_right_bias: f64,
}

impl Drivetrain {
    /// From `<drivetrain type="…">` and its parameters; MVSim's defaults (Torsen 4WD, even
    /// splits, bias 1.5) for what is missing or unknown.
    pub fn new(kind: &str, params: &BTreeMap<String, f64>) -> Drivetrain {
        let p = |name: &str, default: f64| params.get(name).copied().unwrap_or(default);
        let differential = match kind {
            "open_front" => Differential::OpenFront,
            "open_rear" => Differential::OpenRear,
            "open_4wd" => Differential::Open4wd,
            "torsen_front" => Differential::TorsenFront,
            "torsen_rear" => Differential::TorsenRear,
            _ => Differential::Torsen4wd,
        };
        Drivetrain {
            differential,
            front_rear_split: p("front_rear_split", 0.5),
            front_rear_bias: p("front_rear_bias", 1.5),
            front_left_right_split: p("front_left_right_split", 0.5),
            front_left_right_bias: p("front_left_right_bias", 1.5),
            rear_left_right_split: p("rear_left_right_split", 0.5),
            rear_left_right_bias: p("rear_left_right_bias", 1.5),
        }
    }

    /// The share of the motor torque of each wheel (rl, rr, fl, fr), from their spins.
    pub fn split(&self, spin: [f64; 4]) -> [f64; 4] {
        let [rl, rr, fl, fr] = spin;
        let (fs, rs) = (self.front_left_right_split, self.rear_left_right_split);
        match self.differential {
            Differential::OpenFront => [0.0, 0.0, fs, 1.0 - fs],
            Differential::OpenRear => [rs, 1.0 - rs, 0.0, 0.0],
            Differential::Open4wd => {
                let (front, rear) = (self.front_rear_split, 1.0 - self.front_rear_split);
                [rear * rs, rear * (1.0 - rs), front * fs, front * (1.0 - fs)]
            }
            Differential::TorsenFront => {
                let (l, r) = torsen(fl, fr, self.front_left_right_bias, fs);
                [0.0, 0.0, l, r]
            }
            Differential::TorsenRear => {
                let (l, r) = torsen(rl, rr, self.rear_left_right_bias, rs);
                [l, r, 0.0, 0.0]
            }
            Differential::Torsen4wd => {
                let (front, rear) = torsen(
                    fl + fr,
                    rl + rr,
                    self.front_rear_bias,
                    self.front_rear_split,
                );
                let (fl_share, fr_share) = torsen(fl, fr, self.front_left_right_bias, fs);
                let (rl_share, rr_share) = torsen(rl, rr, self.rear_left_right_bias, rs);
                [
                    rear * rl_share,
                    rear * rr_share,
                    front * fl_share,
                    front * fr_share,
                ]
            }
        }
    }
}

/// A Torsen differential's split between two outputs spinning at `w1` and `w2` (MVSim's
/// `computeDiffTorqueSplit`): the faster side gets less, by how far the speed ratio exceeds
/// the bias; either output still: the plain split.
fn torsen(w1: f64, w2: f64, bias: f64, split: f64) -> (f64, f64) {
    if w1 == 0.0 || w2 == 0.0 {
        return (split, 1.0 - split);
    }
    let (a1, a2) = (w1.abs(), w2.abs());
    let (max, min) = (a1.max(a2), a1.min(a2));
    let excess = max - bias * min;
    let shift = if excess > 0.0 { excess / max } else { 0.0 };
    let (f1, f2) = if a1 > a2 {
        (split * (1.0 - shift), (1.0 - split) * (1.0 + shift))
    } else {
        (split * (1.0 + shift), (1.0 - split) * (1.0 - shift))
    };
    (f1 / (f1 + f2), f2 / (f1 + f2))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drivetrain(kind: &str) -> Drivetrain {
        Drivetrain::new(kind, &BTreeMap::new())
    }

    #[test]
    fn open_differentials_split_by_their_ratios_whatever_the_spin() {
        assert_eq!(
            drivetrain("open_front").split([1.0, 9.0, 3.0, 0.5]),
            [0.0, 0.0, 0.5, 0.5]
        );
        assert_eq!(
            drivetrain("open_rear").split([1.0, 9.0, 3.0, 0.5]),
            [0.5, 0.5, 0.0, 0.0]
        );
        let shares = drivetrain("open_4wd").split([1.0, 9.0, 3.0, 0.5]);
        assert_eq!(shares, [0.25; 4]);
    }

    #[test]
    fn a_torsen_sends_torque_away_from_the_spinning_wheel_beyond_its_bias() {
        // Equal spin: even split. The left spinning 3x the right (bias 1.5): the right gets
        // more, the shares still summing to one.
        assert_eq!(torsen(2.0, 2.0, 1.5, 0.5), (0.5, 0.5));
        let (left, right) = torsen(3.0, 1.0, 1.5, 0.5);
        assert!(
            right > left && (left + right - 1.0).abs() < 1e-12,
            "{left} {right}"
        );
        // Within the bias: no shift.
        assert_eq!(torsen(1.2, 1.0, 1.5, 0.5), (0.5, 0.5));
        // A wheel at rest: the plain split.
        assert_eq!(torsen(0.0, 5.0, 1.5, 0.3), (0.3, 0.7));
    }
}
