//! MRPT's serialized occupancy grids (`.gridmap`, and gzipped `.gridmap.gz`), as MVSim's
//! `occupancy_grid` loads them (`demo_1robot`'s `uma_campus.gridmap.gz`).
//!
//! The file is one MRPT object: a byte `0x80 | n`, the class name (`n` bytes,
//! `COccupancyGridMap2D`), a version byte, then (versions 3 to 6, those MRPT 1.x and 2.x write)
//! the bits per cell (8 or 16), `size_x` and `size_y` (u32), `x_min`, `x_max`, `y_min`, `y_max`
//! and the resolution (f32), and `size_x · size_y` cells, row by row from `y_min`, each a signed
//! log-odds of the cell being free (MRPT's `getCell` is the free probability). What follows
//! (insertion and likelihood options) is not needed. A cell is occupied when its free
//! probability is below MVSim's threshold of 0.5, that is when its log-odds is negative.
//!
//! Sizes are checked against what the file holds before anything is allocated, and a gzipped
//! file is inflated within [`MAX_INFLATED_BYTES`].

use passerby_world::OccupancyCells;
use std::io::Read;

/// The most bytes a `.gridmap.gz` may inflate to (a grid of 20,000 x 25,000 cells of 8 bits).
pub const MAX_INFLATED_BYTES: u64 = 512 << 20;

const CLASS: &[u8] = b"COccupancyGridMap2D";

/// Decodes a `.gridmap` file's bytes (gzipped or not).
pub fn read_gridmap(bytes: &[u8]) -> Result<OccupancyCells, String> {
    let inflated;
    let data = if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(bytes)
            .take(MAX_INFLATED_BYTES + 1)
            .read_to_end(&mut out)
            .map_err(|e| format!("not a readable gzip file: {e}"))?;
        if out.len() as u64 > MAX_INFLATED_BYTES {
            return Err(format!("inflates to more than {MAX_INFLATED_BYTES} bytes"));
        }
        inflated = out;
        &inflated[..]
    } else {
        bytes
    };
    let mut r = Reader { data, at: 0 };
    let head = r.take(1)?[0];
    let name = r.take(usize::from(head & 0x7f))?;
    if head & 0x80 == 0 || name != CLASS {
        return Err(format!(
            "not an MRPT `COccupancyGridMap2D` (it holds `{}`)",
            String::from_utf8_lossy(name)
        ));
    }
    let version = r.take(1)?[0];
    if !(3..=6).contains(&version) {
        return Err(format!(
            "`COccupancyGridMap2D` version {version} is not read (versions 3 to 6 are)"
        ));
    }
    let bits = r.take(1)?[0];
    if bits != 8 && bits != 16 {
        return Err(format!("{bits} bits per cell: expected 8 or 16"));
    }
    let size_x = r.u32()? as usize;
    let size_y = r.u32()? as usize;
    let [x_min, _x_max, y_min, _y_max, resolution] =
        [r.f32()?, r.f32()?, r.f32()?, r.f32()?, r.f32()?];
    if !(resolution > 0.0 && resolution.is_finite() && x_min.is_finite() && y_min.is_finite()) {
        return Err(format!(
            "resolution {resolution} or corner ({x_min}, {y_min}) is not usable"
        ));
    }
    let cell_bytes = usize::from(bits / 8);
    let count = size_x
        .checked_mul(size_y)
        .filter(|n| n.checked_mul(cell_bytes).is_some_and(|b| b <= r.left()))
        .ok_or_else(|| {
            format!("{size_x} x {size_y} cells of {bits} bits: more than the file holds")
        })?;
    let cells = r.take(count * cell_bytes)?;
    // MRPT's lowest cell value is one above the type's (its `CELLTYPE_MIN`).
    let log_odds: Vec<i32> = if cell_bytes == 1 {
        cells
            .iter()
            .map(|&c| i32::from(c as i8).max(-127))
            .collect()
    } else {
        cells
            .chunks_exact(2)
            .map(|c| i32::from(i16::from_le_bytes([c[0], c[1]])).max(-32767))
            .collect()
    };
    Ok(OccupancyCells {
        cols: size_x,
        rows: size_y,
        resolution: f64::from(resolution),
        origin: [f64::from(x_min), f64::from(y_min)],
        yaw: 0.0,
        occupied: log_odds.iter().map(|&l| l < 0).collect(),
        shade: log_odds.into_iter().map(shade_of_log_odds).collect(),
    })
}

