//! The served world's [`Parameters`] over Foxglove's parameter protocol (the Parameters
//! panel): every parameter on `getParameters`, `realtime_factor` changed by `setParameters`;
//! a refused change answers with the value still held and a warning saying why. Subscribers
//! hear of every change, whichever protocol made it (`FoxgloveServer::start` watches).
//!
//! Owns: the translation between Foxglove's parameter values and [`Value`]s. Must not touch:
//! the parameters' rules (`parameters.rs`).

use crate::parameters::{Parameters, Value};
use foxglove::websocket::{
    AnyClient, GetParametersResponder, Parameter, ParameterHandler, ParameterType, ParameterValue,
    SetParametersResponder,
};
use std::sync::Arc;

/// The handler the server calls.
pub(crate) struct FoxgloveParameters(pub(crate) Arc<Parameters>);

/// A value as Foxglove carries it (doubles typed, so a whole number stays a double).
pub(crate) fn to_foxglove(name: &str, value: &Value) -> Parameter {
    let (r#type, value) = match value {
        Value::Bool(b) => (None, ParameterValue::Bool(*b)),
        Value::Integer(i) => (None, ParameterValue::Integer(*i)),
        Value::Double(d) => (Some(ParameterType::Float64), ParameterValue::Float64(*d)),
        Value::Text(s) => (None, ParameterValue::String(s.clone())),
    };
    Parameter {
        name: name.to_owned(),
        r#type,
        value: Some(value),
    }
}

fn from_foxglove(value: Option<&ParameterValue>) -> Result<Value, String> {
    match value {
        Some(ParameterValue::Bool(b)) => Ok(Value::Bool(*b)),
        Some(ParameterValue::Integer(i)) => Ok(Value::Integer(*i)),
        Some(ParameterValue::Float64(d)) => Ok(Value::Double(*d)),
        Some(ParameterValue::String(s)) => Ok(Value::Text(s.clone())),
        Some(ParameterValue::Array(_) | ParameterValue::Dict(_)) => {
            Err("arrays and dictionaries are not used here".into())
        }
        None => Err("parameters here cannot be unset".into()),
    }
}

impl FoxgloveParameters {
    /// The named parameters (all of them for none), as Foxglove carries them.
    fn values(&self, names: &[String]) -> Vec<Parameter> {
        (self.0.all().iter())
            .filter(|p| names.is_empty() || names.iter().any(|n| n == p.name))
            .map(|p| to_foxglove(p.name, &p.value))
            .collect()
    }
}

impl ParameterHandler for FoxgloveParameters {
    fn get(
        &self,
        _client: AnyClient,
        names: Vec<String>,
        _request_id: Option<String>,
        responder: GetParametersResponder,
    ) {
        responder.respond(self.values(&names));
    }

    fn set(
        &self,
        client: AnyClient,
        parameters: Vec<Parameter>,
        _request_id: Option<String>,
        responder: SetParametersResponder,
    ) {
        let mut names = Vec::new();
        for p in &parameters {
            let set = from_foxglove(p.value.as_ref()).and_then(|v| self.0.set(&p.name, v));
            if let Err(why) = set {
                client.send_warning(format!("parameter `{}` not set: {why}", p.name));
            }
            names.push(p.name.clone());
        }
        // What is held now, changed or not: the panel shows the truth.
        responder.respond(self.values(&names));
    }
}
