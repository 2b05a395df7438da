//! When each sensor measures. A sensor of period `p` is due at the end of the first step that
//! reaches `k·p` (k = 1, 2, …; MVSim's rule `t ≥ t_last + p`, without its drift), and its
//! measurement is stamped with that step's end time, so the data always shows the world at its
//! stamp. When the step divides the period (the automatic step, min(5 ms, shortest period),
//! divides every period that is a multiple of 5 ms) stamps are exactly `k·p`; otherwise they
//! are the step ends just after. A period shorter than the step measures once per step, and
//! says so once (a notice of the rig).
//!
//! The rule depends on nothing but the step's two ends, so the schedule keeps no state: the
//! same answer for the run's simulation and for a second one posing the next step ahead.

use passerby_sim::Simulation;
use passerby_world::{SensorRef, World};

/// Slack when comparing step ends with multiples of a period.
const EPS: f64 = 1e-9;

/// Every sensor's period.
#[derive(Clone, Debug, Default)]
pub struct Schedule {
    sensors: Vec<(SensorRef, f64)>,
}

impl Schedule {
    /// Every sensor of the world with a positive period, in world order.
    pub fn new(world: &World) -> Schedule {
        Schedule {
            sensors: (world.sensors())
                .filter(|(_, s)| s.period > 0.0 && s.period.is_finite())
                .map(|(vehicle, s)| {
                    let sensor = SensorRef {
                        vehicle: vehicle.map(str::to_owned),
                        name: s.name.clone(),
                    };
                    (sensor, s.period)
                })
                .collect(),
        }
    }

    /// Lines saying which sensors have a period shorter than `step` (they measure once per
    /// step, less often than asked).
    pub fn starved(&self, step: f64) -> Vec<String> {
        (self.sensors.iter())
            .filter(|(_, period)| *period + EPS < step)
            .map(|(s, _)| {
                format!(
                    "sensor `{}`: its period is shorter than the {step} s step; it measures once per step",
                    s.name
                )
            })
            .collect()
    }

    /// The sensors due at the end of the step `sim` has just made, in world order.
    pub fn due(&self, sim: &Simulation) -> Vec<SensorRef> {
        let steps = sim.steps();
        if steps == 0 {
            return Vec::new();
        }
        // The two ends as the simulation computes its time.
        let (start, end) = ((steps - 1) as f64 * sim.timestep(), sim.time());
        (self.sensors.iter())
            .filter(|(_, period)| is_due(*period, start, end))
            .map(|(s, _)| s.clone())
            .collect()
    }
}

/// Whether a sensor of `period` is due at the end of the step from `start` to `end`: whether
/// the step reaches a multiple of the period its start had not.
fn is_due(period: f64, start: f64, end: f64) -> bool {
    let k = ((end + EPS) / period).floor();
    // The largest multiple reached by `end`, checked with the comparison the rule states.
    let k = if end + EPS >= (k + 1.0) * period {
        k + 1.0
    } else if end + EPS < k * period {
        k - 1.0
    } else {
        k
    };
    k >= 1.0 && start + EPS < k * period
}

#[cfg(test)]
mod tests {
    use super::{Schedule, is_due};
    use passerby_world::SensorRef;

    /// The stamps at which a sensor of `period` is due over `steps` steps of `dt`.
    fn stamps(period: f64, dt: f64, steps: u64) -> Vec<f64> {
        (1..=steps)
            .filter(|&n| is_due(period, (n - 1) as f64 * dt, n as f64 * dt))
            .map(|n| n as f64 * dt)
            .collect()
    }

    #[test]
    fn due_at_the_first_step_end_reaching_each_multiple() {
        // 5 ms steps, 10 Hz: exactly 0.1, 0.2, ...
        let s = stamps(0.1, 0.005, 200);
        assert_eq!(s.len(), 10);
        for (k, t) in s.iter().enumerate() {
            assert!((t - 0.1 * (k + 1) as f64).abs() < 1e-9, "{s:?}");
        }
        // A step that does not divide the period: the step end just after each multiple.
        let s = stamps(0.1, 0.03, 10);
        assert_eq!(s.len(), 3, "{s:?}");
        for (t, expected) in s.iter().zip([0.12, 0.21, 0.30]) {
            assert!((t - expected).abs() < 1e-9, "{s:?}");
        }
        // A period shorter than the step: every step, and said so.
        assert_eq!(stamps(0.1, 0.25, 4).len(), 4);
        let schedule = Schedule {
            sensors: vec![(sensor("fast"), 0.1), (sensor("slow"), 0.5)],
        };
        let starved = schedule.starved(0.25);
        assert_eq!(starved.len(), 1, "{starved:?}");
        assert!(starved[0].starts_with("sensor `fast`"), "{starved:?}");
    }

    fn sensor(name: &str) -> SensorRef {
        SensorRef {
            vehicle: None,
            name: name.into(),
        }
    }
}
