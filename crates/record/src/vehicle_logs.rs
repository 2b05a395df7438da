//! MVSim's vehicle CSV logs: for each vehicle with `<auto_start_recording>true`, a pose log
//! (`mvsim_<name>_pose.csv`: time, pose, body-frame velocity, wheel odometry) and one log per
//! wheel (`mvsim_<name>_wheel_<i>.csv`: its contact, torque, load, velocity and friction, with
//! the friction model's own columns), one row per simulation step, in `<log_path>`.
//!
//! As MVSim writes them: columns sorted by name (its `std::map`), `", "` between values. Not
//! as MVSim names the files: MVSim prefixes `session_<wall-clock seconds>-` to
//! `<log_path>mvsim_…` (so a `<log_path>` that names a directory only works without its
//! slash); here the files are `<log_path>/mvsim_…`, the same on every run, and numbers keep
//! every digit (MVSim's stream keeps six).
//!
//! Owns: the CSV files. Must not touch: the simulation (it reads the step's snapshot).

use crate::sink::{Sink, SinkError, Snapshot};
use passerby_world::World;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// One CSV file, its header written with its first row.
struct Log {
    path: PathBuf,
    out: BufWriter<File>,
    header: bool,
}

impl Log {
    fn create(path: PathBuf) -> Result<Log, SinkError> {
        let file = File::create(&path)
            .map_err(|e| format!("cannot create vehicle log `{}`: {e}", path.display()))?;
        Ok(Log {
            path,
            out: BufWriter::new(file),
            header: false,
        })
    }

    /// Writes one row of `columns` (sorted by name here), with the header first.
    fn row(&mut self, columns: &mut [(&str, f64)]) -> Result<(), SinkError> {
        columns.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        let io = |e: std::io::Error| format!("vehicle log `{}`: {e}", self.path.display());
        if !self.header {
            let names: Vec<&str> = columns.iter().map(|c| c.0).collect();
            writeln!(self.out, "{}", names.join(", ")).map_err(io)?;
            self.header = true;
        }
        let values: Vec<String> = columns.iter().map(|c| c.1.to_string()).collect();
        writeln!(self.out, "{}", values.join(", ")).map_err(io)?;
        Ok(())
    }
}

/// The logs of one vehicle.
struct VehicleLog {
    /// Index in the world's vehicles.
    vehicle: usize,
    pose: Log,
    wheels: Vec<Log>,
}

/// The CSV logs of the vehicles that ask for them.
pub struct VehicleLogs {
    logs: Vec<VehicleLog>,
    files: usize,
}

impl VehicleLogs {
    /// The vehicles of `world` with `<auto_start_recording>true`, by index; empty when none
    /// asks.
    pub fn wanted(world: &World) -> Vec<usize> {
        (world.vehicles.iter().enumerate())
            .filter(|(_, v)| v.auto_start_recording)
            .map(|(i, _)| i)
            .collect()
    }

    /// Creates the files of those vehicles (and their `<log_path>` directories; a relative
    /// path is taken from the working directory, as MVSim does). `None` when none asks.
    pub fn create(world: &World) -> Result<Option<VehicleLogs>, SinkError> {
        let mut logs = Vec::new();
        let mut files = 0;
        for i in VehicleLogs::wanted(world) {
            let v = &world.vehicles[i];
            let dir = Path::new(&v.log_path);
            if !v.log_path.is_empty() {
                std::fs::create_dir_all(dir)
                    .map_err(|e| format!("cannot create `{}`: {e}", dir.display()))?;
            }
            let file = |suffix: &str| dir.join(format!("mvsim_{}_{suffix}.csv", v.name));
            let pose = Log::create(file("pose"))?;
            let wheels = (1..=v.dynamics.wheels.len())
                .map(|k| Log::create(file(&format!("wheel_{k}"))))
                .collect::<Result<Vec<_>, _>>()?;
            files += 1 + wheels.len();
            logs.push(VehicleLog {
                vehicle: i,
                pose,
                wheels,
            });
        }
        Ok((!logs.is_empty()).then_some(VehicleLogs { logs, files }))
    }
}

impl Sink for VehicleLogs {
    fn step(&mut self, s: &Snapshot<'_>) -> Result<(), SinkError> {
        for log in &mut self.logs {
            let Some(v) = s.vehicles.get(log.vehicle) else {
                continue;
            };
            let (q, dq, odo) = (&v.pose, v.velocity, v.odometry);
            log.pose.row(&mut [
                ("Timestamp", s.time),
                ("q0x", q.x),
                ("q1y", q.y),
                ("q2z", q.z),
                ("q3yaw", q.yaw),
                ("q4pitch", q.pitch),
                ("q5roll", q.roll),
                ("dqx", dq[0]),
                ("dqy", dq[1]),
                ("dqw", dq[2]),
                ("odo_x", odo[0]),
                ("odo_y", odo[1]),
                ("odo_yaw", odo[2]),
            ])?;
            for (wheel, columns) in log.wheels.iter_mut().zip(&v.wheel_logs) {
                let mut row: Vec<(&str, f64)> = vec![("Timestamp", s.time)];
                row.extend(columns.iter().copied());
                wheel.row(&mut row)?;
            }
        }
        Ok(())
    }

    fn finish(self: Box<Self>) -> Result<Vec<String>, SinkError> {
        let mut dirs = Vec::new();
        for mut log in self.logs {
            for l in std::iter::once(&mut log.pose).chain(log.wheels.iter_mut()) {
                l.out
                    .flush()
                    .map_err(|e| format!("vehicle log `{}`: {e}", l.path.display()))?;
                let dir = l.path.parent().map(Path::to_path_buf).unwrap_or_default();
                if !dirs.contains(&dir) {
                    dirs.push(dir);
                }
            }
        }
        let dirs: Vec<String> = (dirs.iter())
            .map(|d| match d.as_os_str().is_empty() {
                true => "`.`".to_owned(),
                false => format!("`{}`", d.display()),
            })
            .collect();
        Ok(vec![format!(
            "vehicle logs: {} CSV files in {}",
            self.files,
            dirs.join(", ")
        )])
    }
}
