//! The library's own batch rate for keyed releases: `privatize_rows` on N rotations (default 4 000 000) with
//! the SO(3) Laplace mechanism at ε = 2, on all cores, best of 3; prints rows per second. The Python
//! benchmark (`scripts/bench_python.sh`) compares the package against this figure.

use manifold_dp::mechanism::LaplaceSo3;
use manifold_dp::mechanism::batch::privatize_rows;
use manifold_dp::sample::rng::StreamKey;
use nalgebra::UnitQuaternion;
use std::time::Instant;

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(4_000_000);
    let mech = LaplaceSo3::new(2.0).expect("valid epsilon");
    let key = StreamKey::from_seed_for_experiments(1);
    let mut best = f64::INFINITY;
    for _ in 0..3 {
        let mut rows = vec![UnitQuaternion::identity(); n];
        let t = Instant::now();
        privatize_rows(&mech, &mut rows, 0, &key).unwrap();
        best = best.min(t.elapsed().as_secs_f64());
        std::hint::black_box(&rows);
    }
    println!("{{\"rows\": {n}, \"seconds\": {best}, \"rows_per_second\": {}}}", n as f64 / best);
}
