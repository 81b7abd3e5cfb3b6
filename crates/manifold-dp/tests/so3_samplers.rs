//! Goodness-of-fit of the exact SO(3) samplers against their exact angle CDFs, uniformity of their axes,
//! and the density-ratio inequality behind each guarantee — each test paired with a negative control that
//! the same test must reject.
//!
//! Statistical design: every KS test uses the DKW–Massart critical value at α = 1e-8
//! (`manifold_dp::audit::gof`), which bounds its false-failure probability by 1e-8 for any sample size,
//! with no asymptotic approximation. This file runs fewer than 100 such tests, so the probability that a
//! correct sampler fails any of them is below 1e-6 (union bound). All seeds are fixed, so runs are
//! reproducible; the bound is what a fresh seed would face.

use manifold_dp::analysis::{AngularLaw, BinghamAngle, LaplaceAngle};
use manifold_dp::audit::gof::{KsOutcome, ks_test};
use manifold_dp::mechanism::{BinghamSo3, LaplaceSo3, Mechanism};
use manifold_dp::sample::bingham_so3::BinghamSo3Noise;
use manifold_dp::sample::laplace_so3::{LaplaceProposal, LaplaceSo3Noise};
use manifold_dp::sample::paper_baseline::{PaperGammaLaplace, PaperNaiveLaplace, paper_haar_angle};
use manifold_dp::sample::rng::seeded_rng_for_experiments;
use manifold_dp::sample::sphere::{uniform_s2, uniform_s3};
use manifold_dp::space::so3::rotation_angle;
use manifold_dp::space::so3_metric::geodesic;
use nalgebra::{Matrix4, Quaternion, SymmetricEigen, UnitQuaternion, Vector3, Vector4};
use rand::distr::Distribution;
use rand::{Rng, RngExt};
use std::f64::consts::PI;

const ALPHA: f64 = 1e-8;
const N: usize = 200_000;

fn noise_angles<D: Distribution<UnitQuaternion<f64>>>(d: &D, seed: u64, n: usize) -> Vec<f64> {
    let mut rng = seeded_rng_for_experiments(seed);
    (0..n).map(|_| rotation_angle(&d.sample(&mut rng))).collect()
}

fn angle_test<D: Distribution<UnitQuaternion<f64>>, L: AngularLaw>(d: &D, law: &L, seed: u64) -> KsOutcome {
    let mut angles = noise_angles(d, seed, N);
    ks_test(&mut angles, |s| law.cdf_sorted(s), ALPHA)
}

/// KS tests that the noise axis is uniform on S²: its z coordinate and its projection on an oblique
/// direction are uniform on [−1, 1] (Archimedes), and its azimuth is uniform on (−π, π].
fn axis_tests<D: Distribution<UnitQuaternion<f64>>>(d: &D, seed: u64) -> [KsOutcome; 3] {
    let mut rng = seeded_rng_for_experiments(seed);
    let oblique = Vector3::new(1.0, 2.0, 3.0).normalize();
    let (mut zs, mut azimuths, mut projections) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..N {
        let q = d.sample(&mut rng);
        let v = q.imag() * q.w.signum();
        let axis = v / v.norm();
        zs.push(axis.z);
        azimuths.push(axis.y.atan2(axis.x));
        projections.push(axis.dot(&oblique));
    }
    let uniform = |a: f64, b: f64| move |s: &[f64]| s.iter().map(|x| ((x - a) / (b - a)).clamp(0.0, 1.0)).collect();
    [
        ks_test(&mut zs, uniform(-1.0, 1.0), ALPHA),
        ks_test(&mut azimuths, uniform(-PI, PI), ALPHA),
        ks_test(&mut projections, uniform(-1.0, 1.0), ALPHA),
    ]
}

fn assert_passes(what: &str, out: KsOutcome) {
    assert!(out.passed(), "{what}: KS {:.5} > critical {:.5} (n = {})", out.statistic, out.critical, out.n);
}

