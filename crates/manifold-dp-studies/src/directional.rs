//! Weggenmann & Kerschbaum, *Differential privacy for directional data* (CCS 2021), §1: the circular mean of
//! time-of-day responses at pure ε = 1 per response in the local model, VMF and Purkayastha against the
//! wrapped-Laplace baseline. The comparison with the paper is in `docs/reproduce_directional.md`.
//!
//! **Data.** Each repetition draws a fresh data set of visit times from a von Mises law around 13:00 (a
//! point of the 24 h circle), once with concentration κ = 4 per radian² ("spread": circular standard
//! deviation ≈ 2.1 h) and once with κ = 1000 ("concentrated": ≈ 7 min, nearly one time for everyone).
//!
//! **Responses.** Every response is privatized on its own with pure ε = 1 (protection radius: the whole
//! circle) by: VMF with the tight κ = ε/2 (εd₂ with d₂ ≤ 2), VMF with κ = ε/π (the great-circle route, which
//! matches the paper's numbers), Purkayastha with κ = ε/π, wrapped Laplace with scale π/ε, and uniform noise
//! (a floor). The central model (the exact mean privatized once by the same mechanisms) is reported beside.
//!
//! **Error.** The circular distance (radians) between the circular mean of the n privatized responses and
//! the circular mean of the same n true responses. The n responses are the first n of the repetition's data
//! set (nested prefixes): each n's MAE is an average over independent repetitions; curves are smooth because
//! neighbouring n share data within a repetition.

use crate::{Error, Result};
use manifold_dp::analysis::quadrature::integrate_peaked;
use manifold_dp::mechanism::{Mechanism, SphereKind, SphereMechanism, UniformSphere};
use manifold_dp::privacy::Guarantee;
use manifold_dp::sample::rng::{ReleaseRng, StreamKey};
use manifold_dp::space::sphere::{Periodic, surface_distance};
use manifold_dp::stats::MeanDirectionAccumulator;
use nalgebra::DVector;
use rayon::prelude::*;
use std::f64::consts::PI;

/// Pure ε per response (the paper's headline).
pub const EPSILON: f64 = 1.0;
/// The error the paper's "≈ 750 responses instead of over 3600" refers to.
pub const TARGET_MAE: f64 = 0.1;
/// Numbers of responses (a log grid).
pub const NS: [usize; 21] =
    [10, 15, 20, 30, 50, 75, 100, 150, 200, 300, 500, 750, 1000, 1500, 2000, 3000, 5000, 7500, 10_000, 15_000, 20_000];
/// Peak of the visit times, hours.
pub const PEAK_HOUR: f64 = 13.0;
/// The generated data sets: name, von Mises concentration per radian².
pub const DATASETS: [(&str, f64); 2] = [("spread", 4.0), ("concentrated", 1000.0)];
/// The paper's MAEs "at equal response counts" (VMF, Purkayastha, wrapped Laplace).
pub const PAPER_MAE: (f64, f64, f64) = (0.407, 0.321, 0.695);

/// One mechanism under test.
struct Candidate {
    /// Tidy name in the tables.
    name: &'static str,
    /// Legend label.
    label: &'static str,
    /// Calibration, as text.
    calibration: &'static str,
    mech: Noise,
}

enum Noise {
    Sphere(SphereMechanism),
    Uniform(UniformSphere),
}

impl Noise {
    fn privatize_slice(&self, xs: &mut [DVector<f64>], rng: &mut ReleaseRng) -> manifold_dp::Fallible<()> {
        match self {
            Noise::Sphere(m) => m.privatize_slice(xs, rng),
            Noise::Uniform(m) => m.privatize_slice(xs, rng),
        }
    }

    fn privatize(&self, x: &DVector<f64>, rng: &mut ReleaseRng) -> manifold_dp::Fallible<DVector<f64>> {
        match self {
            Noise::Sphere(m) => m.privatize(x, rng),
            Noise::Uniform(m) => m.privatize(x, rng),
        }
    }

