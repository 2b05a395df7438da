//! The in-memory model every importer produces: a node hierarchy, triangle meshes, skins and
//! animation clips, in the file's own frame and units.

use glam::{Mat4, Quat, Vec2, Vec3};
use std::path::PathBuf;

/// A local transform as translation, rotation, scale (applied scale first, then rotation,
/// then translation: `parent_from_node = T · R · S`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Trs {
    /// Translation.
    pub translation: Vec3,
    /// Rotation (unit quaternion).
    pub rotation: Quat,
    /// Scale per axis.
    pub scale: Vec3,
}

impl Default for Trs {
    fn default() -> Self {
        Trs {
            translation: Vec3::ZERO,
            rotation: Quat::IDENTITY,
            scale: Vec3::ONE,
        }
    }
}

impl Trs {
    /// The transform as a matrix.
    pub fn matrix(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }
}

/// A node of the hierarchy (a bone, a mesh holder, or a group).
#[derive(Clone, Debug)]
pub struct Node {
    /// Name (`node_<index>` when the file has none).
    pub name: String,
    /// Parent node, `None` for a root.
    pub parent: Option<usize>,
    /// The rest (bind-time) local transform, `parent_from_node`.
    pub rest: Trs,
}

/// Which frame the model's coordinates are in, as the file format defines it.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelFrame {
    /// Human-readable description, e.g. "glTF: +Y up, +Z forward, metres".
    pub description: String,
    /// The file's right axis, in its own coordinates.
    pub right: Vec3,
    /// The file's up axis.
    pub up: Vec3,
    /// The file's front axis: the direction a character faces, towards a viewer in front of it.
    pub front: Vec3,
    /// Metres per file unit.
    pub metres_per_unit: f32,
    /// How assimp (which MVSim loads models with) presents this file's coordinates: Collada's
    /// `<up_axis>` turned to +Y up and `<unit>` applied; glTF, FBX, OBJ and STL as stored. The
    /// `model_*` settings of MVSim worlds are written for this frame.
    pub assimp_from_file: Mat4,
}

impl ModelFrame {
    /// The transform from file coordinates to a right-handed, Z-up frame in metres whose front
    /// is −Y (Blender's world frame): right → +X, up → +Z, front → −Y, scaled to metres.
    pub fn z_up_metres_from_file(&self) -> Mat4 {
        let file = glam::Mat3::from_cols(self.right, self.up, self.front);
        let target = glam::Mat3::from_cols(Vec3::X, Vec3::Z, Vec3::NEG_Y);
        Mat4::from_mat3(target * file.transpose())
            * Mat4::from_scale(Vec3::splat(self.metres_per_unit))
    }
}

/// Per-vertex skinning data of a mesh: up to four influences, weights summing to 1.
#[derive(Clone, Debug)]
pub struct SkinBinding {
    /// The skin (index into [`Model::skins`]).
    pub skin: usize,
    /// Joint indices into the skin's joint list, per vertex.
    pub joints: Vec<[u16; 4]>,
    /// Weights per vertex (unused slots are 0).
    pub weights: Vec<[f32; 4]>,
}

/// A triangle mesh.
#[derive(Clone, Debug)]
pub struct Mesh {
    /// Name (`mesh_<index>` when the file has none).
    pub name: String,
    /// The node that places the mesh (ignored for skinned meshes, as glTF specifies).
    pub node: usize,
    /// Vertex positions in the mesh's own frame.
    pub positions: Vec<Vec3>,
    /// Vertex normals (empty if the file has none).
    pub normals: Vec<Vec3>,
    /// Texture coordinates (empty if the file has none), glTF's convention: `(0, 0)` is the
    /// image's top-left corner.
    pub uvs: Vec<Vec2>,
    /// Triangles, as vertex indices.
    pub triangles: Vec<[u32; 3]>,
    /// Material (index into [`Model::materials`]).
    pub material: Option<usize>,
    /// Skinning, for a skinned mesh.
    pub skin: Option<SkinBinding>,
}

