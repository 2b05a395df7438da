//! Each sensor's own random generator, seeded from the run's seed and the sensor's full name
//! (`vehicle/sensor`, or `world/sensor` for standalone ones): adding or removing a sensor never
//! changes another's noise. Draws happen in scan order after the (parallel) ray casting, or, for
//! the parts of an observation made in parallel (a sweep's columns, an image's rows), in each
//! part's order on the part's own stream ([`Streams`]), so results do not depend on the thread
//! count.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal};

/// A sensor's generator.
#[derive(Clone, Debug)]
pub struct SensorRng {
    rng: ChaCha8Rng,
}

impl SensorRng {
    /// The generator of sensor `full_name` under `seed`.
    pub fn new(seed: u64, full_name: &str) -> SensorRng {
        // FNV-1a of the name, then SplitMix64 with the seed: stable across platforms and
        // releases (unlike std's hasher).
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in full_name.bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
        let mut z = seed ^ h.rotate_left(17);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        SensorRng {
            rng: ChaCha8Rng::seed_from_u64(z ^ (z >> 31)),
        }
    }

    /// Independent generators for `count` parts of one observation (an image's rows), to
    /// draw in parallel: keyed by one draw of this generator, part `k` on stream `k`. The
    /// draws do not depend on which thread takes which part.
    pub fn split(&mut self, count: usize) -> Vec<SensorRng> {
        let streams = self.streams();
        (0..count).map(|k| streams.stream(k as u64)).collect()
    }

    /// Normal draws of standard deviation `sigma`, without end: the very ones as many
    /// [`SensorRng::gaussian`] calls would give in turn (zeros, drawing nothing, when `sigma`
    /// is 0), at a fraction of the cost per draw when there are hundreds.
    pub fn gaussians(&mut self, sigma: f64) -> impl Iterator<Item = f64> + '_ {
        let normal = Normal::new(0.0, sigma)
            .ok()
            .filter(|_| sigma > 0.0 && sigma.is_finite());
        std::iter::repeat_with(move || normal.map_or(0.0, |n| n.sample(&mut self.rng)))
    }

    /// The key of a family of independent generators (see [`Streams`]), from one draw of
    /// this generator.
    pub fn streams(&mut self) -> Streams {
        let mut key = [0u8; 32];
        self.rng.fill_bytes(&mut key);
        Streams { key }
    }

    /// A normal draw of standard deviation `sigma` (exactly 0, drawing nothing, when `sigma`
    /// is 0, so noiseless sensors are exact).
    pub fn gaussian(&mut self, sigma: f64) -> f64 {
        if sigma > 0.0 && sigma.is_finite() {
            Normal::new(0.0, sigma).map_or(0.0, |n| n.sample(&mut self.rng))
        } else {
            0.0
        }
    }
}

/// Independent generators for the parts of one observation (an image's rows, a sweep's
/// columns), made on demand: part `k`'s generator is stream `k` of the family's key, so what
/// it draws does not depend on which thread takes the part, nor on which parts are drawn.
#[derive(Clone, Copy, Debug)]
pub struct Streams {
    key: [u8; 32],
}

impl Streams {
    /// The generator of part `k`.
    pub fn stream(&self, k: u64) -> SensorRng {
        let mut rng = ChaCha8Rng::from_seed(self.key);
        rng.set_stream(k);
        SensorRng { rng }
    }
}
