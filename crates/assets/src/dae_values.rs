//! Collada values both the scene importer and the mesh reader need: URL ids, index strides,
//! float arrays (a module of their own, so `dae_import` and `dae_mesh` do not import each
//! other).

use dae_parser::{ArrayElement, Source, Url};

/// The id a Collada URL (`#id`) points at within its file.
pub(crate) fn url_id(url: &Url) -> Option<&str> {
    match url {
        Url::Fragment(s) => Some(s.as_str()),
        Url::Other(s) => s.strip_prefix('#'),
    }
}

/// Indices per entry of a `<p>` (or `<v>`) list: one more than its inputs' largest offset.
pub(crate) fn index_stride(inputs: &dae_parser::InputList) -> usize {
    inputs
        .inputs
        .iter()
        .map(|i| i.offset as usize)
        .max()
        .unwrap_or(0)
        + 1
}

/// A `<source>`'s float array.
pub(crate) fn floats(source: &Source) -> Option<&[f32]> {
    match source.array.as_ref()? {
        ArrayElement::Float(f) => Some(&f.val),
        _ => None,
    }
}
