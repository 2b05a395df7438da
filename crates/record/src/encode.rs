//! Observations as ROS 2 messages.
//!
//! Lidar points are `sensor_msgs/PointCloud2` with the fields x, y, z, intensity (float32),
//! ring (uint16), time (float32, seconds after the header stamp), instance (uint32) and label
//! (uint16), little endian, 28 bytes a point, unorganised (height 1) since only valid returns
//! are kept.

use crate::cdr::Cdr;
use crate::ros::header;
use passerby_sensors::gnss::GnssFix;
use passerby_sensors::imu::ImuSample;
use passerby_sensors::laser::LaserScan;
use passerby_sensors::lidar::{LidarPoint, PointCloud};

/// PointCloud2 field datatypes.
pub(crate) const UINT16: u8 = 4;
pub(crate) const UINT32: u8 = 6;
pub(crate) const FLOAT32: u8 = 7;

/// Point fields: (name, offset, datatype), in the order listed by the recording's contract.
pub const POINT_FIELDS: [(&str, u32, u8); 8] = [
    ("x", 0, FLOAT32),
    ("y", 4, FLOAT32),
    ("z", 8, FLOAT32),
    ("intensity", 12, FLOAT32),
    ("ring", 16, UINT16),
    ("time", 20, FLOAT32),
    ("instance", 24, UINT32),
    ("label", 18, UINT16),
];

/// Bytes per point.
pub const POINT_STEP: u32 = 28;

/// A lidar sweep as `PointCloud2` in `frame`.
pub fn point_cloud(cloud: &PointCloud, nanos: u64, frame: &str) -> Vec<u8> {
    let points = &cloud.points;
    point_cloud2(
        nanos,
        frame,
        &POINT_FIELDS,
        POINT_STEP,
        points.len(),
        |k, r| point_record(&points[k], r),
    )
}

/// One lidar point as the recording lays it out ([`POINT_FIELDS`], [`POINT_STEP`] bytes).
pub fn point_record(p: &LidarPoint, r: &mut [u8]) {
    r[0..4].copy_from_slice(&p.position[0].to_le_bytes());
    r[4..8].copy_from_slice(&p.position[1].to_le_bytes());
    r[8..12].copy_from_slice(&p.position[2].to_le_bytes());
    r[12..16].copy_from_slice(&p.intensity.to_le_bytes());
    r[16..18].copy_from_slice(&p.ring.to_le_bytes());
    r[18..20].copy_from_slice(&p.label.to_le_bytes());
    r[20..24].copy_from_slice(&p.time.to_le_bytes());
    r[24..28].copy_from_slice(&p.instance.to_le_bytes());
}

/// An unorganised (height 1) little-endian `PointCloud2` of `count` points of `step` bytes
/// with `fields` (name, offset, datatype); `fill` writes point `k` into its zeroed bytes.
pub(crate) fn point_cloud2(
    nanos: u64,
    frame: &str,
    fields: &[(&str, u32, u8)],
    step: u32,
    count: usize,
    fill: impl FnMut(usize, &mut [u8]),
) -> Vec<u8> {
    let mut c = Cdr::with_capacity(256 + count * step as usize);
    header(&mut c, nanos, frame);
    c.u32(1).u32(count as u32);
    c.len(fields.len());
    for (name, offset, datatype) in fields {
        c.string(name).u32(*offset).u8(*datatype).u32(1);
    }
    c.bool(false).u32(step).u32(step * count as u32);
    c.records(count, step as usize, fill);
    c.bool(true);
    c.finish()
}

/// A 2D scan as `LaserScan` (no return: +inf).
pub fn laser_scan(scan: &LaserScan, nanos: u64, frame: &str, period: f64) -> Vec<u8> {
    let mut c = Cdr::new();
    header(&mut c, nanos, frame);
    c.f32(scan.angle_min)
        .f32(scan.angle_max)
        .f32(scan.angle_increment)
        .f32(0.0)
        .f32(period as f32)
        .f32(0.0)
        .f32(scan.range_max);
    c.f32_seq(&scan.ranges);
    c.f32_seq(&scan.intensities);
    c.finish()
}

fn diagonal(v: f64) -> [f64; 9] {
    [v, 0.0, 0.0, 0.0, v, 0.0, 0.0, 0.0, v]
}

/// An IMU sample as `Imu` (orientation covariance -1 when not measured, as REP 145 asks).
pub fn imu(s: &ImuSample, nanos: u64, frame: &str) -> Vec<u8> {
    let mut c = Cdr::new();
    header(&mut c, nanos, frame);
    let (q, cov) = match s.orientation {
        Some(q) => (q, diagonal(s.orientation_variance)),
        None => {
            let mut cov = [0.0; 9];
            cov[0] = -1.0;
            ([0.0, 0.0, 0.0, 1.0], cov)
        }
    };
    for v in q {
        c.f64(v);
    }
    c.f64_array(&cov);
    for v in s.angular_velocity {
        c.f64(v);
    }
    c.f64_array(&diagonal(s.angular_velocity_variance));
    for v in s.linear_acceleration {
        c.f64(v);
    }
    c.f64_array(&diagonal(s.linear_acceleration_variance));
    c.finish()
}

/// A fix as `NavSatFix` (status FIX, service GPS, diagonal known covariance in ENU).
pub fn nav_sat_fix(f: &GnssFix, nanos: u64, frame: &str) -> Vec<u8> {
    let mut c = Cdr::new();
    header(&mut c, nanos, frame);
    c.i8(0).u16(1);
    c.f64(f.latitude_deg).f64(f.longitude_deg).f64(f.altitude);
    let [e, n, u] = f.position_variance;
    c.f64_array(&[e, 0.0, 0.0, 0.0, n, 0.0, 0.0, 0.0, u]);
    c.u8(2);
    c.finish()
}

/// Exact odometry of a vehicle: pose in `odom` (= the world), body-frame twist.
pub fn odometry(
    nanos: u64,
    frame: &str,
    child: &str,
    position: [f64; 3],
    rotation: [f64; 4],
    twist: [f64; 6],
) -> Vec<u8> {
    let mut c = Cdr::new();
    header(&mut c, nanos, frame);
    c.string(child);
    for v in position {
        c.f64(v);
    }
    for v in rotation {
        c.f64(v);
    }
    c.f64_array(&[0.0; 36]);
    for v in twist {
        c.f64(v);
    }
    c.f64_array(&[0.0; 36]);
    c.finish()
}
