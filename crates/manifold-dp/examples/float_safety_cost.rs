//! What float safety costs in throughput: releases per second of each mechanism's float-safe path
//! (`Mechanism::privatize`: the f64 pipeline rounded onto its public grid; for the real-line Laplace,
//! Gaussian and generalized Gaussian the exact cell drawn with integer arithmetic on uniform bits) beside its
//! raw f64 pipeline (`privatize_unprotected`, the path every release took before rounding), on one thread with
//! the release generator (ChaCha12, seeded).
//!
//! Usage: `cargo run --release -p manifold-dp --example float_safety_cost [DRAWS]` (default 2 000 000 per case;
//! the best of three rounds counts, wall-clock). Output: CSV `mechanism,raw_per_sec,float_safe_per_sec,ratio` one
//! point per call, the same in batches of 4096 (`privatize_slice_unprotected` against `privatize_slice`, the path
//! of the criterion benches and the front ends), then, for the generalized Gaussian of degrees 1, 2, 8 and 256 (scale 1, default grid), CSV
//! `mechanism,raw_ns,float_safe_ns,raw_words,float_safe_words` (nanoseconds and 64-bit random words per
//! release).

use manifold_dp::mechanism::Unprotected;
use manifold_dp::mechanism::scalar::{Gaussian, GeneralizedGaussian, ScalarLaplace};
use manifold_dp::mechanism::{BinghamSo3, LaplaceSo3, Mechanism, PurkayasthaSphere, VmfSphere};
use manifold_dp::sample::rng::seeded_rng_for_experiments;
use nalgebra::{DVector, UnitQuaternion, Vector3};
use rand::distr::Distribution;
use std::convert::Infallible;
use std::hint::black_box;
use std::time::Instant;

/// Best-of-three rate of `draw` over `n` calls.
fn rate(n: usize, mut draw: impl FnMut()) -> f64 {
    (0..3)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..n {
                draw();
            }
            n as f64 / start.elapsed().as_secs_f64()
        })
        .fold(0.0, f64::max)
}

/// A generator that counts the 64-bit words it hands out.
struct Counting<R> {
    inner: R,
    words: u64,
}

impl<R: rand::Rng> rand::TryRng for Counting<R> {
    type Error = Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        self.words += 1;
        Ok(self.inner.next_u32())
    }
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        self.words += 1;
        Ok(self.inner.next_u64())
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        self.words += dst.len().div_ceil(8) as u64;
        self.inner.fill_bytes(dst);
        Ok(())
    }
}

/// Random words per call of `draw`, over `n` calls.
fn words(n: usize, seed: u64, mut draw: impl FnMut(&mut Counting<manifold_dp::sample::rng::ReleaseRng>)) -> f64 {
    let mut rng = Counting { inner: seeded_rng_for_experiments(seed), words: 0 };
    for _ in 0..n {
        draw(&mut rng);
    }
    rng.words as f64 / n as f64
}

fn compare<M: Mechanism>(name: &str, m: &M, x: M::Point, n: usize) {
    let mut rng = seeded_rng_for_experiments(1);
    let raw = rate(n, || {
        black_box(m.privatize_unprotected(black_box(&x), &mut rng, Unprotected::acknowledged()));
    });
    let safe = rate(n, || {
        black_box(m.privatize(black_box(&x), &mut rng).unwrap());
    });
    println!("{name},{raw:.0},{safe:.0},{:.3}", safe / raw);
}

