//! ROS 2 over DDS, with no ROS installation (`ros2-client` on RustDDS): a node `/passerby`
//! publishing every topic of the recording with its type and the QoS a ROS 2 user expects
//! (sensor data best effort, `/tf_static` transient local, the rest reliable), `/clock` for
//! `use_sim_time`, and taking `geometry_msgs/msg/Twist` on `/<vehicle>/cmd_vel`,
//! `passerby_msgs/msg/TransformSet` on `/passerby/transforms` and the run's controls on
//! `/passerby/control` (`passerby_msgs/msg/Control`), each answered on
//! `/passerby/status` (`passerby_msgs/msg/Status`; definitions in `ros/passerby_msgs`).
//!
//! Discovery follows ROS 2's variables, with localhost as the default: unless
//! `ROS_AUTOMATIC_DISCOVERY_RANGE` is `SUBNET` or `SYSTEM_DEFAULT` (or the caller opens it), the
//! participant advertises and multicasts on the loopback interface only and finds peers by
//! unicast on 127.0.0.1, so no DDS packet leaves the machine. `ROS_LOCALHOST_ONLY=1` (the older
//! variable) keeps it local too; `ROS_DOMAIN_ID` picks the domain.

use crate::control::{Control, ControlSender, Reply, RunState};
use crate::outbox::{Outbox, OutboxSink, OutboxStats, PublishedBy, Publisher, publish_queued};
use crate::parameters::Parameters;
use crate::ros2_parameters::{ParameterServices, ServiceStyle};
use crate::serve::Published;
use crate::transform_set::{TRANSFORM_SET, TRANSFORM_TOPIC, TransformSetMsg};
use passerby_engine::{Encoder, Message, Sink};
use passerby_record::ros::MsgType;
use passerby_world::{SensorRef, World};
use ros2_client::dds::rustdds::DomainParticipantBuilder;
use ros2_client::dds::{Context, Node, Publisher as DdsPublisher, Subscription};
use ros2_client::qos::{Durability, History, WhenFull};
use ros2_client::{MessageTypeName, Name, NodeName, NodeOptions, QosProfile};
use serde::{Deserialize, Serialize, Serializer};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

/// How far discovery reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiscoveryRange {
    /// This machine only (the default).
    Localhost,
    /// The local network, as ROS 2 nodes do by default.
    Subnet,
}

/// Where and how to publish.
#[derive(Clone, Debug)]
pub struct Ros2Options {
    /// `ROS_DOMAIN_ID`.
    pub domain_id: u16,
    /// Discovery's reach.
    pub range: DiscoveryRange,
    /// Bytes of steps queued before the oldest is dropped.
    pub queue_bytes: usize,
    /// Wait for room instead of dropping (lockstep).
    pub lossless: bool,
    /// How the parameter services frame requests (`RMW_IMPLEMENTATION`).
    pub services: ServiceStyle,
}

impl Ros2Options {
    /// The options ROS 2's environment variables ask for (`ROS_DOMAIN_ID`,
    /// `ROS_AUTOMATIC_DISCOVERY_RANGE`, `ROS_LOCALHOST_ONLY`), localhost unless they open it.
    pub fn from_env() -> Result<Ros2Options, String> {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        let domain_id = match var("ROS_DOMAIN_ID") {
            None => 0,
            Some(v) => match v.trim().parse::<u16>() {
                Ok(d) if d <= 232 => d,
                _ => return Err(format!("ROS_DOMAIN_ID `{v}`: expected 0 to 232")),
            },
        };
        let localhost_only = var("ROS_LOCALHOST_ONLY").is_some_and(|v| v.trim() == "1");
        let range = match var("ROS_AUTOMATIC_DISCOVERY_RANGE")
            .as_deref()
            .map(str::trim)
        {
            _ if localhost_only => DiscoveryRange::Localhost,
            None | Some("LOCALHOST") => DiscoveryRange::Localhost,
            Some("SUBNET") | Some("SYSTEM_DEFAULT") => DiscoveryRange::Subnet,
            Some("OFF") => {
                return Err(
                    "ROS_AUTOMATIC_DISCOVERY_RANGE=OFF: no node could discover this one".into(),
                );
            }
            Some(other) => {
                return Err(format!(
                    "ROS_AUTOMATIC_DISCOVERY_RANGE `{other}`: expected LOCALHOST, SUBNET, OFF or SYSTEM_DEFAULT"
                ));
            }
        };
        Ok(Ros2Options {
            domain_id,
            range,
            queue_bytes: 256 << 20,
            lossless: false,
            services: ServiceStyle::from_rmw(var("RMW_IMPLEMENTATION").as_deref()),
        })
    }
}

