//! The Riemannian Laplace on SPD(k) with the affine-invariant metric: the ball chart at the public centre and its
//! footpoint map (`docs/proofs/float_safety.md` §3e).

use super::chart_choice::cheapest_over_levels;
use super::spd_log_euclidean::{coords_to_sym, sym_to_coords};
use crate::Fallible;
use crate::analysis::spd_radial::SpdRadialLaw;
use crate::error::Error;
use crate::error::Param;
use crate::manifold::SpdAffine;
use crate::privacy::float_safety::{
    Rounding, SPD_MEAN_ROUNDING_OF_ERROR, SPD_ROUNDING_OF_ERROR, spd_double_double_chart_error, spd_log_chart_cap_log2,
    spd_log_chart_error, spd_near_identity_chart_error,
};
use crate::sample::double_double::Dd;
use crate::sample::spd_laplace::SpdLaplaceNoise;
use crate::space::spd::{self, expm, logm, sqrt_and_inv_sqrt};
use nalgebra::DMatrix;
use rand::Rng;

use super::{BallChart, ChartForm, LaplaceManifold};

/// The largest proposal ball (radius 2r + Δ ≤ 4r) the SPD Laplace release sets up: beyond it the ball holds
/// matrices with eigenvalue ratios past e^{709}, beyond double precision.
pub const MAX_SPD_BALL: f64 = 3000.0;

/// e_F: a bound on ρ(L·Lᵀ, W·P·Wᵀ), how far the computed footpoint of the ball chart (`whitened_footpoint`,
/// then L = chol) lies from the exact whitening of the f64 mean P by the f64 matrix W
/// (`docs/proofs/float_safety.md` §3e, "The footpoint"), for a centre with cond(m0) ≤ `cond_center` and
/// footpoints whose whitening lies within `footpoint_radius` + 1 of I:
///
/// - L0 = fl(chol m0) and W = fl(L0⁻¹): the chart's centre W⁻¹W⁻ᵀ has relative error δ_C ≤ γ_{k+1}·k·cond(m0)
///   + 2γ_k·k·√cond(m0) (Cholesky's backward error, the triangular inverse), so cond(W)² ≤ cond(m0)·(1 + 4δ_C);
/// - fl(W·P·Wᵀ): |E| ≤ γ_2k|W||P||Wᵀ|, relative to W·P·Wᵀ at most δ_W = γ_2k·k^{3/2}·cond(W)²·cond(P̃),
///   cond(P̃) ≤ e^{√2(R_P + 1)};
/// - the projection onto the ball of radius R_P (a log and an exp of P̃): 2·e_log(R_P + 1);
/// - L = fl(chol P̃): LLᵀ = P̃ + E, |E| ≤ γ_{k+1}|L||Lᵀ|, relative δ_L = γ_{k+1}·k·e^{√2 R_P}.
///
/// Each relative δ moves the matrix by −√k·ln(1 − δ) in ρ. ∞ (refused) when δ_C or δ_W exceeds 10⁻³: for
/// k = 2 and R_P = 1.5 that is cond(m0) above ≈ 10¹¹.
pub fn spd_footpoint_error(k: usize, cond_center: f64, footpoint_radius: f64) -> f64 {
    use crate::manifold::float_error::{SLACK, gamma, spd_logm_error, spd_moved};
    let kf = k as f64;
    let delta_c = (gamma(kf + 1.0) * kf * cond_center + 2.0 * gamma(kf) * kf * cond_center.sqrt()) * SLACK;
    if delta_c.is_nan() || delta_c >= 1e-3 {
        return f64::INFINITY;
    }
    let cond_w2 = cond_center * (1.0 + 4.0 * delta_c);
    let cond_p = (std::f64::consts::SQRT_2 * (footpoint_radius + 1.0)).exp();
    let whiten = spd_moved(k, gamma(2.0 * kf) * kf.powf(1.5) * cond_w2 * cond_p * SLACK);
    let project = 2.0 * spd_logm_error(k, footpoint_radius + 1.0);
    let chol = spd_moved(k, gamma(kf + 1.0) * kf * (std::f64::consts::SQRT_2 * footpoint_radius).exp() * SLACK);
    crate::numerics::rounding::fn_up((whiten + project + chol) * SLACK)
}

