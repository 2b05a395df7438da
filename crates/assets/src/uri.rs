//! Model URIs as MVSim worlds write them, resolved to local files.
//!
//! - a local path (absolute, or relative to the world file that names it) or `file://PATH`;
//! - `http(s)://HOST/PATH`: looked up in the asset cache (`--asset-cache DIR`, env
//!   `PASSERBY_ASSET_CACHE`, default `~/.cache/passerby`), laid out like MVSim's model mirror:
//!   the cache folder stands for a URL folder, so `https://mrpt.github.io/mvsim-models/x.dae`
//!   is found as `CACHE/mrpt.github.io/mvsim-models/x.dae`, `CACHE/mvsim-models/x.dae` or
//!   `CACHE/x.dae` (first match);
//! - a path with an `ARCHIVE.zip/INNER` component: the archive is found as above (or locally)
//!   and extracted once into the user's private cache folder (never next to the asset cache,
//!   which may be read-only; `archive.rs` says how it is kept safe), and `INNER` is read from
//!   there.
//!
//! A remote URI's host and path may not leave the cache: `http://../x.dae` or a `..` in the
//! path is an error.
//!
//! Downloading is opt-in twice: the `download` cargo feature (so the default build has no
//! HTTP or TLS code) and [`Resolver::download`] (`--download`). A missing remote file is then
//! fetched into the cache; otherwise it is an error that lists where it was looked for, so the
//! caller can warn once and use a placeholder.

use std::path::{Component, Path, PathBuf};

/// Why a URI could not be turned into a readable file.
#[derive(Debug, thiserror::Error)]
pub enum UriError {
    /// A local file that does not exist.
    #[error("model file `{0}` does not exist")]
    Missing(PathBuf),
    /// A remote file that is not in the asset cache, with downloading off.
    #[error(
        "`{uri}` is not in the asset cache (looked for {looked}) and downloading is off (--offline, or a build without the `download` feature): copy it there"
    )]
    NotCached {
        /// The URI.
        uri: String,
        /// Where it was looked for.
        looked: String,
    },
    /// Downloading failed (offline, say, or this build cannot download).
    #[error("cannot download `{url}`: {reason} (copy it into the asset cache, or pass --offline)")]
    Download {
        /// What was fetched.
        url: String,
        /// Why it failed.
        reason: String,
    },
    /// The archive exists but does not contain the member.
    #[error("archive `{archive}` has no member `{member}`")]
    NoSuchMember {
        /// The archive.
        archive: PathBuf,
        /// The member asked for.
        member: String,
    },
    /// A remote URI whose host or path could leave the asset cache.
    #[error("model URI `{uri}`: {reason}")]
    BadUri {
        /// The URI.
        uri: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The archive cannot be read or extracted.
    #[error("archive `{archive}`: {reason}")]
    BadArchive {
        /// The archive.
        archive: PathBuf,
        /// What went wrong.
        reason: String,
    },
}

/// Resolves model URIs against an asset cache.
#[derive(Clone, Debug)]
pub struct Resolver {
    /// The asset cache folder.
    pub cache_dir: PathBuf,
    /// Where archives are extracted.
    pub extract_dir: PathBuf,
    /// Fetch remote files missing from the cache (needs the `download` feature).
    pub download: bool,
}

impl Resolver {
    /// A resolver over `cache_dir`, extracting into the user's private cache folder
    /// (`~/.cache/passerby-extracted`, mode 0700).
    pub fn new(cache_dir: PathBuf) -> Resolver {
        Resolver {
            cache_dir,
            extract_dir: crate::archive::default_root(),
            download: false,
        }
    }

    /// The default cache: `$PASSERBY_ASSET_CACHE`, else `~/.cache/passerby`.
    pub fn default_cache_dir() -> PathBuf {
        if let Some(dir) = std::env::var_os("PASSERBY_ASSET_CACHE") {
            return PathBuf::from(dir);
        }
        let home = std::env::var_os("HOME")
            .map(PathBuf::from)
            .unwrap_or_else(std::env::temp_dir);
        home.join(".cache").join("passerby")
    }

    /// The local file a URI names; `base_dir` anchors relative paths.
    pub fn resolve(&self, uri: &str, base_dir: &Path) -> Result<PathBuf, UriError> {
        let uri = uri.trim();
        if let Some(rest) = uri
            .strip_prefix("http://")
            .or_else(|| uri.strip_prefix("https://"))
        {
            let path = rest.split_once('/').map_or("", |(_, p)| p);
            let host = rest.split('/').next().unwrap_or("");
            check_remote(uri, host, path)?;
            let (archive, member) = split_archive(path);
            let looked = self.cache_candidates(host, archive);
            let found = match looked.iter().find(|p| p.is_file()) {
                Some(found) => found.clone(),
                None if self.download => {
                    let scheme = if uri.starts_with("https://") {
                        "https"
                    } else {
                        "http"
                    };
                    let url = format!("{scheme}://{host}/{archive}");
                    fetch(&url, &looked[0]).map_err(|reason| UriError::Download { url, reason })?;
                    looked[0].clone()
                }
                None => {
                    let looked = looked
                        .iter()
                        .map(|p| format!("`{}`", p.display()))
                        .collect::<Vec<_>>()
                        .join(", ");
                    return Err(UriError::NotCached {
                        uri: uri.to_owned(),
                        looked,
                    });
                }
            };
            let found = &found;
            return match member {
                Some(member) => self.extract_member(found, member),
                None => Ok(found.clone()),
            };
        }
        let local = uri.strip_prefix("file://").unwrap_or(uri);
        let path = base_dir.join(local);
        if path.is_file() {
            return Ok(path);
        }
        let text = path.to_string_lossy().into_owned();
        let (archive, member) = split_archive(&text);
        match member {
            Some(member) if Path::new(archive).is_file() => {
                self.extract_member(Path::new(archive), member)
            }
            _ => Err(UriError::Missing(path)),
        }
    }

