//! Throughput of the exact sphere samplers: VMF and Purkayastha draws around a fixed unit mean on S^{n−1},
//! n = 3, 10, 100, κ = 1 and 100 (and κ = 1e-3, 1e6 on S², the extremes of the S² sampler's two regimes), on
//! one core, with the release CSPRNG (ChaCha12, seeded), written into a reused buffer. The mean goes through
//! `black_box`, so the work that depends on μ is redone at every draw (as when every row has its own mean).
//! The comparison with scipy is `scripts/bench_sphere_vs_scipy.sh`.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use manifold_dp::sample::purkayastha::PurkayasthaNoise;
use manifold_dp::sample::rng::seeded_rng_for_experiments;
use manifold_dp::sample::vmf::VmfNoise;
use std::hint::black_box;

/// Draws per iteration.
const BATCH: usize = 1024;

/// A fixed oblique unit vector of R^n (the same as `crates/manifold-dp/examples/sphere_throughput.rs`).
fn mean(n: usize) -> Vec<f64> {
    let mu: Vec<f64> = (0..n).map(|i| 1.0 + 0.37 * i as f64).collect();
    let norm = mu.iter().map(|x| x * x).sum::<f64>().sqrt();
    mu.into_iter().map(|x| x / norm).collect()
}

fn bench(c: &mut Criterion) {
    let mut cases: Vec<(usize, f64)> = vec![(3, 1e-3)];
    for n in [3, 10, 100] {
        cases.extend([(n, 1.0), (n, 100.0)]);
    }
    cases.push((3, 1e6));
    let mut group = c.benchmark_group("sphere");
    group.throughput(Throughput::Elements(BATCH as u64));
    for (n, kappa) in cases {
        let mu = mean(n);
        let mut out = vec![0.0; n];
        let mut rng = seeded_rng_for_experiments(1);
        let vmf = VmfNoise::new(n, kappa).unwrap();
        group.bench_with_input(BenchmarkId::new(format!("vmf_n{n}"), kappa), &kappa, |b, _| {
            b.iter(|| {
                for _ in 0..BATCH {
                    vmf.sample_into(black_box(&mu), black_box(&mut out), &mut rng);
                }
            })
        });
        let purkayastha = PurkayasthaNoise::new(n, kappa).unwrap();
        group.bench_with_input(BenchmarkId::new(format!("purkayastha_n{n}"), kappa), &kappa, |b, _| {
            b.iter(|| {
                for _ in 0..BATCH {
                    purkayastha.sample_into(black_box(&mu), black_box(&mut out), &mut rng);
                }
            })
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(2))
        .warm_up_time(std::time::Duration::from_millis(500));
    targets = bench
}
criterion_main!(benches);
