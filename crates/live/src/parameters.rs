//! The served world's parameters, as ROS 2's parameter services and Foxglove's parameter panel
//! show them: what is being served (world, seed, time step, lockstep; read-only) and the pace
//! (`realtime_factor`, which a client may change while the world runs). One store, shared by
//! every publisher, so a change made from ROS 2 is what Foxglove reads next and the reverse.
//!
//! Owns: the parameters' values, descriptions and rules for changing them.
//! Must not touch: how a protocol carries them (`ros2.rs`, `foxglove_ws.rs`) or what the
//! serving loop does with a change (it receives a [`Control`]).

use crate::control::{Control, ControlSender};
use std::sync::{Mutex, PoisonError};

/// A parameter's value: ROS 2's scalar parameter types (arrays are not used here).
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// `bool`.
    Bool(bool),
    /// `integer` (int64).
    Integer(i64),
    /// `double`.
    Double(f64),
    /// `string`.
    Text(String),
}

impl Value {
    /// ROS 2's `rcl_interfaces/msg/ParameterType` code.
    pub fn ros_type(&self) -> u8 {
        match self {
            Value::Bool(_) => 1,
            Value::Integer(_) => 2,
            Value::Double(_) => 3,
            Value::Text(_) => 4,
        }
    }

    fn kind(&self) -> &'static str {
        match self {
            Value::Bool(_) => "bool",
            Value::Integer(_) => "integer",
            Value::Double(_) => "double",
            Value::Text(_) => "string",
        }
    }
}

/// One parameter and what a client may do with it.
#[derive(Clone, Debug, PartialEq)]
pub struct Parameter {
    /// Its name.
    pub name: &'static str,
    /// Its value now.
    pub value: Value,
    /// What it is, for introspection tools.
    pub description: &'static str,
    /// Whether clients may not change it.
    pub read_only: bool,
    /// The values a double may take, inclusive.
    pub range: Option<(f64, f64)>,
}

/// What is served, for the read-only parameters.
#[derive(Clone, Debug)]
pub struct Served {
    /// The world file, as given.
    pub world: String,
    /// The run's seed.
    pub seed: u64,
    /// The simulation's fixed step, seconds.
    pub time_step: f64,
    /// Whether it steps only on request.
    pub lockstep: bool,
    /// The pace at start.
    pub realtime_factor: f64,
}

/// The fastest pace a client may ask for (the loop runs as fast as it can above what the
/// machine manages anyway; 0 asks for that explicitly).
const MAX_REALTIME_FACTOR: f64 = 1000.0;

/// Called with a parameter after it changed.
pub type Watcher = Box<dyn Fn(&Parameter) + Send + Sync>;

/// The store.
pub struct Parameters {
    list: Mutex<Vec<Parameter>>,
    controls: Mutex<ControlSender>,
    /// Told of every change, whoever made it (each protocol announces it to its clients).
    watchers: Mutex<Vec<Watcher>>,
}

impl Parameters {
    /// The parameters of `served`; changes go to the serving loop through `controls`.
    pub fn new(served: &Served, controls: ControlSender) -> Parameters {
        // By name, as ROS 2 lists them.
        let list = vec![
            Parameter {
                name: "lockstep",
                value: Value::Bool(served.lockstep),
                description: "Whether the world steps only when a client asks",
                read_only: true,
                range: None,
            },
            Parameter {
                name: "realtime_factor",
                value: Value::Double(served.realtime_factor),
                description: "Simulated seconds per wall second (0: as fast as possible)",
                read_only: served.lockstep,
                range: Some((0.0, MAX_REALTIME_FACTOR)),
            },
            Parameter {
                name: "seed",
                // A seed above i64::MAX shows as its two's complement, as ROS 2 has no uint64.
                value: Value::Integer(served.seed as i64),
                description: "The run's seed (every random draw derives from it)",
                read_only: true,
                range: None,
            },
            Parameter {
                name: "time_step",
                value: Value::Double(served.time_step),
                description: "The simulation's fixed step, seconds",
                read_only: true,
                range: None,
            },
            Parameter {
                name: "use_sim_time",
                value: Value::Bool(false),
                description: "This node publishes /clock; its own clock is the wall clock",
                read_only: true,
                range: None,
            },
            Parameter {
                name: "world",
                value: Value::Text(served.world.clone()),
                description: "The world file being served",
                read_only: true,
                range: None,
            },
        ];
        Parameters {
            list: Mutex::new(list),
            controls: Mutex::new(controls),
            watchers: Mutex::new(Vec::new()),
        }
    }

