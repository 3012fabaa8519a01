//! A small deterministic pseudo-random generator (64-bit LCG), so that data generation and
//! test position sets are reproducible from a seed.

pub struct Lcg(pub u64);

impl Lcg {
    /// The next 31 random bits.
    pub fn next_u31(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
}
