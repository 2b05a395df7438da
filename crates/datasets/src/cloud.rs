//! `sensor_msgs/PointCloud2` as the exports need it: the fields found by name and type (not by
//! our layout), each point's values read from its record.

use crate::cdr::{Cdr, CdrError};

/// A decoded cloud, its points still in the message's bytes.
pub struct Cloud<'a> {
    /// Header stamp, nanoseconds.
    pub stamp: u64,
    /// Header frame.
    pub frame: &'a str,
    /// Points (width x height).
    pub count: usize,
    point_step: usize,
    data: &'a [u8],
    fields: Vec<(&'a str, usize, u8)>,
}

/// PointField datatypes.
pub const UINT16: u8 = 4;
/// `uint32`.
pub const UINT32: u8 = 6;
/// `float32`.
pub const FLOAT32: u8 = 7;

impl<'a> Cloud<'a> {
    /// Decodes the message `data`.
    pub fn decode(data: &'a [u8]) -> Result<Cloud<'a>, String> {
        let e = |e: CdrError| e.to_string();
        let mut cdr = Cdr::new(data).map_err(e)?;
        let (stamp, frame) = cdr.header().map_err(e)?;
        let height = cdr.u32().map_err(e)? as usize;
        let width = cdr.u32().map_err(e)? as usize;
        let n = cdr.count(13).map_err(e)?;
        let mut fields = Vec::with_capacity(n);
        for _ in 0..n {
            let name = cdr.string().map_err(e)?;
            let offset = cdr.u32().map_err(e)? as usize;
            let datatype = cdr.u8().map_err(e)?;
            let _count = cdr.u32().map_err(e)?;
            fields.push((name, offset, datatype));
        }
        if cdr.u8().map_err(e)? != 0 {
            return Err("big-endian points are not read".into());
        }
        let point_step = cdr.u32().map_err(e)? as usize;
        let _row_step = cdr.u32().map_err(e)?;
        let data = cdr.byte_sequence().map_err(e)?;
        let count = width
            .checked_mul(height)
            .ok_or("width x height overflows")?;
        if count
            .checked_mul(point_step)
            .is_none_or(|bytes| bytes > data.len())
        {
            return Err(format!(
                "{count} points of {point_step} bytes but {} bytes of data",
                data.len()
            ));
        }
        for &(name, offset, datatype) in &fields {
            let size = match datatype {
                1 | 2 => 1,
                3 | 4 => 2,
                5..=7 => 4,
                _ => 8,
            };
            if offset + size > point_step {
                return Err(format!(
                    "field `{name}` runs past the point's {point_step} bytes"
                ));
            }
        }
        Ok(Cloud {
            stamp,
            frame,
            count,
            point_step,
            data,
            fields,
        })
    }

    /// The offset of field `name` of type `datatype`, if the cloud has it.
    pub fn field(&self, name: &str, datatype: u8) -> Option<usize> {
        (self.fields.iter())
            .find(|(n, _, t)| *n == name && *t == datatype)
            .map(|&(_, offset, _)| offset)
    }

    /// Whether the cloud has field `name` (any type).
    pub fn has_field(&self, name: &str) -> bool {
        self.fields.iter().any(|(n, _, _)| *n == name)
    }

    /// The bytes of point `i`.
    pub fn point(&self, i: usize) -> &'a [u8] {
        &self.data[i * self.point_step..(i + 1) * self.point_step]
    }
}

/// The 4 bytes at `offset` of `point`.
pub fn word(point: &[u8], offset: usize) -> [u8; 4] {
    [
        point[offset],
        point[offset + 1],
        point[offset + 2],
        point[offset + 3],
    ]
}

/// The `uint16` at `offset`.
pub fn half(point: &[u8], offset: usize) -> u16 {
    u16::from_le_bytes([point[offset], point[offset + 1]])
}