    /// Calls `watcher` after every change from now on.
    pub fn watch(&self, watcher: Watcher) {
        (self.watchers.lock().unwrap_or_else(PoisonError::into_inner)).push(watcher);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Parameter>> {
        self.list.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Every parameter, by name.
    pub fn all(&self) -> Vec<Parameter> {
        self.lock().clone()
    }

    /// The parameter called `name`.
    pub fn get(&self, name: &str) -> Option<Parameter> {
        self.lock().iter().find(|p| p.name == name).cloned()
    }

    /// Sets `name` to `value`, or says why not. An integer is taken for a double (`ros2 param
    /// set /passerby realtime_factor 2` sends one). Returns the value now held.
    pub fn set(&self, name: &str, value: Value) -> Result<Value, String> {
        let changed = self.change(name, value)?;
        for watcher in self
            .watchers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
        {
            watcher(&changed);
        }
        Ok(changed.value)
    }

    fn change(&self, name: &str, value: Value) -> Result<Parameter, String> {
        let mut list = self.lock();
        let Some(p) = list.iter_mut().find(|p| p.name == name) else {
            return Err(format!("no parameter `{name}`"));
        };
        if p.read_only {
            return Err(format!("`{name}` is read-only"));
        }
        let value = match (&p.value, value) {
            (Value::Double(_), Value::Integer(i)) => Value::Double(i as f64),
            (held, given) if std::mem::discriminant(held) != std::mem::discriminant(&given) => {
                return Err(format!(
                    "`{name}` is a {}, not a {}",
                    held.kind(),
                    given.kind()
                ));
            }
            (_, given) => given,
        };
        if let (Value::Double(v), Some((low, high))) = (&value, p.range)
            && !(low..=high).contains(v)
        {
            return Err(format!("`{name}` must be from {low} to {high}"));
        }
        let control = match (p.name, &value) {
            ("realtime_factor", Value::Double(factor)) => {
                Control::RealtimeFactor { factor: *factor }
            }
            _ => return Err(format!("`{name}` cannot change while serving")),
        };
        let sent = (self.controls.lock().unwrap_or_else(PoisonError::into_inner)).send(control);
        if sent.is_err() {
            return Err("the server stopped".into());
        }
        p.value = value;
        Ok(p.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn served(lockstep: bool) -> Served {
        Served {
            world: "w.world.xml".into(),
            seed: 7,
            time_step: 0.005,
            lockstep,
            realtime_factor: 1.0,
        }
    }

    #[test]
    fn the_pace_changes_and_reaches_the_serving_loop() {
        let (controls, received) = crate::control::controls();
        let params = Parameters::new(&served(false), controls);
        assert_eq!(
            params.set("realtime_factor", Value::Integer(2)),
            Ok(Value::Double(2.0))
        );
        assert!(matches!(
            received.try_recv(),
            Ok(Control::RealtimeFactor { factor }) if factor == 2.0
        ));
        assert_eq!(
            params.get("realtime_factor").unwrap().value,
            Value::Double(2.0)
        );
    }

    #[test]
    fn watchers_hear_of_changes_only() {
        let (controls, _received) = crate::control::controls();
        let params = Parameters::new(&served(false), controls);
        let heard = std::sync::Arc::new(Mutex::new(Vec::new()));
        let h = heard.clone();
        params.watch(Box::new(move |p| {
            h.lock().unwrap().push((p.name, p.value.clone()))
        }));
        assert!(params.set("seed", Value::Integer(1)).is_err());
        assert!(params.set("realtime_factor", Value::Double(0.5)).is_ok());
        assert_eq!(
            *heard.lock().unwrap(),
            [("realtime_factor", Value::Double(0.5))]
        );
    }

    #[test]
    fn refused_changes_say_why_and_change_nothing() {
        let (controls, received) = crate::control::controls();
        let params = Parameters::new(&served(false), controls);
        let refused = [
            ("seed", Value::Integer(3), "`seed` is read-only"),
            (
                "realtime_factor",
                Value::Text("fast".into()),
                "`realtime_factor` is a double, not a string",
            ),
            (
                "realtime_factor",
                Value::Double(-1.0),
                "`realtime_factor` must be from 0 to 1000",
            ),
            (
                "realtime_factor",
                Value::Double(f64::NAN),
                "`realtime_factor` must be from 0 to 1000",
            ),
            ("nope", Value::Bool(true), "no parameter `nope`"),
        ];
        for (name, value, why) in refused {
            assert_eq!(params.set(name, value), Err(why.to_owned()));
        }
        assert!(received.try_recv().is_err());
        assert_eq!(
            params.get("realtime_factor").unwrap().value,
            Value::Double(1.0)
        );
        assert_eq!(params.get("seed").unwrap().value, Value::Integer(7));
    }

    #[test]
    fn in_lockstep_the_pace_is_read_only() {
        let (controls, _received) = crate::control::controls();
        let params = Parameters::new(&served(true), controls);
        assert!(params.get("realtime_factor").unwrap().read_only);
        assert_eq!(
            params.set("realtime_factor", Value::Double(2.0)),
            Err("`realtime_factor` is read-only".to_owned())
        );
    }
}