    /// The pure-DP ε per response (per whole record).
    fn pure_dp(&self) -> Guarantee {
        match self {
            Noise::Sphere(m) => m.pure_dp(),
            Noise::Uniform(m) => m.guarantee(),
        }
    }

    /// Density of the angle between release and input, per radian on [0, π].
    fn angle_pdf(&self, t: f64) -> f64 {
        match self {
            Noise::Sphere(m) => m.angle_pdf(t),
            Noise::Uniform(_) => 1.0 / PI,
        }
    }

    /// Mean angle between release and input: the central model's error.
    fn mean_angle(&self) -> f64 {
        match self {
            Noise::Sphere(m) => m.mean_angle(),
            Noise::Uniform(_) => PI / 2.0,
        }
    }
}

fn candidates() -> Result<Vec<Candidate>> {
    Ok(vec![
        Candidate {
            name: "vmf-tight",
            label: "VMF, kappa = eps/2 (tight)",
            calibration: "kappa=eps/2",
            mech: Noise::Sphere(SphereMechanism::for_pure_dp(SphereKind::Vmf, 2, EPSILON)?),
        },
        Candidate {
            name: "vmf-paper",
            label: "VMF, kappa = eps/pi (paper)",
            calibration: "kappa=eps/pi",
            mech: Noise::Sphere(SphereMechanism::for_epsilon(SphereKind::Vmf, 2, EPSILON / PI)?),
        },
        Candidate {
            name: "purkayastha",
            label: "Purkayastha, kappa = eps/pi",
            calibration: "kappa=eps/pi",
            mech: Noise::Sphere(SphereMechanism::for_pure_dp(SphereKind::Purkayastha, 2, EPSILON)?),
        },
        Candidate {
            name: "wrapped-laplace",
            label: "wrapped Laplace, b = pi/eps",
            calibration: "b=pi/eps",
            mech: Noise::Sphere(SphereMechanism::for_pure_dp(SphereKind::WrappedLaplace, 2, EPSILON)?),
        },
        Candidate {
            name: "uniform",
            label: "uniform noise (eps = 0)",
            calibration: "uniform",
            mech: Noise::Uniform(UniformSphere::new(2)?),
        },
    ])
}

/// E[cos kθ] under an angle density on [0, π] concentrated on `scale` radians near 0 (normalised).
fn cos_moment(pdf: &dyn Fn(f64) -> f64, k: f64, scale: f64) -> f64 {
    let mass = integrate_peaked(pdf, PI, scale, 1e-12);
    integrate_peaked(&|t| (k * t).cos() * pdf(t), PI, scale, 1e-12) / mass
}

/// Large-n prediction of the n at which the MAE is `target`: the privatized resultant is ≈ A·(Σ x_i) plus
/// noise whose component across the mean has variance n·V with V = (1 − A₂ρ₂ − A²(1 − ρ₂))/2 (A, A₂ = E cos θ,
/// E cos 2θ of the noise; R̄, ρ₂ = E cos α, E cos 2α of the data about its mean), so the error is ≈ normal with
/// standard deviation √(V/n)/(A R̄) and MAE = √(2/π)·√(V/n)/(A R̄).
pub fn predicted_n(noise: (f64, f64), data: (f64, f64), target: f64) -> f64 {
    let ((a, a2), (r, rho2)) = (noise, data);
    let v = (1.0 - a2 * rho2 - a * a * (1.0 - rho2)) / 2.0;
    (2.0 / PI) * v / (target * a * r).powi(2)
}

