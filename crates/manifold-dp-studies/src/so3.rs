//! Hildebrandt et al., *Metric differential privacy on SO(3)*: the simulation study, with the exact samplers
//! beside the paper's own. Figure 2 compares the paper's Laplace samplers with the exact one at ε = 8, Figure 3
//! compares Laplace with Bingham at equal radii, and [`throughput`] times them across ε. The comparison with
//! the paper is in `docs/reproduce_so3.md`.

use crate::Result;
use manifold_dp::analysis::{AngularLaw, LaplaceAngle, laplace_so3};
use manifold_dp::audit::gof::{dkw_critical_value, ks_statistic_sorted};
use manifold_dp::mechanism::{Mechanism, So3Kind, So3Mechanism};
use manifold_dp::sample::laplace_so3::LaplaceSo3Noise;
use manifold_dp::sample::paper_baseline::{PaperEfficientLaplace, PaperGammaLaplace, PaperNaiveLaplace};
use manifold_dp::sample::rng::{ReleaseRng, seeded_rng_for_experiments};
use manifold_dp::space::so3::rotation_angle;
use manifold_dp::stats::Histogram;
use nalgebra::{UnitQuaternion, Vector3};
use rand::distr::Distribution;
use std::time::Instant;

/// The paper does not state its naive sampler's iteration cap; this is ours.
pub const NAIVE_CAP: usize = 1000;
/// ε of the paper's Figure 2.
pub const FIG2_EPSILON: f64 = 8.0;
/// Radii (degrees) at p = 0.683 that choose Figure 3's budgets (the paper's exact values are not given).
pub const FIG3_RADII_DEG: [f64; 4] = [90.0, 45.0, 20.0, 10.0];
/// KS level reported beside each histogram.
pub const KS_ALPHA: f64 = 1e-6;
/// Histogram bins on [0, π].
pub const BINS: usize = 90;
/// The budgets (per radian) of the throughput comparison.
pub const THROUGHPUT_EPSILONS: [f64; 11] = [0.1, 0.3, 1.0, 2.0, 3.5, 5.0, 8.0, 16.0, 32.0, 100.0, 1000.0];

/// The whole study: both figures and the throughput comparison, drawn in that order from one seeded generator.
pub struct So3Figures {
    /// Figure 2.
    pub figure2: Figure2,
    /// Figure 3.
    pub figure3: Figure3,
    /// Noisy rotations per second, one row per ε of [`THROUGHPUT_EPSILONS`].
    pub throughput: Vec<ThroughputRow>,
}

/// Runs the study with `samples` draws per histogram (at least 1) under `seed`.
pub fn so3_figures(samples: usize, seed: u64) -> Result<So3Figures> {
    let mut rng = seeded_rng_for_experiments(seed);
    let n = samples.max(1);
    let figure2 = figure2(n, &mut rng)?;
    let figure3 = figure3(n, &mut rng)?;
    let throughput = throughput(&mut rng)?;
    Ok(So3Figures { figure2, figure3, throughput })
}

/// One sampler's noise angles against the exact law.
pub struct SamplerFit {
    /// The sampler, as the paper or this library names it.
    pub sampler: &'static str,
    /// Mean of the sampled angles (rad).
    pub mean_angle: f64,
    /// Kolmogorov–Smirnov distance to the exact angle law.
    pub ks_distance: f64,
    /// Whether the KS distance is within the critical value at level [`KS_ALPHA`].
    pub consistent: bool,
    /// The sampled angles, binned on [0, π].
    pub histogram: Histogram,
}

/// One bin of Figure 2's histograms: the three samplers' densities and the exact density at the bin's middle.
pub struct Figure2Bin {
    /// Lower edge (rad).
    pub lo: f64,
    /// Upper edge (rad).
    pub hi: f64,
    /// The paper's naive sampler.
    pub naive: f64,
    /// The paper's Gamma approximation.
    pub gamma: f64,
    /// This library's exact sampler.
    pub exact_sampler: f64,
    /// The exact density at the middle of the bin.
    pub exact_density_mid: f64,
}

/// Figure 2: `n` Laplace noise angles at ε = [`FIG2_EPSILON`] from the paper's two samplers and the exact one.
pub struct Figure2 {
    /// The budget per radian.
    pub epsilon: f64,
    /// Draws per sampler.
    pub n: usize,
    /// Mean of the exact angle law (rad).
    pub exact_mean_angle: f64,
    /// The KS critical value at level [`KS_ALPHA`] for `n` draws.
    pub ks_critical: f64,
    /// Naive, Gamma, exact, in that order.
    pub samplers: Vec<SamplerFit>,
    /// The histograms side by side.
    pub bins: Vec<Figure2Bin>,
    /// The exact density on a fine grid of [0, π], as (angle, density).
    pub density: Vec<(f64, f64)>,
}

