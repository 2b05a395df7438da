//! Running a step's short parallel passes without the calling thread going to sleep at their
//! ends, and a frame's big buffers zeroed a chunk at a time by the tasks that fill them.
//!
//! A rayon join or parallel iterator whose thread runs out of work while another still runs the
//! last task sleeps after a few dozen idle rounds, and waking it takes tens of microseconds on a
//! virtual machine: at the end of every pass of a lidar's few hundred microseconds a step, that
//! is a sizeable share. Here the calling thread takes tasks while there are some and then spins
//! (yielding its core to other threads) until the last one is done. Results come in item order,
//! so nothing depends on which thread ran what.

use std::mem::MaybeUninit;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// `f` of every item, each a task of the current rayon pool, in item order.
pub fn map_spinning<T: Send, R: Send>(items: &mut [T], f: impl Fn(&mut T) -> R + Sync) -> Vec<R> {
    let slots: Vec<Mutex<Option<R>>> = items.iter().map(|_| Mutex::new(None)).collect();
    let remaining = AtomicUsize::new(items.len());
    rayon::scope(|s| {
        for (item, slot) in items.iter_mut().zip(&slots) {
            let (f, remaining) = (&f, &remaining);
            s.spawn(move |_| {
                let result = f(item);
                if let Ok(mut slot) = slot.lock() {
                    *slot = Some(result);
                }
                remaining.fetch_sub(1, Ordering::Release);
            });
        }
        while remaining.load(Ordering::Acquire) > 0 {
            if rayon::yield_now() != Some(rayon::Yield::Executed) {
                std::thread::yield_now();
            }
        }
    });
    (slots.into_iter())
        .filter_map(|slot| slot.into_inner().ok().flatten())
        .collect()
}

/// A frame's buffer of `n` values, not written when made: its chunks go to the tasks that fill
/// them, each zeroing its chunk first ([`Chunk::zeroed`]), so that the zeros and the task's own
/// writes meet in its cache. Zeroing a whole HD frame beforehand (27 MB) wrote it to memory and
/// read it back: 4-6 % of `demo_turtlebot_world` on two threads.
///
/// `unsafe`, and sound because: the values are handed out once, as disjoint chunks covering
/// all `n`; a chunk writes every one of its values exactly once, either when it is zeroed or
/// when it is dropped unzeroed (also when unwinding), and counts them; the buffer becomes a
/// `Vec<T>` only when the count is `n`, after the chunks' borrows have ended.
pub struct LazyZeros<T> {
    slots: Vec<MaybeUninit<T>>,
    written: AtomicUsize,
    handed_out: bool,
}

/// Part of a [`LazyZeros`] buffer, for one task to zero and fill.
pub struct Chunk<'a, T: Copy + Default> {
    slots: &'a mut [MaybeUninit<T>],
    written: &'a AtomicUsize,
}

impl<T: Copy + Default> LazyZeros<T> {
    /// Room for `n` values, none written yet.
    #[allow(unsafe_code)]
    pub fn new(n: usize) -> LazyZeros<T> {
        let mut slots = Vec::with_capacity(n);
        // SAFETY: `MaybeUninit` values need no initialisation, and the capacity is `n`.
        unsafe { slots.set_len(n) };
        LazyZeros {
            slots,
            written: AtomicUsize::new(0),
            handed_out: false,
        }
    }

    /// The buffer in chunks of `size` values (the last may be shorter); none after the first
    /// hand-out (each value is handed out once).
    pub fn chunks(&mut self, size: usize) -> Vec<Chunk<'_, T>> {
        let n = self.slots.len();
        let size = size.max(1);
        let sizes = std::iter::repeat_n(size, n.div_ceil(size));
        self.chunks_of(sizes)
    }

    /// The buffer in consecutive chunks of `sizes` values (cut short at the buffer's end), and
    /// a last chunk of the rest if they do not cover it; none after the first hand-out. All
    /// are made at once, so that a chunk no task takes is dropped, and so written, with them.
    pub fn chunks_by(&mut self, sizes: &[usize]) -> Vec<Chunk<'_, T>> {
        self.chunks_of(sizes.iter().copied())
    }

    fn chunks_of(&mut self, sizes: impl Iterator<Item = usize>) -> Vec<Chunk<'_, T>> {
        if std::mem::replace(&mut self.handed_out, true) {
            return Vec::new();
        }
        let written = &self.written;
        let mut rest = &mut self.slots[..];
        let mut chunks = Vec::new();
        for size in sizes {
            let at = size.min(rest.len());
            let (slots, after) = std::mem::take(&mut rest).split_at_mut(at);
            chunks.push(Chunk { slots, written });
            rest = after;
        }
        if !rest.is_empty() {
            chunks.push(Chunk {
                slots: rest,
                written,
            });
        }
        chunks
    }

    /// The values, once every chunk has been zeroed or dropped. (A chunk leaked instead, which
    /// this crate never does, leaves values unwritten: all are zeros then, as made afresh.)
    #[allow(unsafe_code)]
    pub fn into_vec(mut self) -> Vec<T> {
        let n = self.slots.len();
        if *self.written.get_mut() != n {
            debug_assert!(false, "a chunk of a LazyZeros buffer was leaked");
            return vec![T::default(); n];
        }
        let mut slots = std::mem::ManuallyDrop::new(std::mem::take(&mut self.slots));
        let (ptr, len, capacity) = (slots.as_mut_ptr(), slots.len(), slots.capacity());
        // SAFETY: every value is written (`written` counted all `n` of them, each once, from
        // disjoint chunks), `MaybeUninit<T>` has `T`'s size and alignment, and the allocation
        // is handed over whole (`slots` is never dropped).
        unsafe { Vec::from_raw_parts(ptr.cast::<T>(), len, capacity) }
    }
}

