//! The five upstream MAVS scenes whose `Random` polygons are not convex, cross themselves or
//! have no area load, and their objects land where MAVS's sampler puts them: inside by MAVS's
//! own crossing-number test (`Polygon::IsInside` of `mavs_core/math/polygon.cpp`, ported below
//! in `f32` as MAVS computes it), spread by area, or on the point a flat polygon is.
#![allow(clippy::unwrap_used)] // test setup failures should panic

mod common;

use common::{data, messages, options};
use passerby_mavs::{load_scene_file, origin_of};
use serde_json::Value;

/// MAVS's `Polygon::Orientation`, in `f32`.
fn orientation(p: [f32; 2], q: [f32; 2], r: [f32; 2]) -> u8 {
    let val = (q[1] - p[1]) * (r[0] - q[0]) - (q[0] - p[0]) * (r[1] - q[1]);
    if val == 0.0 {
        0
    } else if val > 0.0 {
        1
    } else {
        2
    }
}

/// MAVS's `Polygon::OnSegment`: whether `q` is in the box of `p` and `r`.
fn on_segment(p: [f32; 2], q: [f32; 2], r: [f32; 2]) -> bool {
    q[0] <= p[0].max(r[0])
        && q[0] >= p[0].min(r[0])
        && q[1] <= p[1].max(r[1])
        && q[1] >= p[1].min(r[1])
}

/// MAVS's `Polygon::SegmentIntersect`.
fn segments_intersect(p1: [f32; 2], q1: [f32; 2], p2: [f32; 2], q2: [f32; 2]) -> bool {
    let (o1, o2) = (orientation(p1, q1, p2), orientation(p1, q1, q2));
    let (o3, o4) = (orientation(p2, q2, p1), orientation(p2, q2, q1));
    (o1 != o2 && o3 != o4)
        || (o1 == 0 && on_segment(p1, p2, q1))
        || (o2 == 0 && on_segment(p1, q2, q1))
        || (o3 == 0 && on_segment(p2, p1, q2))
        || (o4 == 0 && on_segment(p2, q1, q2))
}

/// MAVS's `Polygon::IsInside`.
fn mavs_is_inside(polygon: &[[f32; 2]], p: [f32; 2]) -> bool {
    let n = polygon.len();
    if n < 3 {
        return false;
    }
    let extreme = [f32::MAX, p[1]];
    let mut count = 0;
    for i in 0..n {
        let next = (i + 1) % n;
        if segments_intersect(polygon[i], polygon[next], p, extreme) {
            if orientation(polygon[i], p, polygon[next]) == 0 {
                return on_segment(polygon[i], p, polygon[next]);
            }
            count += 1;
        }
    }
    count % 2 == 1
}

/// The file name of an `Objects` entry's mesh.
fn mesh_file_name(entry: &Value) -> String {
    let path = entry["Mesh"].as_str().unwrap();
    path.rsplit('/').next().unwrap().to_owned()
}

/// A polygon's corners as MAVS reads them (`f32`).
type Corners = Vec<[f32; 2]>;

/// A `Random` entry: its mesh file name, polygon, offset and number of objects.
type Entry = (String, Corners, [f64; 2], usize);

/// Each `Random` entry of a scene file.
fn random_entries(name: &str) -> Vec<Entry> {
    let text = std::fs::read_to_string(data().join("scenes").join(name)).unwrap();
    let json: Value = serde_json::from_str(&text).unwrap();
    json["Objects"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o.get("Random").is_some())
        .map(|o| {
            let r = &o["Random"];
            let polygon = r["Polygon"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| [p[0].as_f64().unwrap() as f32, p[1].as_f64().unwrap() as f32])
                .collect();
            let offset = r.get("Offset").map_or([0.0; 2], |o| {
                [o[0].as_f64().unwrap(), o[1].as_f64().unwrap()]
            });
            let mesh = mesh_file_name(o);
            (
                mesh,
                polygon,
                offset,
                r["Number"].as_u64().unwrap() as usize,
            )
        })
        .collect()
}

