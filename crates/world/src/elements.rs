//! World elements (`<element class="…">`) and `<walls>`.

use crate::{Color, Pose3};
use serde::Serialize;

/// A world element and its semantic label.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LabeledElement {
    /// The element.
    pub element: WorldElement,
    /// Our extension `<label>`: its semantic class (overrides the default, e.g. `ground`).
    pub label: Option<String>,
}

/// `<element class="…">`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum WorldElement {
    /// `ground_grid`: a visual aid only.
    GroundGrid(GroundGrid),
    /// `occupancy_grid`: a 2D map whose occupied cells are obstacles.
    OccupancyGrid(OccupancyGrid),
    /// `elevation_map`: terrain.
    ElevationMap(ElevationMap),
    /// `horizontal_plane`: a floor or ceiling.
    HorizontalPlane(HorizontalPlane),
    /// `vertical_plane`: a wall, possibly with doors and windows.
    VerticalPlane(VerticalPlane),
    /// `pointcloud`: points from a text file.
    PointCloud(PointCloud),
    /// `skybox`: six textures.
    Skybox(Skybox),
    /// `property_region`: a box with a named property (e.g. `gps_no_coverage`).
    PropertyRegion(PropertyRegion),
}

impl WorldElement {
    /// The MVSim class name.
    pub fn class_name(&self) -> &'static str {
        match self {
            WorldElement::GroundGrid(_) => "ground_grid",
            WorldElement::OccupancyGrid(_) => "occupancy_grid",
            WorldElement::ElevationMap(_) => "elevation_map",
            WorldElement::HorizontalPlane(_) => "horizontal_plane",
            WorldElement::VerticalPlane(_) => "vertical_plane",
            WorldElement::PointCloud(_) => "pointcloud",
            WorldElement::Skybox(_) => "skybox",
            WorldElement::PropertyRegion(_) => "property_region",
        }
    }
}

/// `ground_grid`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GroundGrid {
    /// Follow a vehicle.
    pub floating: bool,
    /// Name of the vehicle to follow.
    pub floating_focus: String,
    /// Line colour.
    pub color: Color,
    /// Line width.
    pub line_width: f64,
    /// Extent, metres: x_min, x_max, y_min, y_max.
    pub extent: [f64; 4],
    /// Line spacing, metres.
    pub interval: f64,
}

/// `occupancy_grid`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OccupancyGrid {
    /// Image, ROS map YAML or MRPT `.gridmap[.gz]`, resolved against the world file.
    pub file: String,
    /// The contents of a ROS `map_server` YAML file, when `file` is one.
    pub ros_map: Option<RosMap>,
    /// Metres per cell (images only; YAML files carry their own).
    pub resolution: f64,
    /// Pixel at the world origin (`None`: image centre).
    pub center_pixel: [Option<f64>; 2],
    /// Draw collision cells.
    pub show_collisions: bool,
    /// Restitution.
    pub restitution: f64,
    /// Friction.
    pub lateral_friction: f64,
    /// Passerby's `<wall_height>`: occupied cells stand as boxes this tall in the 3D scene
    /// (0, the default: flat, as MVSim draws a grid).
    pub wall_height: f64,
    /// The decoded cells (images, ROS maps and MRPT `.gridmap[.gz]` files).
    pub cells: Option<OccupancyCells>,
}

/// An occupancy grid's cells in the world.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OccupancyCells {
    /// Cells along the grid's x.
    pub cols: usize,
    /// Cells along the grid's y.
    pub rows: usize,
    /// Metres per cell.
    pub resolution: f64,
    /// World position of the outer corner of cell (0, 0) (the image's lower-left pixel).
    pub origin: [f64; 2],
    /// Rotation of the grid's axes from the world's, radians.
    pub yaw: f64,
    /// Row-major from the bottom row of the image: whether each cell is occupied.
    #[serde(skip)]
    pub occupied: Vec<bool>,
    /// Row-major as `occupied`: each cell as MRPT draws it, its probability of being free
    /// scaled to 0..=255 (127: unknown, drawn fully transparent).
    #[serde(skip)]
    pub shade: Vec<u8>,
}

impl OccupancyCells {
    /// Whether cell `(col, row)` (row 0 at the bottom) is occupied; outside is free.
    pub fn is_occupied(&self, col: i64, row: i64) -> bool {
        if col < 0 || row < 0 || col as usize >= self.cols || row as usize >= self.rows {
            return false;
        }
        self.occupied[row as usize * self.cols + col as usize]
    }
}

