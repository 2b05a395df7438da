//! The Python package `passerby`: a thin front end over the engine library (`passerby-engine`),
//! as the CLI is. A `Simulation` loads a world (MVSim XML or MAVS JSON) with options, steps it
//! with the GIL released, and hands each step's observations to Python as dictionaries of NumPy
//! arrays laid out as the recording lays them out (lidar points as a structured array with the
//! PointCloud2 fields, images as `H x W x C`), so an array and the MCAP message of the same run
//! hold the same values.
//!
//! The package's Python (`pysrc/passerby`) re-exports this module (`passerby._native`) and adds
//! sweeps on Ray over the primitives of `sweep.rs`.
//!
//! Owns: the conversion to Python objects. Must not touch: anything the engine decides.

mod export;
mod sweep;

use numpy::{PyArray1, PyArrayMethods};
use passerby_engine::{ChunkCompression, Engine, InputOptions, Observation, load_world};
use passerby_record::encode::{POINT_FIELDS, POINT_STEP, point_record};
use passerby_world::{Pose3, Transform};
use pyo3::exceptions::{PyException, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;

pyo3::create_exception!(
    passerby,
    WorldError,
    PyException,
    "A world that cannot be loaded: the message lists each error at its file:line:column."
);

/// A running world.
#[pyclass(module = "passerby")]
struct Simulation {
    /// `None` once closed.
    engine: Mutex<Option<Engine>>,
    pool: rayon::ThreadPool,
}

/// What failed in the engine, as a Python exception.
fn engine_error(e: impl std::fmt::Display) -> PyErr {
    PyRuntimeError::new_err(e.to_string())
}

impl Simulation {
    /// Runs `f` on the open engine, with the GIL released and on the simulation's threads.
    fn with_engine<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut Engine) -> Result<T, String> + Send,
    ) -> PyResult<T> {
        let result = py.detach(|| {
            let mut guard = self
                .engine
                .lock()
                .map_err(|_| "the simulation failed before")?;
            let engine = guard.as_mut().ok_or("the simulation is closed")?;
            self.pool.install(|| f(engine))
        });
        result.map_err(engine_error)
    }
}

#[pymethods]
impl Simulation {
    /// Loads `world` and builds its scene. `variables` sets MVSim world variables (as
    /// `--var`); `noise_scale` multiplies every noise (0: noiseless, as `--noise-scale`);
    /// `record` also records the run to that MCAP file; `tum` writes ground-truth TUM
    /// trajectories into that folder (as `run --tum`); `asset_cache` and `offline` say where
    /// remote models come from (offline: never download).
    #[new]
    #[allow(clippy::too_many_arguments)] // Python's keyword arguments, one each
    #[pyo3(signature = (world, *, seed=0, threads=None, variables=None, noise_scale=1.0, record=None, tum=None, asset_cache=None, offline=true))]
    fn new(
        py: Python<'_>,
        world: PathBuf,
        seed: u64,
        threads: Option<usize>,
        variables: Option<BTreeMap<String, String>>,
        noise_scale: f64,
        record: Option<PathBuf>,
        tum: Option<PathBuf>,
        asset_cache: Option<PathBuf>,
        offline: bool,
    ) -> PyResult<Simulation> {
        if !(noise_scale.is_finite() && noise_scale >= 0.0) {
            return Err(PyValueError::new_err(
                "noise_scale must be finite and not negative",
            ));
        }
        let threads = match threads {
            Some(0) => return Err(PyValueError::new_err("threads must be at least 1")),
            Some(n) => n,
            None => std::thread::available_parallelism().map_or(1, |n| n.get()),
        };
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(engine_error)?;
        let options = InputOptions {
            seed,
            variables: variables.unwrap_or_default(),
            noise_scale,
            ..InputOptions::default()
        };
        let loaded = py.detach(|| load_world(&world, &options));
        let Some(description) = loaded.value else {
            let errors: Vec<String> = (loaded.errors())
                .map(|d| d.render(&loaded.sources))
                .collect();
            return Err(WorldError::new_err(errors.join("\n")));
        };
        let engine = py.detach(|| {
            let mut library = passerby_engine::model_library(asset_cache, !offline);
            let mut engine = pool
                .install(|| Engine::build(description, &mut library, seed))
                .map_err(|e| e.to_string())?;
            if let Some(out) = record {
                engine
                    .record_to(&out, 0, ChunkCompression::Auto)
                    .map_err(|e| e.to_string())?;
            }
            if let Some(dir) = tum {
                engine.tum_to(&dir).map_err(|e| e.to_string())?;
            }
            Ok::<Engine, String>(engine)
        });
        Ok(Simulation {
            engine: Mutex::new(Some(engine.map_err(engine_error)?)),
            pool,
        })
    }

