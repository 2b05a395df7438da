//! The Foxglove WebSocket server: every topic of the recording as a channel with its `ros2msg`
//! schema and `cdr` messages (the Foxglove app shows point clouds, images, TF and markers
//! live), simulated time as the server's time, `/<vehicle>/cmd_vel` taken from clients
//! (`geometry_msgs/msg/Twist`, `cdr` or `json`), transform sets on `/passerby/transforms`
//! (`passerby_msgs/msg/TransformSet`, `cdr` or `json`), and the run's controls as JSON services:
//! `/passerby/step` (`{"steps": N}`), `/passerby/pause`, `/passerby/resume`, `/passerby/reset`,
//! each answered with `{"time", "steps", "paused"}`; the served world's parameters
//! (`realtime_factor` may change; `foxglove_parameters.rs`).
//!
//! Every channel is advertised at start, before the first step, so a client can subscribe to a
//! sensor before its first message. `/tf_static` is sent again to each client that subscribes
//! to it (WebSocket channels keep no latched message).

use crate::control::{Control, ControlSender, Reply};
use crate::foxglove_parameters::{FoxgloveParameters, to_foxglove};
use crate::outbox::{Outbox, OutboxSink, OutboxStats, PublishedBy, Publisher, publish_queued};
use crate::parameters::Parameters;
use crate::serve::Published;
use crate::transform_set::{TRANSFORM_TOPIC, decode_transform_set};
use crate::twist::{decode_twist, twist_topic_vehicle};
use foxglove::websocket::service::{Handler, Request, Responder, Service, ServiceSchema};
use foxglove::websocket::{Capability, ChannelView, Client, ClientChannel, ServerListener, Status};
use foxglove::{ChannelBuilder, Context, PartialMetadata, RawChannel, Schema, WebSocketServer};
use passerby_engine::{Encoder, Message, Sink};
use passerby_record::full_name;
use passerby_world::{SensorRef, World};
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

/// Where and how to serve.
#[derive(Clone, Debug)]
pub struct FoxgloveOptions {
    /// Address to bind (loopback unless a user opens it).
    pub host: String,
    /// Port (0: any free one; [`FoxgloveServer::port`] tells which).
    pub port: u16,
    /// Bytes of steps queued for the clients before the oldest is dropped.
    pub queue_bytes: usize,
    /// Wait for room instead of dropping (lockstep).
    pub lossless: bool,
}

impl Default for FoxgloveOptions {
    fn default() -> Self {
        FoxgloveOptions {
            host: "127.0.0.1".into(),
            port: 8765,
            queue_bytes: 256 << 20,
            lossless: false,
        }
    }
}

/// What the server's threads share.
struct Shared {
    /// The channels' context: the server holds it weakly, and it closes them when dropped.
    _context: Arc<Context>,
    encoder: Encoder,
    outbox: Outbox,
    channels: HashMap<String, Arc<RawChannel>>,
    /// Per sensor, the channels its observations go to (to skip encoding when nobody listens).
    sensor_channels: HashMap<SensorRef, Vec<Arc<RawChannel>>>,
    /// The last `/tf_static` message and its log time, for late subscribers.
    tf_static: Mutex<Option<(Vec<u8>, u64)>>,
    /// `/passerby/timing`: when each published step ended on the wall clock (JSON).
    timing: Arc<RawChannel>,
    /// The server, once started (its clock follows the steps); taken out to stop it.
    handle: Mutex<Option<foxglove::WebSocketServerHandle>>,
}

/// A running Foxglove WebSocket server and its publishing thread.
pub struct FoxgloveServer {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
    port: u16,
}