/// A ROS `map_server` map description (`map.yaml`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RosMap {
    /// The map image, resolved against the YAML file.
    pub image: String,
    /// Metres per pixel.
    pub resolution: f64,
    /// Pose of the lower-left pixel: x, y (metres), yaw (radians).
    pub origin: [f64; 3],
    /// Whether white means occupied.
    pub negate: bool,
    /// Occupancy probability above which a cell is occupied.
    pub occupied_thresh: f64,
    /// Occupancy probability below which a cell is free.
    pub free_thresh: f64,
}

/// Where an elevation map's heights come from.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum ElevationSource {
    /// Greyscale image, darkest → `min_z`, brightest → `max_z`.
    Image {
        /// Path.
        file: String,
        /// Metres.
        min_z: f64,
        /// Metres.
        max_z: f64,
    },
    /// Inline Matlab-style matrix `[a b; c d]` (rows along +X), multiplied by `scale`.
    Matrix {
        /// `elevation_data_matrix_scale`.
        scale: f64,
    },
    /// A MAVS heightmap: grey level × `metres_per_level`, one sample per pixel, centred on the
    /// origin.
    Heightmap {
        /// Path.
        file: String,
        /// Metres per grey level.
        metres_per_level: f64,
    },
    /// A 6-column `x y z r g b` text file, resampled on the grid.
    XyzrgbFile {
        /// Path.
        file: String,
        /// Offset added to the points.
        offset: [f64; 3],
    },
}

/// `elevation_map`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ElevationMap {
    /// Where the heights come from.
    pub source: ElevationSource,
    /// The heights, read at load time (`None` for a DEM text file, resampled later).
    pub grid: Option<crate::ElevationGrid>,
    /// Metres per cell.
    pub resolution: f64,
    /// Corner of the grid (`None`: centred at the origin).
    pub corner_min: [Option<f64>; 2],
    /// Texture image.
    pub texture_image: String,
    /// Texture rotation, degrees as MVSim keeps them (multiples of 90).
    pub texture_image_rotate: i64,
    /// Texture extent, metres (0 = the whole map).
    pub texture_extension: [f64; 2],
    /// Colour when there is no texture.
    pub mesh_color: Color,
    /// Renderer hint.
    pub model_split_size: f64,
    /// Convolution kernel applied to the heights, as written.
    pub apply_kernel: String,
}

/// `horizontal_plane`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HorizontalPlane {
    /// x_min, x_max, y_min, y_max, metres.
    pub extent: [f64; 4],
    /// Height, metres.
    pub z: f64,
    /// Colour.
    pub color: Color,
    /// Casts shadows.
    pub enable_shadows: bool,
    /// `NONE`, `FRONT` or `BACK`.
    pub cull_face: String,
    /// Texture URI.
    pub texture: String,
    /// Texture tile size, metres.
    pub texture_size: [f64; 2],
    /// `<init_pose>` (x, y, yaw): where the plane's own frame stands (MVSim's elevator).
    pub init_pose: Option<crate::Pose3>,
    /// `<animation type="keyframes">`: the plane moves, relative to `init_pose`.
    pub keyframes: Option<crate::KeyframeAnimation>,
}

impl HorizontalPlane {
    /// Whether the plane is placed or moved by a pose (a floor of its own that the simulation
    /// moves) rather than standing where its extent says.
    pub fn moves(&self) -> bool {
        self.init_pose.is_some() || self.keyframes.is_some()
    }
}

/// `vertical_plane`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct VerticalPlane {
    /// Start (x0, y0), metres.
    pub start: [f64; 2],
    /// End (x1, y1), metres.
    pub end: [f64; 2],
    /// Bottom, metres.
    pub z: f64,
    /// Height, metres.
    pub height: f64,
    /// Thickness, metres.
    pub thickness: f64,
    /// Colour.
    pub color: Color,
    /// Casts shadows.
    pub enable_shadows: bool,
    /// `NONE`, `FRONT` or `BACK`.
    pub cull_face: String,
    /// Texture URI.
    pub texture: String,
    /// Texture tile size, metres.
    pub texture_size: [f64; 2],
    /// Optional `<init_pose>` applied to the plane.
    pub init_pose: Option<Pose3>,
    /// `<door>`s and `<window>`s.
    pub openings: Vec<WallOpening>,
}