/// Batch rates, as the criterion benches and the front ends release: `privatize_slice_unprotected` against
/// `privatize_slice` (draws first, then the snaps) on batches of 4096 copies of `x`.
fn compare_batch<M: Mechanism>(name: &str, m: &M, x: M::Point, n: usize)
where
    M::Point: Clone,
{
    let mut rng = seeded_rng_for_experiments(1);
    let inputs = vec![x; 4096];
    let mut buf = inputs.clone();
    let raw = rate(n / 4096, || {
        buf.clone_from_slice(&inputs);
        m.privatize_slice_unprotected(black_box(&mut buf), &mut rng, Unprotected::acknowledged());
    }) * 4096.0;
    let safe = rate(n / 4096, || {
        buf.clone_from_slice(&inputs);
        m.privatize_slice(black_box(&mut buf), &mut rng).unwrap();
    }) * 4096.0;
    println!("{name},{raw:.0},{safe:.0},{:.3}", safe / raw);
}

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(2_000_000);
    println!("mechanism,raw_per_sec,float_safe_per_sec,ratio");
    let q = UnitQuaternion::from_scaled_axis(Vector3::new(0.3, -0.2, 0.9));
    compare("laplace-so3", &LaplaceSo3::new(1.0).unwrap(), q, n);
    compare("bingham-so3", &BinghamSo3::new(1.0).unwrap(), q, n);
    let v = DVector::from_vec(vec![0.6, 0.8, 0.0]);
    compare("vmf-s2", &VmfSphere::new(3, 1.0).unwrap(), v.clone(), n);
    compare("purkayastha-s2", &PurkayasthaSphere::new(3, 1.0).unwrap(), v.clone(), n);
    let circle = DVector::from_vec(vec![0.6, 0.8]);
    compare("purkayastha-circle", &PurkayasthaSphere::new(2, 1.0).unwrap(), circle.clone(), n);
    compare("vmf-circle", &VmfSphere::new(2, 1.0).unwrap(), circle, n);
    println!("mechanism,raw_batch_per_sec,float_safe_batch_per_sec,ratio");
    compare_batch("laplace-so3", &LaplaceSo3::new(1.0).unwrap(), q, n);
    compare_batch("bingham-so3", &BinghamSo3::new(1.0).unwrap(), q, n);
    compare_batch("vmf-s2", &VmfSphere::new(3, 1.0).unwrap(), v.clone(), n);
    compare_batch("purkayastha-s2", &PurkayasthaSphere::new(3, 1.0).unwrap(), v.clone(), n);
    let circle = DVector::from_vec(vec![0.6, 0.8]);
    compare_batch("purkayastha-circle", &PurkayasthaSphere::new(2, 1.0).unwrap(), circle.clone(), n);
    compare_batch("vmf-circle", &VmfSphere::new(2, 1.0).unwrap(), circle, n);
    println!("mechanism,raw_per_sec,float_safe_per_sec,ratio");
    let laplace = ScalarLaplace::for_epsilon(1.0, 1.0).unwrap();
    let mut rng = seeded_rng_for_experiments(2);
    let raw = rate(n, || {
        black_box(black_box(3.25) + laplace.noise().sample(&mut rng));
    });
    let safe = rate(n, || {
        black_box(laplace.rounded().sample_at(black_box(3.25), &mut rng));
    });
    println!("laplace-real,{raw:.0},{safe:.0},{:.3}", safe / raw);
    // The Gaussian: x + σ·N (ziggurat, not float-safe) against the exact cell (Karney, docs/proofs/float_safety.md §8b).
    let gaussian = Gaussian::new(1.0, 1.0).unwrap();
    let mut rng = seeded_rng_for_experiments(3);
    let raw = rate(n, || {
        black_box(black_box(3.25) + gaussian.unprotected_noise(&mut rng));
    });
    let safe = rate(n, || {
        black_box(gaussian.rounded().sample_at(black_box(3.25), &mut rng));
    });
    println!("gaussian-real,{raw:.0},{safe:.0},{:.3}", safe / raw);
    // The generalized Gaussian: x ± s·Gamma(1/N)^{1/N} in f64 (not float-safe) against the exact cell
    // (docs/proofs/float_safety.md §8c).
    println!("mechanism,raw_ns,float_safe_ns,raw_words,float_safe_words");
    for order in [1, 2, 8, 256] {
        let gg = GeneralizedGaussian::new(order, 1.0, 1.0).unwrap();
        let mut rng = seeded_rng_for_experiments(4);
        let raw = rate(n, || {
            black_box(black_box(3.25) + gg.noise().sample(&mut rng));
        });
        let safe = rate(n, || {
            black_box(gg.rounded().sample_at(black_box(3.25), &mut rng));
        });
        let raw_words = words(n / 4, 5, |r| {
            black_box(3.25 + gg.noise().sample(r));
        });
        let safe_words = words(n / 4, 6, |r| {
            black_box(gg.rounded().sample_at(3.25, r));
        });
        println!("generalized-gaussian-{order}-real,{:.1},{:.1},{raw_words:.2},{safe_words:.2}", 1e9 / raw, 1e9 / safe);
    }
}
