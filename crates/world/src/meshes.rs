//! Mesh files placed by a general affine transform (MAVS scene `Objects` and `Surface Mesh`),
//! semantic class tables (MAVS label files), and what MAVS scenes carry that Passerby keeps
//! without simulating (layered surfaces, vegetation distributions).

use crate::Color;
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::Arc;

/// A row-major 3×4 affine transform `[R·S | t]`: `p' = M · (p, 1)`.
pub type Affine3x4 = [[f64; 4]; 3];

/// The identity transform.
pub const IDENTITY_3X4: Affine3x4 = [
    [1.0, 0.0, 0.0, 0.0],
    [0.0, 1.0, 0.0, 0.0],
    [0.0, 0.0, 1.0, 0.0],
];

/// A static mesh file placed in the world, seen by every sensor (a MAVS `Objects` instance).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MeshInstance {
    /// Unique name (`<mesh file stem>_<n>`), shared with the scene's object.
    pub name: crate::Name,
    /// The file and how it is labelled and shaded, shared by its placements (a meadow places
    /// one file a million times).
    pub file: Arc<MeshFile>,
    /// `world_from_model`, non-uniform scale allowed.
    pub world_from_model: Affine3x4,
}

/// What every placement of one mesh file in one way shares.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MeshFile {
    /// The mesh file, absolute.
    pub model_uri: String,
    /// Semantic class (`None`: `static`).
    pub label: Option<String>,
    /// Interpolate vertex normals (MAVS `Smooth Normals`; flat facets otherwise).
    pub smooth_normals: bool,
    /// Classes by the mesh file's group (OBJ `g`/`o`) names (MAVS `Label By Group`); groups not
    /// listed keep `label`. `None`: the whole file is `label`.
    pub group_labels: Option<BTreeMap<String, String>>,
}

/// A mesh used only to answer "how high is the ground here" (MAVS `Surface Mesh`); sensors do
/// not see it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SurfaceMesh {
    /// The mesh file, absolute.
    pub model_uri: String,
    /// `world_from_model`.
    pub world_from_model: Affine3x4,
    /// Vehicle-terrain material: `dry`, `wet`, `ice`, `snow`, `clay` or `sand`.
    pub material: String,
    /// Cone index in pascals (only meaningful for `clay` and `sand`).
    pub cone_index_pa: f64,
}

/// A semantic class with its display colour and an external label number (MAVS `Label Colors`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LabelClass {
    /// Class name, as objects name it.
    pub name: String,
    /// Colour for label images.
    pub color: Color,
    /// The source tool's number for the class (MAVS `Label Number`).
    pub number: u32,
}

/// What a MAVS scene holds that Passerby parses and keeps but does not simulate.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct MavsExtras {
    /// `Layered Surface`.
    pub layered_surface: Option<LayeredSurface>,
    /// `Vegetation Distribution`, as JSON text.
    pub vegetation_distribution: Option<String>,
    /// `VegOverrideFile`.
    pub veg_override_file: Option<String>,
}

/// MAVS `Layered Surface`: a textured ground built from a mesh or a heightmap, with trails.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LayeredSurface {
    /// `Mesh`, absolute (`None` when built from a heightmap).
    pub mesh: Option<String>,
    /// `Heightmap`: image (absolute), metres per pixel, metres per grey level step.
    pub heightmap: Option<(String, f64, f64)>,
    /// `Scale`.
    pub scale: [f64; 3],
    /// `Trail`.
    pub trail: Option<Trail>,
    /// `Layers`: the texture-layer file, absolute.
    pub layers: Option<String>,
}

/// A trail worn into a layered surface along recorded vehicle paths.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Trail {
    /// Metres.
    pub trail_width: f64,
    /// Metres.
    pub track_width: f64,
    /// Metres.
    pub wheelbase: f64,
    /// Pose files (`.vprp`), absolute.
    pub paths: Vec<String>,
}