/// A solid part of a vertical plane once its openings are cut out: `along` is the span in
/// metres from the plane's start towards its end, `heights` the span in metres above its `z`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WallPart {
    /// From and to, metres along the wall.
    pub along: [f64; 2],
    /// Bottom and top, metres above the plane's `z`.
    pub heights: [f64; 2],
}

impl VerticalPlane {
    /// Metres from start to end.
    pub fn length(&self) -> f64 {
        (self.end[0] - self.start[0]).hypot(self.end[1] - self.start[1])
    }

    /// The wall as solid boxes once its doors and windows are cut out (MVSim's openings: centred
    /// at `position` of the length, `width` wide, from `z_min` to `z_max` above the plane's `z`,
    /// clamped to the wall). Without openings, the whole wall.
    pub fn solid_parts(&self) -> Vec<WallPart> {
        let (length, height) = (self.length(), self.height);
        let cuts: Vec<([f64; 2], [f64; 2])> = self
            .openings
            .iter()
            .map(|o| {
                let centre = o.position.clamp(0.0, 1.0) * length;
                let along = [
                    (centre - o.width / 2.0).max(0.0),
                    (centre + o.width / 2.0).min(length),
                ];
                (along, [o.z_min.max(0.0), o.z_max.min(height)])
            })
            .filter(|(a, z)| a[0] < a[1] && z[0] < z[1])
            .collect();
        let mut stops: Vec<f64> = vec![0.0, length];
        stops.extend(cuts.iter().flat_map(|(a, _)| *a));
        stops.sort_by(f64::total_cmp);
        stops.dedup();
        let mut parts: Vec<WallPart> = Vec::new();
        for span in stops.windows(2) {
            let (from, to) = (span[0], span[1]);
            if to <= from {
                continue;
            }
            let middle = (from + to) / 2.0;
            let mut gaps: Vec<[f64; 2]> = cuts
                .iter()
                .filter(|(a, _)| a[0] < middle && middle < a[1])
                .map(|(_, z)| *z)
                .collect();
            gaps.sort_by(|a, b| a[0].total_cmp(&b[0]));
            let mut bottom = 0.0;
            let mut solid = Vec::new();
            for gap in gaps {
                if gap[0] > bottom {
                    solid.push([bottom, gap[0]]);
                }
                bottom = f64::max(bottom, gap[1]);
            }
            if bottom < height {
                solid.push([bottom, height]);
            }
            for heights in solid {
                // Joined to the part before when it continues it at the same heights.
                match parts
                    .iter_mut()
                    .find(|p| p.heights == heights && p.along[1] == from)
                {
                    Some(p) => p.along[1] = to,
                    None => parts.push(WallPart {
                        along: [from, to],
                        heights,
                    }),
                }
            }
        }
        parts
    }
}

/// A door or window cut into a vertical plane.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WallOpening {
    /// Door (reaches the floor) or window.
    pub is_door: bool,
    /// Name.
    pub name: String,
    /// Centre along the wall, 0..1.
    pub position: f64,
    /// Metres.
    pub width: f64,
    /// Bottom, metres above the plane's z.
    pub z_min: f64,
    /// Top, metres.
    pub z_max: f64,
}

/// `pointcloud`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PointCloud {
    /// Text file of points.
    pub file: String,
    /// Whether the file has 2 (x y) or 3 columns.
    pub is_3d: bool,
    /// Point size for display.
    pub points_size: f64,
    /// Pose of the cloud.
    pub pose: Pose3,
}

/// `skybox`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Skybox {
    /// Pattern with `%s` replaced by `Up Right Left Front Down Back`.
    pub textures: String,
}

/// `property_region`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PropertyRegion {
    /// Property name (`gps_no_coverage`, `friction_mu`, …).
    pub property_name: String,
    /// The value.
    pub value: PropertyValue,
    /// x_min, x_max, y_min, y_max, z_min, z_max, metres.
    pub bounds: [f64; 6],
}

/// Value of a property region.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum PropertyValue {
    /// `value_double`.
    Double(f64),
    /// `value_bool`.
    Bool(bool),
    /// `value_string`.
    String(String),
}

/// `<walls>`: wall segments that become static blocks.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Walls {
    /// Model or polyline.
    pub source: WallSource,
    /// 4×4 transformation, row-major.
    pub transformation: [[f64; 4]; 4],
    /// Metres.
    pub thickness: f64,
    /// Metres.
    pub height: f64,
    /// Scale.
    pub scale: f64,
    /// Colour.
    pub color: Color,
}

