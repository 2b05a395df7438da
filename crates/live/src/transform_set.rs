//! Transform sets as clients send them: `passerby_msgs/msg/TransformSet` in CDR or JSON, on
//! `/passerby/transforms`.

use crate::control::Control;
use passerby_record::ros::MsgType;
use passerby_world::Transform;

/// `passerby_msgs/msg/TransformSet` (`ros/passerby_msgs/msg/TransformSet.msg`).
pub const TRANSFORM_SET: MsgType = MsgType {
    name: "passerby_msgs/msg/TransformSet",
    definition: "string object\nstring part\ngeometry_msgs/Vector3 translation\ngeometry_msgs/Vector3 yaw_pitch_roll\ngeometry_msgs/Vector3 scale\nbool release\n================================================================================\nMSG: geometry_msgs/Vector3\nfloat64 x\nfloat64 y\nfloat64 z\n",
};

/// The topic clients publish transform sets on.
pub const TRANSFORM_TOPIC: &str = "/passerby/transforms";

/// A transform set's fields.
#[derive(Clone, Debug, Default, PartialEq, serde::Deserialize)]
pub(crate) struct TransformSetMsg {
    pub object: String,
    pub part: String,
    pub translation: Vector3,
    pub yaw_pitch_roll: Vector3,
    pub scale: Vector3,
    pub release: bool,
}

/// `geometry_msgs/msg/Vector3`.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Deserialize)]
pub(crate) struct Vector3 {
    pub x: f64,
    pub y: f64,
    pub z: f64,
}

impl TransformSetMsg {
    /// The control it asks for.
    pub(crate) fn control(self) -> Result<Control, String> {
        if self.object.is_empty() {
            return Err("a transform set needs an `object`".into());
        }
        if self.release {
            return Ok(Control::Release {
                object: self.object,
            });
        }
        let v = |v: Vector3| [v.x, v.y, v.z];
        let transform = Transform {
            translation: v(self.translation),
            yaw_pitch_roll: v(self.yaw_pitch_roll),
            scale: v(self.scale),
        };
        let values = (transform.translation.iter())
            .chain(&transform.yaw_pitch_roll)
            .chain(&transform.scale);
        if values.clone().any(|x| !x.is_finite()) {
            return Err("a transform's values must be finite".into());
        }
        Ok(Control::Transform {
            object: self.object,
            part: (!self.part.is_empty()).then_some(self.part),
            transform,
        })
    }
}

/// Little-endian or big-endian CDR, read with alignment relative to the body.
struct CdrReader<'a> {
    body: &'a [u8],
    at: usize,
    little: bool,
}

impl CdrReader<'_> {
    fn align(&mut self, n: usize) {
        self.at = self.at.div_ceil(n) * n;
    }

    fn take<const N: usize>(&mut self) -> Result<[u8; N], String> {
        self.align(N);
        let bytes = (self.body.get(self.at..self.at + N))
            .ok_or_else(|| format!("the message ends at byte {}", self.body.len()))?;
        self.at += N;
        let mut out = [0u8; N];
        out.copy_from_slice(bytes);
        if !self.little {
            out.reverse();
        }
        Ok(out)
    }

    fn string(&mut self) -> Result<String, String> {
        let len = u32::from_le_bytes(self.take::<4>()?) as usize;
        let bytes = (self.body.get(self.at..self.at.saturating_add(len)))
            .ok_or_else(|| format!("a string of {len} bytes runs past the message"))?;
        self.at += len;
        // The length counts a terminating NUL.
        let text = bytes.strip_suffix(&[0]).unwrap_or(bytes);
        String::from_utf8(text.to_vec()).map_err(|_| "a string is not UTF-8".to_owned())
    }

    fn vector3(&mut self) -> Result<Vector3, String> {
        let mut f = || self.take::<8>().map(f64::from_le_bytes);
        Ok(Vector3 {
            x: f()?,
            y: f()?,
            z: f()?,
        })
    }
}

