//! Goodness-of-fit of the exact Laplace sampler on SPD(k) (affine-invariant metric, k = 2 and 3) against the exact
//! laws of the Riemannian distance t = ρ(Y, P̄) = ‖r‖ and of the trace fraction τ = Σr_i/(√k‖r‖) (the direction
//! of r), checks that releases are symmetric positive definite at distance ‖r‖ from a non-identity footpoint, and
//! that the eigenvectors are Haar — each test paired with a negative control that the same test must reject.
//!
//! Statistical design: every KS test uses the DKW–Massart critical value at α = 1e-8
//! (`manifold_dp::audit::gof`), which bounds its false-failure probability by 1e-8 for any sample size, with no
//! asymptotic approximation; the one mean test uses Hoeffding's inequality at 1e-8. This file runs fewer than
//! 60 such tests, so the probability that a correct sampler fails any of them is below 1e-6 (union bound).
//! Seeds are fixed, so runs are reproducible; the bound is what a fresh seed would face.

use manifold_dp::analysis::spd_radial::SpdRadialLaw;
use manifold_dp::audit::gof::{KsOutcome, ks_test};
use manifold_dp::sample::rng::{ReleaseRng, seeded_rng_for_experiments};
use manifold_dp::sample::spd_laplace::SpdLaplaceNoise;
use nalgebra::{DMatrix, DVector, Rotation3};
use rand::RngExt;
use rand_distr::{Distribution, StandardNormal};
use std::f64::consts::PI;

const ALPHA: f64 = 1e-8;
const N: usize = 40_000;

/// Distance t = ‖r‖ and trace fraction τ = Σr_i/(√k‖r‖) of a vector of log-eigenvalues.
fn stats(r: &[f64]) -> (f64, f64) {
    let t = r.iter().map(|x| x * x).sum::<f64>().sqrt();
    (t, r.iter().sum::<f64>() / ((r.len() as f64).sqrt() * t))
}

/// KS tests of t and τ of `n` draws of `draw` against `law`.
fn law_tests(mut draw: impl FnMut(&mut ReleaseRng) -> Vec<f64>, law: &SpdRadialLaw, seed: u64) -> [KsOutcome; 2] {
    let mut rng = seeded_rng_for_experiments(seed);
    let (mut ts, mut taus): (Vec<f64>, Vec<f64>) = (0..N).map(|_| stats(&draw(&mut rng))).unzip();
    [ks_test(&mut ts, |s| law.cdf_sorted(s), ALPHA), ks_test(&mut taus, |s| law.trace_fraction_cdf_sorted(s), ALPHA)]
}

fn uniform_cdf(a: f64, b: f64) -> impl Fn(&[f64]) -> Vec<f64> {
    move |s: &[f64]| s.iter().map(|x| ((x - a) / (b - a)).clamp(0.0, 1.0)).collect()
}

/// Configurations (k, σ, t_max): small, moderate and near-threshold σ untruncated (thresholds √2 and 1/√2), and
/// balls, two of them with σ far above the threshold.
const CONFIGS: [(usize, f64, Option<f64>); 10] = [
    (2, 0.01, None),
    (2, 0.3, None),
    (2, 1.3, None),
    (2, 5.0, Some(3.0)),
    (2, 0.3, Some(0.5)),
    (3, 0.01, None),
    (3, 0.3, None),
    (3, 0.65, None),
    (3, 5.0, Some(3.0)),
    (3, 0.3, Some(1.0)),
];

#[test]
fn distance_and_trace_fraction_match_the_exact_laws() {
    for (i, &(k, sigma, t_max)) in CONFIGS.iter().enumerate() {
        let noise = SpdLaplaceNoise::new(k, sigma, t_max).unwrap();
        let law = SpdRadialLaw::new(k, sigma, t_max).unwrap();
        let draw = |rng: &mut ReleaseRng| {
            let r = noise.sample_log_eigenvalues(rng);
            assert!(r.as_slice().windows(2).all(|w| w[0] <= w[1]), "not sorted: {r}");
            if let Some(t) = t_max {
                assert!(r.norm() <= t);
            }
            r.as_slice().to_vec()
        };
        let [t, tau] = law_tests(draw, &law, 10 + i as u64);
        println!(
            "k = {k} σ = {sigma} t_max = {t_max:?} ({:?}, acceptance {:.3}): KS t {:.4}, τ {:.4} (critical {:.4})",
            noise.proposal(),
            noise.acceptance_rate(),
            t.statistic,
            tau.statistic,
            t.critical
        );
        assert!(t.passed(), "k = {k} σ = {sigma} t_max = {t_max:?}: distance KS {} > {}", t.statistic, t.critical);
        assert!(tau.passed(), "k = {k} σ = {sigma} t_max = {t_max:?}: trace KS {} > {}", tau.statistic, tau.critical);
    }
}

