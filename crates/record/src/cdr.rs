//! A writer of ROS 2's serialization: OMG CDR (XCDR1), little endian, after the 4-byte
//! encapsulation header `00 01 00 00`. Every primitive is aligned to its own size (8-byte types
//! to 8) counted from the end of that header; strings are a u32 length that counts the
//! terminating NUL, the bytes and the NUL; sequences a u32 count and their elements; fixed
//! arrays their elements only.

/// A CDR message being written.
#[derive(Clone, Debug)]
pub struct Cdr {
    buf: Vec<u8>,
}

impl Default for Cdr {
    fn default() -> Self {
        Cdr::new()
    }
}

impl Cdr {
    /// An empty message (just the encapsulation header).
    pub fn new() -> Cdr {
        Cdr {
            buf: vec![0x00, 0x01, 0x00, 0x00],
        }
    }

    /// An empty message with room for `bytes` without reallocating.
    pub fn with_capacity(bytes: usize) -> Cdr {
        let mut buf = Vec::with_capacity(bytes.max(4));
        buf.extend([0x00, 0x01, 0x00, 0x00]);
        Cdr { buf }
    }

    fn align(&mut self, n: usize) {
        let offset = self.buf.len() - 4;
        let pad = (n - offset % n) % n;
        self.buf.extend(std::iter::repeat_n(0u8, pad));
    }

    /// `uint8` / `bool` / `char`.
    pub fn u8(&mut self, v: u8) -> &mut Self {
        self.buf.push(v);
        self
    }

    /// `int8`.
    pub fn i8(&mut self, v: i8) -> &mut Self {
        self.buf.push(v as u8);
        self
    }

    /// `bool`.
    pub fn bool(&mut self, v: bool) -> &mut Self {
        self.u8(u8::from(v))
    }

    /// `uint16`.
    pub fn u16(&mut self, v: u16) -> &mut Self {
        self.align(2);
        self.buf.extend(v.to_le_bytes());
        self
    }

    /// `uint32`.
    pub fn u32(&mut self, v: u32) -> &mut Self {
        self.align(4);
        self.buf.extend(v.to_le_bytes());
        self
    }

    /// `int32`.
    pub fn i32(&mut self, v: i32) -> &mut Self {
        self.align(4);
        self.buf.extend(v.to_le_bytes());
        self
    }

    /// `float32`.
    pub fn f32(&mut self, v: f32) -> &mut Self {
        self.align(4);
        self.buf.extend(v.to_le_bytes());
        self
    }

    /// `float64`.
    pub fn f64(&mut self, v: f64) -> &mut Self {
        self.align(8);
        self.buf.extend(v.to_le_bytes());
        self
    }

    /// `string`.
    pub fn string(&mut self, s: &str) -> &mut Self {
        self.u32(s.len() as u32 + 1);
        self.buf.extend(s.as_bytes());
        self.buf.push(0);
        self
    }

    /// A sequence's length (write its elements next).
    pub fn len(&mut self, n: usize) -> &mut Self {
        self.u32(n as u32)
    }

    /// `uint8[]` (e.g. PointCloud2 data).
    pub fn bytes(&mut self, b: &[u8]) -> &mut Self {
        self.len(b.len());
        self.buf.extend(b);
        self
    }

    /// `uint8[]` of `count` fixed-size records (point cloud or image data) written in place:
    /// `fill` gets each record's index and its `record_len` bytes, zeroed.
    pub fn records(
        &mut self,
        count: usize,
        record_len: usize,
        mut fill: impl FnMut(usize, &mut [u8]),
    ) -> &mut Self {
        let len = count * record_len;
        self.len(len);
        let start = self.buf.len();
        self.buf.resize(start + len, 0);
        if record_len > 0 {
            for (k, record) in self.buf[start..].chunks_exact_mut(record_len).enumerate() {
                fill(k, record);
            }
        }
        self
    }

    /// `float32[]`.
    pub fn f32_seq(&mut self, v: &[f32]) -> &mut Self {
        self.len(v.len());
        for x in v {
            self.f32(*x);
        }
        self
    }

    /// `float64[N]` (a fixed array: no length).
    pub fn f64_array(&mut self, v: &[f64]) -> &mut Self {
        for x in v {
            self.f64(*x);
        }
        self
    }

    /// The serialized bytes.
    pub fn finish(self) -> Vec<u8> {
        self.buf
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alignment_counts_from_after_the_header_and_strings_carry_their_nul() {
        let mut c = Cdr::new();
        c.u8(1).f64(2.0).string("ab").u16(3);
        let b = c.finish();
        assert_eq!(&b[..4], &[0, 1, 0, 0]);
        assert_eq!(b[4], 1);
        assert_eq!(&b[5..12], &[0; 7], "f64 aligned to 8 after the header");
        assert_eq!(&b[12..20], &2.0f64.to_le_bytes());
        assert_eq!(&b[20..24], &3u32.to_le_bytes(), "length counts the NUL");
        assert_eq!(&b[24..27], b"ab\0");
        assert_eq!(b[27], 0, "u16 aligned to 2");
        assert_eq!(&b[28..30], &3u16.to_le_bytes());
    }

    #[test]
    fn records_are_a_byte_sequence_filled_in_place() {
        let mut c = Cdr::new();
        c.u8(7).records(3, 2, |k, r| {
            r.copy_from_slice(&(k as u16 * 10).to_le_bytes())
        });
        let b = c.finish();
        assert_eq!(
            &b[8..12],
            &6u32.to_le_bytes(),
            "length in bytes, aligned to 4"
        );
        assert_eq!(&b[12..], &[0, 0, 10, 0, 20, 0]);
    }
}
