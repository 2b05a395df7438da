//! Running a step's short parallel passes without the calling thread going to sleep at their
//! ends, and making a frame's big buffers on every thread.
//!
//! A rayon join or parallel iterator whose thread runs out of work while another still runs the
//! last task sleeps after a few dozen idle rounds, and waking it takes tens of microseconds on a
//! virtual machine: at the end of every pass of a lidar's few hundred microseconds a step, that
//! is a sizeable share. Here the calling thread takes tasks while there are some and then spins
//! (yielding its core to other threads) until the last one is done. Results come in item order,
//! so nothing depends on which thread ran what.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// `n` zeros (`T::default()`), written by every thread of the pool. A frame's images are
/// megabytes (an HD frame's, 27 MB), which the allocator hands over from memory it had, and
/// so zeroes itself, on one thread, while the others wait.
///
/// `unsafe`: the vector's length is set once its first `n` slots are written (rayon's own
/// fill of a vector, element by element, was as fast in release builds and five times slower
/// in debug builds, the tests').
#[allow(unsafe_code)]
pub fn zeros<T: Copy + Default + Send>(n: usize) -> Vec<T> {
    use rayon::prelude::*;
    use std::mem::MaybeUninit;
    let mut v = Vec::with_capacity(n);
    let slots: &mut [MaybeUninit<T>] = &mut v.spare_capacity_mut()[..n];
    let chunk = n.div_ceil(rayon::current_num_threads()).max(1 << 14);
    (slots.par_chunks_mut(chunk)).for_each(|part| part.fill(MaybeUninit::new(T::default())));
    // SAFETY: the chunks cover `slots`, the first `n` slots of the capacity (`with_capacity(n)`
    // has at least `n`), and each chunk was written whole above.
    unsafe { v.set_len(n) };
    v
}

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

#[cfg(test)]
mod tests {
    use super::{map_spinning, zeros};

    /// Every slot is the default, for lengths around the chunks' and on any pool.
    #[test]
    fn zeros_are_defaults_of_the_length_asked() {
        for threads in [1, 3] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build();
            let pool = pool.expect("a thread pool");
            for n in [0, 1, 7, (1 << 14) - 1, 1 << 14, 3 * (1 << 14) + 5, 1 << 20] {
                let floats: Vec<f32> = pool.install(|| zeros(n));
                assert_eq!(floats.len(), n);
                assert!(floats.iter().all(|v| v.to_bits() == 0));
                let pixels: Vec<[u8; 3]> = pool.install(|| zeros(n));
                assert_eq!(pixels.len(), n);
                assert!(pixels.iter().all(|p| *p == [0; 3]));
            }
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
