//! Randomness policy (MATH.md §6).
//!
//! - Releases use [`os_rng`]: ChaCha12 (rand's `StdRng` algorithm, a CSPRNG) keyed by the operating
//!   system's entropy source. The mechanisms' `privatize` requires `CryptoRng`.
//! - [`seeded_rng_for_experiments`] gives a reproducible generator for experiments and tests. It is
//!   **not for releases**: anyone who learns the seed can subtract the noise. Never log a seed.
//! - Parallel work derives independent streams from one key with [`StreamKey::stream`] (ChaCha's 64-bit
//!   stream id), so that re-running partition `i` redraws exactly the same noise for the same rows instead of
//!   fresh noise (fresh noise for the same rows would spend budget twice).

use crate::error::{Error, Fallible};
use rand::SeedableRng;
use rand::rngs::{ChaCha12Rng, SysRng};

/// The generator used for releases.
pub type ReleaseRng = ChaCha12Rng;

/// A CSPRNG seeded from the operating system. Use this for every real release.
pub fn os_rng() -> Fallible<ReleaseRng> {
    ReleaseRng::try_from_rng(&mut SysRng).map_err(|e| Error::Entropy(e.to_string()))
}

/// A reproducible generator for experiments and tests. **Not for releases.**
pub fn seeded_rng_for_experiments(seed: u64) -> ReleaseRng {
    ReleaseRng::seed_from_u64(seed)
}

/// A 256-bit key from which independent, reproducible generator streams are derived.
#[derive(Clone)]
pub struct StreamKey([u8; 32]);

impl StreamKey {
    /// A fresh key from the operating system (for releases).
    pub fn from_os() -> Fallible<Self> {
        let mut key = [0u8; 32];
        rand::TryRng::try_fill_bytes(&mut SysRng, &mut key).map_err(|e| Error::Entropy(e.to_string()))?;
        Ok(StreamKey(key))
    }

    /// A key derived from an experiment seed (**not for releases**).
    pub fn from_seed_for_experiments(seed: u64) -> Self {
        let mut key = [0u8; 32];
        rand::Rng::fill_bytes(&mut seeded_rng_for_experiments(seed), &mut key);
        StreamKey(key)
    }

    /// The key of these 32 bytes: for a front end that draws a release's key once (from the operating system)
    /// and sends it to the workers that release its rows. Anyone holding the bytes can remove the noise.
    pub fn from_bytes(bytes: [u8; 32]) -> Self {
        StreamKey(bytes)
    }

    /// The key's bytes, to send to the workers of one release; never write or log them.
    pub fn to_bytes(&self) -> [u8; 32] {
        self.0
    }

    /// Generator number `stream` under this key: the same key and stream always give the same sequence,
    /// and different streams are independent ChaCha keystreams.
    pub fn stream(&self, stream: u64) -> ReleaseRng {
        let mut rng = ReleaseRng::from_seed(self.0);
        rng.set_stream(stream);
        rng
    }
}

impl std::fmt::Debug for StreamKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The key determines every noise draw; never print it.
        f.write_str("StreamKey(<redacted>)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let key = StreamKey::from_seed_for_experiments(1);
        let a: Vec<u64> = (0..4).map(|_| 0).scan(key.stream(3), |r, _: u64| Some(r.next_u64())).collect();
        let b: Vec<u64> = (0..4).map(|_| 0).scan(key.stream(3), |r, _: u64| Some(r.next_u64())).collect();
        let c: Vec<u64> = (0..4).map(|_| 0).scan(key.stream(4), |r, _: u64| Some(r.next_u64())).collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(format!("{key:?}"), "StreamKey(<redacted>)");
        let mut os = os_rng().unwrap();
        assert_ne!(os.next_u64(), os_rng().unwrap().next_u64());
    }
}
