//! Throughput of the SO(3) mechanisms: one noisy rotation per iteration (noise draw + composition with
//! the input), on one core, with the release CSPRNG (ChaCha12). Also the SO(3) paper's samplers, for the
//! comparison in the README.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use manifold_dp::mechanism::{BinghamSo3, LaplaceSo3, Mechanism};
use manifold_dp::sample::paper_baseline::PaperEfficientLaplace;
use manifold_dp::sample::rng::seeded_rng_for_experiments;
use nalgebra::{UnitQuaternion, Vector3};
use rand::distr::Distribution;
use std::hint::black_box;

const EPSILONS: [f64; 6] = [0.1, 1.0, 3.5, 8.0, 32.0, 1000.0];
const BATCH: usize = 4096;

fn bench(c: &mut Criterion) {
    let inputs: Vec<UnitQuaternion<f64>> =
        (0..BATCH).map(|i| UnitQuaternion::from_scaled_axis(Vector3::new(0.001 * i as f64, 0.3, -0.2))).collect();
    let mut group = c.benchmark_group("so3");
    group.throughput(Throughput::Elements(BATCH as u64));
    for eps in EPSILONS {
        let mut rng = seeded_rng_for_experiments(1);
        let laplace = LaplaceSo3::new(eps).unwrap();
        let bingham = BinghamSo3::new(eps).unwrap();
        let mut buf = inputs.clone();
        group.bench_with_input(BenchmarkId::new("laplace", eps), &eps, |b, _| {
            b.iter(|| {
                buf.copy_from_slice(&inputs);
                laplace.privatize_slice(black_box(&mut buf), &mut rng).unwrap();
            })
        });
        group.bench_with_input(BenchmarkId::new("bingham", eps), &eps, |b, _| {
            b.iter(|| {
                buf.copy_from_slice(&inputs);
                bingham.privatize_slice(black_box(&mut buf), &mut rng).unwrap();
            })
        });
        let paper = PaperEfficientLaplace { epsilon: eps, max_iterations: 1000 };
        group.bench_with_input(BenchmarkId::new("paper_laplace_not_exact", eps), &eps, |b, _| {
            b.iter(|| {
                for (out, x) in buf.iter_mut().zip(&inputs) {
                    *out = x * paper.sample(&mut rng);
                }
                black_box(&buf);
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