/// How MRPT draws a cell of integer log-odds `l` (`l2p_255`): the free probability
/// `1 / (1 + exp(-l / 16))` times 255, truncated.
pub(crate) fn shade_of_log_odds(l: i32) -> u8 {
    let free = 1.0 / (1.0 + (-(l as f32) / 16.0).exp());
    (free * 255.0) as u8
}

/// How MRPT draws a cell it was given as free probability `p` (from an image): stored as
/// 8-bit log-odds (`p2l`: the logit times 16, rounded, after `loadFromBitmap` clamps `p` to
/// 0.01..0.99), then drawn by [`shade_of_log_odds`].
pub(crate) fn shade_of_free_probability(p: f64) -> u8 {
    let p = p.clamp(0.01, 0.99);
    let l = ((p / (1.0 - p)).ln() * 16.0).round() as i32;
    shade_of_log_odds(l.clamp(-127, 127))
}

/// Little-endian fields, never past the end.
struct Reader<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn left(&self) -> usize {
        self.data.len() - self.at
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        if n > self.left() {
            return Err("the file ends early".into());
        }
        let out = &self.data[self.at..self.at + n];
        self.at += n;
        Ok(out)
    }

    fn u32(&mut self) -> Result<u32, String> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn f32(&mut self) -> Result<f32, String> {
        let b = self.take(4)?;
        Ok(f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 3 x 2 grid of 8-bit cells, as MRPT writes it.
    fn grid(bits: u8, cells: &[i16]) -> Vec<u8> {
        let mut b = vec![0x80 | CLASS.len() as u8];
        b.extend_from_slice(CLASS);
        b.extend_from_slice(&[3, bits]);
        b.extend_from_slice(&3u32.to_le_bytes());
        b.extend_from_slice(&2u32.to_le_bytes());
        for v in [-1.0f32, 0.5, 2.0, 3.0, 0.5] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        for &c in cells {
            if bits == 8 {
                b.push(c as i8 as u8);
            } else {
                b.extend_from_slice(&c.to_le_bytes());
            }
        }
        b.extend_from_slice(&[0; 16]);
        b
    }

    #[test]
    fn cells_with_negative_log_odds_are_occupied() {
        for bits in [8, 16] {
            let g = read_gridmap(&grid(bits, &[0, -5, 100, 7, -128, 0])).unwrap();
            assert_eq!(
                (g.cols, g.rows, g.resolution, g.origin),
                (3, 2, 0.5, [-1.0, 2.0])
            );
            assert_eq!(g.occupied, [false, true, false, false, true, false]);
            // Unknown cells are drawn 127 (transparent), as MRPT's `l2p_255(0)`.
            assert_eq!(g.shade[0], 127);
            assert!(g.shade[1] < 127 && g.shade[2] > 240);
        }
    }

    #[test]
    fn shades_follow_mrpt_lookup_tables() {
        // `loadFromBitmap` clamps to 0.01..0.99: black and white draw as 2 and 252.
        assert_eq!(shade_of_free_probability(0.0), 2);
        assert_eq!(shade_of_free_probability(1.0), 252);
        assert_eq!(shade_of_free_probability(0.5), 127);
        assert_eq!(shade_of_log_odds(-127), 0);
    }

    #[test]
    fn what_is_not_a_grid_or_is_cut_is_an_error() {
        let g = grid(8, &[0; 6]);
        assert!(read_gridmap(&g[..40]).unwrap_err().contains("ends early"));
        assert!(
            read_gridmap(&g[..53])
                .unwrap_err()
                .contains("more than the file holds")
        );
        assert!(
            read_gridmap(b"\x85hello")
                .unwrap_err()
                .contains("not an MRPT")
        );
        let mut huge = grid(8, &[0; 6]);
        huge[22..26].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(
            read_gridmap(&huge)
                .unwrap_err()
                .contains("more than the file holds")
        );
        let mut v9 = grid(8, &[0; 6]);
        v9[20] = 9;
        assert!(read_gridmap(&v9).unwrap_err().contains("version 9"));
    }
}