/// `passerby_msgs/msg/Control` (`ros/passerby_msgs/msg/Control.msg`).
pub const CONTROL: MsgType = MsgType {
    name: "passerby_msgs/msg/Control",
    definition: "string command\nuint64 steps\nuint64 id\nstring[] vehicles\ngeometry_msgs/Twist[] twists\n================================================================================\nMSG: geometry_msgs/Twist\nVector3 linear\nVector3 angular\n================================================================================\nMSG: geometry_msgs/Vector3\nfloat64 x\nfloat64 y\nfloat64 z\n",
};

/// `passerby_msgs/msg/Status` (`ros/passerby_msgs/msg/Status.msg`).
pub const STATUS: MsgType = MsgType {
    name: "passerby_msgs/msg/Status",
    definition: "uint64 id\nbool ok\nstring error\nfloat64 time\nuint64 steps\nbool paused\n",
};

/// A message already in CDR (its 4-byte encapsulation header dropped): written through the
/// CDR serializer byte by byte as a tuple, which CDR writes without a length, so the bytes on
/// the wire are exactly the recording's.
struct RawCdr(Vec<u8>);

impl std::fmt::Debug for RawCdr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} CDR bytes", self.0.len())
    }
}

impl Serialize for RawCdr {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeTuple;
        let body = self.0.get(4..).unwrap_or_default();
        let mut tuple = serializer.serialize_tuple(body.len())?;
        for byte in body {
            tuple.serialize_element(byte)?;
        }
        tuple.end()
    }
}

/// `geometry_msgs/msg/Vector3`.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize)]
struct Vector3 {
    x: f64,
    y: f64,
    z: f64,
}

/// `geometry_msgs/msg/Twist`.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize)]
struct Twist {
    linear: Vector3,
    angular: Vector3,
}

/// `passerby_msgs/msg/Control`.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
struct ControlMsg {
    /// `step`, `pause`, `resume` or `reset`.
    command: String,
    /// Steps, for `step` (0 means 1).
    steps: u64,
    /// Echoed in the status that answers it.
    id: u64,
    /// Velocity commands applied before the request: `vehicles[i]` at `twists[i]`.
    vehicles: Vec<String>,
    twists: Vec<Twist>,
}

/// `passerby_msgs/msg/Status`.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
struct StatusMsg {
    id: u64,
    ok: bool,
    error: String,
    time: f64,
    steps: u64,
    paused: bool,
}

/// What the publishing thread and the control thread share.
struct Shared {
    encoder: Encoder,
    outbox: Outbox,
    publishers: HashMap<String, DdsPublisher<RawCdr>>,
    status: Mutex<DdsPublisher<StatusMsg>>,
    stop: AtomicBool,
}

/// A running ROS 2 node and its threads.
pub struct Ros2Server {
    shared: Arc<Shared>,
    threads: Vec<JoinHandle<()>>,
    /// Kept for its entities' lifetime.
    _node: Node,
}

/// `pkg/msg/Type` as a ROS 2 type name.
fn type_name(ty: &MsgType) -> MessageTypeName {
    let mut parts = ty.name.split('/');
    let package = parts.next().unwrap_or_default();
    let name = parts.next_back().unwrap_or_default();
    MessageTypeName::new(package, name)
}

/// `/a/b/c` as namespace `/a/b` and name `c`.
fn topic_name(topic: &str) -> Result<Name, String> {
    let (namespace, base) = topic.rsplit_once('/').unwrap_or(("", topic));
    let namespace = if namespace.is_empty() { "/" } else { namespace };
    Name::new(namespace, base).map_err(|e| format!("topic {topic}: {e:?}"))
}

/// The QoS of a topic: sensor data best effort (what `SensorDataQoS` subscribers expect and
/// what drops when a reader is slow), `/tf_static` latched, everything else reliable.
fn qos_of(topic: &str, ty: &MsgType) -> QosProfile {
    let reliable = QosProfile::publisher_default()
        .reliability_reliable(WhenFull::Wait(Duration::from_millis(20)))
        .history(History::KeepLast { depth: 10 });
    if topic == "/tf_static" {
        return reliable
            .durability(Durability::TransientLocal)
            .history(History::KeepLast { depth: 1 });
    }
    let sensor_data = matches!(
        ty.name,
        "sensor_msgs/msg/PointCloud2"
            | "sensor_msgs/msg/Image"
            | "sensor_msgs/msg/LaserScan"
            | "sensor_msgs/msg/Imu"
            | "sensor_msgs/msg/NavSatFix"
            | "sensor_msgs/msg/CameraInfo"
    );
    if sensor_data {
        QosProfile::subscription_default().history(History::KeepLast { depth: 5 })
    } else {
        reliable
    }
}

