//! A run's model library: each model URI resolved and each file parsed once, shared by every
//! instance that uses it; failures remembered, so a missing model is reported once.

use crate::{AssetError, Model, Resolver, TextureImage, UriError, load_model};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Why a model could not be had.
#[derive(Debug, thiserror::Error)]
pub enum LibraryError {
    /// The URI does not lead to a file.
    #[error(transparent)]
    Uri(#[from] UriError),
    /// The file does not load.
    #[error(transparent)]
    Asset(#[from] AssetError),
}

/// Loaded models by file, and the outcome of every URI asked for.
#[derive(Debug)]
pub struct ModelLibrary {
    resolver: Resolver,
    by_file: HashMap<PathBuf, Arc<Model>>,
    by_uri: HashMap<(String, PathBuf), Result<Arc<Model>, Arc<LibraryError>>>,
    textures: HashMap<(String, PathBuf), Result<Arc<TextureImage>, String>>,
}

impl ModelLibrary {
    /// An empty library resolving through `resolver`.
    pub fn new(resolver: Resolver) -> ModelLibrary {
        ModelLibrary {
            resolver,
            by_file: HashMap::new(),
            by_uri: HashMap::new(),
            textures: HashMap::new(),
        }
    }

    /// The image a texture URI names (world textures of planes and walls), decoded once;
    /// the error says why it cannot be had. Returns whether this was the first request, so
    /// callers warn once.
    pub fn texture(
        &mut self,
        uri: &str,
        base_dir: &Path,
    ) -> (Result<Arc<TextureImage>, String>, bool) {
        let key = (uri.to_owned(), base_dir.to_path_buf());
        if let Some(done) = self.textures.get(&key) {
            return (done.clone(), false);
        }
        let result = self
            .resolver
            .resolve(uri, base_dir)
            .map_err(|e| e.to_string())
            .and_then(|path| {
                let bytes = std::fs::read(&path)
                    .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
                TextureImage::decode(&bytes)
                    .map(Arc::new)
                    .map_err(|e| format!("`{}` is not a readable image: {e}", path.display()))
            });
        self.textures.insert(key, result.clone());
        (result, true)
    }

    /// The model a URI names (relative URIs against `base_dir`). The first request does the
    /// work; later ones, for the same URI or another naming the same file, share its result.
    /// Returns whether this was the first time the URI was asked for, so callers warn once.
    pub fn get(
        &mut self,
        uri: &str,
        base_dir: &Path,
    ) -> (Result<Arc<Model>, Arc<LibraryError>>, bool) {
        let key = (uri.to_owned(), base_dir.to_path_buf());
        if let Some(done) = self.by_uri.get(&key) {
            return (done.clone(), false);
        }
        let result = self.load(uri, base_dir).map_err(Arc::new);
        self.by_uri.insert(key, result.clone());
        (result, true)
    }

    fn load(&mut self, uri: &str, base_dir: &Path) -> Result<Arc<Model>, LibraryError> {
        let path = self.resolver.resolve(uri, base_dir)?;
        let canonical = path.canonicalize().unwrap_or(path.clone());
        if let Some(model) = self.by_file.get(&canonical) {
            return Ok(model.clone());
        }
        let model = Arc::new(load_model(&path)?);
        self.by_file.insert(canonical, model.clone());
        Ok(model)
    }

    /// How many distinct files were parsed.
    pub fn files_loaded(&self) -> usize {
        self.by_file.len()
    }
}
