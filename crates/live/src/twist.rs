//! Velocity commands as clients send them: `geometry_msgs/msg/Twist` in CDR (what ROS 2 nodes
//! and Foxglove's teleop panel publish to a ROS 2 server) or in JSON, on `/<vehicle>/cmd_vel`.

/// The vehicle a `/<vehicle>/cmd_vel` topic drives, if the topic is one.
pub fn twist_topic_vehicle(topic: &str) -> Option<&str> {
    let vehicle = topic.strip_prefix('/')?.strip_suffix("/cmd_vel")?;
    (!vehicle.is_empty() && !vehicle.contains('/')).then_some(vehicle)
}

/// A CDR message's body (after its 4-byte encapsulation header) and whether it is
/// little-endian (kinds 0x0001 and 0x0003; 0x0000 and 0x0002 are big-endian).
pub(crate) fn cdr_body(payload: &[u8]) -> Result<(&[u8], bool), String> {
    let (header, body) = payload
        .split_at_checked(4)
        .ok_or("a CDR message is at least 4 bytes")?;
    let little = match header[..2] {
        [0, 0] | [0, 2] => false,
        [0, 1] | [0, 3] => true,
        _ => return Err(format!("unknown CDR encapsulation {:02x?}", &header[..2])),
    };
    Ok((body, little))
}

/// A Twist message's `[linear.x, linear.y, angular.z]` (what a planar vehicle follows), from
/// `cdr` (a 4-byte encapsulation header, then six float64 of either byte order) or `json`
/// (`{"linear": {"x": …}, "angular": {"z": …}}`; missing fields are 0).
pub fn decode_twist(encoding: &str, payload: &[u8]) -> Result<[f64; 3], String> {
    let twist = match encoding {
        "cdr" => {
            let (body, little) = cdr_body(payload)?;
            if body.len() < 48 {
                return Err(format!(
                    "a Twist is 48 bytes after its header; this one has {}",
                    body.len()
                ));
            }
            let field = |i: usize| {
                let mut b = [0u8; 8];
                b.copy_from_slice(&body[i * 8..i * 8 + 8]);
                if little {
                    f64::from_le_bytes(b)
                } else {
                    f64::from_be_bytes(b)
                }
            };
            [field(0), field(1), field(5)]
        }
        "json" => {
            let v: serde_json::Value =
                serde_json::from_slice(payload).map_err(|e| format!("not JSON: {e}"))?;
            let get = |part: &str, axis: &str| -> Result<f64, String> {
                match v.get(part).and_then(|p| p.get(axis)) {
                    None => Ok(0.0),
                    Some(x) => x
                        .as_f64()
                        .ok_or_else(|| format!("`{part}.{axis}` is not a number")),
                }
            };
            [
                get("linear", "x")?,
                get("linear", "y")?,
                get("angular", "z")?,
            ]
        }
        other => return Err(format!("encoding `{other}` (expected `cdr` or `json`)")),
    };
    if twist.iter().any(|x| !x.is_finite()) {
        return Err(format!("a velocity must be finite, not {twist:?}"));
    }
    Ok(twist)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cdr(little: bool, values: [f64; 6]) -> Vec<u8> {
        let mut out = vec![0, u8::from(little), 0, 0];
        for v in values {
            out.extend(if little {
                v.to_le_bytes()
            } else {
                v.to_be_bytes()
            });
        }
        out
    }

    #[test]
    fn twists_decode_from_cdr_of_both_byte_orders_and_from_json() {
        let v = [0.5, -0.25, 9.0, 1.0, 2.0, 0.75];
        assert_eq!(decode_twist("cdr", &cdr(true, v)), Ok([0.5, -0.25, 0.75]));
        assert_eq!(decode_twist("cdr", &cdr(false, v)), Ok([0.5, -0.25, 0.75]));
        let json = br#"{"linear":{"x":1.5},"angular":{"z":-0.5}}"#;
        assert_eq!(decode_twist("json", json), Ok([1.5, 0.0, -0.5]));
    }

    #[test]
    fn malformed_twists_are_errors_not_panics() {
        assert!(decode_twist("cdr", &[0, 1]).is_err());
        assert!(decode_twist("cdr", &[0, 1, 0, 0, 1, 2, 3]).is_err());
        assert!(decode_twist("cdr", &cdr(true, [f64::NAN, 0.0, 0.0, 0.0, 0.0, 0.0])).is_err());
        assert!(decode_twist("json", b"{\"linear\":{\"x\":\"fast\"}}").is_err());
        assert!(decode_twist("protobuf", b"").is_err());
    }

    #[test]
    fn only_cmd_vel_topics_name_a_vehicle() {
        assert_eq!(twist_topic_vehicle("/r1/cmd_vel"), Some("r1"));
        assert_eq!(twist_topic_vehicle("/cmd_vel"), None);
        assert_eq!(twist_topic_vehicle("/a/b/cmd_vel"), None);
        assert_eq!(twist_topic_vehicle("/r1/odom"), None);
    }
}
