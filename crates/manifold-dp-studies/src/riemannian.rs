//! Reimherr, Bharath & Soto, *Differentially private Riemannian manifold summaries* (NeurIPS 2021), Figure 1:
//! the Fréchet mean's sensitivity against n with Theorem 2's bound, and the error of the intrinsic Riemannian
//! Laplace against the extrinsic Euclidean Laplace, for SPD(2) and S² as in the paper, plus SO(3), which the
//! paper lacks. The comparison with the paper is in `docs/reproduce_riemannian.md`.
//!
//! **Data** (the paper's Appendix A): SPD(2) from the Wishart W(I/2, 2), kept if ρ(X, I) < r = 1.5; S²
//! uniform in polar angle on [0, r] and in azimuth around the north pole, r = π/8; SO(3) likewise (rotation
//! angle uniform on [0, r], axis uniform), r = π/4.
//!
//! **Mechanisms** at ε = 1, all on the Fréchet mean x̄:
//! - `intrinsic`: the Riemannian Laplace at Theorem 2's Δ, σ = Δ/ε (proven);
//! - `intrinsic-empirical` (S² and SO(3)): the same with the paper's sphere calibration, Δ = C/(n·h) where
//!   C is the empirical spread of log maps over the boundary of the ball (Appendix B.1): *not* a proven bound;
//! - `extrinsic`: x̄ embedded in R^D (R³ for S², vech in R³ for SPD(2), the 3×3 matrix in R⁹ for SO(3)) plus
//!   the ℓ₂ K-norm Laplace with σ = 2r_E/(nε), r_E the radius of a Euclidean ball containing the data ball
//!   (2 sin(r/2) on S², e^r − 1 on SPD (their Proposition 1), 2√2 sin(r/2) on SO(3)) — the paper's calibration.
//!
//! **Error**: the Euclidean distance between the embedded x̄ and the embedded release, as in the paper.

use crate::Result;
use manifold_dp::manifold::{
    KarcherOptions, Manifold, So3, SpdAffine, Sphere, empirical_log_spread, frechet_mean, frechet_sensitivity, h_factor,
};
use manifold_dp::mechanism::{Conditioning, LaplaceManifold, PrivateFrechetMean};
use manifold_dp::sample::k_norm::EuclideanLaplace;
use manifold_dp::sample::rng::{ReleaseRng, StreamKey};
use manifold_dp::sample::sphere::uniform_s2;
use manifold_dp::sample::wishart::wishart;
use manifold_dp::space::spd::check_positive_definite;
use nalgebra::{DMatrix, DVector, UnitQuaternion, Vector3};
use rand::RngExt;
use rayon::prelude::*;
use std::f64::consts::PI;

/// The budget of every release.
pub const EPSILON: f64 = 1.0;
/// The sample sizes.
pub const NS: [usize; 11] = [10, 15, 20, 30, 40, 60, 100, 150, 250, 400, 600];
/// Neighbouring pairs per n in the sensitivity panels.
pub const PAIRS: usize = 40;

/// One manifold's experiment.
struct Setup<M: LaplaceManifold> {
    /// Name in the tables and figure.
    name: &'static str,
    manifold: M,
    center: M::Point,
    radius: f64,
    /// One data point in B_r(center).
    draw: fn(&mut ReleaseRng, f64) -> M::Point,
    /// Extrinsic coordinates (the paper's embedding).
    embed: fn(&M::Point) -> DVector<f64>,
    /// Radius of a Euclidean ball (in the embedding) containing the embedded data ball.
    euclidean_radius: f64,
    /// The paper's empirical spread C, where it uses one instead of 2r(2 − h).
    empirical_spread: Option<f64>,
    /// Whether an extrinsic release is still on the manifold.
    on_manifold: fn(&DVector<f64>) -> bool,
}

fn sphere_point(rng: &mut ReleaseRng, r: f64) -> DVector<f64> {
    let theta = r * rng.random::<f64>();
    let phi = 2.0 * PI * rng.random::<f64>();
    DVector::from_column_slice(&[theta.sin() * phi.cos(), theta.sin() * phi.sin(), theta.cos()])
}

