//! `--dump DIR`: the same data as plain files a person can open: one binary PCD per lidar sweep
//! (with the extra fields), CSV for laser scans, IMU, GNSS and poses, JSON lines for the actors'
//! ground truth, `labels.json`, and a README describing the layout. Files are streamed.

use crate::{RecordError, full_name};
use passerby_sensors::Observation;
use passerby_sensors::lidar::PointCloud;
use passerby_sim::Simulation;
use passerby_sim::gait::Gait;
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

const README: &str = "# Passerby dump

Written by `passerby run --dump`. Times are simulated seconds from the start of the run.

- `labels.json`: the instance table (id, name, class, class id; 0 means nothing) and the class table.
- `poses.csv`: `time,object,x,y,z,yaw,pitch,roll` for every vehicle and actor at every step (metres,
  radians; MRPT's convention R = Rz(yaw) Ry(pitch) Rx(roll)).
- `actors.jsonl`: one JSON object per actor and step: time, name, pose, speed (m/s), gait, clip, clip
  time (s), held (set from outside).
- `<vehicle>/<sensor>/` (or `world/<sensor>/` for standalone sensors):
  - lidars: `NNNNNN_<stamp>.pcd`, binary PCD 0.7 with fields `x y z intensity ring time instance label`
    (sensor frame, metres; `time` in seconds after the stamp, which is the sweep's start);
  - lasers: `scans.csv`, one row per scan: `stamp,angle_min,angle_increment,range_max,` then the ranges
    (metres, `inf` without a return);
  - IMUs: `imu.csv`: `stamp,wx,wy,wz,ax,ay,az` (rad/s, m/s², IMU frame; specific force);
  - GNSS: `gnss.csv`: `stamp,latitude,longitude,altitude` (degrees, WGS84, metres above the ellipsoid);
  - cameras: `NNNNNN_<stamp>.png`, the colour image (depth and label images are in the recording only).
";

/// A dump being written.
pub struct Dumper {
    dir: PathBuf,
    files: HashMap<PathBuf, BufWriter<File>>,
    sweeps: HashMap<String, u64>,
}

impl Dumper {
    /// Creates `dir` (and its README and labels) for a run.
    pub fn create(dir: &Path, labels_json: &str) -> Result<Dumper, RecordError> {
        let mut d = Dumper {
            dir: dir.to_owned(),
            files: HashMap::new(),
            sweeps: HashMap::new(),
        };
        d.write_whole(Path::new("README.md"), README.as_bytes())?;
        d.write_whole(Path::new("labels.json"), labels_json.as_bytes())?;
        d.append(
            Path::new("poses.csv"),
            "time,object,x,y,z,yaw,pitch,roll\n",
            "",
        )?;
        Ok(d)
    }

    fn io(&self, path: &Path, source: std::io::Error) -> RecordError {
        RecordError::Io {
            path: self.dir.join(path),
            source,
        }
    }

    fn write_whole(&mut self, relative: &Path, bytes: &[u8]) -> Result<(), RecordError> {
        let path = self.dir.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| self.io(relative, e))?;
        }
        std::fs::write(&path, bytes).map_err(|e| self.io(relative, e))
    }

    /// Appends `line` to a streamed file, writing `header` first when the file is new.
    fn append(&mut self, relative: &Path, header: &str, line: &str) -> Result<(), RecordError> {
        let path = self.dir.join(relative);
        if !self.files.contains_key(&path) {
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(|e| self.io(relative, e))?;
            }
            let mut f = BufWriter::new(File::create(&path).map_err(|e| self.io(relative, e))?);
            f.write_all(header.as_bytes())
                .map_err(|e| self.io(relative, e))?;
            self.files.insert(path.clone(), f);
        }
        let result = self
            .files
            .get_mut(&path)
            .map_or(Ok(()), |f| f.write_all(line.as_bytes()));
        result.map_err(|e| self.io(relative, e))
    }

    /// Dumps the state after a step and the observations it completed.
    pub fn dump_step(
        &mut self,
        sim: &Simulation,
        observations: &[Observation],
    ) -> Result<(), RecordError> {
        let t = sim.time();
        let mut poses = String::new();
        let vehicles = sim.vehicles().iter().map(|v| (&v.name, &v.pose));
        let actors = sim.actors().iter().map(|a| (&a.name, &a.pose));
        for (name, p) in vehicles.chain(actors) {
            poses.push_str(&format!(
                "{t},{name},{},{},{},{},{},{}\n",
                p.x, p.y, p.z, p.yaw, p.pitch, p.roll
            ));
        }
        self.append(Path::new("poses.csv"), "", &poses)?;
        let mut actors = String::new();
        for a in sim.actors() {
            let anim = a.animation();
            let gait = match anim.gait {
                Gait::Idle => "idle",
                Gait::Walk => "walk",
                Gait::Run => "run",
                Gait::Turn => "turn",
            };
            let p = a.pose;
            actors.push_str(&format!(
                "{{\"time\":{t},\"name\":{:?},\"pose\":[{},{},{},{},{},{}],\"speed\":{},\"gait\":\"{gait}\",\"clip\":{:?},\"clip_time\":{},\"held\":{}}}\n",
                a.name, p.x, p.y, p.z, p.yaw, p.pitch, p.roll, a.speed, anim.current.clip, anim.current.time, a.held
            ));
        }
        if !actors.is_empty() {
            self.append(Path::new("actors.jsonl"), "", &actors)?;
        }
        for o in observations {
            match o {
                Observation::PointCloud(c) => self.pcd(c)?,
                Observation::LaserScan(s) => {
                    let mut line = format!(
                        "{},{},{},{}",
                        s.stamp, s.angle_min, s.angle_increment, s.range_max
                    );
                    for r in &s.ranges {
                        line.push_str(&format!(",{r}"));
                    }
                    line.push('\n');
                    let file = PathBuf::from(full_name(&s.sensor)).join("scans.csv");
                    self.append(
                        &file,
                        "stamp,angle_min,angle_increment,range_max,ranges...\n",
                        &line,
                    )?;
                }
                Observation::Imu(s) => {
                    let [wx, wy, wz] = s.angular_velocity;
                    let [ax, ay, az] = s.linear_acceleration;
                    let file = PathBuf::from(full_name(&s.sensor)).join("imu.csv");
                    let line = format!("{},{wx},{wy},{wz},{ax},{ay},{az}\n", s.stamp);
                    self.append(&file, "stamp,wx,wy,wz,ax,ay,az\n", &line)?;
                }
                Observation::Camera(c) => self.png(c)?,
                Observation::Gnss(f) => {
                    let file = PathBuf::from(full_name(&f.sensor)).join("gnss.csv");
                    let line = format!(
                        "{},{},{},{}\n",
                        f.stamp, f.latitude_deg, f.longitude_deg, f.altitude
                    );
                    self.append(&file, "stamp,latitude,longitude,altitude\n", &line)?;
                }
            }
        }
        Ok(())
    }

    fn pcd(&mut self, c: &PointCloud) -> Result<(), RecordError> {
        let name = full_name(&c.sensor);
        let index = self.sweeps.entry(name.clone()).or_insert(0);
        let file = PathBuf::from(&name).join(format!("{:06}_{:.6}.pcd", *index, c.stamp));
        *index += 1;
        let n = c.points.len();
        let mut bytes = format!(
            "# .PCD v0.7 - Point Cloud Data file format\nVERSION 0.7\nFIELDS x y z intensity ring time instance label\nSIZE 4 4 4 4 2 4 4 2\nTYPE F F F F U F U U\nCOUNT 1 1 1 1 1 1 1 1\nWIDTH {n}\nHEIGHT 1\nVIEWPOINT 0 0 0 1 0 0 0\nPOINTS {n}\nDATA binary\n"
        )
        .into_bytes();
        bytes.reserve(n * 28);
        for p in &c.points {
            for v in p.position {
                bytes.extend(v.to_le_bytes());
            }
            bytes.extend(p.intensity.to_le_bytes());
            bytes.extend(p.ring.to_le_bytes());
            bytes.extend(p.time.to_le_bytes());
            bytes.extend(p.instance.to_le_bytes());
            bytes.extend(p.label.to_le_bytes());
        }
        self.write_whole(&file, &bytes)
    }

    /// A camera frame as a colour PNG.
    fn png(&mut self, c: &passerby_sensors::camera::CameraFrame) -> Result<(), RecordError> {
        let name = full_name(&c.sensor);
        let index = self.sweeps.entry(name.clone()).or_insert(0);
        let file = PathBuf::from(&name).join(format!("{:06}_{:.6}.png", *index, c.stamp));
        *index += 1;
        let mut bytes = Vec::new();
        {
            let mut encoder = png::Encoder::new(&mut bytes, c.intrinsics.ncols, c.intrinsics.nrows);
            encoder.set_color(png::ColorType::Rgb);
            encoder.set_depth(png::BitDepth::Eight);
            let written = encoder
                .write_header()
                .and_then(|mut w| w.write_image_data(&c.rgb));
            written.map_err(|e| self.io(&file, std::io::Error::other(e.to_string())))?;
        }
        self.write_whole(&file, &bytes)
    }

    /// Flushes every file.
    pub fn finish(mut self) -> Result<(), RecordError> {
        for (path, f) in &mut self.files {
            f.flush().map_err(|source| RecordError::Io {
                path: path.clone(),
                source,
            })?;
        }
        Ok(())
    }
}
