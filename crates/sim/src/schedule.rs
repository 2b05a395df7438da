//! When each sensor measures. A sensor of period `p` is due at the end of the first step that
//! reaches `k·p` (k = 1, 2, …; MVSim's rule `t ≥ t_last + p`, without its drift), and its
//! measurement is stamped with that step's end time, so the data always shows the world at its
//! stamp. When the step divides the period (the automatic step, min(5 ms, shortest period),
//! divides every period that is a multiple of 5 ms) stamps are exactly `k·p`; otherwise they
//! are the step ends just after. A period shorter than the step measures once
//! per step, and says so once.

use passerby_world::World;

/// A sensor, by its owner and name.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SensorRef {
    /// The vehicle carrying it; `None` for a standalone (world) sensor.
    pub vehicle: Option<String>,
    /// Its name (unique within its vehicle, or among standalone sensors).
    pub name: String,
}

#[derive(Clone, Debug)]
struct Scheduled {
    sensor: SensorRef,
    period: f64,
    next: u64,
}

/// Every sensor's next measurement.
#[derive(Clone, Debug, Default)]
pub struct Schedule {
    sensors: Vec<Scheduled>,
    /// Sensors due at the end of the last step.
    due: Vec<SensorRef>,
}

/// Slack when comparing step ends with multiples of a period.
const EPS: f64 = 1e-9;

impl Schedule {
    /// Every sensor of the world with a positive period.
    pub fn new(world: &World) -> Schedule {
        Schedule {
            sensors: world
                .sensors()
                .filter(|(_, s)| s.period > 0.0 && s.period.is_finite())
                .map(|(vehicle, s)| Scheduled {
                    sensor: SensorRef {
                        vehicle: vehicle.map(str::to_owned),
                        name: s.name.clone(),
                    },
                    period: s.period,
                    next: 1,
                })
                .collect(),
            due: Vec::new(),
        }
    }

    /// Marks the sensors due at `step_end`; returns the sensors whose period is shorter than
    /// a step (they measured less often than asked).
    pub fn advance(&mut self, step_end: f64) -> Vec<SensorRef> {
        self.due.clear();
        let mut starved = Vec::new();
        for s in &mut self.sensors {
            if step_end + EPS >= s.next as f64 * s.period {
                self.due.push(s.sensor.clone());
                s.next += 1;
                if step_end + EPS >= s.next as f64 * s.period {
                    starved.push(s.sensor.clone());
                    s.next = ((step_end + EPS) / s.period).floor() as u64 + 1;
                }
            }
        }
        starved
    }

    /// Sensors due at the end of the last step, in world order.
    pub fn due(&self) -> &[SensorRef] {
        &self.due
    }
}
