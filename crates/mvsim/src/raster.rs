//! Reading greyscale rasters (elevation images) into numbers.
//!
//! PNG through the `png` crate (pure Rust), and PGM (netpbm `P5`/`P2`, what ROS `map_server`
//! maps are usually stored in). Colour images are reduced to grey with the BT.601 luma weights,
//! as MRPT does when it loads an image "as grayscale".

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

/// Reads a PNG or PGM file as grey values.
pub fn read_grey_png(path: &Path) -> Result<Grey, String> {
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    if extension.as_deref() == Some("pgm") {
        let bytes =
            std::fs::read(path).map_err(|e| format!("cannot open `{}`: {e}", path.display()))?;
        return read_pgm(&bytes).map_err(|e| format!("`{}`: {e}", path.display()));
    }
    if extension.as_deref() != Some("png") {
        return Err(format!(
            "`{}`: only PNG and PGM images are read (convert it to PNG)",
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

/// A netpbm greymap: `P5` (binary, 8 or 16 bits) or `P2` (ASCII), comments allowed in the header.
fn read_pgm(bytes: &[u8]) -> Result<Grey, String> {
    let mut pos = 0;
    let mut token = || -> Option<String> {
        loop {
            while pos < bytes.len() && bytes[pos].is_ascii_whitespace() {
                pos += 1;
            }
            if pos < bytes.len() && bytes[pos] == b'#' {
                while pos < bytes.len() && bytes[pos] != b'\n' {
                    pos += 1;
                }
                continue;
            }
            break;
        }
        let start = pos;
        while pos < bytes.len() && !bytes[pos].is_ascii_whitespace() {
            pos += 1;
        }
        (pos > start).then(|| String::from_utf8_lossy(&bytes[start..pos]).into_owned())
    };
    let magic = token().ok_or("empty file")?;
    let mut number = |what: &str| -> Result<usize, String> {
        token()
            .and_then(|t| t.parse().ok())
            .ok_or_else(|| format!("not a valid PGM: bad {what}"))
    };
    let (cols, rows, max) = (number("width")?, number("height")?, number("maximum")?);
    if !(1..=65535).contains(&max) {
        return Err(format!("not a valid PGM: maximum {max}"));
    }
    if cols.saturating_mul(rows) > MAX_PIXELS {
        return Err(format!("{cols}x{rows} pixels, more than {MAX_PIXELS}"));
    }
    let n = cols * rows;
    let values: Vec<f64> = match magic.as_str() {
        "P5" => {
            // One whitespace byte separates the header from the raster.
            let data = bytes.get(pos + 1..).ok_or("not a valid PGM: no pixels")?;
            let wide = max > 255;
            let needed = if wide { 2 * n } else { n };
            if data.len() < needed {
                return Err(format!(
                    "not a valid PGM: {} bytes of pixels, expected {needed}",
                    data.len()
                ));
            }
            (0..n)
                .map(|i| {
                    let v = if wide {
                        u16::from_be_bytes([data[2 * i], data[2 * i + 1]])
                    } else {
                        u16::from(data[i])
                    };
                    f64::from(v) / max as f64
                })
                .collect()
        }
        "P2" => (0..n)
            .map(|_| number("pixel").map(|v| v as f64 / max as f64))
            .collect::<Result<_, _>>()?,
        other => return Err(format!("not a PGM (`{other}`): expected P5 or P2")),
    };
    Ok(Grey { rows, cols, values })
}