/// A symmetric square root of a positive definite matrix and its inverse.
fn sqrt_and_inverse_sqrt(p: &DMatrix<f64>) -> (DMatrix<f64>, DMatrix<f64>) {
    let e = p.clone().symmetric_eigen();
    let root = &e.eigenvectors * DMatrix::from_diagonal(&e.eigenvalues.map(f64::sqrt)) * e.eigenvectors.transpose();
    let inv =
        &e.eigenvectors * DMatrix::from_diagonal(&e.eigenvalues.map(|x| 1.0 / x.sqrt())) * e.eigenvectors.transpose();
    (root, inv)
}

/// The sorted logs of the eigenvalues of P̄^{−½}YP̄^{−½}: ρ(Y, P̄) is their norm.
fn log_eigenvalues_at(y: &DMatrix<f64>, inv_sqrt: &DMatrix<f64>) -> Vec<f64> {
    let m = inv_sqrt * y * inv_sqrt;
    let m = (&m + m.transpose()) * 0.5;
    let mut r: Vec<f64> = m.symmetric_eigen().eigenvalues.iter().map(|x| x.ln()).collect();
    r.sort_by(f64::total_cmp);
    r
}

#[test]
fn releases_at_a_footpoint_are_spd_at_distance_norm_r_and_follow_the_law() {
    let footpoints = [
        DMatrix::from_row_slice(2, 2, &[2.0, 0.7, 0.7, 0.5]),
        DMatrix::from_row_slice(3, 3, &[4.0, 1.0, -0.5, 1.0, 2.0, 0.3, -0.5, 0.3, 0.25]),
    ];
    for (i, p) in footpoints.iter().enumerate() {
        let k = p.nrows();
        let (root, inv_sqrt) = sqrt_and_inverse_sqrt(p);
        let cholesky = p.clone().cholesky().unwrap().l();
        let noise = SpdLaplaceNoise::new(k, 0.3, None).unwrap();
        let law = SpdRadialLaw::new(k, 0.3, None).unwrap();
        for (j, factor) in [&root, &cholesky].into_iter().enumerate() {
            let (mut ts, mut taus) = (Vec::with_capacity(N), Vec::with_capacity(N));
            for d in 0..N as u64 {
                // The release draws r first, exactly as sample_log_eigenvalues does: two generators with the same
                // seed give the release and its r.
                let seed = 1_000_000 * (1 + 2 * i as u64 + j as u64) + d;
                let r = noise.sample_log_eigenvalues(&mut seeded_rng_for_experiments(seed));
                let y = noise.sample_around(factor, &mut seeded_rng_for_experiments(seed));
                assert_eq!(y, y.transpose(), "release not exactly symmetric");
                assert!(y.clone().cholesky().is_some(), "release not positive definite: {y}");
                let got = log_eigenvalues_at(&y, &inv_sqrt);
                // Rounding: the smallest eigenvalue is computed to ~1e-16 of the largest (times the footpoint's
                // condition number, ≤ 100 here).
                let spread = r[k - 1] - r[0];
                let tol = 1e-10 + 1e-13 * spread.exp();
                for (a, b) in got.iter().zip(r.iter()) {
                    assert!((a - b).abs() < tol, "log-eigenvalues {got:?} vs r = {r}");
                }
                let (t, tau) = stats(&got);
                ts.push(t);
                taus.push(tau);
            }
            let t = ks_test(&mut ts, |s| law.cdf_sorted(s), ALPHA);
            let tau = ks_test(&mut taus, |s| law.trace_fraction_cdf_sorted(s), ALPHA);
            assert!(
                t.passed() && tau.passed(),
                "k = {k}, factor {j}: KS t {} τ {} > {}",
                t.statistic,
                tau.statistic,
                t.critical
            );
        }
    }
}