impl Ros2Server {
    /// Starts the node `/passerby` publishing `world`'s topics, sending clients' controls into
    /// `controls`, with `params` as its parameters.
    pub fn start(
        world: &World,
        encoder: Encoder,
        controls: ControlSender,
        params: Arc<Parameters>,
        options: &Ros2Options,
    ) -> Result<Ros2Server, String> {
        let mut participant = DomainParticipantBuilder::new(options.domain_id);
        if options.range == DiscoveryRange::Localhost {
            participant = participant
                .with_only_networks([std::net::IpAddr::from([127, 0, 0, 1])])
                .same_host_loopback(true);
        }
        let participant = participant
            .build()
            .map_err(|e| format!("cannot start DDS: {e:?}"))?;
        let context = Context::from_domain_participant(participant)
            .map_err(|e| format!("cannot start ROS 2: {e:?}"))?;
        let mut node = context
            .new_node(
                NodeName::new("/", "passerby").map_err(|e| format!("{e:?}"))?,
                NodeOptions::new()
                    .enable_rosout(false)
                    .start_parameter_services(false),
            )
            .map_err(|e| format!("cannot create the ROS 2 node: {e:?}"))?;
        let mut publishers = HashMap::new();
        for (topic, ty) in encoder.topics(world) {
            let qos = qos_of(&topic, &ty);
            let dds_topic = node
                .create_topic(&topic_name(&topic)?, type_name(&ty), &qos)
                .map_err(|e| format!("topic {topic}: {e:?}"))?;
            let publisher = node
                .create_publisher::<RawCdr>(&dds_topic, None)
                .map_err(|e| format!("publisher {topic}: {e:?}"))?;
            publishers.insert(topic, publisher);
        }
        let control_qos = QosProfile::publisher_default()
            .reliability_reliable(WhenFull::Wait(Duration::from_millis(100)))
            .history(History::KeepLast { depth: 100 });
        let mut twists = Vec::new();
        for v in &world.vehicles {
            let topic = node
                .create_topic(
                    &topic_name(&format!("/{}/cmd_vel", v.name))?,
                    MessageTypeName::new("geometry_msgs", "Twist"),
                    &control_qos,
                )
                .map_err(|e| format!("cmd_vel of {}: {e:?}", v.name))?;
            let sub = node
                .create_subscription::<Twist>(&topic, None)
                .map_err(|e| format!("cmd_vel of {}: {e:?}", v.name))?;
            twists.push((v.name.clone(), sub));
        }
        let transforms_topic = node
            .create_topic(
                &topic_name(TRANSFORM_TOPIC)?,
                type_name(&TRANSFORM_SET),
                &control_qos,
            )
            .map_err(|e| format!("{TRANSFORM_TOPIC}: {e:?}"))?;
        let transforms = node
            .create_subscription::<TransformSetMsg>(&transforms_topic, None)
            .map_err(|e| format!("{TRANSFORM_TOPIC}: {e:?}"))?;
        let control_topic = node
            .create_topic(
                &topic_name("/passerby/control")?,
                type_name(&CONTROL),
                &control_qos,
            )
            .map_err(|e| format!("/passerby/control: {e:?}"))?;
        let control_sub = node
            .create_subscription::<ControlMsg>(&control_topic, None)
            .map_err(|e| format!("/passerby/control: {e:?}"))?;
        let status_topic = node
            .create_topic(
                &topic_name("/passerby/status")?,
                type_name(&STATUS),
                &control_qos,
            )
            .map_err(|e| format!("/passerby/status: {e:?}"))?;
        let status = node
            .create_publisher::<StatusMsg>(&status_topic, None)
            .map_err(|e| format!("/passerby/status: {e:?}"))?;
        let parameters = ParameterServices::start(&mut node, options.services, params)?;
        // Making the spinner ends the node's quiet start: its publishers and subscriptions go
        // out on `ros_discovery_info` (what `ros2 node list` and `ros2 topic info` read). It is
        // not run: its loop would subscribe to /clock as `builtin_interfaces/Time`, clashing
        // with our `rosgraph_msgs/Clock` writer; our parameter services answer instead.
        drop(
            node.spinner()
                .map_err(|e| format!("cannot announce the ROS 2 node: {e:?}"))?,
        );
        let shared = Arc::new(Shared {
            encoder,
            outbox: Outbox::new(options.queue_bytes, options.lossless),
            publishers,
            status: Mutex::new(status),
            stop: AtomicBool::new(false),
        });
        let spawn = |name: &str, f: Box<dyn FnOnce() + Send>| {
            std::thread::Builder::new()
                .name(name.into())
                .spawn(f)
                .map_err(|e| format!("cannot start the {name} thread: {e}"))
        };
        let mut threads = Vec::new();
        let s = shared.clone();
        threads.push(spawn(
            "ros2-publisher",
            Box::new(move || publish_queued(&*s)),
        )?);
        let s = shared.clone();
        threads.push(spawn(
            "ros2-controls",
            Box::new(move || {
                let inputs = Inputs {
                    twists,
                    transforms,
                    control: control_sub,
                    parameters,
                };
                take_controls(&s, &inputs, &controls)
            }),
        )?);
        Ok(Ros2Server {
            shared,
            threads,
            _node: node,
        })
    }

