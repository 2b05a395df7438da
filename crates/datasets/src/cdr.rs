//! A reader of ROS 2's serialization (OMG CDR, XCDR1, little endian), the counterpart of
//! `passerby-record`'s writer: primitives aligned to their size from the end of the 4-byte
//! encapsulation header, strings as a u32 length counting their NUL, sequences as a u32 count.
//! Every length is checked against the bytes left before anything is allocated.

/// Why a message could not be read.
#[derive(Debug, thiserror::Error)]
pub enum CdrError {
    /// The message ends before a field does.
    #[error("truncated at byte {0}")]
    Truncated(usize),
    /// Not little-endian CDR.
    #[error("encapsulation {0:#06x} is not little-endian CDR")]
    Encapsulation(u16),
    /// A string that is not UTF-8 or lacks its NUL.
    #[error("bad string at byte {0}")]
    BadString(usize),
}

/// A message being read.
pub struct Cdr<'a> {
    body: &'a [u8],
    pos: usize,
}

impl<'a> Cdr<'a> {
    /// The message `bytes` (with its encapsulation header).
    pub fn new(bytes: &'a [u8]) -> Result<Cdr<'a>, CdrError> {
        let header = bytes.get(..4).ok_or(CdrError::Truncated(0))?;
        let kind = u16::from_be_bytes([header[0], header[1]]);
        if kind != 1 {
            return Err(CdrError::Encapsulation(kind));
        }
        Ok(Cdr {
            body: &bytes[4..],
            pos: 0,
        })
    }

    fn take(&mut self, n: usize, align: usize) -> Result<&'a [u8], CdrError> {
        let start = self.pos.div_ceil(align) * align;
        let end = start.checked_add(n).ok_or(CdrError::Truncated(self.pos))?;
        let bytes = self
            .body
            .get(start..end)
            .ok_or(CdrError::Truncated(self.pos + 4))?;
        self.pos = end;
        Ok(bytes)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], CdrError> {
        let bytes = self.take(N, N)?;
        let mut out = [0u8; N];
        out.copy_from_slice(bytes);
        Ok(out)
    }

    /// `uint8` / `bool`.
    pub fn u8(&mut self) -> Result<u8, CdrError> {
        Ok(self.take(1, 1)?[0])
    }

    /// `uint32`.
    pub fn u32(&mut self) -> Result<u32, CdrError> {
        self.array().map(u32::from_le_bytes)
    }

    /// `int32`.
    pub fn i32(&mut self) -> Result<i32, CdrError> {
        self.array().map(i32::from_le_bytes)
    }

    /// `float64`.
    pub fn f64(&mut self) -> Result<f64, CdrError> {
        self.array().map(f64::from_le_bytes)
    }

    /// `string`.
    pub fn string(&mut self) -> Result<&'a str, CdrError> {
        let at = self.pos + 4;
        let len = self.u32()? as usize;
        let bytes = self.take(len, 1)?;
        match bytes.split_last() {
            Some((0, text)) => std::str::from_utf8(text).map_err(|_| CdrError::BadString(at)),
            None => Ok(""),
            _ => Err(CdrError::BadString(at)),
        }
    }

    /// A sequence's element count, refused when its elements (at least `min_size` bytes each)
    /// could not fit in what is left.
    pub fn count(&mut self, min_size: usize) -> Result<usize, CdrError> {
        let at = self.pos + 4;
        let n = self.u32()? as usize;
        if n.saturating_mul(min_size.max(1)) > self.body.len().saturating_sub(self.pos) {
            return Err(CdrError::Truncated(at));
        }
        Ok(n)
    }

    /// `uint8[]`: the bytes, borrowed.
    pub fn byte_sequence(&mut self) -> Result<&'a [u8], CdrError> {
        let n = self.count(1)?;
        self.take(n, 1)
    }

    /// `builtin_interfaces/Time` as nanoseconds (negative seconds are refused as truncation
    /// would hide them: stamps are simulated time after an epoch).
    pub fn time_ns(&mut self) -> Result<u64, CdrError> {
        let at = self.pos + 4;
        let sec = self.i32()?;
        let nanosec = self.u32()?;
        let sec = u64::try_from(sec).map_err(|_| CdrError::Truncated(at))?;
        Ok(sec * 1_000_000_000 + u64::from(nanosec))
    }

    /// `std_msgs/Header`: stamp (ns) and frame.
    pub fn header(&mut self) -> Result<(u64, &'a str), CdrError> {
        Ok((self.time_ns()?, self.string()?))
    }
}
