//! Seeds for the behaviours a real Mac leaves open. Where the model cannot know which of
//! several things a real Mac does (when a SCSI Manager 4.3 completion arrives, whether an
//! underrun is an error), it picks among them with a seeded generator, so one seed is one
//! reproducible Mac and many seeds cover the possibilities.
//!
//! The seed comes from the `FERRITE_SEED` environment variable (decimal or `0x` hex; 0 when
//! unset), read when a configuration is made; `cargo xtask test` runs the driver suites under
//! many seeds and prints the one that failed.

/// The environment variable that chooses the seed.
pub const SEED_ENV: &str = "FERRITE_SEED";

/// The seed in force: `FERRITE_SEED`, or 0.
pub fn from_env() -> u64 {
    std::env::var(SEED_ENV)
        .ok()
        .and_then(|s| {
            let s = s.trim();
            match s.strip_prefix("0x") {
                Some(h) => u64::from_str_radix(h, 16).ok(),
                None => s.parse().ok(),
            }
        })
        .unwrap_or(0)
}

/// A small deterministic generator (SplitMix64): the same seed gives the same sequence on
/// every host.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5EED_F022_17E0_0000)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (`n` > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_sequence() {
        let a: Vec<u64> = (0..4)
            .map({
                let mut r = Rng::new(7);
                move |_| r.next_u64()
            })
            .collect();
        let mut r = Rng::new(7);
        let b: Vec<u64> = (0..4).map(|_| r.next_u64()).collect();
        assert_eq!(a, b);
        let mut other = Rng::new(8);
        assert_ne!(a[0], other.next_u64());
        assert!((0..100).all(|_| r.below(3) < 3));
    }
}