    /// The sink that feeds it (add it to the engine).
    pub fn sink(&self) -> Box<dyn Sink> {
        Box::new(OutboxSink::new(self.shared.clone()))
    }

    /// Its publishing side, for lockstep replies.
    pub fn published(&self) -> Arc<dyn Published> {
        Arc::new(PublishedBy(self.shared.clone()))
    }

    /// Publishes what is queued, then stops its threads.
    pub fn stop(mut self) -> OutboxStats {
        self.finish_threads();
        self.shared.outbox.stats()
    }

    fn finish_threads(&mut self) {
        self.shared.outbox.close();
        self.shared.stop.store(true, Ordering::Release);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

impl Drop for Ros2Server {
    fn drop(&mut self) {
        self.finish_threads();
    }
}

impl Publisher for Shared {
    fn encoder(&self) -> &Encoder {
        &self.encoder
    }

    fn outbox(&self) -> &Outbox {
        &self.outbox
    }

    fn name(&self) -> &'static str {
        "ros2"
    }

    fn listened(&self, _sensor: &SensorRef) -> bool {
        true
    }

    fn send(&self, m: &Message) {
        if let Some(p) = self.publishers.get(&m.topic) {
            // A reliable reader that cannot keep up makes this fail after its wait: that
            // message is lost for it, as a best-effort one would be.
            if let Err(e) = p.publish(RawCdr(m.data.clone())) {
                tracing::debug!("ROS 2 {}: {e:?}", m.topic);
            }
        }
    }
}

/// What the node subscribes to.
struct Inputs {
    /// Per vehicle, its `cmd_vel`.
    twists: Vec<(String, Subscription<Twist>)>,
    transforms: Subscription<TransformSetMsg>,
    control: Subscription<ControlMsg>,
    parameters: ParameterServices,
}

/// The control thread: velocity commands, transform sets and control requests as they arrive.
fn take_controls(shared: &Arc<Shared>, inputs: &Inputs, controls: &ControlSender) {
    while !shared.stop.load(Ordering::Acquire) {
        let mut idle = !inputs.parameters.answer();
        while let Ok(Some((set, _))) = inputs.transforms.take() {
            idle = false;
            match set.control() {
                Ok(control) => {
                    let _ = controls.send(control);
                }
                Err(e) => tracing::warn!("{TRANSFORM_TOPIC}: {e}"),
            }
        }
        for (vehicle, sub) in &inputs.twists {
            while let Ok(Some((t, _))) = sub.take() {
                idle = false;
                let _ = controls.send(Control::Command {
                    vehicle: vehicle.clone(),
                    twist: [t.linear.x, t.linear.y, t.angular.z],
                });
            }
        }
        while let Ok(Some((request, _))) = inputs.control.take() {
            idle = false;
            let id = request.id;
            let status = shared.clone();
            let reply = Reply::new(move |result: Result<RunState, String>| {
                let msg = match result {
                    Ok(s) => StatusMsg {
                        id,
                        ok: true,
                        error: String::new(),
                        time: s.time,
                        steps: s.steps,
                        paused: s.paused,
                    },
                    Err(error) => StatusMsg {
                        id,
                        error,
                        ..StatusMsg::default()
                    },
                };
                let publisher = status.status.lock().unwrap_or_else(PoisonError::into_inner);
                let _ = publisher.publish(msg);
            });
            if request.vehicles.len() != request.twists.len() {
                reply.send(Err(format!(
                    "{} vehicles but {} twists",
                    request.vehicles.len(),
                    request.twists.len()
                )));
                continue;
            }
            // Before the request, in the same channel: in force for its steps.
            for (vehicle, t) in request.vehicles.iter().zip(&request.twists) {
                let _ = controls.send(Control::Command {
                    vehicle: vehicle.clone(),
                    twist: [t.linear.x, t.linear.y, t.angular.z],
                });
            }
            let control = match request.command.as_str() {
                "step" => Control::Step {
                    steps: request.steps.max(1),
                    reply,
                },
                "pause" => Control::Pause { reply },
                "resume" => Control::Resume { reply },
                "reset" => Control::Reset { reply },
                other => {
                    reply.send(Err(format!(
                        "unknown command `{other}` (expected step, pause, resume or reset)"
                    )));
                    continue;
                }
            };
            let _ = controls.send(control);
        }
        if idle {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}
