//! Nanoseconds per grid snap (quaternion cube map, S² cube map, circle turns) on precomputed random points,
//! one thread: `cargo run --release -p manifold-dp --example snap_cost`. Each is timed twice: independent
//! snaps (throughput: what a batch pays, the snaps overlapping in the CPU) and a chain where each snap's input
//! waits for the previous snap's output (latency: what one release per call pays when nothing else is in
//! flight; the chain adds one multiplication and one addition, about 2 ns).

use manifold_dp::privacy::{Chart, Grid};
use manifold_dp::sample::rng::seeded_rng_for_experiments;
use manifold_dp::space::grid::{snap_direction, snap_quaternion};
use nalgebra::{Quaternion, UnitQuaternion};
use rand::RngExt;
use std::hint::black_box;
use std::time::Instant;

fn main() {
    let n = 2_000_000;
    let mut rng = seeded_rng_for_experiments(1);
    let mut gauss = || -> f64 { rng.random::<f64>() * 2.0 - 1.0 };
    let qs: Vec<UnitQuaternion<f64>> =
        (0..n).map(|_| UnitQuaternion::new_normalize(Quaternion::new(gauss(), gauss(), gauss(), gauss()))).collect();
    let vs: Vec<[f64; 3]> = (0..n)
        .map(|_| {
            let v = [gauss(), gauss(), gauss()];
            let r = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
            [v[0] / r, v[1] / r, v[2] / r]
        })
        .collect();
    for _ in 0..3 {
        let t = Instant::now();
        for q in &qs {
            black_box(snap_quaternion(black_box(q), -23));
        }
        let quat = t.elapsed().as_secs_f64() / n as f64 * 1e9;
        let grid = Grid { chart: Chart::CubeMap, spacing_log2: -24 };
        let t = Instant::now();
        for v in &vs {
            let mut w = *v;
            snap_direction(grid, black_box(&mut w));
            black_box(w);
        }
        let cube = t.elapsed().as_secs_f64() / n as f64 * 1e9;
        let grid = Grid { chart: Chart::Turns, spacing_log2: -24 };
        let t = Instant::now();
        for v in &vs {
            let mut w = [v[0], v[1]];
            snap_direction(grid, black_box(&mut w));
            black_box(w);
        }
        let turns = t.elapsed().as_secs_f64() / n as f64 * 1e9;
        println!("ns per snap: quaternion {quat:.1}, S2 cube map {cube:.1}, circle turns {turns:.1}");
        // The chains: x·0 is not folded (it is NaN for infinite x), so each input depends on the last output.
        let t = Instant::now();
        let mut last = 0.0;
        for q in &qs {
            let c = q.coords;
            let q = UnitQuaternion::new_unchecked(Quaternion::new(c[3], c[0] + last * 0.0, c[1], c[2]));
            last = snap_quaternion(&q, -23).coords[0];
        }
        black_box(last);
        let quat = t.elapsed().as_secs_f64() / n as f64 * 1e9;
        let grid = Grid { chart: Chart::CubeMap, spacing_log2: -24 };
        let t = Instant::now();
        let mut last = 0.0;
        for v in &vs {
            let mut w = [v[0] + last * 0.0, v[1], v[2]];
            snap_direction(grid, &mut w);
            last = w[0];
        }
        black_box(last);
        let cube = t.elapsed().as_secs_f64() / n as f64 * 1e9;
        let grid = Grid { chart: Chart::Turns, spacing_log2: -24 };
        let t = Instant::now();
        let mut last = 0.0;
        for v in &vs {
            let mut w = [v[0] + last * 0.0, v[1]];
            snap_direction(grid, &mut w);
            last = w[0];
        }
        black_box(last);
        let turns = t.elapsed().as_secs_f64() / n as f64 * 1e9;
        println!("ns per snap in a chain: quaternion {quat:.1}, S2 cube map {cube:.1}, circle turns {turns:.1}");
    }
}
