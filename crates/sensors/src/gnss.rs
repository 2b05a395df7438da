//! `gnss`: WGS84 latitude, longitude and ellipsoidal height of the antenna, from the world's
//! `<georeference>`.
//!
//! The antenna's world position is rotated into ENU by `world_to_enu_rotation`, noise added
//! (`horizontal_std_noise` on east and north, `vertical_std_noise` on up), then taken exactly
//! from the local ENU frame at the reference to ECEF and to geodetic coordinates (Bowring's
//! iteration run to convergence, well under a millimetre). No fix inside a `property_region`
//! whose `gps_no_coverage` is true; nothing at all without a `<georeference>`.
//! With `world_is_utm` the world's coordinates are UTM (easting, northing, height in the zone of
//! the reference): as MVSim does, the antenna's position is first reduced by the reference's UTM
//! coordinates (its easting, northing and height) and the result taken as ENU about it (grid
//! convergence and scale factor ignored). `gps_no_coverage` regions are looked up at the world
//! position (MVSim looks them up at the reduced one, which no region of a UTM world contains).

use crate::Observation;
use crate::noise::SensorRng;
use crate::unit::{Mount, Pass as UnitPass, Reaching, SensorUnit, StepContext};
use glam::DVec3;
use passerby_world::SensorRef;
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

/// Universal Transverse Mercator coordinates of a WGS84 point: (easting, northing, zone,
/// southern hemisphere). The zone is the standard 6-degree band of the longitude, without
/// Norway's and Svalbard's exceptions (as MRPT's `GeodeticToUTM`); the projection is Krüger's
/// series to third order in n, well under a millimetre within a zone.
pub fn geodetic_to_utm(lat_deg: f64, lon_deg: f64) -> (f64, f64, u8, bool) {
    const K0: f64 = 0.9996;
    let zone = (((lon_deg + 180.0) / 6.0).floor() as i64).clamp(0, 59) as u8 + 1;
    let lambda0 = (f64::from(zone) * 6.0 - 183.0).to_radians();
    let n = WGS84_F / (2.0 - WGS84_F);
    let big_a = WGS84_A / (1.0 + n) * (1.0 + n * n / 4.0 + n.powi(4) / 64.0);
    let alpha = [
        n / 2.0 - 2.0 * n * n / 3.0 + 5.0 * n.powi(3) / 16.0,
        13.0 * n * n / 48.0 - 3.0 * n.powi(3) / 5.0,
        61.0 * n.powi(3) / 240.0,
    ];
    let (phi, dl) = (lat_deg.to_radians(), lon_deg.to_radians() - lambda0);
    let c = 2.0 * n.sqrt() / (1.0 + n);
    let t = (phi.sin().atanh() - c * (c * phi.sin()).atanh()).sinh();
    let xi = t.atan2(dl.cos());
    let eta = (dl.sin() / (1.0 + t * t).sqrt()).atanh();
    let (mut e, mut nn) = (eta, xi);
    for (j, a) in alpha.iter().enumerate() {
        let k = 2.0 * (j + 1) as f64;
        e += a * (k * xi).cos() * (k * eta).sinh();
        nn += a * (k * xi).sin() * (k * eta).cosh();
    }
    let south = lat_deg < 0.0;
    let easting = 500_000.0 + K0 * big_a * e;
    let northing = K0 * big_a * nn + if south { 10_000_000.0 } else { 0.0 };
    (easting, northing, zone, south)
}

/// A GNSS receiver.
#[derive(Clone, Debug)]
pub struct Gnss {
    sensor: SensorRef,
    params: GnssParams,
    reference: Option<Georeference>,
    /// With `world_is_utm`: the reference's easting, northing and height, taken off world
    /// positions.
    utm_origin: Option<DVec3>,
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
        let utm_origin = world
            .georeference
            .as_ref()
            .filter(|g| g.world_is_utm)
            .map(|g| {
                let (e, n, _, _) = geodetic_to_utm(g.latitude_deg, g.longitude_deg);
                DVec3::new(e, n, g.height)
            });
        Gnss {
            sensor,
            params: params.clone(),
            reference: world.georeference.clone(),
            utm_origin,
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
        let p = p - self.utm_origin.unwrap_or(DVec3::ZERO);
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

impl SensorUnit for Gnss {
    fn pass(&self) -> UnitPass {
        UnitPass::Sequential
    }

    fn rank(&self) -> u8 {
        5
    }

    fn reaching(&self) -> Option<Reaching> {
        None
    }

    fn measure(&mut self, cx: &StepContext<'_>, mount: &Mount, due: bool) -> Vec<Observation> {
        if !due {
            return Vec::new();
        }
        let (position, _) = mount.world_pose(cx.sim);
        self.fix(position, cx.now)
            .map(Observation::Gnss)
            .into_iter()
            .collect()
    }
}