/// The n (log-log interpolated between the points of [`NS`]) at which `mae` (one per n) first falls below
/// `target`.
pub fn crossing(mae: &[f64], target: f64) -> Option<f64> {
    let k = mae.iter().position(|&m| m < target)?;
    if k == 0 {
        return Some(NS[0] as f64);
    }
    let (n0, n1) = ((NS[k - 1] as f64).ln(), (NS[k] as f64).ln());
    let (m0, m1) = (mae[k - 1].ln(), mae[k].ln());
    Some((n0 + (target.ln() - m0) / (m1 - m0) * (n1 - n0)).exp())
}

/// The n at which `c/√n` equals `target`, with c the geometric mean of MAE·√n over the grid's n ≥ 1000 (where
/// the error is in its 1/√n regime): steadier than the interpolated crossing, which rests on two grid points.
pub fn fitted_n(mae: &[f64], target: f64) -> f64 {
    let logs: Vec<f64> =
        NS.iter().zip(mae).filter(|(n, _)| **n >= 1000).map(|(&n, &m)| m.ln() + 0.5 * (n as f64).ln()).collect();
    let c = (logs.iter().sum::<f64>() / logs.len() as f64).exp();
    (c / target).powi(2)
}

/// `values` (one per n of [`NS`]) log-log interpolated at `n`.
pub fn at_n(values: &[f64], n: f64) -> f64 {
    let k = NS.iter().position(|&g| g as f64 >= n).unwrap_or(NS.len() - 1).max(1);
    let (n0, n1) = ((NS[k - 1] as f64).ln(), (NS[k] as f64).ln());
    let (m0, m1) = (values[k - 1].ln(), values[k].ln());
    (m0 + (n.ln() - n0) / (n1 - n0) * (m1 - m0)).exp()
}

/// Errors of one repetition: `[model][candidate][n]` flattened, model 0 = local, 1 = central.
fn repetition(key: &StreamKey, dataset: usize, kappa: f64, rep: usize, cands: &[Candidate]) -> Result<Vec<f64>> {
    let stream = |role: u64| key.stream(((dataset as u64) << 48) | ((rep as u64) << 8) | role);
    let n_max = NS[NS.len() - 1];
    let peak = Periodic::HOURS_OF_DAY.to_circle(PEAK_HOUR)?;
    let mut data = vec![peak; n_max];
    SphereMechanism::for_epsilon(SphereKind::Vmf, 2, kappa)?.privatize_slice(&mut data, &mut stream(0))?;
    let prefix_means = |xs: &[DVector<f64>]| -> Result<Vec<Option<DVector<f64>>>> {
        let mut acc = MeanDirectionAccumulator::new(2)?;
        let mut out = Vec::with_capacity(NS.len());
        let mut next = 0;
        for (i, x) in xs.iter().enumerate() {
            acc.push(x)?;
            if i + 1 == NS[next] {
                // An undefined mean (a zero resultant, probability ~0) is scored as a uniform guess below.
                out.push(acc.mean().ok().map(|m| m.direction));
                next += 1;
                if next == NS.len() {
                    break;
                }
            }
        }
        Ok(out)
    };
    let truth = prefix_means(&data)?;
    let mut errors = vec![0.0; 2 * cands.len() * NS.len()];
    let mut noisy = data.clone();
    for (j, c) in cands.iter().enumerate() {
        // Copy in place: cloning would allocate every point again.
        for (z, x) in noisy.iter_mut().zip(&data) {
            z.copy_from(x);
        }
        c.mech.privatize_slice(&mut noisy, &mut stream(1 + j as u64))?;
        let local = prefix_means(&noisy)?;
        let mut central_rng = stream(64 + j as u64);
        for (k, t) in truth.iter().enumerate() {
            let t = t.as_ref().ok_or(Error::Degenerate("the true responses balance out exactly"))?;
            errors[j * NS.len() + k] = match &local[k] {
                Some(m) => surface_distance(m, t),
                None => PI / 2.0,
            };
            // The central model: the exact mean direction released once (what `central_mean_direction` does).
            let z = c.mech.privatize(t, &mut central_rng)?;
            errors[(cands.len() + j) * NS.len() + k] = surface_distance(&z, t);
        }
    }
    Ok(errors)
}