/// Angle in [0, π) of the line spanned by the eigenvector of the largest eigenvalue of a 2×2 symmetric matrix.
fn top_line_angle_2(n: &DMatrix<f64>) -> f64 {
    // The eigenvector of the largest eigenvalue of [[a, b], [b, c]] is at angle ½·atan2(2b, a − c).
    (0.5 * (2.0 * n[(0, 1)]).atan2(n[(0, 0)] - n[(1, 1)])).rem_euclid(PI)
}

/// The unit eigenvector of the largest eigenvalue of a symmetric matrix.
fn top_eigenvector(n: &DMatrix<f64>) -> DVector<f64> {
    let e = n.clone().symmetric_eigen();
    e.eigenvectors.column(e.eigenvalues.imax()).into_owned()
}

/// KS tests that eigenvectors are Haar: for k = 2 the top eigenvector's line angle is uniform on [0, π); for
/// k = 3 the top eigenvector is uniform on S² up to sign, so |z| is uniform on [0, 1] and the azimuth of ±v, taken
/// mod π, is uniform on [0, π).
fn haar_tests(k: usize, n: usize, draw: &mut dyn FnMut(&mut ReleaseRng) -> DMatrix<f64>, seed: u64) -> Vec<KsOutcome> {
    let mut rng = seeded_rng_for_experiments(seed);
    if k == 2 {
        let mut angles: Vec<f64> = (0..n).map(|_| top_line_angle_2(&draw(&mut rng))).collect();
        vec![ks_test(&mut angles, uniform_cdf(0.0, PI), ALPHA)]
    } else {
        let (mut zs, mut azimuths) = (Vec::new(), Vec::new());
        for _ in 0..n {
            let v = top_eigenvector(&draw(&mut rng));
            zs.push(v[2].abs());
            azimuths.push(v[1].atan2(v[0]).rem_euclid(PI));
        }
        vec![ks_test(&mut zs, uniform_cdf(0.0, 1.0), ALPHA), ks_test(&mut azimuths, uniform_cdf(0.0, PI), ALPHA)]
    }
}

#[test]
fn eigenvectors_are_haar() {
    for (i, (k, sigma)) in [(2usize, 0.3), (3, 0.3)].into_iter().enumerate() {
        let noise = SpdLaplaceNoise::new(k, sigma, None).unwrap();
        for out in haar_tests(k, N, &mut |rng| noise.sample_at_identity(rng), 200 + i as u64) {
            assert!(out.passed(), "k = {k}: Haar KS {} > {}", out.statistic, out.critical);
        }
    }
}

#[test]
fn mean_distance_matches_the_law() {
    // In a ball t ∈ [0, t_max]: Hoeffding at 1e-8 gives a margin of t_max·√(ln(2e8)/(2N)).
    let (k, sigma, t_max) = (3, 5.0, 3.0);
    let noise = SpdLaplaceNoise::new(k, sigma, Some(t_max)).unwrap();
    let law = SpdRadialLaw::new(k, sigma, Some(t_max)).unwrap();
    let mut rng = seeded_rng_for_experiments(300);
    let mean = (0..N).map(|_| noise.sample_log_eigenvalues(&mut rng).norm()).sum::<f64>() / N as f64;
    let margin = t_max * ((2e8f64).ln() / (2.0 * N as f64)).sqrt();
    assert!((mean - law.mean()).abs() < margin, "{mean} vs {}", law.mean());
}

#[test]
fn unnormalisable_scales_are_refused_unless_conditioned_on_a_ball() {
    for k in [2, 3] {
        let threshold = SpdLaplaceNoise::normalisable_below(k);
        assert!(SpdLaplaceNoise::new(k, 0.999 * threshold, None).is_ok());
        assert!(SpdLaplaceNoise::new(k, threshold, None).is_err());
        assert!(SpdLaplaceNoise::new(k, 10.0 * threshold, None).is_err());
        assert!(SpdLaplaceNoise::new(k, 10.0 * threshold, Some(2.0)).is_ok());
    }
}

// ---------------------------------------------------------------- negative controls

/// r = t·u with t ~ Gamma(k, 1/σ) and u uniform: the Laplace law of R^k, the sinh volume factor dropped.
fn without_sinh(k: usize, sigma: f64, rng: &mut ReleaseRng) -> Vec<f64> {
    let t = -(0..k).map(|_| (1.0 - rng.random::<f64>()).ln()).sum::<f64>() * sigma;
    let g: Vec<f64> = (0..k).map(|_| rng.sample::<f64, _>(StandardNormal)).collect();
    let norm = g.iter().map(|x| x * x).sum::<f64>().sqrt();
    g.iter().map(|x| t * x / norm).collect()
}

