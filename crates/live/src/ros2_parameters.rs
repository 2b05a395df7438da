//! ROS 2's six parameter services of the node `/passerby` (`get_parameters`,
//! `get_parameter_types`, `set_parameters`, `set_parameters_atomically`, `list_parameters`,
//! `describe_parameters`, as `ros2 param` and rqt call them) over the shared [`Parameters`],
//! and `/parameter_events` when a value changes.
//!
//! Request and reply framing follows the ROS 2 middleware the caller runs: rmw_cyclonedds_cpp
//! carries a request's identity in the payload, Fast DDS (ROS 2's default middleware) in the
//! sample's inline QoS, and a server understands only one of them, so `RMW_IMPLEMENTATION`
//! picks it as it would for a ROS 2 node ([`ServiceStyle`]).
//!
//! Owns: the services' endpoints and the translation between ROS 2's parameter messages and
//! [`Parameters`]. Must not touch: the parameters' rules (`parameters.rs`).

use crate::parameters::{Parameter, Parameters, Value};
use ros2_client::dds::{Node, Publisher, Server, ServiceMapping};
use ros2_client::parameters::raw;
use ros2_client::qos::{History, WhenFull};
use ros2_client::rcl_interfaces::{
    DescribeParametersRequest, DescribeParametersResponse, GetParameterTypesRequest,
    GetParameterTypesResponse, GetParametersRequest, GetParametersResponse, ListParametersRequest,
    ListParametersResponse, ListParametersResult, SetParametersAtomicallyResponse,
    SetParametersRequest, SetParametersResponse,
};
use ros2_client::{MessageTypeName, Name, QosProfile, ServiceTypeName};
use std::sync::Arc;
use std::time::Duration;

/// How service requests and replies are framed: as the ROS 2 middleware of the nodes that
/// call them does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ServiceStyle {
    /// Fast DDS (rmw_fastrtps_cpp, ROS 2's default): the request's identity in inline QoS.
    FastDds,
    /// Cyclone DDS (rmw_cyclonedds_cpp): a 16-byte identity before the request.
    Cyclone,
}

impl ServiceStyle {
    /// The style `RMW_IMPLEMENTATION` (its value) asks for.
    pub fn from_rmw(rmw: Option<&str>) -> ServiceStyle {
        match rmw {
            Some(r) if r.contains("cyclonedds") => ServiceStyle::Cyclone,
            _ => ServiceStyle::FastDds,
        }
    }

    fn mapping(self) -> ServiceMapping {
        match self {
            ServiceStyle::FastDds => ServiceMapping::Enhanced,
            ServiceStyle::Cyclone => ServiceMapping::Cyclone,
        }
    }
}

/// The services and the events publisher.
pub(crate) struct ParameterServices {
    params: Arc<Parameters>,
    get: Server<GetParametersRequest, GetParametersResponse>,
    types: Server<GetParameterTypesRequest, GetParameterTypesResponse>,
    set: Server<SetParametersRequest, SetParametersResponse>,
    set_atomically: Server<SetParametersRequest, SetParametersAtomicallyResponse>,
    list: Server<ListParametersRequest, ListParametersResponse>,
    describe: Server<DescribeParametersRequest, DescribeParametersResponse>,
}

/// A value as ROS 2 carries it.
fn to_raw(value: &Value) -> raw::ParameterValue {
    let mut v = raw::ParameterValue {
        ptype: value.ros_type(),
        boolean_value: false,
        int_value: 0,
        double_value: 0.0,
        string_value: String::new(),
        byte_array: Vec::new(),
        bool_array: Vec::new(),
        int_array: Vec::new(),
        double_array: Vec::new(),
        string_array: Vec::new(),
    };
    match value {
        Value::Bool(b) => v.boolean_value = *b,
        Value::Integer(i) => v.int_value = *i,
        Value::Double(d) => v.double_value = *d,
        Value::Text(s) => v.string_value = s.clone(),
    }
    v
}

