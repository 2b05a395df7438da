//! Images as PNG files a person can open: colour, 16-bit depth, and label images as colours.

/// Why an image could not be encoded.
pub type PngError = String;

fn encode(
    width: u32,
    height: u32,
    color: png::ColorType,
    depth: png::BitDepth,
    data: &[u8],
) -> Result<Vec<u8>, PngError> {
    let mut bytes = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut bytes, width, height);
        encoder.set_color(color);
        encoder.set_depth(depth);
        encoder
            .write_header()
            .and_then(|mut w| w.write_image_data(data))
            .map_err(|e| e.to_string())?;
    }
    Ok(bytes)
}

/// An 8-bit RGB PNG of row-major pixels.
pub fn rgb_png(width: u32, height: u32, rgb: &[u8]) -> Result<Vec<u8>, PngError> {
    encode(
        width,
        height,
        png::ColorType::Rgb,
        png::BitDepth::Eight,
        rgb,
    )
}

/// A 16-bit grey PNG (depth in its units; PNG stores 16-bit samples big-endian).
pub fn gray16_png(width: u32, height: u32, values: &[u16]) -> Result<Vec<u8>, PngError> {
    let data: Vec<u8> = values.iter().flat_map(|v| v.to_be_bytes()).collect();
    encode(
        width,
        height,
        png::ColorType::Grayscale,
        png::BitDepth::Sixteen,
        &data,
    )
}

/// A distinct, stable colour per id (0: black).
pub fn id_colour(id: u32) -> [u8; 3] {
    if id == 0 {
        return [0; 3];
    }
    // A multiplicative hash spreads neighbouring ids over the colour cube; the floor of 64
    // keeps every id distinguishable from black.
    let h = id.wrapping_mul(0x9E37_79B1);
    [h >> 24, h >> 16, h >> 8].map(|c| 64 + (c as u8) % 192)
}

/// Label ids as `rgb8` pixels, [`id_colour`] each. Labels come in runs (one object covers many
/// neighbouring pixels), so a run reuses its colour instead of hashing every pixel.
pub fn id_colours(ids: impl ExactSizeIterator<Item = u32>) -> Vec<u8> {
    let mut rgb = Vec::with_capacity(ids.len() * 3);
    let mut last = (0, id_colour(0));
    for id in ids {
        if id != last.0 {
            last = (id, id_colour(id));
        }
        rgb.extend_from_slice(&last.1);
    }
    rgb
}

/// A label image (instance or class ids) as an RGB PNG, one colour per id.
pub fn labels_png(
    width: u32,
    height: u32,
    ids: impl ExactSizeIterator<Item = u32>,
) -> Result<Vec<u8>, PngError> {
    rgb_png(width, height, &id_colours(ids))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_of_ids_is_coloured_as_each_id_alone() {
        let ids = [0, 0, 7, 7, 7, 0, 3, 3, 7, u32::MAX];
        let each: Vec<u8> = ids.iter().flat_map(|&id| id_colour(id)).collect();
        assert_eq!(id_colours(ids.into_iter()), each);
    }

    #[test]
    fn neighbouring_ids_get_different_colours() {
        let colours: Vec<[u8; 3]> = (1..200).map(id_colour).collect();
        for w in colours.windows(2) {
            assert_ne!(w[0], w[1]);
        }
        assert_eq!(id_colour(0), [0; 3]);
    }
}