/// Mean, its standard error, root mean square and median of `xs`.
fn summarise(mut xs: Vec<f64>) -> (f64, f64, f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    let rms = (xs.iter().map(|x| x * x).sum::<f64>() / n).sqrt();
    xs.sort_by(f64::total_cmp);
    let mid = xs.len() / 2;
    let median = if xs.len() % 2 == 1 { xs[mid] } else { 0.5 * (xs[mid - 1] + xs[mid]) };
    (mean, (var / n).sqrt(), rms, median)
}

/// The error of one mechanism, model and n over the repetitions.
pub struct MaeRow {
    /// The data set's name.
    pub dataset: &'static str,
    /// Its von Mises concentration per radian².
    pub data_kappa: f64,
    /// `local` (every response privatized) or `central` (the exact mean privatized once).
    pub model: &'static str,
    /// The mechanism's tidy name.
    pub mechanism: &'static str,
    /// Its calibration, as text.
    pub calibration: &'static str,
    /// Pure-DP ε per response.
    pub pure_dp_epsilon: f64,
    /// Number of responses.
    pub n: usize,
    /// Repetitions averaged over.
    pub repetitions: usize,
    /// Mean absolute error (rad).
    pub mae: f64,
    /// Its standard error.
    pub mae_se: f64,
    /// Root mean square error.
    pub rmse: f64,
    /// Median error.
    pub median: f64,
}

/// One mechanism's summary on one data set (local model unless said otherwise).
pub struct SummaryRow {
    /// The data set's name.
    pub dataset: &'static str,
    /// Its von Mises concentration per radian².
    pub data_kappa: f64,
    /// Mean resultant length of the data about its mean (E cos of the data's angle).
    pub data_resultant_length: f64,
    /// The mechanism's tidy name.
    pub mechanism: &'static str,
    /// Its legend label.
    pub label: &'static str,
    /// Its calibration, as text.
    pub calibration: &'static str,
    /// Pure-DP ε per response.
    pub pure_dp_epsilon: f64,
    /// E cos of the noise angle.
    pub noise_resultant_length: f64,
    /// The n at which the MAE first falls below [`TARGET_MAE`] (interpolated), if it does on the grid.
    pub n_mae_below_target: Option<f64>,
    /// The same from MAE = c/√n fitted over n ≥ 1000; none for noise that carries no signal.
    pub n_mae_below_target_fit: Option<f64>,
    /// The same from the large-n normal approximation ([`predicted_n`]); none where it never gets there.
    pub n_mae_below_target_asymptotic: Option<f64>,
    /// MAE at n = 100.
    pub mae_n100: f64,
    /// MAE at n = 1000.
    pub mae_n1000: f64,
    /// MAE ratio to Purkayastha at n = 100.
    pub mae_ratio_to_purkayastha_n100: f64,
    /// MAE ratio to Purkayastha at n = 1000.
    pub mae_ratio_to_purkayastha_n1000: f64,
    /// The central model's MAE (averaged over the grid: it does not depend on n).
    pub central_mae: f64,
    /// The central model's MAE in theory: the noise's mean angle.
    pub central_mae_theory: f64,
}

/// One mechanism's local-model MAE curve.
pub struct LocalCurve {
    /// The mechanism's tidy name.
    pub mechanism: &'static str,
    /// Its legend label.
    pub label: &'static str,
    /// MAE at every n of [`NS`].
    pub mae: Vec<f64>,
}

/// The paper's "0.407 / 0.321 / 0.695 at equal response counts": every curve read at the n where
/// Purkayastha's MAE is [`PAPER_MAE`]`.1`.
pub struct PaperComparison {
    /// That n.
    pub n: f64,
    /// VMF with the paper's calibration.
    pub vmf_paper: f64,
    /// VMF with the tight calibration.
    pub vmf_tight: f64,
    /// Wrapped Laplace.
    pub wrapped_laplace: f64,
}

