//! `--dump DIR`: the same data as plain files a person can open: one binary PCD per lidar sweep
//! (with the extra fields), CSV for laser scans, IMU, GNSS and poses, JSON lines for the actors'
//! ground truth, `labels.json`, and a README describing the layout. Files are streamed.

use crate::{RecordError, Snapshot, full_name, images};
use passerby_sensors::Observation;
use passerby_sensors::camera::CameraFrame;
use passerby_sensors::lidar::PointCloud;
use passerby_sensors::rgbd::DepthPoints;
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
  - cameras: `NNNNNN_<stamp>.png`, the colour image (sRGB); `NNNNNN_<stamp>_labels.png`, the instance
    label image with one colour per instance (the exact ids are in the recording); `boxes.jsonl`, one
    JSON object per actor box and frame: stamp, frame index, instance, name, `min` and `max` corners in
    pixels (pixel centres on integers), visible and unoccluded pixel counts, visible fraction;
  - RGB-D cameras: the same for the colour camera with `_rgb` in the names, plus
    `NNNNNN_<stamp>_depth.png` (16-bit grey, depth along the optical axis in `depth_resolution` units,
    1 mm by default; 0 = invalid) and `NNNNNN_<stamp>_points.pcd` (binary PCD, `x y z rgb instance
    label` in the depth optical frame: +Z forward, +X right, +Y down; `rgb` packed as PCL does).
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
    pub fn dump_step(&mut self, step: &Snapshot<'_>) -> Result<(), RecordError> {
        let t = step.time;
        let mut poses = String::new();
        let vehicles = step.vehicles.iter().map(|v| (&v.name, &v.pose));
        let actors = step.actors.iter().map(|a| (&a.name, &a.pose));
        for (name, p) in vehicles.chain(actors) {
            poses.push_str(&format!(
                "{t},{name},{},{},{},{},{},{}\n",
                p.x, p.y, p.z, p.yaw, p.pitch, p.roll
            ));
        }
        self.append(Path::new("poses.csv"), "", &poses)?;
        let mut actors = String::new();
        for a in step.actors {
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
        for o in step.observations.iter() {
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
                Observation::Camera(c) => {
                    let prefix = self.next_frame(&c.sensor, c.stamp);
                    self.colour(&prefix, "", c)?;
                }
                Observation::Rgbd(f) => {
                    let prefix = self.next_frame(&f.sensor, f.stamp);
                    if let Some(c) = &f.colour {
                        self.colour(&prefix, "_rgb", c)?;
                    }
                    if let Some(d) = &f.depth {
                        let i = &d.intrinsics;
                        let png = images::gray16_png(i.ncols, i.nrows, &d.data);
                        self.png(&prefix, "_depth.png", png)?;
                        self.depth_pcd(&prefix, &f.points)?;
                    }
                }
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

    /// `<sensor>/NNNNNN_<stamp>` of a sensor's next frame.
    fn next_frame(&mut self, sensor: &passerby_world::SensorRef, stamp: f64) -> PathBuf {
        let name = full_name(sensor);
        let index = self.sweeps.entry(name.clone()).or_insert(0);
        let prefix = PathBuf::from(&name).join(format!("{:06}_{stamp:.6}", *index));
        *index += 1;
        prefix
    }

    fn png(
        &mut self,
        prefix: &Path,
        suffix: &str,
        png: Result<Vec<u8>, images::PngError>,
    ) -> Result<(), RecordError> {
        let mut file = prefix.as_os_str().to_owned();
        file.push(suffix);
        let file = PathBuf::from(file);
        let bytes = png.map_err(|e| self.io(&file, std::io::Error::other(e)))?;
        self.write_whole(&file, &bytes)
    }

    /// A colour frame: its PNG, its instance labels as colours, its boxes.
    fn colour(&mut self, prefix: &Path, tag: &str, c: &CameraFrame) -> Result<(), RecordError> {
        let (w, h) = (c.intrinsics.ncols, c.intrinsics.nrows);
        self.png(prefix, &format!("{tag}.png"), images::rgb_png(w, h, &c.rgb))?;
        let ids = c.instance.iter().map(|&i| i.max(0) as u32);
        self.png(
            prefix,
            &format!("{tag}_labels.png"),
            images::labels_png(w, h, ids),
        )?;
        let frame = prefix
            .file_name()
            .and_then(|f| f.to_str())
            .and_then(|f| f.split('_').next())
            .unwrap_or("");
        let mut lines = String::new();
        for b in &c.boxes {
            lines.push_str(&format!(
                "{{\"stamp\":{},\"frame\":\"{frame}\",\"instance\":{},\"name\":{:?},\"min\":[{},{}],\"max\":[{},{}],\"visible_pixels\":{},\"unoccluded_pixels\":{},\"visible_fraction\":{}}}\n",
                c.stamp, b.instance, b.name, b.min[0], b.min[1], b.max[0], b.max[1],
                b.visible_pixels, b.unoccluded_pixels, b.visible_fraction()
            ));
        }
        let dir = prefix.parent().unwrap_or(Path::new(""));
        self.append(&dir.join(format!("boxes{tag}.jsonl")), "", &lines)
    }

    /// An RGB-D frame's points as a binary PCD.
    fn depth_pcd(&mut self, prefix: &Path, p: &DepthPoints) -> Result<(), RecordError> {
        let n = p.xyz.len();
        let mut bytes = format!(
            "# .PCD v0.7 - Point Cloud Data file format\nVERSION 0.7\nFIELDS x y z rgb instance label\nSIZE 4 4 4 4 4 2\nTYPE F F F F U U\nCOUNT 1 1 1 1 1 1\nWIDTH {n}\nHEIGHT 1\nVIEWPOINT 0 0 0 1 0 0 0\nPOINTS {n}\nDATA binary\n"
        )
        .into_bytes();
        for k in 0..n {
            for v in p.xyz[k] {
                bytes.extend(v.to_le_bytes());
            }
            let [r, g, b] = p.rgb.get(k).copied().unwrap_or([0; 3]);
            bytes.extend(u32::from_be_bytes([0, r, g, b]).to_le_bytes());
            bytes.extend(p.instance[k].to_le_bytes());
            bytes.extend(p.label[k].to_le_bytes());
        }
        let mut file = prefix.as_os_str().to_owned();
        file.push("_points.pcd");
        self.write_whole(Path::new(&file), &bytes)
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

impl crate::Sink for Dumper {
    fn step(&mut self, snapshot: &Snapshot<'_>) -> Result<(), crate::SinkError> {
        Ok(self.dump_step(snapshot)?)
    }

    fn finish(self: Box<Self>) -> Result<Vec<String>, crate::SinkError> {
        Dumper::finish(*self)?;
        Ok(Vec::new())
    }
}