fn so3_point(rng: &mut ReleaseRng, r: f64) -> UnitQuaternion<f64> {
    let theta = r * rng.random::<f64>();
    UnitQuaternion::from_scaled_axis(uniform_s2(rng) * theta)
}

fn spd_point(rng: &mut ReleaseRng, r: f64) -> DMatrix<f64> {
    let v_sqrt = DMatrix::identity(2, 2) * 0.5f64.sqrt();
    let spd = SpdAffine::new(2).expect("k = 2");
    loop {
        let x = wishart(&v_sqrt, 2, rng);
        // A singular draw (probability zero) or one outside the ball is drawn again, as in the paper.
        if check_positive_definite(&x).is_ok() && spd.distance(&DMatrix::identity(2, 2), &x) < r {
            return x;
        }
    }
}

fn vech(m: &DMatrix<f64>) -> DVector<f64> {
    DVector::from_column_slice(&[m[(0, 0)], m[(0, 1)], m[(1, 1)]])
}

fn rotation_matrix(q: &UnitQuaternion<f64>) -> DVector<f64> {
    DVector::from_column_slice(q.to_rotation_matrix().matrix().as_slice())
}

fn spd_setup() -> Result<Setup<SpdAffine>> {
    let r = 1.5;
    Ok(Setup {
        name: "SPD(2)",
        manifold: SpdAffine::new(2)?,
        center: DMatrix::identity(2, 2),
        radius: r,
        draw: spd_point,
        embed: vech,
        euclidean_radius: r.exp() - 1.0,
        empirical_spread: None,
        on_manifold: |v| v[0] > 0.0 && v[0] * v[2] - v[1] * v[1] > 0.0,
    })
}

/// Evenly spaced points on the boundary of B_r(center) on `m` (a grid of directions in the tangent space).
fn boundary_grid<M: Manifold>(
    m: &M,
    center: &M::Point,
    r: f64,
    directions: &[Vector3<f64>],
    dim: usize,
) -> Vec<M::Point> {
    directions
        .iter()
        .map(|d| {
            let v = DVector::from_fn(dim, |i, _| d[i]) * r;
            m.exp(center, &v)
        })
        .collect()
}

fn sphere_setup() -> Result<Setup<Sphere>> {
    let r = PI / 8.0;
    let s2 = Sphere::new(3)?;
    let north = DVector::from_column_slice(&[0.0, 0.0, 1.0]);
    // Tangent plane at the north pole: directions (cos a, sin a, 0), 720 of them.
    let dirs: Vec<Vector3<f64>> =
        (0..720).map(|i| (2.0 * PI * i as f64 / 720.0).sin_cos()).map(|(s, c)| Vector3::new(c, s, 0.0)).collect();
    let grid = boundary_grid(&s2, &north, r, &dirs, 3);
    Ok(Setup {
        name: "S^2",
        manifold: s2,
        center: north,
        radius: r,
        draw: sphere_point,
        embed: |v| v.clone(),
        euclidean_radius: 2.0 * (r / 2.0).sin(),
        empirical_spread: Some(empirical_log_spread(&s2, &grid)),
        on_manifold: |_| false,
    })
}

fn so3_setup() -> Result<Setup<So3>> {
    let r = PI / 4.0;
    // A Fibonacci grid of 2000 axes for the boundary of the ball.
    let m = 2000;
    let golden = PI * (3.0 - 5f64.sqrt());
    let dirs: Vec<Vector3<f64>> = (0..m)
        .map(|i| {
            let z = 1.0 - 2.0 * (i as f64 + 0.5) / m as f64;
            let rho = (1.0 - z * z).sqrt();
            let (s, c) = (golden * i as f64).sin_cos();
            Vector3::new(rho * c, rho * s, z)
        })
        .collect();
    let grid = boundary_grid(&So3, &UnitQuaternion::identity(), r, &dirs, 3);
    Ok(Setup {
        name: "SO(3)",
        manifold: So3,
        center: UnitQuaternion::identity(),
        radius: r,
        draw: so3_point,
        embed: rotation_matrix,
        euclidean_radius: 2.0 * 2f64.sqrt() * (r / 2.0).sin(),
        empirical_spread: Some(empirical_log_spread(&So3, &grid)),
        on_manifold: |_| false,
    })
}

