//! Parallel release of a table's rows with keyed noise: the noise of a row depends only on the release's
//! [`StreamKey`] and the row's identity (its index in a file, or the value of an id column).
//!
//! Row `id` draws its noise from its own [`RowRng`]: block `id` of the key's row stream, then its own overflow
//! stream (independent ChaCha keystream words per id), so a release does not depend on how the rows are cut into batches, how many threads run, or in which order;
//! and a recomputed, retried or repartitioned piece of work redraws exactly the same noise for the same rows,
//! never a second, independent release of them.

use crate::Fallible;
use crate::mechanism::Mechanism;
use crate::sample::rng::{ROW_WORDS, RowRng, StreamKey};
use rayon::prelude::*;

/// Rows per parallel task.
const ROWS_PER_TASK: usize = 1024;

/// Releases `points`, the rows `first_row .. first_row + points.len()` of a table, in place and in parallel:
/// row `r` is released with stream `r` of `key`.
///
/// Each row of a table must be released at most once per key (one release); releasing it again under the
/// same key reproduces the same noise. On an error (a draw the mechanism cannot represent), `points` holds
/// releases and inputs mixed: publish none of it.
pub fn privatize_rows<M>(mechanism: &M, points: &mut [M::Point], first_row: u64, key: &StreamKey) -> Fallible<()>
where
    M: Mechanism + Sync,
    M::Point: Send,
{
    privatize_by_id(mechanism, points, &|i| first_row + i as u64, key)
}

/// Releases `points` in place and in parallel, point `i` with stream `id(i)` of `key`.
///
/// The ids must be distinct within one release: two rows with one id would get the same noise (the caller
/// checks, e.g. that an id column has no duplicates). On an error, `points` holds releases and inputs mixed:
/// publish none of it.
pub fn privatize_by_id<M>(
    mechanism: &M,
    points: &mut [M::Point],
    id: &(dyn Fn(usize) -> u64 + Sync),
    key: &StreamKey,
) -> Fallible<()>
where
    M: Mechanism + Sync,
    M::Point: Send,
{
    let keyed = KeyedRows::new(key);
    points.par_chunks_mut(ROWS_PER_TASK).enumerate().try_for_each(|(c, piece)| {
        let ids: Vec<u64> = (0..piece.len()).map(|i| id(c * ROWS_PER_TASK + i)).collect();
        keyed.privatize(mechanism, piece, &ids)
    })
}

/// The keyed noise of one release, for a caller that cuts the rows into pieces of its own and runs them on
/// its own threads (e.g. reading each piece from a caller's buffer and writing it back there, with no
/// intermediate copy of the whole table): a row's noise is the same as from [`privatize_by_id`] with the same
/// key and id, whatever the pieces.
pub struct KeyedRows<'a> {
    key: &'a StreamKey,
    /// Derived once per release, not per piece: it costs a generator's first blocks.
    overflow: StreamKey,
}

impl<'a> KeyedRows<'a> {
    /// The rows' streams under `key`.
    pub fn new(key: &'a StreamKey) -> Self {
        KeyedRows { key, overflow: key.overflow_key() }
    }

    /// Releases `points` in place on the calling thread, point `i` with stream `ids[i]` (distinct within
    /// one release). On an error, `points` holds releases and inputs mixed: publish none of it.
    pub fn privatize<M: Mechanism>(&self, mechanism: &M, points: &mut [M::Point], ids: &[u64]) -> Fallible<()> {
        assert_eq!(points.len(), ids.len(), "one id per point");
        with_blocks(points.len(), |blocks| {
            self.fill_blocks(ids, blocks);
            mechanism.privatize_each(points, |i| {
                RowRng::new(&blocks[i * ROW_WORDS..(i + 1) * ROW_WORDS], ids[i], &self.overflow)
            })
        })
    }

