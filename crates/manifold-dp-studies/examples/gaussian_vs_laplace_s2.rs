//! Jiang et al., *Gaussian differential privacy on Riemannian manifolds* (NeurIPS 2023), S² setting: the
//! Riemannian Gaussian Fréchet mean at μ-GDP against the Riemannian Laplace at the pure ε whose GDP μ is the
//! same, n = 10 points in a geodesic ball of radius π/8, in the same run. Prints a Markdown table
//! (`docs/riemannian_gaussian.md`).
//!
//! **Data**: each repetition draws a fresh data set of n points uniform (w.r.t. area) in the cap of radius r
//! around the north pole: cos θ uniform on [cos r, 1], azimuth uniform. **Error**: the geodesic distance
//! between the release and the data set's exact Fréchet mean. Both mechanisms use our sensitivity Δ (Theorem 2
//! of Reimherr et al. at the widened radius plus the Karcher term) and their float-safe releases; the exact
//! expected errors come from the laws by quadrature.
//!
//! Usage: `cargo run --release -p manifold-dp-studies --example gaussian_vs_laplace_s2 [REPETITIONS] [SEED]`.

use manifold_dp::manifold::{KarcherOptions, Manifold, Sphere, frechet_mean};
use manifold_dp::mechanism::{Conditioning, GaussianFrechetMean, PrivateFrechetMean};
use manifold_dp::privacy::{Guarantee, Target, convert};
use manifold_dp::sample::rng::{ReleaseRng, seeded_rng_for_experiments};
use nalgebra::DVector;
use rand::RngExt;
use std::f64::consts::PI;

const N: usize = 10;
const RADIUS: f64 = PI / 8.0;
const MUS: [f64; 5] = [0.25, 0.5, 1.0, 2.0, 4.0];

/// One point uniform in the cap of radius `r` around the north pole.
fn cap_point(rng: &mut ReleaseRng, r: f64) -> DVector<f64> {
    let z = 1.0 - rng.random::<f64>() * (1.0 - r.cos());
    let s = (1.0 - z * z).max(0.0).sqrt();
    let phi = 2.0 * PI * rng.random::<f64>();
    DVector::from_column_slice(&[s * phi.cos(), s * phi.sin(), z])
}

/// The largest pure ε whose GDP μ (the library's conversion, `docs/proofs/accounting.md`: the Gaussian curve
/// through ε-DP's kink, μ = −2Φ⁻¹(1/(1 + e^ε))) is at most `mu`, by bisection.
fn pure_epsilon_for_mu(mu: f64) -> f64 {
    let gdp = |e: f64| match convert(&Guarantee::pure(e), Target::Gdp) {
        Ok(Guarantee::Gdp { mu, .. }) => mu,
        other => panic!("pure → GDP: {other:?}"),
    };
    let (mut lo, mut hi) = (0.0, 100.0);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if gdp(mid) <= mu { lo = mid } else { hi = mid }
    }
    lo
}

/// Mean and standard error.
fn mean_se(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let m = xs.iter().sum::<f64>() / n;
    let v = xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0);
    (m, (v / n).sqrt())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let reps: usize = args.get(1).map_or(Ok(2000), |s| s.parse())?;
    let seed: u64 = args.get(2).map_or(Ok(2023), |s| s.parse())?;
    let s2 = Sphere::new(3)?;
    let center = DVector::from_column_slice(&[0.0, 0.0, 1.0]);
    println!("S², n = {N}, r = π/8, {reps} repetitions per μ, seed {seed}; errors in rad (standard error).\n");
    println!(
        "| μ | Δ | σ (Gaussian) | Gaussian error | exact | ε (μ-matched) | σ (Laplace) | Laplace error | exact | \
         Gaussian / Laplace |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for (k, &mu) in MUS.iter().enumerate() {
        let gauss = GaussianFrechetMean::new(s2, center.clone(), RADIUS, N, mu)?;
        let epsilon = pure_epsilon_for_mu(mu);
        let laplace = PrivateFrechetMean::new(s2, center.clone(), RADIUS, N, epsilon, Conditioning::Auto)?;
        let mut rng = seeded_rng_for_experiments(seed.wrapping_add(k as u64));
        let (mut eg, mut el) = (Vec::with_capacity(reps), Vec::with_capacity(reps));
        for _ in 0..reps {
            let data: Vec<DVector<f64>> = (0..N).map(|_| cap_point(&mut rng, RADIUS)).collect();
            let m = frechet_mean(&s2, &data, &center, KarcherOptions::default())?.mean;
            eg.push(s2.distance(&m, &gauss.release_mean(&m, &mut rng)));
            el.push(s2.distance(&m, &laplace.release_mean(&m, &mut rng)?));
        }
        let ((g, gse), (l, lse)) = (mean_se(&eg), mean_se(&el));
        println!(
            "| {mu} | {:.4} | {:.4} | {g:.4} ({gse:.4}) | {:.4} | {epsilon:.4} | {:.4} | {l:.4} ({lse:.4}) | {:.4} | \
             {:.2} |",
            gauss.sensitivity(),
            gauss.sigma(),
            gauss.expected_error(),
            laplace.sigma(),
            laplace.expected_error(),
            g / l
        );
    }
    Ok(())
}
