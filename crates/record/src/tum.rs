//! Ground-truth trajectories in the TUM format that `evo` and the TUM RGB-D tools read: one
//! file per vehicle (`<vehicle>.tum`, its base frame) and one per sensor it carries
//! (`<vehicle>_<sensor>.tum`: the vehicle's pose composed with the sensor's mount, the
//! sensor's body frame, x forward, not a camera's optical frame), a line per simulation step:
//! `t tx ty tz qx qy qz qw` (simulated seconds; metres in the world frame; unit quaternion,
//! w last), exact (no noise), every digit kept.
//!
//! Owns: the trajectory files. Must not touch: the simulation (it reads the step's snapshot).

use crate::sink::{Sink, SinkError, Snapshot};
use passerby_world::{Pose3, World};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// One trajectory file.
struct Track {
    /// Index in the world's vehicles.
    vehicle: usize,
    /// The sensor's mount on the vehicle, for a sensor's track.
    mount: Option<Pose3>,
    path: PathBuf,
    out: BufWriter<File>,
}

/// The ground-truth trajectories of a run's vehicles and their sensors.
pub struct TumTrajectories {
    tracks: Vec<Track>,
    dir: PathBuf,
}

impl TumTrajectories {
    /// Creates `dir` and a file per vehicle and per vehicle-mounted sensor of `world`.
    pub fn create(world: &World, dir: &Path) -> Result<TumTrajectories, SinkError> {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create `{}`: {e}", dir.display()))?;
        let mut tracks = Vec::new();
        for (i, v) in world.vehicles.iter().enumerate() {
            let mounts = std::iter::once((v.name.clone(), None)).chain(
                (v.sensors.iter()).map(|s| (format!("{}_{}", v.name, s.name), Some(s.pose))),
            );
            for (name, mount) in mounts {
                let path = dir.join(format!("{name}.tum"));
                let file = File::create(&path)
                    .map_err(|e| format!("cannot create `{}`: {e}", path.display()))?;
                tracks.push(Track {
                    vehicle: i,
                    mount,
                    path,
                    out: BufWriter::new(file),
                });
            }
        }
        Ok(TumTrajectories {
            tracks,
            dir: dir.to_path_buf(),
        })
    }
}

impl Sink for TumTrajectories {
    fn step(&mut self, s: &Snapshot<'_>) -> Result<(), SinkError> {
        for track in &mut self.tracks {
            let Some(v) = s.vehicles.get(track.vehicle) else {
                continue;
            };
            let pose = match &track.mount {
                Some(mount) => v.pose.compose(mount),
                None => v.pose,
            };
            let q = pose.rotation();
            writeln!(
                track.out,
                "{} {} {} {} {} {} {} {}",
                s.time, pose.x, pose.y, pose.z, q.x, q.y, q.z, q.w
            )
            .map_err(|e| format!("`{}`: {e}", track.path.display()))?;
        }
        Ok(())
    }

    fn finish(self: Box<Self>) -> Result<Vec<String>, SinkError> {
        let count = self.tracks.len();
        for mut track in self.tracks {
            (track.out.flush()).map_err(|e| format!("`{}`: {e}", track.path.display()))?;
        }
        Ok(vec![format!(
            "ground truth: {count} TUM trajectories in `{}`",
            self.dir.display()
        )])
    }
}