/// A value ROS 2 sent, if it is of a type parameters here can hold.
fn from_raw(value: &raw::ParameterValue) -> Result<Value, String> {
    match value.ptype {
        raw::ParameterType::BOOL => Ok(Value::Bool(value.boolean_value)),
        raw::ParameterType::INTEGER => Ok(Value::Integer(value.int_value)),
        raw::ParameterType::DOUBLE => Ok(Value::Double(value.double_value)),
        raw::ParameterType::STRING => Ok(Value::Text(value.string_value.clone())),
        raw::ParameterType::NOT_SET => Err("parameters here cannot be deleted".into()),
        other => Err(format!(
            "parameter type {other} (an array) is not used here"
        )),
    }
}

fn not_set() -> raw::ParameterValue {
    let mut v = to_raw(&Value::Bool(false));
    v.ptype = raw::ParameterType::NOT_SET;
    v
}

fn describe(p: &Parameter) -> raw::ParameterDescriptor {
    raw::ParameterDescriptor {
        name: p.name.to_owned(),
        r#type: p.value.ros_type(),
        description: p.description.to_owned(),
        additional_constraints: String::new(),
        read_only: p.read_only,
        dynamic_typing: false,
        floating_point_range: (p.range.iter())
            .map(|&(from_value, to_value)| raw::FloatingPointRange {
                from_value,
                to_value,
                step: 0.0,
            })
            .collect(),
        integer_range: Vec::new(),
    }
}

/// How a set went, as ROS 2 answers it.
fn outcome(result: Result<(), String>) -> raw::SetParametersResult {
    raw::SetParametersResult {
        successful: result.is_ok(),
        reason: result.err().unwrap_or_default(),
    }
}

/// `rclcpp`'s listing rule: with no prefixes, names with fewer than `depth` dots (0: any);
/// otherwise names equal to a prefix or under `prefix.` within `depth` more levels.
fn list(all: &[Parameter], prefixes: &[String], depth: u64) -> ListParametersResult {
    let within = |rest: &str| depth == 0 || (rest.matches('.').count() as u64) < depth;
    let mut result = ListParametersResult {
        names: Vec::new(),
        prefixes: Vec::new(),
    };
    for p in all {
        let listed = if prefixes.is_empty() {
            within(p.name)
        } else {
            prefixes.iter().any(|prefix| {
                p.name == prefix
                    || (p.name.strip_prefix(prefix.as_str()))
                        .and_then(|rest| rest.strip_prefix('.'))
                        .is_some_and(within)
            })
        };
        if listed {
            result.names.push(p.name.to_owned());
            if let Some((namespace, _)) = p.name.rsplit_once('.')
                && !result.prefixes.iter().any(|n| n == namespace)
            {
                result.prefixes.push(namespace.to_owned());
            }
        }
    }
    result
}

impl ParameterServices {
    /// Creates the services of `node` (before it announces itself).
    pub(crate) fn start(
        node: &mut Node,
        style: ServiceStyle,
        params: Arc<Parameters>,
    ) -> Result<ParameterServices, String> {
        // ROS 2's default service QoS: reliable, volatile, the last 10.
        let qos = QosProfile::publisher_default()
            .reliability_reliable(WhenFull::Wait(Duration::from_millis(100)))
            .history(History::KeepLast { depth: 10 });
        let node_name = node.fully_qualified_name();
        let mapping = style.mapping();
        macro_rules! server {
            ($name:literal, $ty:literal) => {
                node.create_server(
                    mapping,
                    &Name::new(&node_name, $name).map_err(|e| format!("{e:?}"))?,
                    &ServiceTypeName::new("rcl_interfaces", $ty),
                    qos.clone(),
                    qos.clone(),
                )
                .map_err(|e| format!("service {node_name}/{}: {e:?}", $name))?
            };
        }
        let get = server!("get_parameters", "GetParameters");
        let types = server!("get_parameter_types", "GetParameterTypes");
        let set = server!("set_parameters", "SetParameters");
        let set_atomically = server!("set_parameters_atomically", "SetParametersAtomically");
        let list = server!("list_parameters", "ListParameters");
        let describe = server!("describe_parameters", "DescribeParameters");
        // rclcpp's parameter events QoS: reliable, the last 1000.
        let events_qos = qos.clone().history(History::KeepLast { depth: 1000 });
        let topic = node
            .create_topic(
                &Name::new("/", "parameter_events").map_err(|e| format!("{e:?}"))?,
                MessageTypeName::new("rcl_interfaces", "ParameterEvent"),
                &events_qos,
            )
            .map_err(|e| format!("/parameter_events: {e:?}"))?;
        let events: Publisher<raw::ParameterEvent> = node
            .create_publisher(&topic, None)
            .map_err(|e| format!("/parameter_events: {e:?}"))?;
        // Every change, from here or from Foxglove, on `/parameter_events`.
        params.watch(Box::new(move |p| {
            let event = raw::ParameterEvent {
                // The node's own clock is the wall clock (`use_sim_time` is false).
                stamp: ros2_client::builtin_interfaces::Time::now(),
                node: node_name.clone(),
                new_parameters: Vec::new(),
                changed_parameters: vec![raw::Parameter {
                    name: p.name.to_owned(),
                    value: to_raw(&p.value),
                }],
                deleted_parameters: Vec::new(),
            };
            if let Err(e) = events.publish(event) {
                tracing::debug!("/parameter_events: {e:?}");
            }
        }));
        Ok(ParameterServices {
            params,
            get,
            types,
            set,
            set_atomically,
            list,
            describe,
        })
    }