impl FoxgloveServer {
    /// Starts serving `world`'s topics, sending clients' controls into `controls`, with
    /// `params` as its parameters.
    pub fn start(
        world: &World,
        encoder: Encoder,
        controls: ControlSender,
        params: Arc<Parameters>,
        options: &FoxgloveOptions,
    ) -> Result<FoxgloveServer, String> {
        // Foxglove's image panel shows rgb8, not the 32SC1 / 16UC1 ids of label images.
        let encoder = encoder.with_colour_labels();
        let context = Context::new();
        let mut channels = HashMap::new();
        for (topic, ty) in encoder.topics(world) {
            let channel = ChannelBuilder::new(topic.as_str())
                .message_encoding("cdr")
                .schema(Schema::new(ty.name, "ros2msg", ty.definition.as_bytes()))
                .context(&context)
                .build_raw()
                .map_err(|e| format!("channel {topic}: {e}"))?;
            channels.insert(topic, channel);
        }
        let mut sensor_channels: HashMap<SensorRef, Vec<Arc<RawChannel>>> = HashMap::new();
        for (vehicle, s) in world.sensors() {
            let sensor = SensorRef {
                vehicle: vehicle.map(str::to_owned),
                name: s.name.clone(),
            };
            let prefix = format!("/{}", full_name(&sensor));
            let mine = (channels.iter())
                .filter(|(topic, _)| {
                    topic.strip_prefix(&prefix).is_some_and(|rest| {
                        rest.is_empty() || rest.starts_with('_') || rest.starts_with('/')
                    })
                })
                .map(|(_, c)| c.clone())
                .collect();
            sensor_channels.insert(sensor, mine);
        }
        let timing_schema = r#"{"type":"object","properties":{"time":{"type":"number","description":"simulated seconds"},"step_end_unix_ns":{"type":"integer","description":"when the step ended, nanoseconds since 1970 on the server's wall clock"}}}"#;
        let timing = ChannelBuilder::new("/passerby/timing")
            .message_encoding("json")
            .schema(Schema::new(
                "passerby/StepTiming",
                "jsonschema",
                timing_schema.as_bytes(),
            ))
            .context(&context)
            .build_raw()
            .map_err(|e| format!("channel /passerby/timing: {e}"))?;
        let shared = Arc::new(Shared {
            timing,
            _context: context.clone(),
            encoder,
            outbox: Outbox::new(options.queue_bytes, options.lossless),
            channels,
            sensor_channels,
            tf_static: Mutex::new(None),
            handle: Mutex::new(None),
        });
        let vehicles: BTreeSet<String> = world.vehicles.iter().map(|v| v.name.clone()).collect();
        let listener = Listener {
            shared: shared.clone(),
            controls: Mutex::new(controls.clone()),
            vehicles,
        };
        let services =
            ["step", "pause", "resume", "reset"].map(|name| control_service(name, &controls));
        let handle = WebSocketServer::new()
            .name("passerby")
            .bind(options.host.clone(), options.port)
            .context(&context)
            .capabilities([
                Capability::ClientPublish,
                Capability::Time,
                Capability::Parameters,
            ])
            .parameter_handler(Arc::new(FoxgloveParameters(params.clone())))
            .supported_encodings(["cdr", "json"])
            .services(services)
            .listener(Arc::new(listener))
            .start_blocking()
            .map_err(|e| format!("cannot serve on {}:{}: {e}", options.host, options.port))?;
        let port = handle.port();
        *shared.handle.lock().unwrap_or_else(PoisonError::into_inner) = Some(handle);
        // Every change, from here or from ROS 2, to the clients subscribed to it.
        let watching = Arc::downgrade(&shared);
        params.watch(Box::new(move |p| {
            let Some(shared) = watching.upgrade() else {
                return;
            };
            let handle = shared.handle.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(handle) = handle.as_ref() {
                handle.publish_parameter_values(vec![to_foxglove(p.name, &p.value)]);
            }
        }));
        let thread = {
            let shared = shared.clone();
            std::thread::Builder::new()
                .name("foxglove-publisher".into())
                .spawn(move || publish_queued(&*shared))
                .map_err(|e| format!("cannot start the publisher thread: {e}"))?
        };
        Ok(FoxgloveServer {
            shared,
            thread: Some(thread),
            port,
        })
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The sink that feeds it (add it to the engine).
    pub fn sink(&self) -> Box<dyn Sink> {
        Box::new(OutboxSink::new(self.shared.clone()))
    }

    /// Its publishing side, for lockstep replies.
    pub fn published(&self) -> Arc<dyn Published> {
        Arc::new(PublishedBy(self.shared.clone()))
    }

    /// Steps published and dropped so far.
    pub fn stats(&self) -> OutboxStats {
        self.shared.outbox.stats()
    }

    /// Publishes what is queued, then closes every connection.
    pub fn stop(mut self) -> OutboxStats {
        self.shared.outbox.close();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        let handle = (self.shared.handle.lock())
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(handle) = handle {
            // Closing sends each client a close frame: a client that stopped reading would
            // hold that up for ever, so it gets two seconds.
            let shutdown = handle.stop();
            let (done, waited) = std::sync::mpsc::channel();
            std::thread::spawn(move || {
                shutdown.wait_blocking();
                let _ = done.send(());
            });
            let _ = waited.recv_timeout(std::time::Duration::from_secs(2));
        }
        self.shared.outbox.stats()
    }
}

impl Drop for FoxgloveServer {
    fn drop(&mut self) {
        self.shared.outbox.close();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
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
        "foxglove"
    }

    fn listened(&self, sensor: &SensorRef) -> bool {
        (self.sensor_channels.get(sensor)).is_some_and(|cs| cs.iter().any(|c| c.has_sinks()))
    }

    fn send(&self, m: &Message) {
        if m.topic == "/tf_static" {
            let mut kept = self
                .tf_static
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            *kept = Some((m.data.clone(), m.time));
        }
        if let Some(channel) = self.channels.get(&m.topic) {
            channel.log_with_meta(&m.data, PartialMetadata::with_log_time(m.time));
        }
    }

    /// The server's clock moves with the published steps; `/passerby/timing` says when each
    /// step ended on the wall clock, so a client can measure its latency.
    fn stepped(&self, now: f64, ended: std::time::SystemTime) {
        let nanos = self.encoder.nanos(now);
        let wall = ended
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        if self.timing.has_sinks() {
            let json = format!("{{\"time\":{now},\"step_end_unix_ns\":{wall}}}");
            self.timing
                .log_with_meta(json.as_bytes(), PartialMetadata::with_log_time(nanos));
        }
        let handle = self.handle.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(handle) = handle.as_ref() {
            handle.broadcast_time(nanos);
        }
    }
}

/// Clients' messages and subscriptions.
struct Listener {
    shared: Arc<Shared>,
    controls: Mutex<ControlSender>,
    vehicles: BTreeSet<String>,
}

impl Listener {
    fn vehicle_of<'t>(&self, topic: &'t str) -> Option<&'t str> {
        twist_topic_vehicle(topic).filter(|v| self.vehicles.contains(*v))
    }
}

