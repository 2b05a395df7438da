//! What a program sets between steps: poses held, transforms of objects and their parts,
//! replayed timed inputs, vehicles' velocity commands, and what was applied (`External`).

use crate::replay::Replay;
use crate::{External, ObjectRef, SimError, Simulation};
use passerby_world::{Pose3, TimedCommand, TimedTransform, Transform};

impl Simulation {
    /// Sets an object's pose and holds it there (its path and velocity no longer move it) until
    /// [`Simulation::release`]; an actor held still plays its idle clip.
    pub fn set_pose(&mut self, name: &str, pose: Pose3) -> Result<(), SimError> {
        let transform = Transform {
            translation: [pose.x, pose.y, pose.z],
            yaw_pitch_roll: [pose.yaw, pose.pitch, pose.roll],
            scale: self.external(name)?.scale,
        };
        self.set_transform(name, None, transform)
    }

    /// Sets the transform of an object's body (`part` = `None`: pose and scale, held as by
    /// [`Simulation::set_pose`]) or of one of its parts (relative to the body; the part's name
    /// is checked against the model by whoever poses the model). If the same body or part was
    /// already set since the last step, the later setting wins and a warning says so.
    pub fn set_transform(
        &mut self,
        name: &str,
        part: Option<&str>,
        transform: Transform,
    ) -> Result<(), SimError> {
        let values: Vec<f64> = [
            transform.translation,
            transform.yaw_pitch_roll,
            transform.scale,
        ]
        .concat();
        if values.iter().any(|v| !v.is_finite()) {
            return Err(SimError::NotFinite {
                what: "transform",
                object: name.into(),
                values,
            });
        }
        let object = self
            .find(name)
            .ok_or_else(|| SimError::UnknownObject(name.into()))?;
        if let ObjectRef::Block(i) = object
            && self.blocks[i].fixed
        {
            return Err(SimError::Fixed(name.into()));
        }
        if !self
            .set_since_step
            .insert((name.to_owned(), part.map(str::to_owned)))
        {
            let what = part.map_or(String::new(), |p| format!(" part `{p}`"));
            self.warnings.push(format!(
                "`{name}`{what} was set twice before step {}; the later setting wins",
                self.steps + 1
            ));
        }
        let (pose, held, external) = self.placement_mut(object);
        match part {
            Some(part) => {
                external.parts.insert(part.to_owned(), transform);
            }
            None => {
                let [x, y, z] = transform.translation;
                let [yaw, pitch, roll] = transform.yaw_pitch_roll;
                *pose = Pose3 {
                    x,
                    y,
                    z,
                    yaw,
                    pitch,
                    roll,
                };
                external.scale = transform.scale;
                *held = true;
            }
        }
        Ok(())
    }

    /// What an external source set on an object (scale, parts).
    pub fn external(&self, name: &str) -> Result<&External, SimError> {
        Ok(match self.find(name) {
            Some(ObjectRef::Actor(i)) => &self.actors[i].external,
            Some(ObjectRef::Vehicle(i)) => &self.vehicles[i].external,
            Some(ObjectRef::Block(i)) => &self.blocks[i].external,
            None => return Err(SimError::UnknownObject(name.into())),
        })
    }

    pub(crate) fn placement_mut(
        &mut self,
        object: ObjectRef,
    ) -> (&mut Pose3, &mut bool, &mut External) {
        match object {
            ObjectRef::Actor(i) => {
                let a = &mut self.actors[i];
                (&mut a.pose, &mut a.held, &mut a.external)
            }
            ObjectRef::Vehicle(i) => {
                let v = &mut self.vehicles[i];
                (&mut v.pose, &mut v.held, &mut v.external)
            }
            ObjectRef::Block(i) => {
                let b = &mut self.blocks[i];
                (&mut b.pose, &mut b.held, &mut b.external)
            }
        }
    }

    /// Warnings since the last call (sources that set the same thing twice in one step).
    pub fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }

    /// Replays timed transforms and velocity commands from now on (replacing any earlier
    /// replay). Every object and vehicle they name must exist.
    pub fn set_replay(
        &mut self,
        transforms: Vec<TimedTransform>,
        commands: Vec<TimedCommand>,
    ) -> Result<(), SimError> {
        for t in &transforms {
            match self.find(&t.object) {
                None => return Err(SimError::UnknownObject(t.object.clone())),
                Some(ObjectRef::Block(i)) if self.blocks[i].fixed => {
                    return Err(SimError::Fixed(t.object.clone()));
                }
                Some(_) => {}
            }
        }
        for c in &commands {
            match self.find(&c.vehicle) {
                Some(ObjectRef::Vehicle(_)) => {}
                Some(_) => return Err(SimError::NotAVehicle(c.vehicle.clone())),
                None => return Err(SimError::UnknownObject(c.vehicle.clone())),
            }
        }
        self.replay = Some(Replay::new(transforms, commands));
        Ok(())
    }

    /// Lets a held object move on its own again, from where it was set. An actor resumes its
    /// path from its current pose (MVSim's segment rule: the segment restarts from here).
    pub fn release(&mut self, name: &str) -> Result<(), SimError> {
        match self.find(name) {
            Some(ObjectRef::Actor(i)) => {
                let a = &mut self.actors[i];
                a.held = false;
                if let Some(c) = &mut a.controller {
                    c.restart_from(a.pose);
                }
            }
            Some(ObjectRef::Vehicle(i)) => self.vehicles[i].held = false,
            Some(ObjectRef::Block(i)) => self.blocks[i].held = false,
            None => return Err(SimError::UnknownObject(name.into())),
        }
        Ok(())
    }

    /// Commands a vehicle's body-frame velocity (vx, vy in m/s, omega in rad/s), tracked
    /// ideally from the next step on.
    pub fn set_twist(&mut self, vehicle: &str, twist: [f64; 3]) -> Result<(), SimError> {
        if twist.iter().any(|v| !v.is_finite()) {
            return Err(SimError::NotFinite {
                what: "velocity command",
                object: vehicle.into(),
                values: twist.to_vec(),
            });
        }
        match self.find(vehicle) {
            Some(ObjectRef::Vehicle(i)) => {
                self.vehicles[i].twist = twist;
                let drive = self.physics.drive_mut(i);
                if !drive.controller.set_twist(twist) && self.refused_commands.insert(i) {
                    self.warnings.push(format!(
                        "vehicle `{vehicle}`: its controller takes wheel torques, not velocity \
                         commands (MVSim's `raw`, `front_steer_pid`); the command is ignored"
                    ));
                }
                Ok(())
            }
            Some(_) => Err(SimError::NotAVehicle(vehicle.into())),
            None => Err(SimError::UnknownObject(vehicle.into())),
        }
    }
}