fn histogram(angles: &[f64]) -> Histogram {
    let mut h = Histogram::new(0.0, std::f64::consts::PI, BINS).expect("valid bins");
    h.add_all(angles.iter().copied());
    h
}

/// Mean of the angles and their KS distance to `cdf_sorted`.
fn ks(mut angles: Vec<f64>, cdf_sorted: impl Fn(&[f64]) -> Vec<f64>) -> (f64, f64) {
    angles.sort_by(f64::total_cmp);
    let mean = angles.iter().sum::<f64>() / angles.len() as f64;
    (mean, ks_statistic_sorted(&angles, &cdf_sorted(&angles)))
}

/// Figure 2 with `n` draws per sampler.
pub fn figure2(n: usize, rng: &mut ReleaseRng) -> Result<Figure2> {
    let eps = FIG2_EPSILON;
    let law = LaplaceAngle::new(eps)?;
    let naive = PaperNaiveLaplace { epsilon: eps, max_iterations: NAIVE_CAP };
    let gamma = PaperGammaLaplace { epsilon: eps };
    let exact = LaplaceSo3Noise::new(eps)?;
    let sets: Vec<(&'static str, Vec<f64>)> = vec![
        ("paper naive (capped at 1000)", (0..n).map(|_| rotation_angle(&naive.sample(rng))).collect()),
        ("paper Gamma(3; eps) approximation", (0..n).map(|_| rotation_angle(&gamma.sample(rng))).collect()),
        ("exact (this library)", (0..n).map(|_| rotation_angle(&exact.sample(rng))).collect()),
    ];
    let critical = dkw_critical_value(n, KS_ALPHA);
    let samplers: Vec<SamplerFit> = sets
        .into_iter()
        .map(|(sampler, angles)| {
            let (mean_angle, ks_distance) = ks(angles.clone(), |s| law.cdf_sorted(s));
            SamplerFit {
                sampler,
                mean_angle,
                ks_distance,
                consistent: ks_distance <= critical,
                histogram: histogram(&angles),
            }
        })
        .collect();
    let densities: Vec<Vec<f64>> = samplers.iter().map(|s| s.histogram.density()).collect();
    let bins = (0..BINS)
        .map(|k| {
            let (lo, hi) = samplers[0].histogram.edges(k);
            Figure2Bin {
                lo,
                hi,
                naive: densities[0][k],
                gamma: densities[1][k],
                exact_sampler: densities[2][k],
                exact_density_mid: law.pdf(0.5 * (lo + hi)),
            }
        })
        .collect();
    let density = (0..=600).map(|i| i as f64 * std::f64::consts::PI / 600.0).map(|t| (t, law.pdf(t))).collect();
    Ok(Figure2 { epsilon: eps, n, exact_mean_angle: law.mean(), ks_critical: critical, samplers, bins, density })
}

/// One mechanism's noise angles in Figure 3.
pub struct Figure3Fit {
    /// The mechanism and its calibration.
    pub mechanism: &'static str,
    /// Its concentration, where it has one (Bingham).
    pub concentration: Option<f64>,
    /// The ε of its guarantee (NaN if it has none).
    pub guarantee_epsilon: f64,
    /// Mean of the sampled angles (degrees).
    pub mean_angle_deg: f64,
    /// Mean of the exact angle law (degrees).
    pub theory_mean_angle_deg: f64,
    /// The empirical 0.683-quantile of the angles (degrees).
    pub radius_68_deg_empirical: f64,
    /// KS distance to the mechanism's exact angle law.
    pub ks_distance: f64,
    /// The sampled angles, binned on [0, π].
    pub histogram: Histogram,
}

/// One panel of Figure 3: the mechanisms at the ε whose Laplace radius at p = 0.683 is `radius_deg`.
pub struct Figure3Panel {
    /// The Laplace radius at p = 0.683 (degrees).
    pub radius_deg: f64,
    /// The budget per radian it gives.
    pub epsilon: f64,
    /// Laplace, Bingham with the tight κ = 2ε, Bingham with the paper's κ = ε.
    pub mechanisms: Vec<Figure3Fit>,
}