#[test]
fn negative_controls_are_rejected() {
    // The sinh factor dropped: both the distance and the direction are wrong.
    for (i, k) in [2usize, 3].into_iter().enumerate() {
        let law = SpdRadialLaw::new(k, 0.3, None).unwrap();
        let [t, tau] = law_tests(|rng| without_sinh(k, 0.3, rng), &law, 400 + i as u64);
        println!("k = {k}, no sinh: KS t {:.4}, τ {:.4} vs {:.4}", t.statistic, tau.statistic, t.critical);
        assert!(!t.passed() && !tau.passed(), "k = {k}: dropping the sinh factor passed");
    }
    // The right distance with a uniform direction: only the trace-fraction test can see it.
    for (i, k) in [2usize, 3].into_iter().enumerate() {
        let noise = SpdLaplaceNoise::new(k, 0.3, None).unwrap();
        let law = SpdRadialLaw::new(k, 0.3, None).unwrap();
        let draw = |rng: &mut ReleaseRng| {
            let t = noise.sample_log_eigenvalues(rng).norm();
            let u = without_sinh(k, 1.0, rng);
            let n = stats(&u).0;
            u.iter().map(|x| x * t / n).collect::<Vec<f64>>()
        };
        let [t, tau] = law_tests(draw, &law, 410 + i as u64);
        println!("k = {k}, uniform direction: KS t {:.4}, τ {:.4} vs {:.4}", t.statistic, tau.statistic, t.critical);
        assert!(t.passed(), "the distance was drawn exactly");
        assert!(!tau.passed(), "k = {k}: a uniform direction passed the trace-fraction test");
    }
    // σ off by 10 %.
    for (i, (k, sigma)) in [(2usize, 0.3), (3, 0.3), (3, 0.01)].into_iter().enumerate() {
        let wrong = SpdLaplaceNoise::new(k, 1.1 * sigma, None).unwrap();
        let law = SpdRadialLaw::new(k, sigma, None).unwrap();
        let [t, _] = law_tests(|rng| wrong.sample_log_eigenvalues(rng).as_slice().to_vec(), &law, 420 + i as u64);
        println!("k = {k} σ = {sigma}, σ·1.1: KS t {:.4} vs {:.4}", t.statistic, t.critical);
        assert!(!t.passed(), "k = {k}: a 10 % error in σ passed");
    }
    // The truncation ignored: untruncated draws against the law in the ball.
    for (i, (k, sigma, t_max)) in [(2usize, 0.3, 1.0), (3, 0.3, 3.0)].into_iter().enumerate() {
        let wrong = SpdLaplaceNoise::new(k, sigma, None).unwrap();
        let law = SpdRadialLaw::new(k, sigma, Some(t_max)).unwrap();
        let [t, _] = law_tests(|rng| wrong.sample_log_eigenvalues(rng).as_slice().to_vec(), &law, 430 + i as u64);
        println!("k = {k}, truncation ignored: KS t {:.4} vs {:.4}", t.statistic, t.critical);
        assert!(!t.passed(), "k = {k}: ignoring the truncation passed");
    }
    // Non-Haar eigenvectors, with the exact eigenvalues: k = 2, the rotation angle of a point uniform in a square
    // (not a disc); k = 3, Euler angles drawn uniformly (the classic mistake).
    let noise2 = SpdLaplaceNoise::new(2, 0.3, None).unwrap();
    let mut square = |rng: &mut ReleaseRng| {
        let r = noise2.sample_log_eigenvalues(rng);
        let (x, y) = (2.0 * rng.random::<f64>() - 1.0, 2.0 * rng.random::<f64>() - 1.0);
        let a = y.atan2(x);
        let u = DMatrix::from_row_slice(2, 2, &[a.cos(), -a.sin(), a.sin(), a.cos()]);
        &u * DMatrix::from_diagonal(&r.map(f64::exp)) * u.transpose()
    };
    // The angle's law has period π/2 and is off uniform by ≈ 0.023 in CDF: 200 000 draws make the rejection robust.
    let outs = haar_tests(2, 200_000, &mut square, 440);
    println!("k = 2, square angle: KS {:.4} vs {:.4}", outs[0].statistic, outs[0].critical);
    assert!(outs.iter().any(|o| !o.passed()), "a non-uniform rotation angle passed");
    let noise3 = SpdLaplaceNoise::new(3, 0.3, None).unwrap();
    let mut euler = |rng: &mut ReleaseRng| {
        let r = noise3.sample_log_eigenvalues(rng);
        let (a, b, c) = (2.0 * PI * rng.random::<f64>(), PI * rng.random::<f64>(), 2.0 * PI * rng.random::<f64>());
        let rot = Rotation3::from_euler_angles(a, b, c);
        let u = DMatrix::from_fn(3, 3, |i, j| rot[(i, j)]);
        &u * DMatrix::from_diagonal(&r.map(f64::exp)) * u.transpose()
    };
    let outs = haar_tests(3, N, &mut euler, 441);
    println!(
        "k = 3, uniform Euler angles: KS {:.4}, {:.4} vs {:.4}",
        outs[0].statistic, outs[1].statistic, outs[0].critical
    );
    assert!(outs.iter().any(|o| !o.passed()), "uniform Euler angles passed");
}

