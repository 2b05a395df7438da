//! `gnss`: WGS84 latitude, longitude and ellipsoidal height of the antenna, from the world's
//! `<georeference>`.
//!
//! The antenna's world position is rotated into ENU by `world_to_enu_rotation`, noise added
//! (`horizontal_std_noise` on east and north, `vertical_std_noise` on up), then taken exactly
//! from the local ENU frame at the reference to ECEF and to geodetic coordinates (Bowring's
//! iteration run to convergence, well under a millimetre). No fix inside a `property_region`
//! whose `gps_no_coverage` is true; nothing at all without a `<georeference>`.
//! `world_is_utm` (world coordinates given as UTM) is not supported yet: the world is then taken
//! as ENU about the reference, with a notice.

use crate::noise::SensorRng;
use glam::DVec3;
use passerby_sim::schedule::SensorRef;
use passerby_world::{Georeference, GnssParams, PropertyValue, World, WorldElement};

/// WGS84 semi-major axis, metres.
pub const WGS84_A: f64 = 6_378_137.0;
/// WGS84 flattening.
pub const WGS84_F: f64 = 1.0 / 298.257_223_563;

/// One fix.
#[derive(Clone, Debug, PartialEq)]
pub struct GnssFix {
    /// The sensor.
    pub sensor: SensorRef,
    /// Simulated seconds.
    pub stamp: f64,
    /// Degrees, WGS84.
    pub latitude_deg: f64,
    /// Degrees, WGS84.
    pub longitude_deg: f64,
    /// Metres above the ellipsoid.
    pub altitude: f64,
    /// Variances of east, north, up, m².
    pub position_variance: [f64; 3],
}

/// Geodetic (degrees, metres) to ECEF.
pub fn geodetic_to_ecef(lat_deg: f64, lon_deg: f64, h: f64) -> DVec3 {
    let e2 = WGS84_F * (2.0 - WGS84_F);
    let (phi, lambda) = (lat_deg.to_radians(), lon_deg.to_radians());
    let n = WGS84_A / (1.0 - e2 * phi.sin().powi(2)).sqrt();
    DVec3::new(
        (n + h) * phi.cos() * lambda.cos(),
        (n + h) * phi.cos() * lambda.sin(),
        (n * (1.0 - e2) + h) * phi.sin(),
    )
}

/// ECEF to geodetic (degrees, degrees, metres).
pub fn ecef_to_geodetic(p: DVec3) -> (f64, f64, f64) {
    let e2 = WGS84_F * (2.0 - WGS84_F);
    let lambda = p.y.atan2(p.x);
    let r = p.x.hypot(p.y);
    let mut phi = p.z.atan2(r * (1.0 - e2));
    let mut h = 0.0;
    for _ in 0..20 {
        let n = WGS84_A / (1.0 - e2 * phi.sin().powi(2)).sqrt();
        h = if phi.cos().abs() > 1e-9 {
            r / phi.cos() - n
        } else {
            p.z.abs() - n * (1.0 - e2)
        };
        let next = p.z.atan2(r * (1.0 - e2 * n / (n + h)));
        if (next - phi).abs() < 1e-15 {
            phi = next;
            break;
        }
        phi = next;
    }
    (phi.to_degrees(), lambda.to_degrees(), h)
}

/// ENU offset (metres) about a reference to geodetic coordinates.
pub fn enu_to_geodetic(reference: &Georeference, enu: DVec3) -> (f64, f64, f64) {
    let (phi, lambda) = (
        reference.latitude_deg.to_radians(),
        reference.longitude_deg.to_radians(),
    );
    let (sp, cp, sl, cl) = (phi.sin(), phi.cos(), lambda.sin(), lambda.cos());
    // Columns: east, north, up in ECEF.
    let east = DVec3::new(-sl, cl, 0.0);
    let north = DVec3::new(-sp * cl, -sp * sl, cp);
    let up = DVec3::new(cp * cl, cp * sl, sp);
    let origin = geodetic_to_ecef(
        reference.latitude_deg,
        reference.longitude_deg,
        reference.height,
    );
    ecef_to_geodetic(origin + east * enu.x + north * enu.y + up * enu.z)
}

/// A GNSS receiver.
#[derive(Clone, Debug)]
pub struct Gnss {
    sensor: SensorRef,
    params: GnssParams,
    reference: Option<Georeference>,
    /// `gps_no_coverage` boxes: x, y, z ranges.
    no_coverage: Vec<[f64; 6]>,
    rng: SensorRng,
}

impl Gnss {
    /// A receiver in `world`.
    pub fn new(sensor: SensorRef, params: &GnssParams, world: &World, rng: SensorRng) -> Gnss {
        let no_coverage = world
            .elements
            .iter()
            .filter_map(|e| match &e.element {
                WorldElement::PropertyRegion(r)
                    if r.property_name == "gps_no_coverage"
                        && r.value == PropertyValue::Bool(true) =>
                {
                    Some(r.bounds)
                }
                _ => None,
            })
            .collect();
        Gnss {
            sensor,
            params: params.clone(),
            reference: world.georeference.clone(),
            no_coverage,
            rng,
        }
    }

    /// Whether the world gives it a reference.
    pub fn has_reference(&self) -> bool {
        self.reference.is_some()
    }

    /// A fix with the antenna at `position` (world frame), or `None` without coverage.
    pub fn fix(&mut self, position: DVec3, stamp: f64) -> Option<GnssFix> {
        let reference = self.reference.as_ref()?;
        let p = position;
        if self.no_coverage.iter().any(|b| {
            (b[0]..=b[1]).contains(&p.x)
                && (b[2]..=b[3]).contains(&p.y)
                && (b[4]..=b[5]).contains(&p.z)
        }) {
            return None;
        }
        let (s, c) = reference.world_to_enu_rotation.sin_cos();
        let (sh, sv) = (
            self.params.horizontal_std_noise,
            self.params.vertical_std_noise,
        );
        let enu = DVec3::new(
            c * p.x - s * p.y + self.rng.gaussian(sh),
            s * p.x + c * p.y + self.rng.gaussian(sh),
            p.z + self.rng.gaussian(sv),
        );
        let (latitude_deg, longitude_deg, altitude) = enu_to_geodetic(reference, enu);
        Some(GnssFix {
            sensor: self.sensor.clone(),
            stamp,
            latitude_deg,
            longitude_deg,
            altitude,
            position_variance: [sh * sh, sh * sh, sv * sv],
        })
    }
}