/// One neighbouring pair: data sets of n points that differ in the last one.
pub struct SensitivityRow {
    /// Points per data set.
    pub n: usize,
    /// Geodesic distance between the two Fréchet means.
    pub distance: f64,
    /// Theorem 2's bound on it.
    pub bound: f64,
    /// 2r/n, the Euclidean sensitivity of a mean of points in a ball of radius r.
    pub euclidean_2r_over_n: f64,
}

/// The pairs at one n, summarised.
pub struct SensitivitySummary {
    /// Points per data set.
    pub n: usize,
    /// Mean distance between neighbouring means.
    pub mean: f64,
    /// Largest distance between neighbouring means.
    pub max: f64,
    /// Theorem 2's bound.
    pub bound: f64,
}

/// One method's error at one n.
pub struct UtilityRow {
    /// `intrinsic`, `intrinsic-empirical` or `extrinsic`.
    pub method: &'static str,
    /// Points per data set.
    pub n: usize,
    /// Repetitions averaged over.
    pub repetitions: usize,
    /// The noise scale.
    pub sigma: f64,
    /// Mean Euclidean distance (in the embedding) between the release and the mean.
    pub mean_error: f64,
    /// Its standard error.
    pub se: f64,
    /// Fraction of releases off the manifold (extrinsic releases; 0 for intrinsic ones).
    pub off_manifold_fraction: f64,
}

/// One manifold's results.
pub struct ManifoldStudy {
    /// `SPD(2)`, `S^2` or `SO(3)`.
    pub name: &'static str,
    /// Every neighbouring pair, by n.
    pub sensitivity: Vec<SensitivityRow>,
    /// The pairs summarised per n.
    pub sensitivity_summary: Vec<SensitivitySummary>,
    /// Every method at every n, by n.
    pub utility: Vec<UtilityRow>,
}

impl ManifoldStudy {
    /// The methods, in the order they first appear.
    pub fn methods(&self) -> Vec<&'static str> {
        let mut out: Vec<&'static str> = Vec::new();
        for r in &self.utility {
            if !out.contains(&r.method) {
                out.push(r.method);
            }
        }
        out
    }

    /// One method's rows, by n.
    pub fn method(&self, method: &str) -> Vec<&UtilityRow> {
        self.utility.iter().filter(|r| r.method == method).collect()
    }
}

/// The paper's empirical log-map spread C on the boundary of the ball against Theorem 2's 2r(2 − h).
pub struct SpreadCheck {
    /// The manifold.
    pub manifold: &'static str,
    /// C.
    pub empirical: f64,
    /// 2r(2 − h).
    pub theorem_bound: f64,
}

/// The whole study.
pub struct RiemannianMean {
    /// S² and SO(3), where the paper's calibration uses C.
    pub spreads: Vec<SpreadCheck>,
    /// SPD(2), S², SO(3).
    pub manifolds: Vec<ManifoldStudy>,
}

fn mean_and_se(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, (var / n).sqrt())
}

