//! 3D models: import, animation sampling and CPU skinning.
//!
//! Owns: reading model files into one [`Model`] type (node hierarchy, triangle meshes with
//! normals and UVs, materials, skins with inverse bind matrices and up to four weights per
//! vertex, named clips with per-channel keyframes), sampling a clip into a [`Pose`], and
//! posing/skinning meshes into caller-provided buffers with a reusable [`Poser`].
//! Models stay in their file's own frame ([`Model::frame`]); converting to a world's frame
//! (MVSim's `model_*` settings) is the caller's business.
//!
//! Must not touch: worlds, simulation time, ray casting. Formats: glTF 2.0 / GLB, FBX, Collada 1.4, OBJ + MTL, STL.
//!
//! ```no_run
//! use passerby_assets::{load_model, Pose, Poser, Wrap};
//! let model = load_model("Walker.glb".as_ref()).unwrap();
//! let walk = model.clip("Walk").unwrap();
//! let mut pose = Pose::rest(&model);
//! pose.sample(&model, walk, 0.25, Wrap::Loop);
//! let vertices = Poser::new().posed_vertices(&model, &pose);
//! ```
//!
//! Modules: glTF/GLB (`gltf_import.rs`), FBX through ufbx (`fbx_import.rs`), Collada
//! (`dae_import.rs`, meshes in `dae_mesh.rs`, materials in `dae_materials.rs`, shared value
//! readers in `dae_values.rs`), OBJ/MTL and STL (`mesh_import.rs`), the `Model` types and
//! frames (`model.rs`), model URIs, the cache and downloads (`uri.rs`), archives extracted
//! privately and within bounds (`archive.rs`), one parse per file per run (`library.rs`), clip
//! sampling and blending (`anim.rs`), posing, skinning and the rest-pose triangles every
//! consumer places (`skin.rs`).

mod anim;
mod archive;
mod dae_import;
mod dae_materials;
mod dae_mesh;
mod dae_values;
mod describe;
mod fbx_import;
mod gltf_import;
mod library;
mod mesh_import;
mod model;
mod skin;
mod uri;

pub use anim::{ClipPlayer, Pose, Wrap, clip_time};
pub use describe::{bounds, describe, write_posed_mesh};
pub use gltf_import::ALL_UNNAMED;
pub use library::{LibraryError, ModelLibrary};
pub use model::*;
pub use skin::{Poser, merged_triangles, rest_lines, rest_vertices};
pub use uri::{Resolver, UriError};

use std::path::{Path, PathBuf};

/// Why a model could not be loaded or used.
#[derive(Debug, thiserror::Error)]
pub enum AssetError {
    /// The file cannot be read.
    #[error("cannot read model `{path}`: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The format is not one we read.
    #[error(
        "model `{path}`: unsupported format `{extension}` (expected .gltf, .glb, .fbx, .dae, .obj or .stl)"
    )]
    UnsupportedFormat {
        /// The file.
        path: PathBuf,
        /// Its extension.
        extension: String,
    },
    /// The file is malformed.
    #[error("model `{path}`: {reason}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A clip name that the model does not have.
    #[error("model `{path}` has no clip '{clip}'; its clips are: {available}")]
    NoSuchClip {
        /// The name asked for.
        clip: String,
        /// The file.
        path: PathBuf,
        /// The clips it has.
        available: String,
    },
}

/// Loads a model file, choosing the importer by extension.
pub fn load_model(path: &Path) -> Result<Model, AssetError> {
    let import = importer(path)?;
    let bytes = std::fs::read(path).map_err(|source| AssetError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    import(path, &bytes)
}

type Importer = fn(&Path, &[u8]) -> Result<Model, AssetError>;

/// The importer for a file, by its extension.
fn importer(path: &Path) -> Result<Importer, AssetError> {
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    Ok(match extension.as_str() {
        "gltf" | "glb" => gltf_import::import,
        "fbx" => fbx_import::import,
        "dae" => dae_import::import,
        "obj" => mesh_import::import_obj,
        "stl" => mesh_import::import_stl,
        _ => {
            return Err(AssetError::UnsupportedFormat {
                path: path.to_path_buf(),
                extension,
            });
        }
    })
}

/// Loads a model from bytes; `path` chooses the importer by extension and anchors the files it
/// refers to (external buffers, materials).
pub fn load_model_bytes(path: &Path, bytes: &[u8]) -> Result<Model, AssetError> {
    importer(path)?(path, bytes)
}