    /// Answers every request waiting; whether there was any.
    pub(crate) fn answer(&self) -> bool {
        let mut answered = false;
        let all = || self.params.all();
        let find = |all: &[Parameter], name: &str| all.iter().find(|p| p.name == name).cloned();
        while let Ok(Some((id, request))) = self.get.receive_request() {
            let all = all();
            let values = (request.names.iter())
                .map(|n| find(&all, n).map_or_else(not_set, |p| to_raw(&p.value)))
                .collect();
            self.reply(self.get.send_response(id, GetParametersResponse { values }));
            answered = true;
        }
        while let Ok(Some((id, request))) = self.types.receive_request() {
            let all = all();
            let values = (request.names.iter())
                .map(|n| find(&all, n).map_or(raw::ParameterType::NOT_SET, |p| p.value.ros_type()))
                .collect();
            self.reply(
                self.types
                    .send_response(id, GetParameterTypesResponse { values }),
            );
            answered = true;
        }
        while let Ok(Some((id, request))) = self.list.receive_request() {
            let result = list(&all(), &request.prefixes, request.depth);
            self.reply(
                self.list
                    .send_response(id, ListParametersResponse { result }),
            );
            answered = true;
        }
        while let Ok(Some((id, request))) = self.describe.receive_request() {
            let all = all();
            let values = (request.names.iter())
                .map(|n| match find(&all, n) {
                    Some(p) => describe(&p),
                    None => raw::ParameterDescriptor {
                        name: n.clone(),
                        r#type: raw::ParameterType::NOT_SET,
                        description: String::new(),
                        additional_constraints: String::new(),
                        read_only: false,
                        dynamic_typing: false,
                        floating_point_range: Vec::new(),
                        integer_range: Vec::new(),
                    },
                })
                .collect();
            let response = DescribeParametersResponse { values };
            self.reply(self.describe.send_response(id, response));
            answered = true;
        }
        while let Ok(Some((id, request))) = self.set.receive_request() {
            let results = (request.parameter.iter())
                .map(|p| outcome(self.set_one(p)))
                .collect();
            self.reply(
                self.set
                    .send_response(id, SetParametersResponse { results }),
            );
            answered = true;
        }
        while let Ok(Some((id, request))) = self.set_atomically.receive_request() {
            // Only one parameter can change, so all-or-nothing is: every other one refused.
            let result = match request.parameter.as_slice() {
                [one] => self.set_one(one),
                [] => Ok(()),
                _ => Err("at most one parameter here can change at a time".into()),
            };
            let result = outcome(result);
            let response = SetParametersAtomicallyResponse { result };
            self.reply(self.set_atomically.send_response(id, response));
            answered = true;
        }
        answered
    }

    fn reply<E: std::fmt::Debug>(&self, sent: Result<(), E>) {
        if let Err(e) = sent {
            tracing::debug!("ROS 2 parameter service reply: {e:?}");
        }
    }

    /// Sets one parameter (announced by the watcher set up at start).
    fn set_one(&self, p: &raw::Parameter) -> Result<(), String> {
        self.params.set(&p.name, from_raw(&p.value)?).map(drop)
    }
}
