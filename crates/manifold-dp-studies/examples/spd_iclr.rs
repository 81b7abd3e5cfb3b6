//! The setting of the exponential-wrapped mechanisms (ICLR 2026): private Fréchet means of n = 40 SPD(k)
//! matrices in a ball of radius r = 1.5 around I, d = k(k + 1)/2 ∈ {3, 10, 15} (SPD(2), SPD(4), SPD(5)). Compares,
//! in the same run, our log-Euclidean Laplace mean (pure ε-DP), our log-Euclidean Gaussian mean (μ-GDP, at the
//! μ that is (ε, 10⁻⁶)-DP and at the μ of ε-DP itself), and for k = 2 our affine-invariant Laplace mean (pure
//! ε-DP); then, for SPD(2) under the affine-invariant metric, the affine Laplace against our affine Gaussian mean
//! (the exponential-wrapped Gaussian at the centre) at the same two μ. Prints the Markdown tables of
//! `docs/spd_log_euclidean.md`.
//!
//! **Data**: each repetition draws a fresh data set: Xᵢ = exp(Sᵢ), Sᵢ uniform in the Frobenius ball of radius r
//! (isotropic direction in the isometric coordinates, radius r·U^{1/d}), so ρ(I, Xᵢ) ≤ r in both metrics (at I
//! they agree). **Error**: the log-Euclidean distance ‖log Y − log X̄‖_F between the release Y and the data set's
//! exact log-Euclidean mean X̄ = exp(mean log Xᵢ) (for the affine-invariant Laplace also its affine-invariant
//! distance to the affine-invariant mean, which is what its guarantee's noise is measured in). **Time**: one
//! release from the rows (ball check, Karcher iteration, noise, rounding), median over the repetitions, one core
//! of a shared machine.
//!
//! Usage: `cargo run --release -p manifold-dp-studies --example spd_iclr [REPETITIONS (200)] [SEED (2026)]`.

use manifold_dp::analysis::riemannian_gdp::gdp_mu_for_approx;
use manifold_dp::manifold::{KarcherOptions, Manifold, SpdAffine, SpdLogEuclidean, frechet_mean};
use manifold_dp::mechanism::{AffineGaussianMean, Conditioning, LogEuclideanGaussianMean, PrivateFrechetMean};
use manifold_dp::privacy::{Guarantee, Target, convert};
use manifold_dp::sample::rng::{ReleaseRng, seeded_rng_for_experiments};
use manifold_dp::space::spd::{expm, logm};
use nalgebra::DMatrix;
use rand::RngExt;
use std::time::Instant;

const N: usize = 40;
const RADIUS: f64 = 1.5;
const KS: [usize; 3] = [2, 4, 5];
const EPSILONS: [f64; 4] = [0.5, 1.0, 2.0, 5.0];
const DELTA: f64 = 1e-6;

/// A standard normal by Box–Muller (simulated data only; no guarantee rests on it).
fn normal(rng: &mut ReleaseRng) -> f64 {
    let (u, v) = (1.0 - rng.random::<f64>(), rng.random::<f64>());
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}

/// exp(S), S uniform in the Frobenius ball of radius r: off-diagonal entries N(0, ½) and diagonal N(0, 1) make
/// the isometric coordinates isotropic.
fn ball_point(rng: &mut ReleaseRng, k: usize, r: f64) -> DMatrix<f64> {
    let mut s = DMatrix::zeros(k, k);
    for i in 0..k {
        for j in i..k {
            let z = normal(rng);
            let z = if i == j { z } else { z * std::f64::consts::FRAC_1_SQRT_2 };
            s[(i, j)] = z;
            s[(j, i)] = z;
        }
    }
    let d = (k * (k + 1) / 2) as f64;
    let t = r * rng.random::<f64>().powf(1.0 / d);
    expm(&(&s * (t / s.norm())))
}

/// The μ of ε-DP as a GDP curve (the library's conversion, `docs/proofs/accounting.md`).
fn mu_of_pure(epsilon: f64) -> f64 {
    match convert(&Guarantee::pure(epsilon), Target::Gdp) {
        Ok(Guarantee::Gdp { mu, .. }) => mu,
        other => panic!("pure → GDP: {other:?}"),
    }
}