#[test]
fn draws_are_a_distribution_of_matrices() {
    let noise = SpdLaplaceNoise::new(3, 0.2, None).unwrap();
    let mut rng = seeded_rng_for_experiments(500);
    let y: DMatrix<f64> = noise.sample(&mut rng);
    assert_eq!(y.shape(), (3, 3));
    assert_eq!(y, y.transpose());
}

/// Near the top of the allowed σ the exact law puts mass on matrices that double precision cannot hold: at σ = 1
/// on SPD(2), P[log-eigenvalue gap > ln 2⁵³] = 1.6e-3 (exact, by quadrature), and rounding such a matrix's
/// entries loses its smallest eigenvalue. The float-safe release cannot certify its rounding there
/// (`docs/proofs/float_safety.md` §3e): an unconditioned release is refused before anything is drawn, saying
/// why, and `auto` conditions on the data ball instead, where every release is a finite positive definite
/// matrix on the grid.
#[test]
fn releases_that_double_precision_cannot_hold_are_refused_not_returned() {
    use manifold_dp::Error;
    use manifold_dp::manifold::{Manifold, SpdAffine};
    use manifold_dp::mechanism::{Conditioning, PrivateFrechetMean};
    use manifold_dp::space::spd::check_representable;

    // A rotated diag(1, e⁴⁰): finite entries, but the rounded matrix is singular.
    let (c, s) = (0.6f64, 0.8f64);
    let u = DMatrix::from_row_slice(2, 2, &[c, -s, s, c]);
    let lost = &u * DMatrix::from_diagonal(&DVector::from_column_slice(&[1.0, 40f64.exp()])) * u.transpose();
    assert!(matches!(check_representable(&lost), Err(Error::Unrepresentable(_))));
    assert!(check_representable(&DMatrix::from_row_slice(2, 2, &[1e6, 0.0, 0.0, 1e-6])).is_ok());

    // n = 1, r = 0.5, ε = 1: σ = Δ/ε = 1 (plus the Karcher tolerance term), unconditioned.
    let id = DMatrix::<f64>::identity(2, 2);
    let spd = SpdAffine::new(2).unwrap();
    let refused = PrivateFrechetMean::new(spd, id.clone(), 0.5, 1, 1.0, Conditioning::Unconditioned).unwrap_err();
    assert!(matches!(refused, Error::NumericalLimit(ref m) if m.contains("double precision")), "{refused}");
    let mech = PrivateFrechetMean::new(spd, id.clone(), 0.5, 1, 1.0, Conditioning::Auto).unwrap();
    // σ = 2Δ/ε′, ε′ = ε less the rounding cost (ask ε, pay ε).
    assert!(mech.conditioned() && (mech.sigma() - 2.0 / mech.noise_epsilon()).abs() < 1e-6);
    assert!(mech.noise_epsilon() < 1.0 && mech.noise_epsilon() + mech.rounding_cost() <= 1.0);
    let mut rng = seeded_rng_for_experiments(2024);
    for _ in 0..N {
        let y = mech.release(std::slice::from_ref(&id), &mut rng).unwrap();
        assert!(y.iter().all(|x| x.is_finite()) && y.clone().cholesky().is_some(), "{y}");
        assert!(spd.distance(&id, &y) <= 0.5 + 1e-9);
    }
}
