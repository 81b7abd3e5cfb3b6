//! `manifold-dp reproduce directional-mean`: the headline of Weggenmann & Kerschbaum, *Differential privacy
//! for directional data* (CCS 2021), §1: the circular mean of time-of-day responses at pure ε = 1 per
//! response in the local model, VMF and Purkayastha against the wrapped-Laplace baseline. Writes tidy CSV
//! tables and an SVG figure; the comparison with the paper is in `docs/reproduce_directional.md`.
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

use crate::args::DirectionalMeanArgs;
use crate::render::plot::{self, Panel};
use anyhow::{Context, Result};
use manifold_dp::analysis::quadrature::integrate_peaked;
use manifold_dp::mechanism::{Mechanism, SphereKind, SphereMechanism, UniformSphere};
use manifold_dp::privacy::Guarantee;
use manifold_dp::sample::rng::StreamKey;
use manifold_dp::space::sphere::{Periodic, surface_distance};
use manifold_dp::stats::MeanDirectionAccumulator;
use nalgebra::DVector;
use rayon::prelude::*;
use std::f64::consts::PI;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Pure ε per response (the paper's headline).
const EPSILON: f64 = 1.0;
/// The error the paper's "≈ 750 responses instead of over 3600" refers to.
const TARGET_MAE: f64 = 0.1;
/// Numbers of responses (a log grid).
const NS: [usize; 21] =
    [10, 15, 20, 30, 50, 75, 100, 150, 200, 300, 500, 750, 1000, 1500, 2000, 3000, 5000, 7500, 10_000, 15_000, 20_000];
/// Peak of the visit times, hours.
const PEAK_HOUR: f64 = 13.0;
/// The generated data sets: name, von Mises concentration per radian².
const DATASETS: [(&str, f64); 2] = [("spread", 4.0), ("concentrated", 1000.0)];
/// The paper's MAEs "at equal response counts" (VMF, Purkayastha, wrapped Laplace).
const PAPER_MAE: (f64, f64, f64) = (0.407, 0.321, 0.695);

/// One mechanism under test.
struct Candidate {
    /// Tidy name in the CSV.
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
    fn privatize_slice(&self, xs: &mut [DVector<f64>], rng: &mut manifold_dp::sample::rng::ReleaseRng) {
        match self {
            Noise::Sphere(m) => m.privatize_slice(xs, rng),
            Noise::Uniform(m) => m.privatize_slice(xs, rng),
        }
    }

    fn privatize(&self, x: &DVector<f64>, rng: &mut manifold_dp::sample::rng::ReleaseRng) -> DVector<f64> {
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
fn predicted_n(noise: (f64, f64), data: (f64, f64), target: f64) -> f64 {
    let ((a, a2), (r, rho2)) = (noise, data);
    let v = (1.0 - a2 * rho2 - a * a * (1.0 - rho2)) / 2.0;
    (2.0 / PI) * v / (target * a * r).powi(2)
}

/// The n (log-log interpolated between grid points) at which `mae` first falls below `target`.
fn crossing(mae: &[f64], target: f64) -> Option<f64> {
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
fn fitted_n(mae: &[f64], target: f64) -> f64 {
    let logs: Vec<f64> =
        NS.iter().zip(mae).filter(|(n, _)| **n >= 1000).map(|(&n, &m)| m.ln() + 0.5 * (n as f64).ln()).collect();
    let c = (logs.iter().sum::<f64>() / logs.len() as f64).exp();
    (c / target).powi(2)
}

/// `values` (one per grid n) log-log interpolated at `n`.
fn at_n(values: &[f64], n: f64) -> f64 {
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
    SphereMechanism::for_epsilon(SphereKind::Vmf, 2, kappa)?.privatize_slice(&mut data, &mut stream(0));
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
        c.mech.privatize_slice(&mut noisy, &mut stream(1 + j as u64));
        let local = prefix_means(&noisy)?;
        let mut central_rng = stream(64 + j as u64);
        for (k, t) in truth.iter().enumerate() {
            let t = t.as_ref().context("the true responses balance out exactly")?;
            errors[j * NS.len() + k] = match &local[k] {
                Some(m) => surface_distance(m, t),
                None => PI / 2.0,
            };
            // The central model: the exact mean direction released once (what `central_mean_direction` does).
            let z = c.mech.privatize(t, &mut central_rng);
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

pub fn directional_mean(args: DirectionalMeanArgs) -> Result<()> {
    let start = Instant::now();
    anyhow::ensure!(args.repetitions >= 2, crate::BadInput("--repetitions must be at least 2".into()));
    let dir = PathBuf::from(&args.out);
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let cands = candidates()?;
    let key = StreamKey::from_seed_for_experiments(args.seed);
    let reps = args.repetitions;

    let mut mae_csv = String::from(
        "dataset,data_kappa,model,mechanism,calibration,pure_dp_epsilon,n,repetitions,mae,mae_se,rmse,median\n",
    );
    let mut summary_csv = String::from(
        "dataset,data_kappa,data_resultant_length,mechanism,calibration,pure_dp_epsilon,noise_resultant_length,\
         n_mae_below_0.1,n_mae_below_0.1_fit,n_mae_below_0.1_asymptotic,mae_n100,mae_n1000,mae_ratio_to_purkayastha_n100,\
         mae_ratio_to_purkayastha_n1000,central_mae,central_mae_theory\n",
    );
    let mut panels = Vec::new();
    let mut report = String::new();
    let noise_moments: Vec<(f64, f64)> = cands
        .iter()
        .map(|c| (cos_moment(&|t| c.mech.angle_pdf(t), 1.0, PI), cos_moment(&|t| c.mech.angle_pdf(t), 2.0, PI)))
        .collect();

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
        let mut local_mae: Vec<Vec<f64>> = Vec::new();
        let mut central_mae: Vec<f64> = Vec::new();
        for (j, c) in cands.iter().enumerate() {
            let eps = c.mech.pure_dp().epsilon().expect("pure DP has an epsilon");
            let mut maes = Vec::new();
            let mut central = Vec::new();
            for (model, mname) in [(0, "local"), (1, "central")] {
                for (k, &n) in NS.iter().enumerate() {
                    let (mae, se, rms, med) = cell(model, j, k);
                    writeln!(
                        mae_csv,
                        "{dname},{kappa},{mname},{},{},{eps},{n},{reps},{mae},{se},{rms},{med}",
                        c.name, c.calibration
                    )?;
                    if model == 0 { maes.push(mae) } else { central.push(mae) }
                }
            }
            local_mae.push(maes);
            central_mae.push(central.iter().sum::<f64>() / central.len() as f64);
        }
        let pur = cands.iter().position(|c| c.name == "purkayastha").expect("listed");
        writeln!(
            report,
            "\n{dname} data: visit times von Mises around {PEAK_HOUR}:00, kappa = {kappa}/rad^2 \
             (mean resultant length {:.4}); {reps} repetitions; pure eps = {EPSILON} per response",
            data_moments.0
        )?;
        writeln!(
            report,
            "  {:<28} {:>6} {:>6} {:>10} {:>7} {:>7} {:>8} {:>8} {:>9} {:>11}",
            "local model",
            "eps",
            "E cos",
            "n(MAE<0.1)",
            "fit",
            "theory",
            "MAE@100",
            "MAE@1000",
            "/Pur@1000",
            "central MAE"
        )?;
        for (j, c) in cands.iter().enumerate() {
            let eps = c.mech.pure_dp().epsilon().expect("pure DP has an epsilon");
            let maes = &local_mae[j];
            let n01 = crossing(maes, TARGET_MAE);
            let n_pred = predicted_n(noise_moments[j], data_moments, TARGET_MAE);
            let n_fit = if noise_moments[j].0 > 1e-9 { fitted_n(maes, TARGET_MAE) } else { f64::NAN };
            let (m100, m1000) = (at_n(maes, 100.0), at_n(maes, 1000.0));
            let (r100, r1000) = (m100 / at_n(&local_mae[pur], 100.0), m1000 / at_n(&local_mae[pur], 1000.0));
            let central_theory = match &c.mech {
                Noise::Sphere(m) => m.mean_angle(),
                Noise::Uniform(_) => PI / 2.0,
            };
            writeln!(
                summary_csv,
                "{dname},{kappa},{},{},{},{},{},{},{},{},{m100},{m1000},{r100},{r1000},{},{central_theory}",
                data_moments.0,
                c.name,
                c.calibration,
                eps,
                noise_moments[j].0,
                n01.map(|n| n.to_string()).unwrap_or_default(),
                if n_fit.is_finite() { n_fit.to_string() } else { String::new() },
                if n_pred.is_finite() { n_pred.to_string() } else { String::new() },
                central_mae[j]
            )?;
            writeln!(
                report,
                "  {:<28} {:>6.3} {:>6.3} {:>10} {:>7} {:>7} {:>8.4} {:>8.4} {:>9.3} {:>11.3}",
                c.label,
                eps,
                noise_moments[j].0,
                n01.map(|n| format!("{n:.0}")).unwrap_or_else(|| format!("> {}", NS[NS.len() - 1])),
                if n_fit.is_finite() { format!("{n_fit:.0}") } else { "-".into() },
                if n_pred.is_finite() { format!("{n_pred:.0}") } else { "never".into() },
                m100,
                m1000,
                r1000,
                central_mae[j]
            )?;
        }
        // The paper's "0.407 / 0.321 / 0.695 at equal response counts": read every curve at the n where
        // Purkayastha's MAE is 0.321.
        if let Some(n_star) = crossing(&local_mae[pur], PAPER_MAE.1) {
            let at = |name: &str| {
                cands.iter().position(|c| c.name == name).map(|j| at_n(&local_mae[j], n_star)).unwrap_or(f64::NAN)
            };
            writeln!(
                report,
                "  at n = {n_star:.0}, where Purkayastha's MAE is {}: VMF (paper) {:.3}, VMF (tight) {:.3}, \
                 wrapped Laplace {:.3} (paper: {} / {} / {})",
                PAPER_MAE.1,
                at("vmf-paper"),
                at("vmf-tight"),
                at("wrapped-laplace"),
                PAPER_MAE.0,
                PAPER_MAE.1,
                PAPER_MAE.2
            )?;
        }
        let best_central = (0..cands.len() - 1)
            .min_by(|&a, &b| central_mae[a].total_cmp(&central_mae[b]))
            .expect("at least one mechanism");
        let mut curves: Vec<(String, Vec<(f64, f64)>)> = cands
            .iter()
            .zip(&local_mae)
            .filter(|(c, _)| c.name != "uniform")
            .map(|(c, m)| (c.label.to_string(), NS.iter().map(|&n| n as f64).zip(m.iter().copied()).collect()))
            .collect();
        curves.push((
            format!("central model, {} (any n)", cands[best_central].label),
            NS.iter().map(|&n| (n as f64, central_mae[best_central])).collect(),
        ));
        panels.push(Panel {
            title: format!("{dname} visit times (kappa = {kappa}): circular-mean MAE at pure eps = {EPSILON}"),
            x_label: "responses n".into(),
            y_label: "MAE (rad)".into(),
            log_y: true,
            histograms: vec![],
            curves,
        });
    }

    let mae_path = write(&dir.join("directional_mean_mae.csv"), &mae_csv)?;
    let summary_path = write(&dir.join("directional_mean_summary.csv"), &summary_csv)?;
    let svg = dir.join("directional_mean_mae.svg");
    plot::draw(&svg, &panels, 2)?;
    println!("wrote:");
    for p in [&mae_path, &summary_path, &svg] {
        println!("  {}", p.display());
    }
    print!("{report}");
    println!(
        "\nn(MAE<0.1): first crossing, interpolated between grid points; fit: MAE = c/sqrt(n) fitted over n >= 1000; \
         theory: large-n normal approximation from E cos of the noise and of the data. /Pur@1000: MAE ratio to \
         Purkayastha at n = 1000. central MAE: the exact mean privatized once (does not fall with n)."
    );
    println!(
        "\n(seeded experiment, {:.1} s; the paper: MAE < 0.1 with ~750 responses vs > 3600 for wrapped Laplace, \
         MAEs {} / {} / {}; see docs/reproduce_directional.md)",
        start.elapsed().as_secs_f64(),
        PAPER_MAE.0,
        PAPER_MAE.1,
        PAPER_MAE.2
    );
    Ok(())
}

fn write(path: &Path, text: &str) -> Result<PathBuf> {
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path.to_path_buf())
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
}