    /// Simulated seconds so far.
    #[getter]
    fn time(&self, py: Python<'_>) -> PyResult<f64> {
        self.with_engine(py, |e| Ok(e.time()))
    }

    /// Advances one step; returns the observations it completed (one dict each).
    fn step<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let observations = self.with_engine(py, |e| e.step().map_err(|e| e.to_string()))?;
        observations.iter().map(|o| observation(py, o)).collect()
    }

    /// Steps until `duration` more simulated seconds have passed; returns how many steps.
    fn run(&self, py: Python<'_>, duration: f64) -> PyResult<u64> {
        if !(duration.is_finite() && duration >= 0.0) {
            return Err(PyValueError::new_err(
                "duration must be finite and not negative",
            ));
        }
        self.with_engine(py, |e| {
            let end = e.time() + duration;
            let mut steps = 0;
            while e.time() < end - 1e-9 {
                e.step().map_err(|e| e.to_string())?;
                steps += 1;
            }
            Ok(steps)
        })
    }

    /// Sets a vehicle's velocity command: forward and left m/s, turn rad/s (its frame).
    #[pyo3(signature = (vehicle, vx, vy=0.0, omega=0.0))]
    fn set_command(
        &self,
        py: Python<'_>,
        vehicle: String,
        vx: f64,
        vy: f64,
        omega: f64,
    ) -> PyResult<()> {
        self.with_engine(py, |e| {
            (e.set_command(&vehicle, [vx, vy, omega])).map_err(|e| e.to_string())
        })
    }

    /// Sets an object's body (`part` None: its pose in the world) or one of its parts (a node
    /// or wheel name, or `#K`; its pose in the body's frame), from the next step on, as the
    /// transform-set topic does. Angles in radians; an unknown part is refused by the next step.
    #[pyo3(signature = (object, part=None, translation=(0.0, 0.0, 0.0), yaw_pitch_roll=(0.0, 0.0, 0.0), scale=(1.0, 1.0, 1.0)))]
    fn set_transform(
        &self,
        py: Python<'_>,
        object: String,
        part: Option<String>,
        translation: (f64, f64, f64),
        yaw_pitch_roll: (f64, f64, f64),
        scale: (f64, f64, f64),
    ) -> PyResult<()> {
        let transform = Transform {
            translation: translation.into(),
            yaw_pitch_roll: yaw_pitch_roll.into(),
            scale: scale.into(),
        };
        self.with_engine(py, |e| {
            (e.set_transform(&object, part.as_deref(), transform)).map_err(|e| e.to_string())
        })
    }

    /// Holds an actor, vehicle or block at a pose (x, y, z metres; yaw, pitch, roll radians)
    /// until `release`.
    #[pyo3(signature = (object, x, y, z=0.0, yaw=0.0, pitch=0.0, roll=0.0))]
    #[allow(clippy::too_many_arguments)] // Python's arguments, one each
    fn set_pose(
        &self,
        py: Python<'_>,
        object: String,
        x: f64,
        y: f64,
        z: f64,
        yaw: f64,
        pitch: f64,
        roll: f64,
    ) -> PyResult<()> {
        let pose = Pose3 {
            x,
            y,
            z,
            yaw,
            pitch,
            roll,
        };
        self.with_engine(py, |e| e.set_pose(&object, pose).map_err(|e| e.to_string()))
    }

    /// Lets a held object move on its own again.
    fn release(&self, py: Python<'_>, object: String) -> PyResult<()> {
        self.with_engine(py, |e| e.release(&object).map_err(|e| e.to_string()))
    }

    /// The actors as they stand: name, pose (x, y, z, yaw, pitch, roll), speed (m/s), held,
    /// and `skeleton`: its bones as world points (bones x 2 x 3, float64; empty without a
    /// skinned model), as the recording's ground truth draws them.
    fn actors<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let (states, skeletons) = self.with_engine(py, |e| {
            let labels = passerby_engine::actor_labels(e.world(), e.scene());
            let capsules =
                (e.world().actors.iter()).map(|a| (a.collision_radius, a.collision_height));
            let states: Vec<_> = (e.sim().actors().iter())
                .zip(labels.into_iter().zip(capsules))
                .map(|(a, (label, capsule))| {
                    (a.name.clone(), a.pose, a.speed, a.held, label, capsule)
                })
                .collect();
            let mut skeletons = vec![Vec::new(); states.len()];
            for s in e.live().skeletons() {
                if let Some(bones) = skeletons.get_mut(s.actor) {
                    *bones = (s.bones.iter())
                        .flat_map(|&(a, b)| [s.joints[a], s.joints[b]])
                        .flatten()
                        .collect::<Vec<f64>>();
                }
            }
            Ok((states, skeletons))
        })?;
        let list = PyList::empty(py);
        for ((name, p, speed, held, (instance, class), (r, h)), bones) in
            states.into_iter().zip(skeletons)
        {
            let d = PyDict::new(py);
            d.set_item("name", name)?;
            d.set_item("instance", instance)?;
            d.set_item("class", class)?;
            d.set_item("pose", (p.x, p.y, p.z, p.yaw, p.pitch, p.roll))?;
            // As /ground_truth/actors has it: around the collision capsule, centre at half
            // height, turned as the actor.
            let b = PyDict::new(py);
            b.set_item("center", (p.x, p.y, p.z + h / 2.0))?;
            b.set_item("yaw_pitch_roll", (p.yaw, p.pitch, p.roll))?;
            b.set_item("size", (2.0 * r, 2.0 * r, h))?;
            d.set_item("box", b)?;
            d.set_item("speed", speed)?;
            d.set_item("held", held)?;
            let count = bones.len() / 6;
            d.set_item("skeleton", array(py, bones, &[count, 2, 3])?)?;
            list.append(d)?;
        }
        Ok(list)
    }

    /// The vehicles as they stand: name, pose (x, y, z, yaw, pitch, roll), body velocity
    /// (vx, vy, omega), collision flag.
    fn vehicles<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let states = self.with_engine(py, |e| Ok(e.sim().vehicles().to_vec()))?;
        let list = PyList::empty(py);
        for v in states {
            let d = PyDict::new(py);
            let p = &v.pose;
            d.set_item("name", &v.name)?;
            d.set_item("pose", (p.x, p.y, p.z, p.yaw, p.pitch, p.roll))?;
            d.set_item("velocity", (v.velocity[0], v.velocity[1], v.velocity[2]))?;
            d.set_item("in_collision", v.in_collision)?;
            list.append(d)?;
        }
        Ok(list)
    }

    /// Finishes the outputs (the recording's summary and index); the lines they report.
    fn close(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        py.detach(|| {
            let mut guard = self
                .engine
                .lock()
                .map_err(|_| "the simulation failed before")?;
            match guard.take() {
                Some(mut engine) => engine.finish().map_err(|e| e.to_string()),
                None => Ok(Vec::new()),
            }
        })
        .map_err(engine_error)
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __exit__(
        &self,
        py: Python<'_>,
        _kind: Option<Py<PyAny>>,
        _value: Option<Py<PyAny>>,
        _traceback: Option<Py<PyAny>>,
    ) -> PyResult<bool> {
        self.close(py)?;
        Ok(false)
    }
}