    /// Calls `f(i, rng)` for every i in order, with the generator of stream `ids[i]` that
    /// [`KeyedRows::privatize`] would hand to `privatize_each` for point i: for a front end that releases rows
    /// in its own buffers (the same bits as through `privatize`, where the mechanism draws the same words).
    pub fn for_each_row(&self, ids: &[u64], mut f: impl FnMut(usize, &mut RowRng<'_>)) {
        with_blocks(ids.len(), |blocks| {
            self.fill_blocks(ids, blocks);
            for (i, &id) in ids.iter().enumerate() {
                f(i, &mut RowRng::new(&blocks[i * ROW_WORDS..(i + 1) * ROW_WORDS], id, &self.overflow));
            }
        })
    }

    /// The rows' first blocks. Those of each run of consecutive ids come from one pass over the row stream: one
    /// key setup per run, then only the keystream itself (a row's block is one ChaCha block).
    fn fill_blocks(&self, ids: &[u64], blocks: &mut [u32]) {
        let mut start = 0;
        while start < ids.len() {
            let mut end = start + 1;
            while end < ids.len() && ids[end] == ids[end - 1].wrapping_add(1) && ids[end] != 0 {
                end += 1;
            }
            self.key.fill_row_blocks(ids[start], &mut blocks[start * ROW_WORDS..end * ROW_WORDS]);
            start = end;
        }
    }

    /// [`KeyedRows::privatize`] with the ids `first, first + 1, …` (rows of a file, releases of `sample`).
    pub fn privatize_consecutive<M: Mechanism>(
        &self,
        mechanism: &M,
        points: &mut [M::Point],
        first: u64,
    ) -> Fallible<()> {
        if first.checked_add(points.len() as u64).is_none() {
            let ids: Vec<u64> = (0..points.len() as u64).map(|i| first.wrapping_add(i)).collect();
            return self.privatize(mechanism, points, &ids);
        }
        with_blocks(points.len(), |blocks| {
            self.key.fill_row_blocks(first, blocks);
            mechanism.privatize_each(points, |i| {
                RowRng::new(&blocks[i * ROW_WORDS..(i + 1) * ROW_WORDS], first + i as u64, &self.overflow)
            })
        })
    }
}

thread_local! {
    /// Each thread's buffer for its rows' key-stream blocks (a fresh one would be zeroed every time, and every
    /// word is overwritten anyway).
    static BLOCKS: std::cell::Cell<Vec<u32>> = const { std::cell::Cell::new(Vec::new()) };
}

/// Rows whose blocks a thread keeps between calls (256 KiB); a larger buffer, for a caller's larger piece, is
/// freed after its call rather than held for the thread's lifetime.
const KEPT_ROWS: usize = 4096;

/// Runs `f` with this thread's block buffer sized for `rows` rows.
fn with_blocks<T>(rows: usize, f: impl FnOnce(&mut [u32]) -> T) -> T {
    // Taken out of the cell, not borrowed: a nested call (none today) would get a buffer of its own.
    let mut blocks = BLOCKS.take();
    blocks.resize(rows * ROW_WORDS, 0);
    let out = f(&mut blocks);
    if blocks.capacity() <= KEPT_ROWS * ROW_WORDS {
        BLOCKS.set(blocks);
    }
    out
}

#[cfg(test)]
mod tests {
    /// The fingerprint of 3000 rows released at the identity, seed 9, Laplace ε = 2 (the CLI's golden files
    /// pin the same path through files).
    const PIN: u64 = 0x78e2_501e_e202_b3f4;
    use super::*;
    use crate::mechanism::LaplaceSo3;
    use nalgebra::UnitQuaternion;