fn assert_rejects(what: &str, out: KsOutcome) {
    println!("negative control {what}: KS {:.5} vs critical {:.5}", out.statistic, out.critical);
    assert!(!out.passed(), "{what}: a broken sampler passed (KS {:.5} ≤ {:.5})", out.statistic, out.critical);
}

// ---------------------------------------------------------------- Laplace

#[test]
fn laplace_angle_matches_exact_cdf_across_epsilon() {
    // 4.2 and 4.5 sit either side of the switch from the stepped to the Gamma proposal.
    assert_eq!(LaplaceSo3Noise::new(4.2).unwrap().proposal(), LaplaceProposal::Stepped);
    assert_eq!(LaplaceSo3Noise::new(4.5).unwrap().proposal(), LaplaceProposal::Gamma);
    for (i, &eps) in [1e-6, 0.1, 0.5, 0.7, 1.0, 3.5, 4.2, 4.5, 8.0, 32.0, 1000.0, 1e6].iter().enumerate() {
        let out = angle_test(&LaplaceSo3Noise::new(eps).unwrap(), &LaplaceAngle::new(eps).unwrap(), 100 + i as u64);
        assert_passes(&format!("Laplace angle at eps = {eps}"), out);
    }
}

#[test]
fn laplace_axis_is_uniform_in_both_branches() {
    assert_eq!(LaplaceSo3Noise::new(0.1).unwrap().proposal(), LaplaceProposal::Stepped);
    assert_eq!(LaplaceSo3Noise::new(8.0).unwrap().proposal(), LaplaceProposal::Gamma);
    for (i, &eps) in [0.1, 8.0].iter().enumerate() {
        for out in axis_tests(&LaplaceSo3Noise::new(eps).unwrap(), 200 + i as u64) {
            assert_passes(&format!("Laplace axis at eps = {eps}"), out);
        }
    }
}

#[test]
fn negative_control_paper_gamma_approximation_at_eps_4() {
    let eps = 4.0;
    let out = angle_test(&PaperGammaLaplace { epsilon: eps }, &LaplaceAngle::new(eps).unwrap(), 300);
    assert_rejects("paper's Gamma(3, eps) approximation at eps = 4", out);
}

/// The paper's Haar formula θ = 2 arccos √(1 − u) used as the proposal of an otherwise correct (uncapped)
/// rejection sampler.
struct PaperHaarProposal(f64);

impl Distribution<UnitQuaternion<f64>> for PaperHaarProposal {
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> UnitQuaternion<f64> {
        loop {
            let theta = paper_haar_angle(rng);
            if rng.random::<f64>() < (-self.0 * theta).exp() {
                let (s, c) = (0.5 * theta).sin_cos();
                return UnitQuaternion::new_normalize(Quaternion::from_parts(c, uniform_s2(rng) * s));
            }
        }
    }
}

#[test]
fn negative_control_paper_haar_formula() {
    let out = angle_test(&PaperHaarProposal(0.1), &LaplaceAngle::new(0.1).unwrap(), 301);
    assert_rejects("paper's Haar formula 2 arccos sqrt(1-u) at eps = 0.1", out);
    // The paper's naive sampler as published (with its iteration cap) at the eps of its Figure 2.
    let naive = PaperNaiveLaplace { epsilon: 8.0, max_iterations: 1000 };
    assert_rejects(
        "paper's naive capped sampler at eps = 8",
        angle_test(&naive, &LaplaceAngle::new(8.0).unwrap(), 302),
    );
}

/// The angle law without the Haar factor sin²(θ/2): a truncated exponential on [0, π].
struct NoHaarFactor(f64);

impl Distribution<UnitQuaternion<f64>> for NoHaarFactor {
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> UnitQuaternion<f64> {
        let u: f64 = rng.random();
        let theta = -(-u * (-(-self.0 * PI).exp_m1())).ln_1p() / self.0;
        let (s, c) = (0.5 * theta).sin_cos();
        UnitQuaternion::new_normalize(Quaternion::from_parts(c, uniform_s2(rng) * s))
    }
}

