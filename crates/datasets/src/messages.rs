//! The few message types the KITTI export reads besides clouds and transforms, decoded from
//! CDR field by field as their definitions (embedded in the recording) lay them out:
//! `sensor_msgs/Image`, `sensor_msgs/CameraInfo`, `vision_msgs/Detection2DArray` and
//! `vision_msgs/Detection3DArray`.

use crate::cdr::{Cdr, CdrError};
use glam::{DQuat, DVec3};

/// `sensor_msgs/Image`, its pixels borrowed.
pub struct Image<'a> {
    /// Header stamp, ns.
    pub stamp: u64,
    /// Header frame.
    pub frame: &'a str,
    /// Rows.
    pub height: u32,
    /// Columns.
    pub width: u32,
    /// `rgb8`, `16UC1`, ...
    pub encoding: &'a str,
    /// Bytes per row.
    pub step: u32,
    /// Pixels.
    pub data: &'a [u8],
}

impl<'a> Image<'a> {
    /// Decodes `data`.
    pub fn decode(data: &'a [u8]) -> Result<Image<'a>, CdrError> {
        let mut c = Cdr::new(data)?;
        let (stamp, frame) = c.header()?;
        let (height, width) = (c.u32()?, c.u32()?);
        let encoding = c.string()?;
        let _big_endian = c.u8()?;
        let step = c.u32()?;
        let data = c.byte_sequence()?;
        Ok(Image {
            stamp,
            frame,
            height,
            width,
            encoding,
            step,
            data,
        })
    }
}

/// The projection matrix `P` (3 x 4, row-major) and size of a `sensor_msgs/CameraInfo`.
pub struct CameraInfo {
    /// Rows.
    pub height: u32,
    /// Columns.
    pub width: u32,
    /// `P`.
    pub p: [f64; 12],
}

impl CameraInfo {
    /// Decodes `data`.
    pub fn decode(data: &[u8]) -> Result<CameraInfo, CdrError> {
        let mut c = Cdr::new(data)?;
        c.header()?;
        let (height, width) = (c.u32()?, c.u32()?);
        c.string()?;
        let n = c.count(8)?;
        for _ in 0..n {
            c.f64()?;
        }
        for _ in 0..18 {
            c.f64()?; // K, R
        }
        let mut p = [0.0; 12];
        for v in &mut p {
            *v = c.f64()?;
        }
        Ok(CameraInfo { height, width, p })
    }
}

/// One `Detection2D`: an actor in view.
#[derive(Clone, Debug, PartialEq)]
pub struct Box2d {
    /// Its id (our instance id, as text).
    pub id: String,
    /// Its first hypothesis's class.
    pub class: String,
    /// That hypothesis's score (our visible fraction).
    pub score: f64,
    /// Left, top, right, bottom, pixels.
    pub rect: [f64; 4],
}

/// One `Detection3D`: an actor's box.
#[derive(Clone, Debug, PartialEq)]
pub struct Box3d {
    /// Its id (our instance id, as text).
    pub id: String,
    /// Its first hypothesis's class.
    pub class: String,
    /// The box's centre.
    pub centre: DVec3,
    /// Its orientation.
    pub rotation: DQuat,
    /// Its size along its own x, y and z.
    pub size: DVec3,
}

fn hypotheses(c: &mut Cdr<'_>) -> Result<(String, f64), CdrError> {
    let n = c.count(8)?;
    let mut first = (String::new(), 0.0);
    for k in 0..n {
        let class = c.string()?;
        let score = c.f64()?;
        for _ in 0..(7 + 36) {
            c.f64()?;
        }
        if k == 0 {
            first = (class.to_owned(), score);
        }
    }
    Ok(first)
}

/// The detections of a `vision_msgs/Detection2DArray`.
pub fn boxes_2d(data: &[u8]) -> Result<(u64, Vec<Box2d>), CdrError> {
    let mut c = Cdr::new(data)?;
    let (stamp, _) = c.header()?;
    let n = c.count(48)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        c.header()?;
        let (class, score) = hypotheses(&mut c)?;
        let (x, y, _theta) = (c.f64()?, c.f64()?, c.f64()?);
        let (w, h) = (c.f64()?, c.f64()?);
        let id = c.string()?.to_owned();
        out.push(Box2d {
            id,
            class,
            score,
            rect: [x - w / 2.0, y - h / 2.0, x + w / 2.0, y + h / 2.0],
        });
    }
    Ok((stamp, out))
}

/// The detections of a `vision_msgs/Detection3DArray`, in its header's frame.
pub fn boxes_3d(data: &[u8]) -> Result<(u64, String, Vec<Box3d>), CdrError> {
    let mut c = Cdr::new(data)?;
    let (stamp, frame) = c.header()?;
    let n = c.count(96)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        c.header()?;
        let (class, _) = hypotheses(&mut c)?;
        let centre = DVec3::new(c.f64()?, c.f64()?, c.f64()?);
        let (x, y, z, w) = (c.f64()?, c.f64()?, c.f64()?, c.f64()?);
        let size = DVec3::new(c.f64()?, c.f64()?, c.f64()?);
        let id = c.string()?.to_owned();
        out.push(Box3d {
            id,
            class,
            centre,
            rotation: DQuat::from_xyzw(x, y, z, w).normalize(),
            size,
        });
    }
    Ok((stamp, frame.to_owned(), out))
}