/// log(L·U·diag(e^r)·Uᵀ·Lᵀ) formed near the identity (`docs/proofs/float_safety.md` §3e, "Near the centre"):
/// with A = L − I (exact where L's diagonal lies in [1/2, 2]) and N = U·diag(expm1 r)·Uᵀ, the point is I + X,
/// X = (A + Aᵀ + A·Aᵀ) + L·N·Lᵀ, computed without forming I + X (each entry from the lower triangle, mirrored),
/// and its logarithm is V·diag(log1p μ)·Vᵀ from X's eigendecomposition: every error is relative to ‖X‖.
pub(super) fn near_identity_log(l: &DMatrix<f64>, u: &DMatrix<f64>, r: &nalgebra::DVector<f64>) -> DMatrix<f64> {
    let k = l.nrows();
    let mut a = l.clone();
    for i in 0..k {
        a[(i, i)] -= 1.0;
    }
    let aat = &a * a.transpose();
    let mut ud = u.clone();
    for (j, rj) in r.iter().enumerate() {
        ud.column_mut(j).scale_mut(rj.exp_m1());
    }
    let g = l * (&ud * u.transpose()) * l.transpose();
    let x = DMatrix::from_fn(k, k, |i, j| {
        let (i, j) = if i >= j { (i, j) } else { (j, i) };
        ((a[(i, j)] + a[(j, i)]) + aat[(i, j)]) + g[(i, j)]
    });
    let eig = nalgebra::SymmetricEigen::new(x);
    spd::from_eigen(&eig.eigenvectors, &eig.eigenvalues.map(f64::ln_1p))
}

/// log(L·U·diag(e^r)·Uᵀ·Lᵀ) formed in double-double (`docs/proofs/float_safety.md` §3e, "In double-double"):
/// B = L·Û·diag(fl(e^{r/2})) and Y = B·Bᵀ (its lower triangle, mirrored) in double-double from the
/// double-double Haar rotation `u` (row-major), Y rounded once to f64, and its logarithm from its
/// eigendecomposition as on the direct path. Only that rounding and the eigensolver's backward error remain
/// relative to ‖Y‖; the products' errors are of order 2^-106.
pub(super) fn double_double_log(l: &DMatrix<f64>, u: &[Dd], r: &nalgebra::DVector<f64>) -> DMatrix<f64> {
    let k = l.nrows();
    let half_exp: Vec<Dd> = r.iter().map(|x| Dd::new((0.5 * x).exp())).collect();
    // L is lower triangular: row i of L·Û sums over t ≤ i.
    let b: Vec<Dd> = (0..k * k)
        .map(|ij| {
            let (i, j) = (ij / k, ij % k);
            (0..=i).fold(Dd::new(0.0), |acc, t| acc.add(Dd::new(l[(i, t)]).mul(u[t * k + j]))).mul(half_exp[j])
        })
        .collect();
    let y = DMatrix::from_fn(k, k, |i, j| {
        let (i, j) = if i >= j { (i, j) } else { (j, i) };
        (0..k).fold(Dd::new(0.0), |acc, t| acc.add(b[i * k + t].mul(b[j * k + t]))).hi
    });
    logm(&y)
}

/// B·X·Bᵀ, symmetrised.
pub(super) fn congruence_by(b: &DMatrix<f64>, x: &DMatrix<f64>) -> DMatrix<f64> {
    let m = b * x * b.transpose();
    (&m + m.transpose()) * 0.5
}

/// W·x·Wᵀ (symmetrised), moved onto the ball of radius R_P around I along the geodesic from I if it lies
/// outside: the metric projection onto that ball (SPD(k) is a Hadamard manifold), a 1-Lipschitz map.
///
/// Its f64 error is bounded (by e_F, [`spd_footpoint_error`]) only for inputs whose exact whitening lies within
/// R_P + 1 of I; farther, ill-conditioned inputs may be moved to a different point of the ball, and where the
/// whitening is not even positive definite in f64 (its logarithm not finite) the centre I stands in. Every
/// result lies within R_P + e_F of I, so the guarantee holds per unit of ρ between these computed footpoints
/// (`docs/proofs/float_safety.md` §3e, "Inputs far outside the ball").
pub(super) fn whitened_footpoint(chart: &BallChart<DMatrix<f64>>, x: &DMatrix<f64>) -> DMatrix<f64> {
    let p = congruence_by(&chart.whiten, x);
    let log_p = logm(&p);
    let norm = log_p.norm();
    if norm <= chart.footpoint_radius {
        p
    } else if norm.is_finite() {
        expm(&(log_p * (chart.footpoint_radius / norm)))
    } else {
        // No direction to move along: any fixed point of the ball keeps the bound above.
        DMatrix::identity(p.nrows(), p.ncols())
    }
}