impl Mesh {
    /// Area-weighted vertex normals from the triangles (for formats read without normals).
    pub fn compute_normals(&mut self) {
        let mut normals = vec![Vec3::ZERO; self.positions.len()];
        for t in &self.triangles {
            let [a, b, c] = t.map(|i| self.positions[i as usize]);
            let n = (b - a).cross(c - a);
            for &i in t {
                normals[i as usize] += n;
            }
        }
        self.normals = normals.into_iter().map(Vec3::normalize_or_zero).collect();
    }
}

/// Line segments placed by a node.
#[derive(Clone, Debug)]
pub struct LineSet {
    /// The node that places them.
    pub node: usize,
    /// End points in the node's frame.
    pub segments: Vec<[Vec3; 2]>,
}

/// A skin: the joints that deform a mesh and their inverse bind matrices.
#[derive(Clone, Debug)]
pub struct Skin {
    /// Name.
    pub name: String,
    /// The joint nodes.
    pub joints: Vec<usize>,
    /// `joint_from_model_at_bind` per joint.
    pub inverse_bind: Vec<Mat4>,
}

/// A material: base colour and optional texture.
#[derive(Clone, Debug)]
pub struct Material {
    /// Name.
    pub name: String,
    /// Linear RGBA base colour factor.
    pub base_color: [f32; 4],
    /// Base colour texture, when it has one.
    pub texture: Option<Texture>,
}

/// Where a texture image is, and its pixels when it could be read.
#[derive(Clone, Debug)]
pub struct Texture {
    /// A file path, `embedded #N` for an image inside the file, or a data URI summary.
    pub source: String,
    /// Whether the image was found (embedded, or the file exists).
    pub found: bool,
    /// The decoded image (PNG or JPEG), `None` if missing or undecodable (see the warnings).
    pub image: Option<std::sync::Arc<TextureImage>>,
}

/// An 8-bit RGBA image, rows from the top.
#[derive(Clone, Debug)]
pub struct TextureImage {
    /// Pixels per row.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// `width × height × 4` bytes.
    pub rgba: Vec<u8>,
    /// Images derived from this one by whoever samples it (mip levels), made on first use and
    /// kept with the image, so that a texture shared by many surfaces has them once.
    derived: std::sync::OnceLock<Vec<TextureImage>>,
}

impl PartialEq for TextureImage {
    /// The pixels, not what was derived from them.
    fn eq(&self, other: &TextureImage) -> bool {
        (self.width, self.height, &self.rgba) == (other.width, other.height, &other.rgba)
    }
}

impl Texture {
    /// A texture from where it is and its bytes (or why they could not be read); a decoding
    /// failure leaves `image` empty and adds a warning.
    pub fn from_bytes(
        source: String,
        bytes: Result<Vec<u8>, String>,
        warnings: &mut Vec<String>,
    ) -> Texture {
        match bytes {
            Ok(bytes) => match TextureImage::decode(&bytes) {
                Ok(image) => Texture {
                    source,
                    found: true,
                    image: Some(std::sync::Arc::new(image)),
                },
                Err(e) => {
                    warnings.push(format!("texture {source} could not be decoded: {e}"));
                    Texture {
                        source,
                        found: true,
                        image: None,
                    }
                }
            },
            Err(e) => {
                warnings.push(format!("texture {source} is missing: {e}"));
                Texture {
                    source,
                    found: false,
                    image: None,
                }
            }
        }
    }
}

impl TextureImage {
    /// An image of `width × height` RGBA pixels (`rgba` holds `width × height × 4` bytes).
    pub fn new(width: u32, height: u32, rgba: Vec<u8>) -> TextureImage {
        TextureImage {
            width,
            height,
            rgba,
            derived: std::sync::OnceLock::new(),
        }
    }

    /// The images derived from this one, made by `derive` on the first call (later calls get
    /// the first call's images, whatever they pass).
    pub fn derived(
        &self,
        derive: impl FnOnce(&TextureImage) -> Vec<TextureImage>,
    ) -> &[TextureImage] {
        self.derived.get_or_init(|| derive(self))
    }