fn mean_se(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let m = xs.iter().sum::<f64>() / n;
    let v = xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0);
    (m, (v / n).sqrt())
}

fn median_us(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    1e6 * xs[xs.len() / 2]
}

/// Errors and times of one mechanism over the repetitions.
#[derive(Default)]
struct Run {
    errors: Vec<f64>,
    times: Vec<f64>,
    own: Vec<f64>,
}

impl Run {
    fn cell(&self) -> String {
        let (m, se) = mean_se(&self.errors);
        format!("{m:.4} ({se:.4})")
    }
    fn time(&self) -> String {
        format!("{:.0}", median_us(self.times.clone()))
    }
}

fn timed<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let t = Instant::now();
    let out = f();
    (out, t.elapsed().as_secs_f64())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let reps: usize = args.get(1).map_or(Ok(200), |s| s.parse())?;
    let seed: u64 = args.get(2).map_or(Ok(2026), |s| s.parse())?;
    println!(
        "n = {N}, r = {RADIUS}, {reps} repetitions per cell (fresh data each), seed {seed}; error = mean \
         log-Euclidean distance to the exact log-Euclidean mean (standard error); time = median µs per release \
         from the rows.\n"
    );
    println!(
        "| SPD(k) | d | ε | Δ | LE Laplace (ε-DP) | time | LE Gaussian μ for (ε, 10⁻⁶) | error | time | \
         LE Gaussian μ of ε-DP | error | AI Laplace (ε-DP), LE error | AI error | time |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (ki, &k) in KS.iter().enumerate() {
        let le = SpdLogEuclidean::new(k)?;
        let ai = SpdAffine::new(k)?;
        let id = DMatrix::<f64>::identity(k, k);
        let d = k * (k + 1) / 2;
        for (ei, &epsilon) in EPSILONS.iter().enumerate() {
            let mu_approx = gdp_mu_for_approx(epsilon, DELTA)?;
            let mu_pure = mu_of_pure(epsilon);
            let laplace = PrivateFrechetMean::new(le, id.clone(), RADIUS, N, epsilon, Conditioning::Auto)?;
            let gauss = LogEuclideanGaussianMean::new(k, id.clone(), RADIUS, N, mu_approx)?;
            let gauss_pure = LogEuclideanGaussianMean::new(k, id.clone(), RADIUS, N, mu_pure)?;
            let affine = if k <= 3 {
                Some(PrivateFrechetMean::new(ai, id.clone(), RADIUS, N, epsilon, Conditioning::Auto)?)
            } else {
                None
            };
            let mut rng = seeded_rng_for_experiments(seed.wrapping_add((100 * ki + ei) as u64));
            let (mut rl, mut rg, mut rp, mut ra) = (Run::default(), Run::default(), Run::default(), Run::default());
            for _ in 0..reps {
                let data: Vec<DMatrix<f64>> = (0..N).map(|_| ball_point(&mut rng, k, RADIUS)).collect();
                let exact = expm(&(data.iter().map(logm).fold(DMatrix::zeros(k, k), |a, b| a + b) / N as f64));
                let (y, t) = timed(|| laplace.release(&data, &mut rng));
                rl.errors.push(le.distance(&y?, &exact));
                rl.times.push(t);
                let (y, t) = timed(|| gauss.release(&data, &mut rng));
                rg.errors.push(le.distance(&y?, &exact));
                rg.times.push(t);
                rp.errors.push(le.distance(&gauss_pure.release(&data, &mut rng)?, &exact));
                if let Some(a) = &affine {
                    let (y, t) = timed(|| a.release(&data, &mut rng));
                    let y = y?;
                    ra.errors.push(le.distance(&y, &exact));
                    let ai_mean = frechet_mean(&ai, &data, &id, KarcherOptions::default())?.mean;
                    ra.own.push(ai.distance(&y, &ai_mean));
                    ra.times.push(t);
                }
            }
            let (aff, aff_own, aff_t) = if affine.is_some() {
                let (m, se) = mean_se(&ra.own);
                (ra.cell(), format!("{m:.4} ({se:.4})"), ra.time())
            } else {
                ("—".into(), "—".into(), "—".into())
            };
            println!(
                "| SPD({k}) | {d} | {epsilon} | {:.4} | {} | {} | {mu_approx:.3} | {} | {} | {mu_pure:.3} | {} | {aff} | \
                 {aff_own} | {aff_t} |",
                laplace.sensitivity(),
                rl.cell(),
                rl.time(),
                rg.cell(),
                rg.time(),
                rp.cell(),
            );
        }
    }
    println!(
        "\nExact expected errors (no data needed): LE Laplace d·Δ/ε′; LE Gaussian σ·√2·Γ((d + 1)/2)/Γ(d/2), σ = Δ/μ."
    );
    for &k in &KS {
        let id = DMatrix::<f64>::identity(k, k);
        for &epsilon in &EPSILONS {
            let l =
                PrivateFrechetMean::new(SpdLogEuclidean::new(k)?, id.clone(), RADIUS, N, epsilon, Conditioning::Auto)?;
            let g = LogEuclideanGaussianMean::new(k, id.clone(), RADIUS, N, gdp_mu_for_approx(epsilon, DELTA)?)?;
            println!(
                "- SPD({k}), ε = {epsilon}: Laplace {:.4}, Gaussian (ε, 10⁻⁶) {:.4} (σ = {:.4}), ratio {:.2}",
                l.expected_error(),
                g.expected_error(),
                g.sigma(),
                g.expected_error() / l.expected_error()
            );
        }
    }
    affine_table(reps, seed)?;
    Ok(())
}