impl LaplaceManifold for SpdAffine {
    fn check_chart_input(&self, x: &DMatrix<f64>) -> Fallible<()> {
        let k = self.k();
        if x.shape() != (k, k) {
            return Err(Error::WrongLength { expected: k * k, got: x.len() });
        }
        // Row-major component indices, as the matrix is read.
        match x.transpose().iter().enumerate().find(|(_, v)| !v.is_finite()) {
            Some((component, &value)) => Err(Error::NonFinite { component, value }),
            None => Ok(()),
        }
    }

    fn negligible_event_probability(&self, noise: &SpdLaplaceNoise) -> f64 {
        noise.negligible_event_probability()
    }

    fn negligible_event_bound(&self) -> f64 {
        crate::sample::spd_laplace::POLYNOMIAL_GAP_EVENT_PROBABILITY
    }

    fn distance_unit(&self) -> &'static str {
        "(the metric's distance)"
    }

    fn rounding_refusal_advice(&self) -> &'static str {
        "the condition numbers in a wide ball amplify its rounding errors; use a centre closer to the data and a \
         smaller radius, conditioning on the ball, or the log-Euclidean metric"
    }

    type Noise = SpdLaplaceNoise;

    const NEEDS_BALL: bool = true;

    /// Untruncated laws within 10 % of the existence threshold are refused: their draws overflow f64
    /// (log-eigenvalues beyond 709) with non-negligible probability (2 % at 99 % of the threshold, below
    /// 1e-10 at 95 %). [`Conditioning::Auto`](super::Conditioning::Auto) then conditions on the ball instead. Well before overflow, draws
    /// lose positive definiteness in rounding (condition number beyond 2⁵³): see
    /// [`LaplaceManifold::check_representable`].
    fn laplace_noise(&self, sigma: f64, t_max: Option<f64>) -> Fallible<SpdLaplaceNoise> {
        let limit = 0.9 * SpdLaplaceNoise::normalisable_below(self.k());
        if t_max.is_none() && sigma >= limit {
            return Err(Error::InvalidParameter {
                name: Param::Sigma,
                value: sigma,
                reason: "is within 10 % of (or above) the largest σ for which the unconditioned SPD Laplace law \
                         exists; condition the draw on the data ball instead",
            });
        }
        // A ball this wide holds matrices whose eigenvalue ratios no double can carry (e^{709}), and setting up
        // the exact law over it would cost without bound (σ ~ 1e300 took 38 s): refuse at once.
        if let Some(t) = t_max
            && (t.is_nan() || t > MAX_SPD_BALL)
        {
            return Err(Error::NumericalLimit(format!(
                "the SPD Laplace draw conditioned on a ball of radius {t:.4e} (from the data radius and Δ) would \
                 reach log-eigenvalues beyond ±709, which double precision cannot hold; use a smaller radius \
                 (at most {} suffices everywhere)",
                MAX_SPD_BALL / 4.0
            )));
        }
        SpdLaplaceNoise::new(self.k(), sigma, t_max)
    }

    /// The log chart at the centre (`docs/proofs/float_safety.md` §3e): R_P = r + Δ/2 (the footpoint's
    /// ball), a margin of Δ/4, the data ball R = r when conditioned and otherwise R = R_P + τ + margin with τ
    /// the noise's 1 − p quantile, for the tail p ∈ {10⁻¹⁰, …, 10⁻²} whose ε₀ + ln 1/(1 − p) is smallest (a
    /// wider ball rounds less finely); T = min(R + R_P + margin, the noise's truncation). Refused where double
    /// precision cannot certify the rounding.
    fn ball_chart(
        &self,
        noise: &SpdLaplaceNoise,
        center: &DMatrix<f64>,
        radius: f64,
        sensitivity: f64,
        conditioned: bool,
    ) -> Fallible<Option<BallChart<DMatrix<f64>>>> {
        self.affine_ball_chart(noise, center, radius, sensitivity, conditioned, SPD_ROUNDING_OF_ERROR, false)
    }

    /// The private mean's chart: [`LaplaceManifold::ball_chart`]'s, except that unconditioned its cells may move
    /// a release by up to [`SPD_MEAN_ROUNDING_OF_ERROR`] of its expected error (the other means' policy) and its
    /// keep margin holds four of the coarsest such cells besides Δ/4 (`docs/proofs/float_safety.md` §3e, "The
    /// grid"). Conditioned on the data ball (as `Conditioning::Auto` weighs it) it is the same chart (its cells
    /// must fit in Δ/4: §3b's density ratios hold only inside every footpoint's truncation ball).
    fn ball_chart_for_mean(
        &self,
        noise: &SpdLaplaceNoise,
        center: &DMatrix<f64>,
        radius: f64,
        sensitivity: f64,
        conditioned: bool,
    ) -> Fallible<Option<BallChart<DMatrix<f64>>>> {
        let of_error = if conditioned { SPD_ROUNDING_OF_ERROR } else { SPD_MEAN_ROUNDING_OF_ERROR };
        self.affine_ball_chart(noise, center, radius, sensitivity, conditioned, of_error, true)
    }

    /// The mean conditioned on the ball by request: cells up to [`SPD_MEAN_ROUNDING_OF_ERROR`] of the expected
    /// error, capped to fit with the far draws' error in the margin max(Δ/4, Δ/2 − e_F − 10⁻¹²) (e_F the
    /// footpoint's error), draws redrawn only beyond the noise's truncation 2r′ + Δ
    /// (`docs/proofs/float_safety.md` §3e, "The grid").
    fn ball_chart_for_requested_ball_mean(
        &self,
        noise: &SpdLaplaceNoise,
        center: &DMatrix<f64>,
        radius: f64,
        sensitivity: f64,
    ) -> Fallible<Option<BallChart<DMatrix<f64>>>> {
        self.affine_ball_chart(noise, center, radius, sensitivity, true, SPD_MEAN_ROUNDING_OF_ERROR, true)
    }

    /// L0·P̃·L0ᵀ for the whitened footpoint P̃ that [`LaplaceManifold::sample_in_chart`] draws at.
    fn footpoint_in_chart(&self, chart: &BallChart<DMatrix<f64>>, x: &DMatrix<f64>) -> DMatrix<f64> {
        congruence_by(&chart.unwhiten, &whitened_footpoint(chart, x))
    }

    /// Whitens the footpoint (and moves it onto the ball of radius R_P if it lies outside) and takes its
    /// Cholesky factor L; draws the noise's r and U (r first, as every SPD draw), again beyond T; forms
    /// B = L·U·diag(e^{r/2}) and Y = BBᵀ (= L·N·Lᵀ) and takes log Y from its eigendecomposition — or, as the
    /// chart's form says, forms Y − I near the identity and takes log1p of its eigenvalues (`near_identity_log`),
    /// or forms U, B and Y in double-double and rounds Y once (`double_double_log`) — rounds the isometric
    /// coordinates onto the grid, keeps the cell if it lies within R, and un-whitens the cell's point.
    fn sample_in_chart<R: Rng + ?Sized>(
        &self,
        noise: &SpdLaplaceNoise,
        footpoint: &DMatrix<f64>,
        chart: &BallChart<DMatrix<f64>>,
        rng: &mut R,
    ) -> Fallible<Option<DMatrix<f64>>> {
        let k = self.k();
        let symmetric = |m: DMatrix<f64>| (&m + m.transpose()) * 0.5;
        let p = whitened_footpoint(chart, footpoint);
        let r = noise.sample_log_eigenvalues(rng);
        // Either Haar rotation reads the same uniforms.
        let (mut m, m_dd) = match chart.form {
            ChartForm::DoubleDouble => (DMatrix::zeros(0, 0), noise.haar_rotation_dd(rng)),
            _ => (noise.haar_rotation(rng), Vec::new()),
        };
        if r.norm() > chart.noise_radius {
            return Ok(None);
        }
        let unrepresentable = || Error::Unrepresentable("the whitened draw lost positive definiteness".into());
        let l = p.cholesky().ok_or_else(unrepresentable)?.l();
        let mut s = match chart.form {
            ChartForm::NearIdentity => sym_to_coords(&near_identity_log(&l, &m, &r)),
            ChartForm::DoubleDouble => sym_to_coords(&double_double_log(&l, &m_dd, &r)),
            ChartForm::Direct => {
                for (j, rj) in r.iter().enumerate() {
                    let scale = (0.5 * rj).exp();
                    m.column_mut(j).scale_mut(scale);
                }
                let b = &l * m;
                sym_to_coords(&logm(&symmetric(&b * b.transpose())))
            }
        };
        if !s.iter().all(|x| x.is_finite()) {
            return Err(unrepresentable());
        }
        chart.rounding.snap_coordinates(s.as_mut_slice());
        if s.norm() > chart.ball {
            return Ok(None);
        }
        Ok(Some(symmetric(&chart.unwhiten * expm(&coords_to_sym(&s, k)) * chart.unwhiten.transpose())))
    }

    fn sample_laplace<R: Rng + ?Sized>(
        &self,
        noise: &SpdLaplaceNoise,
        eta: &DMatrix<f64>,
        rng: &mut R,
    ) -> DMatrix<f64> {
        noise.sample_around(&sqrt_and_inv_sqrt(eta).0, rng)
    }

    /// max of e^{−(2s + a)/σ}·P(ρ(η, Y) ≤ s) over s ∈ {r′/8, 2r′/8, …, r′} ∪ {σ·2^{i/2} ≤ r′} with 2s + a ≤
    /// 2r + 3Δ/4, where r′ = r − M for the chart's keep margin M (Δ/4, or up to Δ/2 for the mean conditioned
    /// by request where its cells need it) and a = d_max − r′, d_max = (r + Δ/2)(1 + 10⁻¹²) + 10⁻¹² the farthest a
    /// footpoint lies from the chart's centre (§3e: the whitened mean is moved onto the ball of radius
    /// r + Δ/2). Every exact point within r′ of the centre is kept (the chart's rounding moves it by less than
    /// the margin M). With d ≤ d_max, let z be the point at distance max(0, d − (r′ − s)) ≤ s + a from η
    /// towards the centre: B_s(z) lies in B_{r′}, and within 2s + a of η (inside the truncation 2r + Δ and
    /// the chart's redraw radius 2r + 3Δ/4), where the proposal's density is at least e^{−(2s + a)/σ}/Z; its
    /// volume is that of B_s(η) (SPD(k) is homogeneous), whose probability is at most vol/Z.
    /// (`docs/proofs/mean_outside_ball.md` §4.) Evaluated on the law the noise was set up with.
    fn ball_acceptance_lower_bound(
        &self,
        noise: &SpdLaplaceNoise,
        radius: f64,
        sensitivity: f64,
        margin: f64,
    ) -> Option<f64> {
        let law = noise.radial_law();
        let inner = radius - margin;
        let farthest = (radius + 0.5 * sensitivity) * (1.0 + 1e-12) + 1e-12;
        let reach = farthest - inner;
        let redraw = 2.0 * radius + 0.75 * sensitivity;
        // s = jr′/8, and s = σ·2^{i/2} within r′ (where σ ≪ r, e^{−2s/σ} at s = r′/8 underflows).
        let steps = (1..=8).map(|j| inner * j as f64 / 8.0);
        let scales = (0..60).map(|i| noise.sigma() * 2f64.powf(i as f64 / 2.0)).take_while(|&s| s <= inner);
        let rate = steps
            .chain(scales)
            .filter(|&s| s > 0.0 && 2.0 * s + reach <= redraw)
            .map(|s| (-(2.0 * s + reach) / noise.sigma()).exp() * law.cdf(s))
            .fold(0.0, f64::max);
        Some(rate)
    }

    fn mean_distance(&self, noise: &SpdLaplaceNoise, within: Option<f64>) -> f64 {
        let t_max = match (noise.t_max(), within) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        // The noise's own law when the truncation is the same (always, unconditioned): no second set-up.
        if t_max == noise.t_max() {
            return noise.radial_law().mean();
        }
        SpdRadialLaw::new(self.k(), noise.sigma(), t_max).map(|law| law.mean()).unwrap_or(f64::NAN)
    }

    /// The exact law puts mass on matrices whose condition number f64 entries cannot carry: noise with a
    /// log-eigenvalue gap beyond ln 2⁵³ ≈ 36.7 (for k = 2: probability 3e-6 at σ = 0.8, 1.6e-3 at σ = 1, 0.24 at
    /// σ = 1.27), and sooner at ill-conditioned footpoints. Overflow (a log-eigenvalue beyond 709) is far rarer.
    fn check_representable(&self, y: &DMatrix<f64>) -> Fallible<()> {
        spd::check_representable(y)
    }
}