/// Figure 3: Laplace against Bingham at equal radii, `n` draws per histogram.
pub struct Figure3 {
    /// Draws per mechanism.
    pub n: usize,
    /// The KS critical value at level [`KS_ALPHA`] for `n` draws.
    pub ks_critical: f64,
    /// One panel per radius of [`FIG3_RADII_DEG`].
    pub panels: Vec<Figure3Panel>,
}

/// Figure 3 with `n` draws per mechanism and radius.
pub fn figure3(n: usize, rng: &mut ReleaseRng) -> Result<Figure3> {
    let critical = dkw_critical_value(n, KS_ALPHA);
    let identity = UnitQuaternion::identity();
    let mut panels = Vec::new();
    for rho_deg in FIG3_RADII_DEG {
        let eps = laplace_so3::epsilon_for_radius(rho_deg.to_radians(), 0.683)?;
        let mechs = [
            ("laplace", So3Mechanism::for_epsilon(So3Kind::Laplace, eps)?),
            ("bingham kappa=2eps (tight)", So3Mechanism::for_epsilon(So3Kind::Bingham, eps)?),
            ("bingham kappa=eps (paper)", So3Mechanism::bingham_with_concentration(eps)?),
        ];
        let mut mechanisms = Vec::new();
        for (name, mech) in &mechs {
            let angles: Vec<f64> =
                (0..n).map(|_| Ok(rotation_angle(&mech.privatize(&identity, rng)?))).collect::<Result<_>>()?;
            let mut sorted = angles.clone();
            sorted.sort_by(f64::total_cmp);
            let rho68 = sorted[((0.683 * n as f64).ceil() as usize).clamp(1, n) - 1];
            let (mean, d) = ks(angles.clone(), |s| mech.angle_cdf_sorted(s));
            mechanisms.push(Figure3Fit {
                mechanism: name,
                concentration: mech.concentration(),
                guarantee_epsilon: mech.guarantee().epsilon().unwrap_or(f64::NAN),
                mean_angle_deg: mean.to_degrees(),
                theory_mean_angle_deg: mech.mean_angle().to_degrees(),
                radius_68_deg_empirical: rho68.to_degrees(),
                ks_distance: d,
                histogram: histogram(&angles),
            });
        }
        panels.push(Figure3Panel { radius_deg: rho_deg, epsilon: eps, mechanisms });
    }
    Ok(Figure3 { n, ks_critical: critical, panels })
}

/// Noisy rotations per second on one thread at one ε.
pub struct ThroughputRow {
    /// The budget per radian.
    pub epsilon: f64,
    /// The exact Laplace mechanism.
    pub laplace_per_s: f64,
    /// The exact Bingham mechanism (κ = 2ε).
    pub bingham_per_s: f64,
    /// The paper's Laplace sampler (not exact).
    pub paper_laplace_per_s: f64,
}

impl ThroughputRow {
    /// How many times faster Laplace is than Bingham.
    pub fn laplace_over_bingham(&self) -> f64 {
        self.laplace_per_s / self.bingham_per_s
    }
}

/// Noisy rotations per second on one thread, for `count` draws.
fn rate(count: usize, mut draw: impl FnMut() -> manifold_dp::Fallible<UnitQuaternion<f64>>) -> Result<f64> {
    let start = Instant::now();
    let mut sink = Vector3::zeros();
    for _ in 0..count {
        sink += draw()?.imag();
    }
    std::hint::black_box(sink);
    Ok(count as f64 / start.elapsed().as_secs_f64())
}

/// Times the mechanisms at every ε of [`THROUGHPUT_EPSILONS`] (wall clock, so the rates vary between runs).
pub fn throughput(rng: &mut ReleaseRng) -> Result<Vec<ThroughputRow>> {
    let x = UnitQuaternion::from_scaled_axis(Vector3::new(0.3, -0.2, 0.1));
    let count = 300_000;
    let mut rows = Vec::new();
    for eps in THROUGHPUT_EPSILONS {
        let l = So3Mechanism::for_epsilon(So3Kind::Laplace, eps)?;
        let b = So3Mechanism::for_epsilon(So3Kind::Bingham, eps)?;
        let p = PaperEfficientLaplace { epsilon: eps, max_iterations: NAIVE_CAP };
        let laplace_per_s = rate(count, || l.privatize(&x, rng))?;
        let bingham_per_s = rate(count, || b.privatize(&x, rng))?;
        // The paper's naive branch nearly stalls just below ε = 3.5; fewer draws keep this step short.
        let paper_laplace_per_s = rate(count / 10, || Ok(x * p.sample(rng)))?;
        rows.push(ThroughputRow { epsilon: eps, laplace_per_s, bingham_per_s, paper_laplace_per_s });
    }
    Ok(rows)
}
