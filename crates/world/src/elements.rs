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
    /// The decoded cells (images and ROS maps; `None` for MRPT `.gridmap` files).
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
    /// Edges of a DAE/OBJ model.
    Model(String),
    /// A polyline.
    Polyline(Vec<[f64; 2]>),
}
