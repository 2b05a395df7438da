//! A growable array kept in shared chunks: cloning it shares every chunk, and writing an element
//! copies only that element's chunk, once. A scene and the copy of it posed a step ahead hold
//! the same million still instances once; each copies only the chunks of what moves.
//!
//! Invariants: every chunk in `full` holds exactly [`CHUNK`] elements; `tail` holds the rest
//! (fewer than [`CHUNK`]), which clones copy (a chunk at most).

use std::ops::{Index, IndexMut};
use std::sync::Arc;

/// Elements per chunk: small enough that moving one instance copies little (about 150 KB of
/// instances), large enough that the chunk table stays in cache.
const CHUNK: usize = 1024;

/// Full chunks are `Arc<[T]>`, not `Arc<Vec<T>>`: reading an element follows one pointer from
/// the chunk table instead of two, and a ray's walk reads an instance's box and transform for
/// every instance it meets (a hit on MAVS's ground fetching its box cost about 3 % of
/// `grass_dense` with the second pointer).
#[derive(Clone, Debug)]
pub(crate) struct SharedChunks<T> {
    full: Vec<Arc<[T]>>,
    tail: Vec<T>,
}

impl<T> Default for SharedChunks<T> {
    fn default() -> Self {
        SharedChunks {
            full: Vec::new(),
            tail: Vec::new(),
        }
    }
}

impl<T: Clone> SharedChunks<T> {
    pub(crate) fn len(&self) -> usize {
        self.full.len() * CHUNK + self.tail.len()
    }

    pub(crate) fn push(&mut self, value: T) {
        self.tail.push(value);
        if self.tail.len() == CHUNK {
            self.full.push(Arc::from(std::mem::take(&mut self.tail)));
        }
    }

    pub(crate) fn extend(&mut self, values: impl IntoIterator<Item = T>) {
        for value in values {
            self.push(value);
        }
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &T> {
        (self.full.iter())
            .flat_map(|chunk| chunk.iter())
            .chain(&self.tail)
    }

    /// Bytes held, shared chunks counted whole.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.full.capacity() * std::mem::size_of::<Arc<[T]>>()
            + (self.full.len() * CHUNK + self.tail.capacity()) * std::mem::size_of::<T>()
    }
}

impl<T> Index<usize> for SharedChunks<T> {
    type Output = T;

    #[inline]
    fn index(&self, i: usize) -> &T {
        match self.full.get(i / CHUNK) {
            Some(chunk) => &chunk[i % CHUNK],
            None => &self.tail[i - self.full.len() * CHUNK],
        }
    }
}

impl<T: Clone> IndexMut<usize> for SharedChunks<T> {
    /// Copies the element's chunk first if another clone shares it.
    fn index_mut(&mut self, i: usize) -> &mut T {
        let first_in_tail = self.full.len() * CHUNK;
        match self.full.get_mut(i / CHUNK) {
            Some(chunk) => &mut Arc::make_mut(chunk)[i % CHUNK],
            None => &mut self.tail[i - first_in_tail],
        }
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
        let shared = |k: usize| Arc::ptr_eq(&a.full[k], &b.full[k]);
        assert!(shared(0) && !shared(1));
        b[2 * CHUNK + 1] = 98;
        assert_eq!(
            (a[2 * CHUNK + 1], b[2 * CHUNK + 1]),
            ((2 * CHUNK + 1) as u64, 98)
        );
        b.push(7);
        assert_eq!((a.len(), b.len()), (2 * CHUNK + 5, 2 * CHUNK + 6));
        assert_eq!(b.iter().copied().last(), Some(7));
        assert!(a.iter().copied().eq(0..(2 * CHUNK + 5) as u64));
    }
}