    fn run(threads: usize, batches: &[usize]) -> Vec<UnitQuaternion<f64>> {
        let key = StreamKey::from_seed_for_experiments(9);
        let mech = LaplaceSo3::new(2.0).unwrap();
        let total: usize = batches.iter().sum();
        let mut rows = vec![UnitQuaternion::identity(); total];
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let mut start = 0;
            for &len in batches {
                privatize_rows(&mech, &mut rows[start..start + len], start as u64, &key).unwrap();
                start += len;
            }
        });
        rows
    }

    #[test]
    fn same_noise_for_any_thread_count() {
        let batches = [10_000, 8192, 5];
        assert_eq!(run(1, &batches), run(2, &batches));
        assert_eq!(run(1, &batches), run(4, &batches));
    }

    #[test]
    fn any_batching_gives_the_same_noise_as_one_batch() {
        assert_eq!(run(2, &[3 * 4096 + 7]), run(2, &[4096, 2 * 4096, 7]));
        assert_eq!(run(2, &[3 * 4096 + 7]), run(1, &[1, 4095, 3, 5000, 3196]));
    }

    #[test]
    fn consecutive_ids_release_as_the_ids_do() {
        let key = StreamKey::from_seed_for_experiments(9);
        let keyed = KeyedRows::new(&key);
        let mech = LaplaceSo3::new(2.0).unwrap();
        // Small and large pieces (beyond the kept buffer), and a run that wraps past u64::MAX.
        for (first, n) in [(0u64, 5usize), (1 << 40, 300), (7, 5000), (u64::MAX - 2, 6)] {
            let ids: Vec<u64> = (0..n as u64).map(|i| first.wrapping_add(i)).collect();
            let mut by_ids = vec![UnitQuaternion::identity(); n];
            keyed.privatize(&mech, &mut by_ids, &ids).unwrap();
            let mut consecutive = vec![UnitQuaternion::identity(); n];
            keyed.privatize_consecutive(&mech, &mut consecutive, first).unwrap();
            assert_eq!(by_ids, consecutive, "first {first}, {n} rows");
            assert!(by_ids.windows(2).all(|w| w[0] != w[1]));
        }
    }

    #[test]
    fn a_row_noise_depends_on_its_id_only() {
        let key = StreamKey::from_seed_for_experiments(9);
        let mech = LaplaceSo3::new(2.0).unwrap();
        let ids = [7u64, 1 << 40, 3];
        let mut rows = vec![UnitQuaternion::identity(); 3];
        privatize_by_id(&mech, &mut rows, &|i| ids[i], &key).unwrap();
        // The same ids in another order, alone or among others, get the same noise.
        let mut alone = vec![UnitQuaternion::identity(); 1];
        privatize_by_id(&mech, &mut alone, &|_| 1 << 40, &key).unwrap();
        assert_eq!(alone[0], rows[1]);
        let mut by_index = vec![UnitQuaternion::identity(); 8];
        privatize_rows(&mech, &mut by_index, 0, &key).unwrap();
        assert_eq!(by_index[7], rows[0]);
        assert_eq!(by_index[3], rows[2]);
        // Another key gives other noise.
        let other = StreamKey::from_seed_for_experiments(10);
        let mut again = vec![UnitQuaternion::identity(); 3];
        privatize_by_id(&mech, &mut again, &|i| ids[i], &other).unwrap();
        assert!(again.iter().zip(&rows).all(|(a, b)| a != b));
    }

    /// FNV-1a of the bits of every coordinate: one number that pins a whole release.
    fn fingerprint(rows: &[UnitQuaternion<f64>]) -> u64 {
        let mut h = 0xcbf2_9ce4_8422_2325u64;
        for q in rows {
            for c in q.coords.iter() {
                for b in c.to_bits().to_le_bytes() {
                    h = (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
                }
            }
        }
        h
    }

    #[test]
    fn keyed_releases_are_pinned_bit_for_bit() {
        // A faster keyed path must give exactly these bits (rows past their block included: about one row in
        // twenty reads its overflow stream), or every earlier seeded release would change.
        let rows = run(2, &[3000]);
        assert_eq!(fingerprint(&rows), PIN);
        let rows = run(1, &[1000, 2000]);
        assert_eq!(fingerprint(&rows), PIN);
    }

    #[test]
    fn rows_get_distinct_noise_across_pieces() {
        // Two pieces must not replay one stream: unaligned batches start fresh streams at their own rows.
        let rows = run(2, &[100, 100, 5000]);
        for i in 0..100 {
            assert_ne!(rows[i], rows[i + 100]);
        }
        let mut sorted: Vec<[f64; 4]> = rows.iter().map(|q| q.coords.into()).collect();
        sorted.sort_by(|a, b| a.partial_cmp(b).unwrap());
        sorted.dedup();
        assert_eq!(sorted.len(), rows.len());
    }
}
