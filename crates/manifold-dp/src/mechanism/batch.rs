//! Parallel release of a table's rows with reproducible, independent noise streams.
//!
//! The rows of a table are cut into pieces at every multiple of [`ROWS_PER_STREAM`] and wherever a caller's
//! batch starts; the piece starting at row r draws its noise from stream r of one [`StreamKey`]. Distinct
//! pieces have distinct start rows, hence independent ChaCha keystreams, and the noise of a row depends on the
//! key and the batch boundaries only, never on the number of threads (rayon decides who runs which piece, not
//! what it draws).

use crate::mechanism::Mechanism;
use crate::sample::rng::StreamKey;
use rayon::prelude::*;

/// Rows released from one generator stream (at most; pieces also end at batch boundaries).
pub const ROWS_PER_STREAM: u64 = 4096;

/// Releases `points`, the rows `first_row .. first_row + points.len()` of a table, in place and in parallel.
///
/// Callers must pass each row of a table at most once per key (disjoint row ranges): a row range passed twice
/// would redraw the same noise, which is harmless, but two overlapping ranges with different starts would
/// reuse streams for different rows.
pub fn privatize_rows<M>(mechanism: &M, points: &mut [M::Point], first_row: u64, key: &StreamKey)
where
    M: Mechanism + Sync,
    M::Point: Send,
{
    let head = ((ROWS_PER_STREAM - first_row % ROWS_PER_STREAM) % ROWS_PER_STREAM).min(points.len() as u64) as usize;
    let (head_rows, rest) = points.split_at_mut(head);
    if !head_rows.is_empty() {
        mechanism.privatize_slice(head_rows, &mut key.stream(first_row));
    }
    let rest_start = first_row + head as u64;
    rest.par_chunks_mut(ROWS_PER_STREAM as usize).enumerate().for_each(|(j, piece)| {
        mechanism.privatize_slice(piece, &mut key.stream(rest_start + j as u64 * ROWS_PER_STREAM));
    });
}

#[cfg(test)]
mod tests {
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
                privatize_rows(&mech, &mut rows[start..start + len], start as u64, &key);
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
    fn batches_aligned_to_streams_give_the_same_noise_as_one_batch() {
        assert_eq!(run(2, &[3 * 4096 + 7]), run(2, &[4096, 2 * 4096, 7]));
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