#[test]
fn negative_control_angle_without_sin2_factor() {
    for (i, &eps) in [1.0, 8.0].iter().enumerate() {
        let out = angle_test(&NoHaarFactor(eps), &LaplaceAngle::new(eps).unwrap(), 303 + i as u64);
        assert_rejects(&format!("angle without sin^2(theta/2) at eps = {eps}"), out);
    }
}

/// Exact Laplace angle but an axis drawn by normalising a point of the cube (not uniform on S²).
struct CubeAxis(LaplaceSo3Noise);

impl Distribution<UnitQuaternion<f64>> for CubeAxis {
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> UnitQuaternion<f64> {
        let theta = rotation_angle(&self.0.sample(rng));
        let v = Vector3::new(rng.random::<f64>() - 0.5, rng.random::<f64>() - 0.5, rng.random::<f64>() - 0.5);
        let (s, c) = (0.5 * theta).sin_cos();
        UnitQuaternion::new_normalize(Quaternion::from_parts(c, v.normalize() * s))
    }
}

#[test]
fn negative_control_non_uniform_axis() {
    let outs = axis_tests(&CubeAxis(LaplaceSo3Noise::new(8.0).unwrap()), 305);
    for o in &outs {
        println!("cube axis: KS {:.5} vs {:.5}", o.statistic, o.critical);
    }
    assert!(outs.iter().any(|o| !o.passed()), "cube-normalised axes passed every uniformity test");
}

// ---------------------------------------------------------------- Bingham

const BINGHAM_EPS: [f64; 6] = [0.1, 1.0, 3.5, 8.0, 32.0, 1000.0];

#[test]
fn bingham_angle_matches_quadrature_cdf_across_epsilon() {
    for (i, &eps) in BINGHAM_EPS.iter().enumerate() {
        let kappa = 2.0 * eps;
        let out = angle_test(&BinghamSo3Noise::new(kappa).unwrap(), &BinghamAngle::new(kappa).unwrap(), 400 + i as u64);
        assert_passes(&format!("Bingham angle at kappa = {kappa}"), out);
    }
}

#[test]
fn bingham_axis_is_uniform() {
    for (i, &kappa) in [0.2, 16.0].iter().enumerate() {
        for out in axis_tests(&BinghamSo3Noise::new(kappa).unwrap(), 500 + i as u64) {
            assert_passes(&format!("Bingham axis at kappa = {kappa}"), out);
        }
    }
}

#[test]
fn negative_control_bingham_at_kappa_4eps() {
    for (i, &eps) in [1.0, 8.0].iter().enumerate() {
        let wrong = BinghamSo3Noise::new(4.0 * eps).unwrap();
        let out = angle_test(&wrong, &BinghamAngle::new(2.0 * eps).unwrap(), 600 + i as u64);
        assert_rejects(&format!("Bingham with kappa = 4 eps at eps = {eps}"), out);
    }
}

#[test]
fn bingham_acceptance_matches_its_exact_rate() {
    // Hoeffding: P[|measured − exact| > t] ≤ 2·exp(−2nt²), the same exact bound as the KS tests.
    let n = 100_000;
    let t = manifold_dp::audit::gof::dkw_critical_value(n, ALPHA);
    let mut rng = seeded_rng_for_experiments(700);
    for &kappa in &[2e-6, 0.2, 2.0, 7.0, 16.0, 64.0, 2000.0, 2e6] {
        let noise = BinghamSo3Noise::new(kappa).unwrap();
        let (measured, exact) = (noise.measure_acceptance(&mut rng, n), noise.acceptance_rate());
        println!("Bingham KGM acceptance at kappa = {kappa}: measured {measured:.4}, exact {exact:.4}");
        assert!((measured - exact).abs() <= t, "kappa = {kappa}: measured {measured} vs exact {exact}");
        assert!(exact > 0.44);
    }
    // Negative control: a wrong exact rate (the envelope constant off by 10 %) is caught.
    let noise = BinghamSo3Noise::new(16.0).unwrap();
    assert!((noise.measure_acceptance(&mut rng, n) - 1.1 * noise.acceptance_rate()).abs() > t);
}

// ---------------------------------------------------------------- mechanisms