fn run_setup<M: LaplaceManifold + Copy>(s: &Setup<M>, key: &StreamKey, tag: u64, reps: usize) -> Result<ManifoldStudy> {
    let opts = KarcherOptions::default();
    let dim_e = (s.embed)(&s.center).len();
    let h = h_factor(s.radius, s.manifold.curvature_bound());
    let mut out =
        ManifoldStudy { name: s.name, sensitivity: Vec::new(), sensitivity_summary: Vec::new(), utility: Vec::new() };
    for (ni, &n) in NS.iter().enumerate() {
        let bound = frechet_sensitivity(&s.manifold, s.radius, n)?;
        // Sensitivity: D and D′ share n − 1 points; the last differs.
        let shifts: Vec<f64> = (0..PAIRS)
            .into_par_iter()
            .map(|p| -> Result<f64> {
                let mut rng = key.stream((tag << 56) | ((ni as u64) << 40) | (1 << 32) | p as u64);
                let mut d: Vec<M::Point> = (0..n).map(|_| (s.draw)(&mut rng, s.radius)).collect();
                let a = frechet_mean(&s.manifold, &d, &s.center, opts)?.mean;
                d[n - 1] = (s.draw)(&mut rng, s.radius);
                let b = frechet_mean(&s.manifold, &d, &s.center, opts)?.mean;
                Ok(s.manifold.distance(&a, &b))
            })
            .collect::<Result<_>>()?;
        for &distance in &shifts {
            out.sensitivity.push(SensitivityRow { n, distance, bound, euclidean_2r_over_n: 2.0 * s.radius / n as f64 });
        }
        let max = shifts.iter().copied().fold(0.0, f64::max);
        out.sensitivity_summary.push(SensitivitySummary { n, mean: mean_and_se(&shifts).0, max, bound });

        // Utility: privatize the same x̄ by every method.
        let intrinsic =
            PrivateFrechetMean::new(s.manifold, s.center.clone(), s.radius, n, EPSILON, Conditioning::Unconditioned)?;
        let empirical = match s.empirical_spread {
            Some(c) => {
                let sigma = c / (n as f64 * h) / EPSILON;
                Some((sigma, s.manifold.laplace_noise(sigma, None)?))
            }
            None => None,
        };
        let sigma_e = 2.0 * s.euclidean_radius / n as f64 / EPSILON;
        let extrinsic = EuclideanLaplace::new(dim_e, sigma_e, None)?;
        let per_rep: Vec<(f64, Option<f64>, f64, bool)> = (0..reps)
            .into_par_iter()
            .map(|rep| -> Result<_> {
                let mut rng = key.stream((tag << 56) | ((ni as u64) << 40) | (2 << 32) | rep as u64);
                let d: Vec<M::Point> = (0..n).map(|_| (s.draw)(&mut rng, s.radius)).collect();
                let mean = frechet_mean(&s.manifold, &d, &s.center, opts)?.mean;
                let e = (s.embed)(&mean);
                let intr = (s.embed)(&intrinsic.privatize_mean(&mean, &mut rng));
                let emp = empirical
                    .as_ref()
                    .map(|(_, noise)| ((s.embed)(&s.manifold.sample_laplace(noise, &mean, &mut rng)) - &e).norm());
                let ext = &e + extrinsic.sample(&mut rng);
                Ok(((intr - &e).norm(), emp, (&ext - &e).norm(), (s.on_manifold)(&ext)))
            })
            .collect::<Result<_>>()?;
        let mut record = |method: &'static str, sigma: f64, errs: Vec<f64>, off: f64| {
            let (mean_error, se) = mean_and_se(&errs);
            out.utility.push(UtilityRow {
                method,
                n,
                repetitions: reps,
                sigma,
                mean_error,
                se,
                off_manifold_fraction: off,
            });
        };
        record("intrinsic", intrinsic.sigma(), per_rep.iter().map(|r| r.0).collect(), 0.0);
        if let Some((sigma, _)) = &empirical {
            record("intrinsic-empirical", *sigma, per_rep.iter().filter_map(|r| r.1).collect(), 0.0);
        }
        let off = per_rep.iter().filter(|r| !r.3).count() as f64 / reps as f64;
        record("extrinsic", sigma_e, per_rep.iter().map(|r| r.2).collect(), off);
    }
    Ok(out)
}

/// Runs the study with `repetitions` (at least 2) per n under `seed`, pairs and repetitions in parallel.
pub fn riemannian_mean(repetitions: usize, seed: u64) -> Result<RiemannianMean> {
    crate::check_repetitions(repetitions)?;
    let key = StreamKey::from_seed_for_experiments(seed);
    let spd = spd_setup()?;
    let s2 = sphere_setup()?;
    let so3 = so3_setup()?;
    let spread = |name: &'static str, c: Option<f64>, r: f64, kappa: f64| SpreadCheck {
        manifold: name,
        empirical: c.unwrap_or(f64::NAN),
        theorem_bound: 2.0 * r * (2.0 - h_factor(r, kappa)),
    };
    let spreads = vec![
        spread(s2.name, s2.empirical_spread, s2.radius, s2.manifold.curvature_bound()),
        spread(so3.name, so3.empirical_spread, so3.radius, so3.manifold.curvature_bound()),
    ];
    let manifolds = vec![
        run_setup(&spd, &key, 1, repetitions)?,
        run_setup(&s2, &key, 2, repetitions)?,
        run_setup(&so3, &key, 3, repetitions)?,
    ];
    Ok(RiemannianMean { spreads, manifolds })
}