/// SPD(2) under the affine-invariant metric: our affine Laplace mean (pure ε) against our affine Gaussian mean
/// (the exponential-wrapped Gaussian at the centre) at the μ that is (ε, 10⁻⁶)-DP and at the μ of ε-DP itself;
/// errors in the affine-invariant distance to the data set's affine-invariant mean. Its own seeds, so the table
/// above is unchanged.
fn affine_table(reps: usize, seed: u64) -> Result<(), Box<dyn std::error::Error>> {
    let k = 2;
    let ai = SpdAffine::new(k)?;
    let id = DMatrix::<f64>::identity(k, k);
    println!(
        "\nAffine-invariant SPD(2), same data law: error = mean affine-invariant distance to the exact \
         affine-invariant mean (standard error); the Gaussian's exact chart error σ·E[χ₃] in brackets.\n"
    );
    println!("| ε | Δ | AI Laplace (ε-DP) | μ for (ε, 10⁻⁶) | AI Gaussian | time | μ of ε-DP | AI Gaussian |");
    println!("|---|---|---|---|---|---|---|---|");
    for (ei, &epsilon) in EPSILONS.iter().enumerate() {
        let mu_approx = gdp_mu_for_approx(epsilon, DELTA)?;
        let mu_pure = mu_of_pure(epsilon);
        let laplace = PrivateFrechetMean::new(ai, id.clone(), RADIUS, N, epsilon, Conditioning::Auto)?;
        let gauss = AffineGaussianMean::new(k, id.clone(), RADIUS, N, mu_approx)?;
        let gauss_pure = AffineGaussianMean::new(k, id.clone(), RADIUS, N, mu_pure)?;
        let mut rng = seeded_rng_for_experiments(seed.wrapping_add((10_000 + ei) as u64));
        let (mut rl, mut rg, mut rp) = (Run::default(), Run::default(), Run::default());
        for _ in 0..reps {
            let data: Vec<DMatrix<f64>> = (0..N).map(|_| ball_point(&mut rng, k, RADIUS)).collect();
            let exact = frechet_mean(&ai, &data, &id, KarcherOptions::default())?.mean;
            rl.errors.push(ai.distance(&laplace.release(&data, &mut rng)?, &exact));
            let (y, t) = timed(|| gauss.release(&data, &mut rng));
            rg.errors.push(ai.distance(&y?, &exact));
            rg.times.push(t);
            rp.errors.push(ai.distance(&gauss_pure.release(&data, &mut rng)?, &exact));
        }
        println!(
            "| {epsilon} | {:.4} | {} | {mu_approx:.3} | {} [{:.4}] | {} | {mu_pure:.3} | {} [{:.4}] |",
            gauss.sensitivity(),
            rl.cell(),
            rg.cell(),
            gauss.expected_error(),
            rg.time(),
            rp.cell(),
            gauss_pure.expected_error(),
        );
    }
    Ok(())
}
