//! A growable array kept in shared chunks: cloning it shares every chunk, and writing an element
//! copies only that element's chunk, once. A scene and the copy of it posed a step ahead hold
//! the same million still instances once; each copies only the chunks of what moves.
//!
//! Invariants: every chunk but the last holds exactly [`CHUNK`] elements; `len` is the total.

use std::ops::{Index, IndexMut};
use std::sync::Arc;

/// Elements per chunk: small enough that moving one instance copies little (about 150 KB of
/// instances), large enough that the chunk table stays in cache.
const CHUNK: usize = 1024;

#[derive(Clone, Debug)]
pub(crate) struct SharedChunks<T> {
    chunks: Vec<Arc<Vec<T>>>,
    len: usize,
}

impl<T> Default for SharedChunks<T> {
    fn default() -> Self {
        SharedChunks {
            chunks: Vec::new(),
            len: 0,
        }
    }
}

impl<T: Clone> SharedChunks<T> {
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn push(&mut self, value: T) {
        if self.len.is_multiple_of(CHUNK) {
            self.chunks.push(Arc::new(Vec::with_capacity(CHUNK)));
        }
        if let Some(last) = self.chunks.last_mut() {
            Arc::make_mut(last).push(value);
            self.len += 1;
        }
    }

    pub(crate) fn extend(&mut self, values: impl IntoIterator<Item = T>) {
        for value in values {
            self.push(value);
        }
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &T> {
        self.chunks.iter().flat_map(|chunk| chunk.iter())
    }

    /// Bytes held, shared chunks counted whole.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.chunks.capacity() * std::mem::size_of::<Arc<Vec<T>>>()
            + (self.chunks.iter())
                .map(|chunk| chunk.capacity() * std::mem::size_of::<T>())
                .sum::<usize>()
    }
}

impl<T> Index<usize> for SharedChunks<T> {
    type Output = T;

    #[inline]
    fn index(&self, i: usize) -> &T {
        &self.chunks[i / CHUNK][i % CHUNK]
    }
}

impl<T: Clone> IndexMut<usize> for SharedChunks<T> {
    /// Copies the element's chunk first if another clone shares it.
    fn index_mut(&mut self, i: usize) -> &mut T {
        &mut Arc::make_mut(&mut self.chunks[i / CHUNK])[i % CHUNK]
    }
}

#[cfg(test)]
mod tests {
    use super::{CHUNK, SharedChunks};
    use std::sync::Arc;

    #[test]
    fn clones_share_chunks_until_one_is_written() {
        let mut a = SharedChunks::default();
        a.extend(0..(2 * CHUNK + 5) as u64);
        assert_eq!(a.len(), 2 * CHUNK + 5);
        assert_eq!(a[CHUNK + 7], (CHUNK + 7) as u64);
        let mut b = a.clone();
        b[CHUNK + 7] = 99;
        assert_eq!((a[CHUNK + 7], b[CHUNK + 7]), ((CHUNK + 7) as u64, 99));
        // Only the written chunk was copied.
        let shared = |k: usize| Arc::ptr_eq(&a.chunks[k], &b.chunks[k]);
        assert!(shared(0) && !shared(1) && shared(2));
        b.push(7);
        assert_eq!((a.len(), b.len()), (2 * CHUNK + 5, 2 * CHUNK + 6));
        assert_eq!(b.iter().copied().last(), Some(7));
        assert!(a.iter().copied().eq(0..(2 * CHUNK + 5) as u64));
    }
}
