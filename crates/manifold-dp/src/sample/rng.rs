//! Randomness policy (docs/math.md §6).
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
use std::convert::Infallible;

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

/// Words (u32) of a row's own block in the shared row stream: one ChaCha block, enough for most draws.
pub const ROW_WORDS: usize = 16;

/// The stream of a key that holds every row's first block (block `r` for row `r`).
const ROW_BLOCKS_STREAM: u64 = 0;
/// The stream whose first block derives the key of the rows' overflow streams.
const OVERFLOW_KEY_STREAM: u64 = 1;

impl StreamKey {
    /// The first [`ROW_WORDS`] words of the randomness of each row in `first .. first + blocks.len() / 16`,
    /// generated in one pass (the rows' blocks are consecutive in the row stream).
    pub fn fill_row_blocks(&self, first: u64, blocks: &mut [u32]) {
        let mut rng = self.stream(ROW_BLOCKS_STREAM);
        rng.set_word_pos(u128::from(first) * ROW_WORDS as u128);
        // Words read little-endian from the keystream, written in place (no byte buffer to zero and convert).
        rand::RngExt::fill(&mut rng, blocks);
    }

    /// The key of the rows' overflow streams: a different key, so that no row's overflow stream is the row
    /// stream or another row's.
    pub fn overflow_key(&self) -> StreamKey {
        let mut rng = self.stream(OVERFLOW_KEY_STREAM);
        let mut key = [0u8; 32];
        rand::Rng::fill_bytes(&mut rng, &mut key);
        StreamKey(key)
    }
}

/// The randomness of one row of a keyed release: the row's block of the key's row stream (block `row`),
/// then, if a draw needs more, the row's own overflow stream (stream `row` of [`StreamKey::overflow_key`]).
///
/// Every word is a distinct ChaCha12 keystream word, so a row's words are independent uniform bits, as from
/// any [`ReleaseRng`]; they depend only on the key and the row, so a row's noise does not depend on batching,
/// threads or order. Blocks of consecutive rows are generated together ([`StreamKey::fill_row_blocks`]),
/// which costs about a quarter of seeding a generator per row.
pub struct RowRng<'a> {
    block: &'a [u32],
    next: usize,
    overflow_key: &'a StreamKey,
    row: u64,
    overflow: Option<ReleaseRng>,
}

impl<'a> RowRng<'a> {
    /// Row `row`'s generator, given its block (from [`StreamKey::fill_row_blocks`]) and the overflow key.
    pub fn new(block: &'a [u32], row: u64, overflow_key: &'a StreamKey) -> Self {
        debug_assert_eq!(block.len(), ROW_WORDS);
        RowRng { block, next: 0, overflow_key, row, overflow: None }
    }

    #[inline]
    fn word(&mut self) -> u32 {
        if let Some(&w) = self.block.get(self.next) {
            self.next += 1;
            return w;
        }
        let (key, row) = (self.overflow_key, self.row);
        rand::Rng::next_u32(self.overflow.get_or_insert_with(|| key.stream(row)))
    }
}

impl rand::TryRng for RowRng<'_> {
    type Error = Infallible;

    #[inline]
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        Ok(self.word())
    }

    #[inline]
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        // Both words from the block when they are there (one check instead of two); the same words either way.
        if let Some(&[lo, hi]) = self.block.get(self.next..self.next + 2).and_then(|w| <&[u32; 2]>::try_from(w).ok()) {
            self.next += 2;
            return Ok(u64::from(lo) | (u64::from(hi) << 32));
        }
        let lo = u64::from(self.word());
        Ok(lo | (u64::from(self.word()) << 32))
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        for chunk in dst.chunks_mut(4) {
            let w = self.word().to_le_bytes();
            chunk.copy_from_slice(&w[..chunk.len()]);
        }
        Ok(())
    }
}

impl rand::TryCryptoRng for RowRng<'_> {}

impl std::fmt::Debug for RowRng<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RowRng(<redacted>)")
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
    fn row_generators_read_their_block_then_their_own_overflow_stream() {
        let key = StreamKey::from_seed_for_experiments(2);
        let overflow = key.overflow_key();
        let mut blocks = vec![0u32; 3 * ROW_WORDS];
        key.fill_row_blocks(41, &mut blocks);
        // Row 42's block is the same whether generated among others or alone.
        let mut alone = vec![0u32; ROW_WORDS];
        key.fill_row_blocks(42, &mut alone);
        assert_eq!(alone, blocks[ROW_WORDS..2 * ROW_WORDS]);
        let words = |row: u64, block: &[u32]| {
            let mut rng = RowRng::new(block, row, &overflow);
            (0..40).map(|_| rng.next_u32()).collect::<Vec<u32>>()
        };
        let a = words(42, &alone);
        assert_eq!(a[..ROW_WORDS], alone[..]);
        // Past its block a row continues in its own stream: other rows' words never repeat there.
        let b = words(43, &blocks[2 * ROW_WORDS..]);
        let mut all: Vec<u32> = a.iter().chain(&b).chain(&blocks).copied().collect();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), 40 + 40 + 3 * ROW_WORDS - 2 * ROW_WORDS, "only the shared blocks repeat");
        assert_eq!(format!("{:?}", RowRng::new(&alone, 42, &overflow)), "RowRng(<redacted>)");
    }

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let key = StreamKey::from_seed_for_experiments(1);
        let a: Vec<u64> = (0..4).map(|_| 0).scan(key.stream(3), |r, _: u64| Some(r.next_u64())).collect();
        let b: Vec<u64> = (0..4).map(|_| 0).scan(key.stream(3), |r, _: u64| Some(r.next_u64())).collect();
        let c: Vec<u64> = (0..4).map(|_| 0).scan(key.stream(4), |r, _: u64| Some(r.next_u64())).collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(format!("{key:?}"), "StreamKey(<redacted>)");
        assert_eq!(StreamKey::from_bytes(key.to_bytes()).stream(3).next_u64(), key.stream(3).next_u64());
        let mut os = os_rng().unwrap();
        assert_ne!(os.next_u64(), os_rng().unwrap().next_u64());
    }
}
