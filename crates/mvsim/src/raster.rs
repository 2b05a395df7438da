//! Reading greyscale rasters (elevation images) into numbers.
//!
//! PNG only, through the `png` crate (pure Rust). Colour images are reduced to grey with the
//! BT.601 luma weights, as MRPT does when it loads an image "as grayscale".

use std::path::Path;

/// A greyscale image: `rows × cols` values in [0, 1], row 0 at the top.
pub struct Grey {
    /// Image height.
    pub rows: usize,
    /// Image width.
    pub cols: usize,
    /// Row-major values.
    pub values: Vec<f64>,
}

/// Largest image accepted (pixels), to keep a bad file from exhausting memory.
const MAX_PIXELS: usize = 1 << 26;

/// Reads a PNG file as grey values.
pub fn read_grey_png(path: &Path) -> Result<Grey, String> {
    let is_png = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("png"));
    if !is_png {
        return Err(format!(
            "`{}`: only PNG images are read (convert it to PNG)",
            path.display()
        ));
    }
    let file =
        std::fs::File::open(path).map_err(|e| format!("cannot open `{}`: {e}", path.display()))?;
    let mut decoder = png::Decoder::new(std::io::BufReader::new(file));
    decoder.set_transformations(png::Transformations::EXPAND);
    let mut reader = decoder
        .read_info()
        .map_err(|e| format!("`{}` is not a valid PNG: {e}", path.display()))?;
    let (cols, rows) = (reader.info().width as usize, reader.info().height as usize);
    if cols * rows > MAX_PIXELS {
        return Err(format!(
            "`{}` has {cols}x{rows} pixels, more than {MAX_PIXELS}",
            path.display()
        ));
    }
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| format!("`{}`: image too large", path.display()))?;
    let mut buf = vec![0; size];
    let frame = reader
        .next_frame(&mut buf)
        .map_err(|e| format!("`{}` is not a valid PNG: {e}", path.display()))?;
    let bytes = &buf[..frame.buffer_size()];
    let channels = frame.color_type.samples();
    let sixteen = frame.bit_depth == png::BitDepth::Sixteen;
    let sample = |i: usize| -> f64 {
        if sixteen {
            f64::from(u16::from_be_bytes([bytes[2 * i], bytes[2 * i + 1]])) / 65535.0
        } else {
            f64::from(bytes[i]) / 255.0
        }
    };
    let mut values = Vec::with_capacity(rows * cols);
    for p in 0..rows * cols {
        let base = p * channels;
        let grey = match channels {
            1 | 2 => sample(base),
            _ => 0.299 * sample(base) + 0.587 * sample(base + 1) + 0.114 * sample(base + 2),
        };
        values.push(grey);
    }
    Ok(Grey { rows, cols, values })
}