    /// Decodes PNG or JPEG bytes (at most 64 megapixels).
    pub fn decode(bytes: &[u8]) -> Result<TextureImage, String> {
        let mut reader = image::ImageReader::new(std::io::Cursor::new(bytes));
        reader = reader.with_guessed_format().map_err(|e| e.to_string())?;
        let mut limits = image::Limits::default();
        limits.max_alloc = Some(1 << 28);
        limits.max_image_width = Some(16384);
        limits.max_image_height = Some(16384);
        reader.limits(limits);
        let decoded = reader.decode().map_err(|e| e.to_string())?.to_rgba8();
        Ok(TextureImage::new(
            decoded.width(),
            decoded.height(),
            decoded.into_raw(),
        ))
    }
}

/// What an animation channel drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Property {
    /// Node translation.
    Translation,
    /// Node rotation.
    Rotation,
    /// Node scale.
    Scale,
}

/// How values between keys are found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interpolation {
    /// Hold the previous key.
    Step,
    /// Linear (spherical for rotations).
    Linear,
    /// Cubic Hermite with in/out tangents per key.
    CubicSpline,
}

/// One animated property of one node.
#[derive(Clone, Debug)]
pub struct Channel {
    /// The node.
    pub node: usize,
    /// What is animated.
    pub property: Property,
    /// How.
    pub interpolation: Interpolation,
    /// Key times, seconds, strictly increasing.
    pub times: Vec<f32>,
    /// Key values, 3 (translation, scale) or 4 (rotation, x y z w) floats per key; with
    /// [`Interpolation::CubicSpline`] three such groups per key: in-tangent, value, out-tangent.
    pub values: Vec<f32>,
}

/// A named animation clip.
#[derive(Clone, Debug)]
pub struct Clip {
    /// Name (`animation_<index>` when the file has none).
    pub name: String,
    /// Seconds from 0 to the last key of any channel.
    pub duration: f32,
    /// The channels.
    pub channels: Vec<Channel>,
}

/// A loaded model.
#[derive(Clone, Debug)]
pub struct Model {
    /// The file it came from.
    pub source: PathBuf,
    /// The frame of its coordinates.
    pub frame: ModelFrame,
    /// All nodes; [`Model::eval_order`] lists them parents first.
    pub nodes: Vec<Node>,
    /// Node indices with every parent before its children.
    pub eval_order: Vec<usize>,
    /// Meshes.
    pub meshes: Vec<Mesh>,
    /// Skins.
    pub skins: Vec<Skin>,
    /// Clips.
    pub clips: Vec<Clip>,
    /// Materials.
    pub materials: Vec<Material>,
    /// Line segments (Collada `<lines>` and `<linestrips>`): not drawn, but what MVSim builds
    /// `<walls>` from.
    pub lines: Vec<LineSet>,
    /// Things fixed at import that the user may want to know (one line each).
    pub warnings: Vec<String>,
}

impl Model {
    /// The clip with this name, or an error listing the clips there are.
    pub fn clip(&self, name: &str) -> Result<&Clip, crate::AssetError> {
        self.clips
            .iter()
            .find(|c| c.name == name)
            .ok_or_else(|| crate::AssetError::NoSuchClip {
                clip: name.to_owned(),
                path: self.source.clone(),
                available: self
                    .clips
                    .iter()
                    .map(|c| format!("'{}'", c.name))
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }

    /// Total vertices over all meshes.
    pub fn vertex_count(&self) -> usize {
        self.meshes.iter().map(|m| m.positions.len()).sum()
    }

    /// Total triangles over all meshes.
    pub fn triangle_count(&self) -> usize {
        self.meshes.iter().map(|m| m.triangles.len()).sum()
    }

    /// The node with this name.
    pub fn node_index(&self, name: &str) -> Option<usize> {
        self.nodes.iter().position(|n| n.name == name)
    }
}