impl ServerListener for Listener {
    fn on_client_advertise(&self, client: Client, channel: &ClientChannel) {
        if self.vehicle_of(&channel.topic).is_none() && channel.topic != TRANSFORM_TOPIC {
            let wanted: Vec<String> = (self.vehicles.iter())
                .map(|v| format!("/{v}/cmd_vel"))
                .collect();
            client.send_status(Status::warning(format!(
                "`{}` is not taken: passerby takes passerby_msgs/msg/TransformSet on {TRANSFORM_TOPIC} and geometry_msgs/msg/Twist on {}",
                channel.topic,
                if wanted.is_empty() {
                    "no topic (this world has no vehicle)".to_owned()
                } else {
                    wanted.join(", ")
                }
            )));
        }
    }

    fn on_message_data(&self, client: Client, channel: &ClientChannel, payload: &[u8]) {
        if channel.topic == TRANSFORM_TOPIC {
            match decode_transform_set(&channel.encoding, payload) {
                Ok(control) => {
                    let controls = self.controls.lock().unwrap_or_else(PoisonError::into_inner);
                    let _ = controls.send(control);
                }
                Err(e) => client.send_status(Status::warning(format!(
                    "{TRANSFORM_TOPIC}: not a TransformSet: {e}"
                ))),
            }
            return;
        }
        let Some(vehicle) = self.vehicle_of(&channel.topic) else {
            return;
        };
        match decode_twist(&channel.encoding, payload) {
            Ok(twist) => {
                let controls = self.controls.lock().unwrap_or_else(PoisonError::into_inner);
                let _ = controls.send(Control::Command {
                    vehicle: vehicle.to_owned(),
                    twist,
                });
            }
            Err(e) => client.send_status(Status::warning(format!(
                "`{}`: not a Twist: {e}",
                channel.topic
            ))),
        }
    }

    fn on_subscribe(&self, client: Client, channel: ChannelView) {
        if channel.topic() != "/tf_static" {
            return;
        }
        let kept = self
            .shared
            .tf_static
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        if let (Some((data, time)), Some(c)) = (kept, self.shared.channels.get("/tf_static")) {
            c.log_with_meta_to_sink(
                &data,
                PartialMetadata::with_log_time(time),
                client.sink_id(),
            );
        }
    }
}

/// A JSON service that sends one kind of control.
struct ControlService {
    name: &'static str,
    controls: Mutex<ControlSender>,
}

fn control_service(name: &'static str, controls: &ControlSender) -> Service {
    let request = match name {
        "step" => r#"{"type":"object","properties":{"steps":{"type":"integer","minimum":1}}}"#,
        _ => r#"{"type":"object"}"#,
    };
    let response = r#"{"type":"object","properties":{"time":{"type":"number"},"steps":{"type":"integer"},"paused":{"type":"boolean"}}}"#;
    let schema = ServiceSchema::new(format!("passerby_msgs/srv/{name}"))
        .with_request(
            "json",
            Schema::new("request", "jsonschema", request.as_bytes()),
        )
        .with_response(
            "json",
            Schema::new("response", "jsonschema", response.as_bytes()),
        );
    Service::builder(format!("/passerby/{name}"), schema).handler(ControlService {
        name,
        controls: Mutex::new(controls.clone()),
    })
}

impl Handler for ControlService {
    fn call(&self, request: Request, responder: Responder) {
        let payload = request.payload();
        let body: serde_json::Value = if payload.iter().all(u8::is_ascii_whitespace) {
            serde_json::Value::Object(Default::default())
        } else {
            match serde_json::from_slice(payload) {
                Ok(v) => v,
                Err(e) => return responder.respond_err(format!("the request is not JSON: {e}")),
            }
        };
        let reply = Reply::new(move |result| match result {
            Ok(state) => responder.respond_ok(serde_json::to_vec(&state).unwrap_or_default()),
            Err(e) => responder.respond_err(e),
        });
        let control = match self.name {
            "step" => {
                let steps = match body.get("steps") {
                    None => 1,
                    Some(n) => match n.as_u64() {
                        Some(n) if n >= 1 => n,
                        _ => {
                            return reply.send(Err(format!(
                                "`steps` must be a whole number of at least 1, not {n}"
                            )));
                        }
                    },
                };
                Control::Step { steps, reply }
            }
            "pause" => Control::Pause { reply },
            "resume" => Control::Resume { reply },
            _ => Control::Reset { reply },
        };
        let controls = self.controls.lock().unwrap_or_else(PoisonError::into_inner);
        if let Err(e) = controls.send(control) {
            e.0.refuse("the server is stopping");
        }
    }
}