/// A NumPy array of `values` in `shape`.
fn array<'py, T: numpy::Element>(
    py: Python<'py>,
    values: Vec<T>,
    shape: &[usize],
) -> PyResult<Bound<'py, PyAny>> {
    Ok(PyArray1::from_vec(py, values).reshape(shape)?.into_any())
}

/// An observation as a dict: `kind`, `sensor` (`vehicle/name`), `stamp`, and its data.
fn observation<'py>(py: Python<'py>, o: &Observation) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let sensor = o.sensor();
    let name = match &sensor.vehicle {
        Some(v) => format!("{v}/{}", sensor.name),
        None => sensor.name.clone(),
    };
    d.set_item("sensor", name)?;
    d.set_item("stamp", o.stamp())?;
    match o {
        Observation::PointCloud(c) => {
            d.set_item("kind", "point_cloud")?;
            d.set_item("points", points(py, &c.points)?)?;
            let (rings, columns) = (c.rings as usize, c.columns as usize);
            d.set_item(
                "range_image",
                array(py, c.range_image.clone(), &[rings, columns])?,
            )?;
        }
        Observation::LaserScan(s) => {
            d.set_item("kind", "laser_scan")?;
            d.set_item("ranges", PyArray1::from_slice(py, &s.ranges))?;
            d.set_item("angle_min", s.angle_min)?;
            d.set_item("angle_max", s.angle_max)?;
            d.set_item("angle_increment", s.angle_increment)?;
            d.set_item("range_max", s.range_max)?;
        }
        Observation::Camera(c) => {
            d.set_item("kind", "camera")?;
            camera(py, &d, c)?;
        }
        Observation::Rgbd(r) => {
            d.set_item("kind", "rgbd")?;
            if let Some(c) = &r.colour {
                camera(py, &d, c)?;
            }
            if let Some(depth) = &r.depth {
                let (h, w) = (
                    depth.intrinsics.nrows as usize,
                    depth.intrinsics.ncols as usize,
                );
                d.set_item("depth_image", array(py, depth.data.clone(), &[h, w])?)?;
                d.set_item("depth_units", depth.units)?;
            }
        }
        Observation::Imu(s) => {
            d.set_item("kind", "imu")?;
            d.set_item("angular_velocity", s.angular_velocity)?;
            d.set_item("linear_acceleration", s.linear_acceleration)?;
            d.set_item("orientation", s.orientation)?;
        }
        Observation::Gnss(f) => {
            d.set_item("kind", "gnss")?;
            d.set_item("latitude_deg", f.latitude_deg)?;
            d.set_item("longitude_deg", f.longitude_deg)?;
            d.set_item("altitude", f.altitude)?;
            d.set_item("position_variance", f.position_variance)?;
        }
    }
    Ok(d)
}