impl SpdAffine {
    /// [`LaplaceManifold::ball_chart`] with cells moving a release by at most `of_error` of its expected error,
    /// and, for a mean (`double_double`), the release in double-double among its forms.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn affine_ball_chart(
        &self,
        noise: &SpdLaplaceNoise,
        center: &DMatrix<f64>,
        radius: f64,
        sensitivity: f64,
        conditioned: bool,
        of_error: f64,
        double_double: bool,
    ) -> Fallible<Option<BallChart<DMatrix<f64>>>> {
        let k = self.k();
        spd::check_positive_definite(center)?;
        let not_pd = || Error::NotPositiveDefinite { min_eigenvalue: 0.0 };
        let unwhiten = center.clone().cholesky().ok_or_else(not_pd)?.l();
        let whiten = unwhiten.clone().try_inverse().ok_or_else(not_pd)?;
        let footpoint_radius = radius + 0.5 * sensitivity;
        let mean_error = noise.radial_law().mean();
        let d = (k * (k + 1) / 2) as f64;
        // Cells coarser than [`SPD_ROUNDING_OF_ERROR`]'s: the margin holds four of the coarsest allowed at any
        // ball (the cap shrinks as the ball grows, and every ball is at least R_P), besides Δ/4 (§3e).
        // Conditioned, the margin stays Δ/4 (it must keep C⁺ inside the truncation ball 2r′ + Δ) and the cells are
        // capped to fit in it instead (below).
        let cond_center = crate::manifold::float_error::spd_condition_bound(center);
        let footpoint_error = spd_footpoint_error(k, cond_center, footpoint_radius);
        if !footpoint_error.is_finite() {
            return Err(Error::NumericalLimit(format!(
                "the centre's condition number (at most {cond_center:.3e}) is too large for its whitening to be \
                 bounded in double precision (relative error above 1e-3); use a better-conditioned centre"
            )));
        }
        // Conditioned on the ball by request, where Δ/4 caps the cells: the margin reaches Δ/2 − e_F − 10⁻¹²,
        // rounded down, where C⁺ still lies inside every footpoint's truncation ball 2r′ + Δ, and draws are
        // redrawn only beyond that truncation (§3e, "The grid"). Elsewhere (and for `Auto`) Δ/4, bits unchanged.
        let requested = conditioned && of_error > SPD_ROUNDING_OF_ERROR;
        let wide = (0.5 * sensitivity - footpoint_error - 1e-12) * (1.0 - 1e-15);
        let margin = if of_error > SPD_ROUNDING_OF_ERROR && !conditioned {
            let coarsest = 2f64.powi(spd_log_chart_cap_log2(k, radius + 0.5 * sensitivity, mean_error, of_error));
            0.25 * sensitivity + 4.0 * d.sqrt() * (1.0 + 1e-15) * coarsest
        } else {
            0.25 * sensitivity
        };
        let footpoint_cost = crate::numerics::rounding::div_up(2.0 * footpoint_error, noise.sigma());
        // −ln(1 − tail), rounded up: what a tail of mass `tail` left out of the chart costs.
        let tail_cost = |tail: f64| if tail > 0.0 { crate::numerics::rounding::fn_up(-(-tail).ln_1p()) } else { 0.0 };
        // `widened`: the requested mean's margin `wide`, with draws redrawn only beyond the truncation.
        let chart = |ball: f64, tail: f64, widened: bool| -> Result<BallChart<DMatrix<f64>>, &'static str> {
            let margin = if widened { wide } else { margin };
            let truncation = noise.t_max().unwrap_or(f64::INFINITY);
            let noise_radius = if widened { truncation } else { (ball + footpoint_radius + margin).min(truncation) };
            let footpoint = footpoint_radius * (1.0 + 1e-12) + 1e-12;
            let near = ball + margin;
            // The kept cells' draws lie within `kept` of the footpoint; the log-eigenvalues' own error (and the
            // chamber's wall shift) adds to η, and the proposals' acceptance error α to ε₀ (§3h).
            let kept = noise_radius.min(near + footpoint);
            // The form whose bound on the kept draws is the smallest, among those bounded on the far ones too:
            // near the identity in small balls, in double-double (the means) in wider ones, else directly.
            let far = footpoint + noise_radius;
            let direct = (ChartForm::Direct, spd_log_chart_error(k, footpoint, kept, near), {
                spd_log_chart_error(k, footpoint, noise_radius, far)
            });
            let near_identity = (ChartForm::NearIdentity, spd_near_identity_chart_error(k, footpoint, kept, near), {
                spd_near_identity_chart_error(k, footpoint, noise_radius, far)
            });
            let in_double_double = if double_double {
                let bound = |t: f64, r: f64| spd_double_double_chart_error(k, footpoint, t, r);
                (ChartForm::DoubleDouble, bound(kept, near), bound(noise_radius, far))
            } else {
                (ChartForm::DoubleDouble, f64::INFINITY, f64::INFINITY)
            };
            let (form, chart_error, chart_error_far) = [near_identity, in_double_double]
                .into_iter()
                .fold(direct, |best, c| if c.2.is_finite() && c.1 < best.1 { c } else { best });
            let eta = crate::privacy::rounding::add_up(chart_error, noise.log_eigenvalue_error(kept));
            let eta_far = crate::privacy::rounding::add_up(chart_error_far, noise.log_eigenvalue_error(noise_radius));
            if !eta.is_finite() {
                return Err("the condition numbers within the ball are too large");
            }
            // Conditioned, the coarsest 2^s with √D·2^s + η_far < margin (a relative 10⁻¹² below, for the
            // strict inequality); the check below still decides.
            let coarsest = if requested && margin > eta_far {
                ((margin - eta_far) * (1.0 - 1e-12) / (d.sqrt() * (1.0 + 1e-15))).log2().floor() as i32
            } else {
                i32::MAX
            };
            let rounding =
                Rounding::for_spd_log_chart_within(k, noise.sigma(), eta, ball, mean_error, of_error, coarsest)
                    .with_acceptance_error(noise.acceptance_error(kept));
            // A cell's width plus the far draws' error must fit in the margin (§3e).
            let fits = d.sqrt() * rounding.grid().spacing() + eta_far < margin;
            if !fits {
                return Err("the error of draws beyond the ball does not fit in the keep margin");
            }
            let tail_cost = tail_cost(tail);
            let (whiten, unwhiten) = (whiten.clone(), unwhiten.clone());
            Ok(BallChart {
                rounding,
                whiten,
                unwhiten,
                footpoint_radius,
                ball,
                noise_radius,
                margin,
                tail_cost,
                footpoint_cost,
                form,
            })
        };
        let found = if requested {
            // Δ/4 first; the wider margin only where Δ/4 capped the cells (the 10⁻³ policy alone would take
            // coarser ones).
            let policy = spd_log_chart_cap_log2(k, radius, mean_error, of_error);
            match chart(radius, 0.0, false) {
                Ok(c) if wide > margin && c.rounding.grid().spacing_log2 < policy => chart(radius, 0.0, true),
                found => found,
            }
        } else if conditioned {
            chart(radius, 0.0, false)
        } else {
            let cost = |c: &BallChart<DMatrix<f64>>| c.rounding.additive_epsilon() + c.tail_cost + c.footpoint_cost;
            let levels = [1e-10, 1e-8, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2];
            cheapest_over_levels(
                &levels,
                |level| tail_cost(level + 1e-11),
                cost,
                |level| {
                    // The radial CDF is accurate to ~1e-12: the mass beyond τ is below level + 1e-11.
                    let tau = noise.radial_law().quantile(1.0 - level)? * 1.001;
                    Ok(chart(footpoint_radius + tau + margin, level + 1e-11, false))
                },
            )?
        };
        found.map(Some).map_err(|why| {
            Error::NumericalLimit(format!(
                "a float-safe SPD({k}) release around footpoints within {radius} of the centre at noise scale \
                 {:.4e} cannot be certified in double precision ({why}); use a smaller radius, or (for a mean) \
                 more data",
                noise.sigma()
            ))
        })
    }
}