/// Where wall segments come from.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum WallSource {
    /// The line segments (Collada `<lines>`) of a model file, not read yet.
    Model(String),
    /// A polyline.
    Polyline(Vec<[f64; 2]>),
    /// Separate segments: a model's lines once read (in the model's frame as assimp presents
    /// it), put in place of [`WallSource::Model`] by whoever loads the model.
    Segments(Vec<[[f64; 3]; 2]>),
}

impl Walls {
    /// The wall segments on the floor, in the world frame: the polyline's (scaled) or the
    /// model's, each end moved by `transformation` as MVSim does (only x and y kept). Empty
    /// while the model is unread.
    pub fn floor_segments(&self) -> Vec<[[f64; 2]; 2]> {
        let m = &self.transformation;
        let place = |[x, y, z]: [f64; 3]| {
            let row = |r: &[f64; 4]| r[0] * x + r[1] * y + r[2] * z + r[3];
            [row(&m[0]), row(&m[1])]
        };
        match &self.source {
            WallSource::Model(_) => Vec::new(),
            WallSource::Polyline(points) => points
                .windows(2)
                .map(|w| {
                    let s = self.scale;
                    [
                        place([w[0][0] * s, w[0][1] * s, 0.0]),
                        place([w[1][0] * s, w[1][1] * s, 0.0]),
                    ]
                })
                .collect(),
            WallSource::Segments(segments) => segments.iter().map(|s| s.map(place)).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wall(openings: Vec<WallOpening>) -> VerticalPlane {
        VerticalPlane {
            start: [0.0, 0.0],
            end: [4.0, 0.0],
            z: 0.0,
            height: 3.0,
            thickness: 0.1,
            color: Color::rgb(0, 0, 0),
            enable_shadows: true,
            cull_face: "NONE".into(),
            texture: String::new(),
            texture_size: [1.0, 1.0],
            init_pose: None,
            openings,
        }
    }

    fn opening(is_door: bool, position: f64, z: [f64; 2]) -> WallOpening {
        WallOpening {
            is_door,
            name: String::new(),
            position,
            width: 1.0,
            z_min: z[0],
            z_max: z[1],
        }
    }

    fn part(along: [f64; 2], heights: [f64; 2]) -> WallPart {
        WallPart { along, heights }
    }

    #[test]
    fn doors_and_windows_leave_the_wall_around_them() {
        assert_eq!(
            wall(vec![]).solid_parts(),
            vec![part([0.0, 4.0], [0.0, 3.0])]
        );
        let door = wall(vec![opening(true, 0.5, [0.0, 2.1])]).solid_parts();
        assert_eq!(
            door,
            vec![
                part([0.0, 1.5], [0.0, 3.0]),
                part([1.5, 2.5], [2.1, 3.0]),
                part([2.5, 4.0], [0.0, 3.0]),
            ]
        );
        let window = wall(vec![opening(false, 0.25, [1.0, 2.0])]).solid_parts();
        assert_eq!(
            window,
            vec![
                part([0.0, 0.5], [0.0, 3.0]),
                part([0.5, 1.5], [0.0, 1.0]),
                part([0.5, 1.5], [2.0, 3.0]),
                part([1.5, 4.0], [0.0, 3.0]),
            ]
        );
        // Overlapping openings merge; one past the wall's end is clipped to it; one reaching
        // above the wall leaves nothing over it.
        let many = wall(vec![
            opening(true, 0.5, [0.0, 2.0]),
            opening(false, 0.6, [1.0, 5.0]),
            opening(true, 1.0, [0.0, 1.0]),
        ])
        .solid_parts();
        let solid_at = |s: f64, z: f64| {
            many.iter()
                .any(|p| p.along[0] < s && s < p.along[1] && p.heights[0] < z && z < p.heights[1])
        };
        // The door alone, both, the window alone.
        assert!(!solid_at(1.7, 1.0) && solid_at(1.7, 2.5));
        assert!(!solid_at(2.0, 0.5) && !solid_at(2.0, 2.5));
        assert!(solid_at(2.7, 0.5) && !solid_at(2.7, 2.5));
        assert!(!solid_at(3.9, 0.5) && solid_at(3.9, 1.5) && solid_at(0.5, 0.5));
    }
}