/// A transform set from `cdr` or `json` (`{"object": "r1", "part": "#1", "translation": [x, y,
/// z], "yaw_pitch_roll": [..], "scale": [..], "release": false}`; scale defaults to 1).
pub(crate) fn decode_transform_set(encoding: &str, payload: &[u8]) -> Result<Control, String> {
    let msg = match encoding {
        "cdr" => {
            let (body, little) = crate::twist::cdr_body(payload)?;
            let mut r = CdrReader {
                body,
                at: 0,
                little,
            };
            TransformSetMsg {
                object: r.string()?,
                part: r.string()?,
                translation: r.vector3()?,
                yaw_pitch_roll: r.vector3()?,
                scale: r.vector3()?,
                release: r.take::<1>()?[0] != 0,
            }
        }
        "json" => {
            let v: serde_json::Value =
                serde_json::from_slice(payload).map_err(|e| format!("not JSON: {e}"))?;
            let text = |key: &str| v.get(key).and_then(|s| s.as_str()).unwrap_or("").to_owned();
            let triple = |key: &str, default: f64| -> Result<Vector3, String> {
                match v.get(key) {
                    None => Ok(Vector3 {
                        x: default,
                        y: default,
                        z: default,
                    }),
                    Some(a) => {
                        let xs: Option<Vec<f64>> = (a.as_array())
                            .map(|a| a.iter().map(serde_json::Value::as_f64).collect())
                            .and_then(|x| x);
                        match xs.as_deref() {
                            Some(&[x, y, z]) => Ok(Vector3 { x, y, z }),
                            _ => Err(format!("`{key}` must be three numbers")),
                        }
                    }
                }
            };
            TransformSetMsg {
                object: text("object"),
                part: text("part"),
                translation: triple("translation", 0.0)?,
                yaw_pitch_roll: triple("yaw_pitch_roll", 0.0)?,
                scale: triple("scale", 1.0)?,
                release: v.get("release").and_then(|r| r.as_bool()).unwrap_or(false),
            }
        }
        other => return Err(format!("encoding `{other}` (expected `cdr` or `json`)")),
    };
    msg.control()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A TransformSet in little-endian CDR, written field by field with CDR's alignment.
    fn cdr(object: &str, part: &str, values: [f64; 9], release: bool) -> Vec<u8> {
        let mut body: Vec<u8> = Vec::new();
        for s in [object, part] {
            while !body.len().is_multiple_of(4) {
                body.push(0);
            }
            body.extend((s.len() as u32 + 1).to_le_bytes());
            body.extend(s.as_bytes());
            body.push(0);
        }
        for v in values {
            while !body.len().is_multiple_of(8) {
                body.push(0);
            }
            body.extend(v.to_le_bytes());
        }
        body.push(u8::from(release));
        let mut out = vec![0, 1, 0, 0];
        out.extend(body);
        out
    }

    #[test]
    fn transform_sets_decode_from_cdr_and_json() {
        let values = [1.0, 2.0, 3.0, 0.5, 0.0, 0.0, 1.0, 1.0, 2.0];
        let control = decode_transform_set("cdr", &cdr("r1", "#1", values, false)).unwrap();
        let Control::Transform {
            object,
            part,
            transform,
        } = control
        else {
            panic!("{control:?}");
        };
        assert_eq!((object.as_str(), part.as_deref()), ("r1", Some("#1")));
        assert_eq!(transform.translation, [1.0, 2.0, 3.0]);
        assert_eq!(transform.yaw_pitch_roll, [0.5, 0.0, 0.0]);
        assert_eq!(transform.scale, [1.0, 1.0, 2.0]);
        let json = br#"{"object":"crate","translation":[4,5,0]}"#;
        let Control::Transform {
            part, transform, ..
        } = decode_transform_set("json", json).unwrap()
        else {
            panic!()
        };
        assert_eq!((part, transform.scale), (None, [1.0; 3]));
        let release = decode_transform_set("cdr", &cdr("p1", "", [0.0; 9], true)).unwrap();
        assert!(matches!(release, Control::Release { object } if object == "p1"));
    }

    #[test]
    fn malformed_transform_sets_are_errors_not_panics() {
        let whole = cdr("r1", "", [0.0; 9], false);
        for cut in 0..whole.len() {
            assert!(decode_transform_set("cdr", &whole[..cut]).is_err(), "{cut}");
        }
        let mut huge = whole.clone();
        huge[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(decode_transform_set("cdr", &huge).is_err());
        assert!(decode_transform_set("json", br#"{"object":""}"#).is_err());
        assert!(decode_transform_set("json", br#"{"object":"a","scale":[1,2]}"#).is_err());
    }
}