/// The results on one data set.
pub struct DatasetResult {
    /// The data set's name.
    pub name: &'static str,
    /// Its von Mises concentration per radian².
    pub kappa: f64,
    /// Mean resultant length of the data about its mean.
    pub data_resultant_length: f64,
    /// Every (model, mechanism, n).
    pub mae: Vec<MaeRow>,
    /// One row per mechanism.
    pub summary: Vec<SummaryRow>,
    /// The local-model curves, one per mechanism (the uniform floor included).
    pub local: Vec<LocalCurve>,
    /// The legend label and MAE of the mechanism (uniform noise aside) best in the central model.
    pub best_central: (&'static str, f64),
    /// The paper's comparison, where Purkayastha's curve reaches the paper's MAE.
    pub at_paper_counts: Option<PaperComparison>,
}

/// The whole study.
pub struct DirectionalMean {
    /// Repetitions per n.
    pub repetitions: usize,
    /// One result per data set of [`DATASETS`].
    pub datasets: Vec<DatasetResult>,
}

/// Runs the study with `repetitions` (at least 2) per n under `seed`, the repetitions in parallel.
pub fn directional_mean(repetitions: usize, seed: u64) -> Result<DirectionalMean> {
    crate::check_repetitions(repetitions)?;
    let cands = candidates()?;
    let key = StreamKey::from_seed_for_experiments(seed);
    let reps = repetitions;
    let noise_moments: Vec<(f64, f64)> = cands
        .iter()
        .map(|c| (cos_moment(&|t| c.mech.angle_pdf(t), 1.0, PI), cos_moment(&|t| c.mech.angle_pdf(t), 2.0, PI)))
        .collect();
    let mut datasets = Vec::new();
    for (d, &(dname, kappa)) in DATASETS.iter().enumerate() {
        let reps_errors: Vec<Vec<f64>> =
            (0..reps).into_par_iter().map(|r| repetition(&key, d, kappa, r, &cands)).collect::<Result<_>>()?;
        // MAE per (model, candidate, n).
        let cell = |model: usize, j: usize, k: usize| {
            summarise(reps_errors.iter().map(|e| e[(model * cands.len() + j) * NS.len() + k]).collect())
        };
        let data_law = SphereMechanism::for_epsilon(SphereKind::Vmf, 2, kappa)?;
        let scale = (1.0 / kappa.sqrt()).min(PI);
        let data_moments =
            (cos_moment(&|t| data_law.angle_pdf(t), 1.0, scale), cos_moment(&|t| data_law.angle_pdf(t), 2.0, scale));
        let mut mae_rows = Vec::new();
        let mut local_mae: Vec<Vec<f64>> = Vec::new();
        let mut central_mae: Vec<f64> = Vec::new();
        for (j, c) in cands.iter().enumerate() {
            let eps = c.mech.pure_dp().epsilon().expect("pure DP has an epsilon");
            let mut maes = Vec::new();
            let mut central = Vec::new();
            for (model, mname) in [(0, "local"), (1, "central")] {
                for (k, &n) in NS.iter().enumerate() {
                    let (mae, se, rms, med) = cell(model, j, k);
                    mae_rows.push(MaeRow {
                        dataset: dname,
                        data_kappa: kappa,
                        model: mname,
                        mechanism: c.name,
                        calibration: c.calibration,
                        pure_dp_epsilon: eps,
                        n,
                        repetitions: reps,
                        mae,
                        mae_se: se,
                        rmse: rms,
                        median: med,
                    });
                    if model == 0 { maes.push(mae) } else { central.push(mae) }
                }
            }
            local_mae.push(maes);
            central_mae.push(central.iter().sum::<f64>() / central.len() as f64);
        }
        let pur = cands.iter().position(|c| c.name == "purkayastha").expect("listed");
        let mut summary = Vec::new();
        for (j, c) in cands.iter().enumerate() {
            let maes = &local_mae[j];
            let n_pred = predicted_n(noise_moments[j], data_moments, TARGET_MAE);
            let n_fit = if noise_moments[j].0 > 1e-9 { fitted_n(maes, TARGET_MAE) } else { f64::NAN };
            let (m100, m1000) = (at_n(maes, 100.0), at_n(maes, 1000.0));
            summary.push(SummaryRow {
                dataset: dname,
                data_kappa: kappa,
                data_resultant_length: data_moments.0,
                mechanism: c.name,
                label: c.label,
                calibration: c.calibration,
                pure_dp_epsilon: c.mech.pure_dp().epsilon().expect("pure DP has an epsilon"),
                noise_resultant_length: noise_moments[j].0,
                n_mae_below_target: crossing(maes, TARGET_MAE),
                n_mae_below_target_fit: Some(n_fit).filter(|n| n.is_finite()),
                n_mae_below_target_asymptotic: Some(n_pred).filter(|n| n.is_finite()),
                mae_n100: m100,
                mae_n1000: m1000,
                mae_ratio_to_purkayastha_n100: m100 / at_n(&local_mae[pur], 100.0),
                mae_ratio_to_purkayastha_n1000: m1000 / at_n(&local_mae[pur], 1000.0),
                central_mae: central_mae[j],
                central_mae_theory: c.mech.mean_angle(),
            });
        }
        let at_paper_counts = crossing(&local_mae[pur], PAPER_MAE.1).map(|n_star| {
            let at = |name: &str| {
                cands.iter().position(|c| c.name == name).map(|j| at_n(&local_mae[j], n_star)).unwrap_or(f64::NAN)
            };
            PaperComparison {
                n: n_star,
                vmf_paper: at("vmf-paper"),
                vmf_tight: at("vmf-tight"),
                wrapped_laplace: at("wrapped-laplace"),
            }
        });
        // The last candidate is the uniform floor, which is no release worth comparing.
        let best = (0..cands.len() - 1)
            .min_by(|&a, &b| central_mae[a].total_cmp(&central_mae[b]))
            .expect("at least one mechanism");
        let local =
            cands.iter().zip(local_mae).map(|(c, mae)| LocalCurve { mechanism: c.name, label: c.label, mae }).collect();
        datasets.push(DatasetResult {
            name: dname,
            kappa,
            data_resultant_length: data_moments.0,
            mae: mae_rows,
            summary,
            local,
            best_central: (cands[best].label, central_mae[best]),
            at_paper_counts,
        });
    }
    Ok(DirectionalMean { repetitions: reps, datasets })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpolation_and_prediction() {
        // MAE ∝ 1/√n through 0.1 at n = 1000.
        let mae: Vec<f64> = NS.iter().map(|&n| 0.1 * (1000.0 / n as f64).sqrt()).collect();
        assert!((crossing(&mae, 0.1).unwrap() - 1000.0).abs() < 1e-6);
        assert!((crossing(&mae, 0.05).unwrap() - 4000.0).abs() < 1e-6);
        assert!(crossing(&mae, 1e-3).is_none());
        assert!((at_n(&mae, 4000.0) - 0.05).abs() < 1e-12);
        assert!((fitted_n(&mae, 0.1) - 1000.0).abs() < 1e-6);
        // Point-mass data (R̄ = ρ₂ = 1) under Purkayastha at κ = 1/π: A ≈ 0.199, A₂ ≈ 0.0535 → n ≈ 760.
        let n = predicted_n((0.1992, 0.0535), (1.0, 1.0), 0.1);
        assert!((n - 760.0).abs() < 10.0, "{n}");
    }

    #[test]
    fn too_few_repetitions_are_refused() {
        let err = directional_mean(1, 0).err().expect("refused");
        assert!(err.is_bad_input() && err.to_string().contains("repetitions"), "{err}");
    }
}