/// A camera frame's images: `rgb` (H x W x 3, uint8), `depth` (H x W, float32 metres),
/// `instance` (int32) and `label` (uint16) per pixel; `boxes`, the actors' 2D boxes.
fn camera<'py>(
    py: Python<'py>,
    d: &Bound<'py, PyDict>,
    c: &passerby_sensors::camera::CameraFrame,
) -> PyResult<()> {
    let (h, w) = (c.intrinsics.nrows as usize, c.intrinsics.ncols as usize);
    d.set_item("rgb", array(py, c.rgb.clone(), &[h, w, 3])?)?;
    d.set_item("depth", array(py, c.depth.clone(), &[h, w])?)?;
    d.set_item("instance", array(py, c.instance.clone(), &[h, w])?)?;
    d.set_item("label", array(py, c.class.clone(), &[h, w])?)?;
    let boxes = PyList::empty(py);
    for b in &c.boxes {
        let item = PyDict::new(py);
        item.set_item("name", &b.name)?;
        item.set_item("instance", b.instance)?;
        item.set_item("label", b.class)?;
        item.set_item("min", b.min)?;
        item.set_item("max", b.max)?;
        item.set_item("visible_fraction", b.visible_fraction())?;
        boxes.append(item)?;
    }
    d.set_item("boxes", boxes)?;
    Ok(())
}

/// Lidar points as a structured array with the recording's PointCloud2 fields and layout.
fn points<'py>(
    py: Python<'py>,
    points: &[passerby_sensors::lidar::LidarPoint],
) -> PyResult<Bound<'py, PyAny>> {
    let step = POINT_STEP as usize;
    let mut bytes = vec![0u8; points.len() * step];
    for (p, r) in points.iter().zip(bytes.chunks_exact_mut(step)) {
        point_record(p, r);
    }
    let numpy = py.import("numpy")?;
    let spec = PyDict::new(py);
    let formats: Vec<&str> = POINT_FIELDS
        .iter()
        .map(|f| match f.2 {
            4 => "<u2",
            6 => "<u4",
            _ => "<f4",
        })
        .collect();
    spec.set_item(
        "names",
        POINT_FIELDS.iter().map(|f| f.0).collect::<Vec<_>>(),
    )?;
    spec.set_item("formats", formats)?;
    spec.set_item(
        "offsets",
        POINT_FIELDS.iter().map(|f| f.1).collect::<Vec<_>>(),
    )?;
    spec.set_item("itemsize", POINT_STEP)?;
    let dtype = numpy.call_method1("dtype", (spec,))?;
    let raw = PyBytes::new(py, &bytes);
    numpy.call_method1("frombuffer", (raw, dtype))
}

/// The `passerby` module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Simulation>()?;
    m.add("WorldError", m.py().get_type::<WorldError>())?;
    sweep::register(m)?;
    export::register(m)?;
    Ok(())
}