#[test]
fn mechanisms_move_any_input_by_the_noise_law() {
    let mut rng = seeded_rng_for_experiments(800);
    let x = uniform_s3(&mut rng);
    let laplace = LaplaceSo3::new(3.5).unwrap();
    let bingham = BinghamSo3::new(3.5).unwrap();
    let mut a: Vec<f64> = (0..N).map(|_| geodesic(&x, &laplace.privatize(&x, &mut rng).unwrap())).collect();
    assert_passes("Laplace mechanism at a random input", ks_test(&mut a, |s| laplace.angle_law().cdf_sorted(s), ALPHA));
    let mut b: Vec<f64> = (0..N).map(|_| geodesic(&x, &bingham.privatize(&x, &mut rng).unwrap())).collect();
    assert_passes("Bingham mechanism at a random input", ks_test(&mut b, |s| bingham.angle_law().cdf_sorted(s), ALPHA));
}

/// Largest ln[f(z|x)/f(z|x′)] − ε·θ(x, x′) over random inputs and outputs, including, for each pair, the
/// output that maximises the Bingham log-ratio (top eigenvector of x xᵀ − x′x′ᵀ) and the outputs on the
/// geodesic through x and x′ that maximise the Laplace one.
fn worst_excess<M: Mechanism<Point = UnitQuaternion<f64>>>(mech: &M, claimed_eps: f64, seed: u64) -> f64 {
    let mut rng = seeded_rng_for_experiments(seed);
    let mut worst = f64::NEG_INFINITY;
    for i in 0..20_000 {
        let x = uniform_s3(&mut rng);
        // Distances from tiny to π.
        let d = PI * 10f64.powf(-4.0 * rng.random::<f64>());
        let step = UnitQuaternion::from_scaled_axis(uniform_s2(&mut rng) * d);
        let x2 = x * step;
        let m: Matrix4<f64> = {
            let (a, b) = (x.coords, x2.coords);
            a * a.transpose() - b * b.transpose()
        };
        let eig = SymmetricEigen::new(m);
        let top = eig.eigenvalues.imax();
        let v: Vector4<f64> = eig.eigenvectors.column(top).into();
        let mut candidates = vec![
            uniform_s3(&mut rng),
            UnitQuaternion::from_quaternion(Quaternion::from(v)),
            x * step.powf(-(i as f64 % 7.0)),
        ];
        candidates.push(x);
        let dist = geodesic(&x, &x2);
        for z in candidates {
            let excess = mech.log_density(&z, &x) - mech.log_density(&z, &x2) - claimed_eps * dist;
            worst = worst.max(excess / dist.max(1e-300));
        }
    }
    worst
}

#[test]
fn density_ratio_never_exceeds_exp_eps_d() {
    for &eps in &[0.1, 1.0, 8.0, 1000.0] {
        let laplace = LaplaceSo3::new(eps).unwrap();
        let bingham = BinghamSo3::new(eps).unwrap();
        assert!(worst_excess(&laplace, laplace.guarantee().epsilon().unwrap(), 900) <= 1e-9 * eps);
        let b = worst_excess(&bingham, bingham.guarantee().epsilon().unwrap(), 901);
        assert!(b <= 1e-9 * eps, "Bingham eps = {eps}: ratio exceeds by {b} per radian");
        // Tightness: the supremum is attained as d → 0, so κ = 2ε is the largest κ that is εφ6-private.
        assert!(b >= -1e-4 * eps, "Bingham's worst ratio is {b} per radian below eps: calibration is loose");
    }
}

#[test]
fn negative_control_density_ratio_catches_overconcentration() {
    let eps = 1.0;
    let overconcentrated = BinghamSo3::with_concentration(4.0 * eps).unwrap();
    let excess = worst_excess(&overconcentrated, eps, 902);
    println!("Bingham kappa = 4 eps claimed eps-private: excess {excess:.4} per radian");
    assert!(excess > 0.5 * eps);
    let laplace_twice = LaplaceSo3::new(2.0 * eps).unwrap();
    assert!(worst_excess(&laplace_twice, eps, 903) > 0.5 * eps);
}