    /// Where a remote path may be in the cache, most specific first.
    fn cache_candidates(&self, host: &str, path: &str) -> Vec<PathBuf> {
        let parts: Vec<&str> = path
            .split('/')
            .filter(|p| !p.is_empty() && *p != "." && *p != "..")
            .collect();
        let mut out = vec![self.cache_dir.join(host).join(parts.join("/"))];
        for skip in 0..parts.len() {
            out.push(self.cache_dir.join(parts[skip..].join("/")));
        }
        out
    }

    /// Extracts an archive once (all members, so that sibling files such as textures and
    /// buffers are there too; `archive.rs` says how, safely) and returns the path of `member`
    /// inside it.
    fn extract_member(&self, archive: &Path, member: &str) -> Result<PathBuf, UriError> {
        let dir = crate::archive::extracted(&self.extract_dir, archive).map_err(|reason| {
            UriError::BadArchive {
                archive: archive.to_path_buf(),
                reason,
            }
        })?;
        let inner: PathBuf = Path::new(member)
            .components()
            .filter(|c| matches!(c, Component::Normal(_)))
            .collect();
        let path = dir.join(&inner);
        if path.is_file() {
            Ok(path)
        } else {
            Err(UriError::NoSuchMember {
                archive: archive.to_path_buf(),
                member: member.to_owned(),
            })
        }
    }
}

/// Fetches `url` into `target` (through a temporary file, so a failed transfer leaves nothing).
#[cfg(feature = "download")]
fn fetch(url: &str, target: &Path) -> Result<(), String> {
    const MAX_DOWNLOAD_BYTES: u64 = 2 << 30;
    tracing::info!("downloading {url} into the asset cache (first use)");
    let mut response = ureq::get(url).call().map_err(|e| e.to_string())?;
    let bytes = response
        .body_mut()
        .with_config()
        .limit(MAX_DOWNLOAD_BYTES)
        .read_to_vec()
        .map_err(|e| e.to_string())?;
    if let Some(parent) = target.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create `{}`: {e}", parent.display()))?;
    }
    let size = bytes.len();
    let partial = target.with_extension("partial");
    std::fs::write(&partial, bytes)
        .map_err(|e| format!("cannot write `{}`: {e}", partial.display()))?;
    std::fs::rename(&partial, target)
        .map_err(|e| format!("cannot write `{}`: {e}", target.display()))?;
    tracing::info!("downloaded {url} ({:.1} MB)", size as f64 / 1e6);
    Ok(())
}

#[cfg(not(feature = "download"))]
fn fetch(_url: &str, _target: &Path) -> Result<(), String> {
    Err("this build has no download support (build with `--features download`)".into())
}

/// Refuses a remote URI that could name a file outside the asset cache: a host that is not a
/// host name (`..`, empty, with a separator) or a path with `.` or `..` components.
fn check_remote(uri: &str, host: &str, path: &str) -> Result<(), UriError> {
    let bad = |reason: &str| {
        Err(UriError::BadUri {
            uri: uri.to_owned(),
            reason: reason.to_owned(),
        })
    };
    let host_ok = !host.is_empty()
        && !host.starts_with('.')
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | ':' | '[' | ']'));
    if !host_ok {
        return bad("the host is not a host name");
    }
    if path
        .split(['/', '\\'])
        .any(|part| part == ".." || part == ".")
    {
        return bad("`.` and `..` are not allowed in a remote path");
    }
    Ok(())
}

/// Splits `a/b.zip/c/d.dae` into (`a/b.zip`, Some(`c/d.dae`)); no `.zip` component: (path, None).
fn split_archive(path: &str) -> (&str, Option<&str>) {
    match path.to_ascii_lowercase().find(".zip/") {
        Some(i) => (&path[..i + 4], Some(&path[i + 5..])),
        None => (path, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn archive_paths_split_at_the_first_zip_component() {
        assert_eq!(
            split_archive("mvsim-models/pallet.zip/pallet/pallet.dae"),
            ("mvsim-models/pallet.zip", Some("pallet/pallet.dae"))
        );
        assert_eq!(split_archive("A.ZIP/x"), ("A.ZIP", Some("x")));
        assert_eq!(split_archive("models/x.dae"), ("models/x.dae", None));
        assert_eq!(split_archive("x.zipper/y"), ("x.zipper/y", None));
    }
}