impl<'a, T: Copy + Default> Chunk<'a, T> {
    /// The chunk's values, all zeros (`T::default()`), for the task to fill.
    #[allow(unsafe_code)]
    pub fn zeroed(mut self) -> &'a mut [T] {
        // Taken out: the chunk's drop then finds nothing left to write.
        let slots = std::mem::take(&mut self.slots);
        for slot in slots.iter_mut() {
            slot.write(T::default());
        }
        self.written.fetch_add(slots.len(), Ordering::Relaxed);
        // SAFETY: every value of `slots` was written just above; `MaybeUninit<T>` has `T`'s
        // layout.
        unsafe { &mut *(std::ptr::from_mut(slots) as *mut [T]) }
    }
}

impl<T: Copy + Default> Drop for Chunk<'_, T> {
    /// A chunk no task zeroed (one its pass skipped, or whose task panicked) is written with
    /// zeros here, so that every value of the buffer is written.
    fn drop(&mut self) {
        for slot in self.slots.iter_mut() {
            slot.write(T::default());
        }
        self.written.fetch_add(self.slots.len(), Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::{LazyZeros, map_spinning};

    /// Chunks zeroed and filled, or dropped unzeroed, make the whole buffer; a second hand-out
    /// gives nothing.
    #[test]
    fn lazy_zeros_are_what_the_chunks_wrote_and_zeros_elsewhere() {
        for n in [0usize, 1, 7, 64, 1000] {
            let mut buffer = LazyZeros::<u32>::new(n);
            for (k, chunk) in buffer.chunks(10).into_iter().enumerate() {
                if k % 3 == 2 {
                    continue; // dropped unzeroed
                }
                let values = chunk.zeroed();
                assert!(values.iter().all(|&v| v == 0));
                if k % 3 == 1 {
                    for (i, v) in values.iter_mut().enumerate() {
                        *v = (10 * k + i) as u32 + 1;
                    }
                }
            }
            assert!(buffer.chunks(10).is_empty());
            let values = buffer.into_vec();
            assert_eq!(values.len(), n);
            for (i, &v) in values.iter().enumerate() {
                let expected = if (i / 10) % 3 == 1 { i as u32 + 1 } else { 0 };
                assert_eq!(v, expected, "value {i} of {n}");
            }
        }
    }

    /// Chunks of given sizes, the rest handed out too; sizes past the end cut short.
    #[test]
    fn lazy_zeros_in_chunks_of_given_sizes_cover_the_buffer() {
        for (sizes, lengths) in [
            (vec![3, 0, 4], vec![3, 0, 4, 3]),
            (vec![6, 6], vec![6, 4]),
            (vec![10], vec![10]),
            (vec![], vec![10]),
        ] {
            let mut buffer = LazyZeros::<u8>::new(10);
            let chunks = buffer.chunks_by(&sizes);
            let found: Vec<usize> = chunks.iter().map(|c| c.slots.len()).collect();
            assert_eq!(found, lengths);
            let mut chunks = chunks.into_iter();
            if let Some(first) = chunks.next() {
                first.zeroed().fill(7);
            }
            drop(chunks);
            let values = buffer.into_vec();
            let sevens = lengths[0];
            assert!(values[..sevens].iter().all(|&v| v == 7));
            assert!(values[sevens..].iter().all(|&v| v == 0));
        }
    }

    /// Chunks filled by the tasks of a pool, as a frame's blocks are.
    #[test]
    fn lazy_zeros_filled_in_parallel_are_whole() {
        use rayon::prelude::*;
        let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build();
        let pool = pool.expect("a thread pool");
        let mut buffer = LazyZeros::<f32>::new(100_003);
        let chunks = buffer.chunks(4096);
        pool.install(|| {
            chunks.into_par_iter().enumerate().for_each(|(k, chunk)| {
                let values = chunk.zeroed();
                values[0] = k as f32;
            })
        });
        let values = buffer.into_vec();
        assert_eq!(values.len(), 100_003);
        for (i, &v) in values.iter().enumerate() {
            let expected = if i % 4096 == 0 {
                (i / 4096) as f32
            } else {
                0.0
            };
            assert_eq!(v.to_bits(), expected.to_bits());
        }
    }

    #[test]
    fn results_come_in_item_order_whatever_the_threads() {
        for threads in [1, 2, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("pool");
            let mut items: Vec<u64> = (0..40).collect();
            let squares = pool.install(|| {
                map_spinning(&mut items, |x| {
                    // Uneven tasks, some with nested parallel work.
                    let inner: u64 = map_spinning(&mut vec![*x; (*x % 4) as usize], |y| *y)
                        .iter()
                        .sum();
                    *x += 1;
                    *x * *x + inner
                })
            });
            let expected: Vec<u64> = (0..40u64)
                .map(|x| (x + 1) * (x + 1) + x * (x % 4))
                .collect();
            assert_eq!(squares, expected, "{threads} threads");
            assert_eq!(items, (1..41).collect::<Vec<u64>>());
        }
        // Outside any pool (the global one).
        assert_eq!(map_spinning(&mut [1, 2, 3], |x| *x * 2), vec![2, 4, 6]);
    }
}