/// Every `Random` entry's placed points (offset removed), in entry order, for `seed`.
fn placed_points(name: &str, seed: u64) -> Vec<(Corners, Vec<[f64; 2]>)> {
    let loaded = load_scene_file(&data().join("scenes").join(name), &options(seed));
    let m = messages(&loaded);
    let world = loaded
        .value
        .unwrap_or_else(|| panic!("{name} loads: {m:#?}"));
    // Instances of a mesh file come in entry order: each entry takes its next `Number`.
    let mut taken = std::collections::HashMap::<String, usize>::new();
    let entries = random_entries(name);
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(data().join("scenes").join(name)).unwrap())
            .unwrap();
    // Instanced entries of a file take its first instances (in these scenes they come first).
    for o in json["Objects"].as_array().unwrap() {
        if let Some(instances) = o.get("Instances") {
            let mesh = mesh_file_name(o);
            *taken.entry(mesh).or_default() += instances.as_array().unwrap().len();
        }
    }
    entries
        .into_iter()
        .map(|(mesh, polygon, offset, number)| {
            let all: Vec<[f64; 2]> = world
                .meshes
                .iter()
                .filter(|i| i.file.model_uri.ends_with(&format!("/{mesh}")))
                .map(|i| {
                    let o = origin_of(&i.world_from_model);
                    [o[0] - offset[0], o[1] - offset[1]]
                })
                .collect();
            let start = taken.entry(mesh).or_default();
            let points = all[*start..*start + number].to_vec();
            *start += number;
            (polygon, points)
        })
        .collect()
}

#[test]
fn the_five_upstream_scenes_load_and_place_inside_by_mavss_own_test() {
    for name in [
        "cavs_pg_full_withVeg.json",
        "cavs_pg_full_withVeg_steep.json",
        "cavs_proving_ground_powerline_trail.json",
        "spa_city.json",
        "straight_line_obstacle.json",
    ] {
        for seed in [0, 1, 2] {
            for (polygon, points) in placed_points(name, seed) {
                for p in points {
                    let q = [p[0] as f32, p[1] as f32];
                    // Points drawn on an edge may round off it in f32: accept a hair's width.
                    let near = [
                        [0.0, 0.0],
                        [1e-3, 0.0],
                        [-1e-3, 0.0],
                        [0.0, 1e-3],
                        [0.0, -1e-3],
                    ]
                    .iter()
                    .any(|d| mavs_is_inside(&polygon, [q[0] + d[0], q[1] + d[1]]));
                    assert!(near, "{name} seed {seed}: {p:?} outside {polygon:?}");
                }
            }
        }
    }
}

#[test]
fn objects_spread_over_a_concave_polygon_by_area() {
    // The proving ground's first oat grass strip: 600 objects in a long concave band. The
    // share left of its middle must match the share of its area there, as MAVS's test sees it.
    let name = "cavs_proving_ground_powerline_trail.json";
    let entries = placed_points(name, 5);
    let (polygon, points) = entries.iter().find(|(_, p)| p.len() == 600).unwrap();
    let (lo, hi) = polygon.iter().fold((f32::MAX, f32::MIN), |(lo, hi), p| {
        (lo.min(p[0]), hi.max(p[0]))
    });
    let (ylo, yhi) = polygon.iter().fold((f32::MAX, f32::MIN), |(lo, hi), p| {
        (lo.min(p[1]), hi.max(p[1]))
    });
    let middle = (lo + hi) / 2.0;
    let (mut left_area, mut area) = (0u64, 0u64);
    let cells = 400;
    for i in 0..cells {
        for j in 0..cells {
            let p = [
                lo + (hi - lo) * (i as f32 + 0.5) / cells as f32,
                ylo + (yhi - ylo) * (j as f32 + 0.5) / cells as f32,
            ];
            if mavs_is_inside(polygon, p) {
                area += 1;
                left_area += u64::from(p[0] < middle);
            }
        }
    }
    let expected = left_area as f64 / area as f64;
    let share = points.iter().filter(|p| (p[0] as f32) < middle).count() as f64 / 600.0;
    let sigma = (expected * (1.0 - expected) / 600.0).sqrt();
    assert!(
        (share - expected).abs() < 4.0 * sigma + 0.01,
        "{share} vs {expected}"
    );
}

#[test]
fn a_crossed_quad_fills_both_its_triangles_and_a_flat_polygon_its_point() {
    // spa_city's oak 0 stands in a bow-tie: over seeds, half in each triangle.
    let mut lower = 0;
    let seeds = 200;
    for seed in 0..seeds {
        let entries = placed_points("spa_city.json", seed);
        let p = entries[0].1[0];
        assert!(
            (58.0..=63.0).contains(&p[0]) && (20.0..=40.0).contains(&p[1]),
            "{p:?}"
        );
        lower += usize::from(p[1] < 30.0);
    }
    let share = lower as f64 / seeds as f64;
    assert!(
        (share - 0.5).abs() < 4.0 * (0.25f64 / seeds as f64).sqrt(),
        "{share}"
    );
    // straight_line_obstacle's polygons are one point each: the object stands on it.
    let entries = placed_points("straight_line_obstacle.json", 0);
    let at: Vec<[f64; 2]> = entries.iter().map(|(_, p)| p[0]).collect();
    assert_eq!(at, vec![[-55.0, 0.0], [-55.0, -8.0], [-55.0, 8.0]]);
}
