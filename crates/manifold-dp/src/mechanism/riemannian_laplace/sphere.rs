//! The Riemannian Laplace on spheres S^d: the Purkayastha law, its grid and the relative-error release of means.

use super::chart_choice::{cheapest_relative_chart, keep_ball_tail_cost};
use crate::Fallible;
use crate::analysis::{AngularLaw, SphereAngle};
use crate::error::Param;
use crate::error::check_positive;
use crate::manifold::{Manifold, Sphere};
use crate::privacy::float_safety::{MEAN_SPACING_BELOW_NOISE_LOG2, RIEMANNIAN_SPACING_BELOW_NOISE_LOG2, Rounding};
use crate::sample::double_double::Dd;
use crate::sample::purkayastha::PurkayasthaNoise;
use nalgebra::DVector;
use rand::{Rng, RngExt};
use std::f64::consts::{PI, TAU};

use super::{BallChart, ChartForm, LaplaceManifold, truncated_mean};

impl Sphere {
    /// The Riemannian Laplace's grid with cells up to 2^-`below_log2` of the noise scale σ.
    fn laplace_rounding(&self, sigma: f64, below_log2: i32) -> Option<Rounding> {
        // The angle sampler's acceptance test errs by a proven α (float_safety.md §3f, §3g, Lemma R): 4α more.
        let alpha = self.laplace_noise(sigma, None).ok()?.acceptance_error();
        let rounding = Rounding::for_directions_below(self.ambient(), 1.0 / sigma, 1.0 / sigma, below_log2);
        Some(rounding.with_acceptance_error(alpha))
    }
}

impl Sphere {
    /// The circle's relative-error mean chart (`docs/proofs/float_safety.md` §3i, "The circle"): the release
    /// F + s·θ/2π in turns, F the footpoint's angle as computed ([`circle_footpoint_turns`], within
    /// [`CIRCLE_FOOTPOINT_ERROR`] of the exact one, paid as 2e_F/σ), rounded exactly onto the turn grid, so its
    /// η ([`circle_mean_release_error`]) is relative to the noise's reach T. Cells up to the absolute turn grid's
    /// cap (2^-10 of the noise scale in turns, the same utility), ε₀ by the homothety bound. `None` (the absolute
    /// rounding) where T reaches π (radii from about 6 h), the cells would be finer than 2^-50 turns, or that
    /// costs no more.
    fn circle_ball_chart(
        &self,
        noise: &PurkayasthaNoise,
        center: &DVector<f64>,
        radius: f64,
        sensitivity: f64,
        conditioned: bool,
    ) -> Fallible<Option<BallChart<DVector<f64>>>> {
        let sigma = 1.0 / noise.kappa();
        let lipschitz = noise.kappa();
        let law = SphereAngle::purkayastha(2, noise.kappa())?;
        // The exact mean within r + e_ρ of the centre, the computed one within Δ/2 of it, and its computed angle
        // within e_F ≤ 1.4·10⁻¹⁵ rad of the computed one's exact angle: the 10⁻¹² holds both.
        let footpoint_radius = radius * (1.0 + 1e-12) + 1e-12 + 0.5 * sensitivity;
        let fine = -(MEAN_SPACING_BELOW_NOISE_LOG2 + lipschitz.max(1.0).log2().ceil() as i32);
        // Four coarsest cells of arc 2π·2^fine in the margin.
        let margin = 0.25 * sensitivity + 4.0 * TAU * 2f64.powi(fine);
        let angle_error = noise.gamma_angle_dd_relative_error();
        let footpoint_cost = crate::numerics::rounding::div_up(2.0 * CIRCLE_FOOTPOINT_ERROR, sigma);
        let chart = |tau: f64, tail: f64| -> Result<BallChart<DVector<f64>>, &'static str> {
            let ball = if tau < 0.0 { radius } else { footpoint_radius + tau + margin };
            let noise_radius = ball + footpoint_radius + margin;
            // No sine or face here: η is relative for every θ ≤ π, and the triangle inequality for the keep-ball
            // holds while T stays below π (the circle's distances are at most π).
            if noise_radius > PI * (1.0 - 1e-9) {
                return Err("the ball is too wide for the relative-error release");
            }
            let eta = circle_mean_release_error(noise_radius, angle_error);
            let rounding = Rounding::for_turns_with_error_up_to(lipschitz, eta, fine);
            if rounding.float_safe_grid().spacing_log2 < -50 {
                return Err("cells finer than 2^-50 turns");
            }
            Ok(BallChart {
                rounding,
                whiten: center.clone(),
                unwhiten: center.clone(),
                footpoint_radius,
                ball,
                noise_radius,
                margin,
                tail_cost: keep_ball_tail_cost(tail),
                footpoint_cost,
                form: ChartForm::Direct,
            })
        };
        cheapest_relative_chart(&law, conditioned, chart, self.rounding_in_ball(sigma, center, radius))
    }
}

/// Refuses a footpoint farther than R_P (+ 10⁻⁹) from the centre (the chart's `whiten`): the mean of points in
/// the ball never lies there (§3i, "The keep-ball"), and the keep-ball would keep its draws never or almost
/// never, so drawing would not end.
pub(super) fn check_footpoint<P>(distance: f64, chart: &BallChart<P>) -> Fallible<()> {
    if distance <= chart.footpoint_radius + 1e-9 {
        return Ok(());
    }
    Err(crate::error::Error::NotApplicable(format!(
        "the mean to release lies {} from the centre, farther than the mean of points within the radius can \
         ({}): release the Fréchet mean of the points in the ball",
        crate::privacy::guarantee::short(distance),
        crate::privacy::guarantee::short(chart.footpoint_radius)
    )))
}

/// 2π as a double-double (TAU and the next 53 bits), within 2^-104 of itself.
const TAU_DD: Dd = Dd { hi: TAU, lo: 2.449_293_598_294_706_4e-16 };

/// e_F of the circle's footpoint, in radians: its angle in turns by [`circle_footpoint_turns`] is within
/// 2·2^-53 turns of the exact angle of the computed mean (`docs/proofs/float_safety.md` §2, "The turn cell
/// without libm"; libm's fallback within 1.68·2^-53), times 2π, rounded up by 1 %.
const CIRCLE_FOOTPOINT_ERROR: f64 = 1.01 * f64::EPSILON * TAU;

/// The footpoint's angle in turns, in [−½, ½]: [`crate::numerics::trig::atan2_turns`], or libm's atan2/2π where
/// that declines (zero or non-finite coordinates).
fn circle_footpoint_turns(m: &[f64]) -> f64 {
    crate::numerics::trig::atan2_turns(m[1], m[0]).unwrap_or_else(|| m[1].atan2(m[0]) / TAU)
}

/// The circle's release in turns before its cell: F + θ/2π (`ahead`) or F − θ/2π in double-double, F the
/// footpoint's angle in turns ([`circle_footpoint_turns`]; `docs/proofs/float_safety.md` §3i, "The circle").
pub(super) fn circle_release_turns(footpoint: &[f64], theta: Dd, ahead: bool) -> Dd {
    let offset = theta.div(TAU_DD);
    Dd::new(circle_footpoint_turns(footpoint)).add(if ahead { offset } else { offset.neg() })
}

/// η of the circle's relative-error release in turns (`docs/proofs/float_safety.md` §3i, "The circle"): the
/// release F + s·θ̂/2π against the exact F + s·θ*/2π for every kept draw (θ̂ ≤ `reach`), θ̂ within
/// `angle_error` of itself (the Gamma proposal at k = 0 in double-double); the quotient by 2π (18u² and the
/// constant's 2^-104) and the sum (3.01u²). Rounded up by 1 %.
pub fn circle_mean_release_error(reach: f64, angle_error: f64) -> f64 {
    let u = f64::EPSILON / 2.0;
    1.01 * ((angle_error + 40.0 * u * u) * reach / TAU + 4.0 * u * u)
}

impl LaplaceManifold for Sphere {
    fn negligible_event_probability(&self, noise: &PurkayasthaNoise) -> f64 {
        noise.negligible_event_probability()
    }

    fn negligible_event_bound(&self) -> f64 {
        PurkayasthaNoise::negligible_event_bound(self.ambient())
    }

    fn rounding(&self, sigma: f64) -> Option<Rounding> {
        self.laplace_rounding(sigma, RIEMANNIAN_SPACING_BELOW_NOISE_LOG2)
    }

    /// The private mean's grid: cells up to 2^-10 of σ ([`MEAN_SPACING_BELOW_NOISE_LOG2`]).
    fn rounding_in_ball(&self, sigma: f64, _center: &DVector<f64>, _radius: f64) -> Option<Rounding> {
        self.laplace_rounding(sigma, MEAN_SPACING_BELOW_NOISE_LOG2)
    }

    fn snap_point(&self, rounding: &Rounding, y: &mut DVector<f64>) {
        rounding.snap_direction(y.as_mut_slice())
    }

    /// On S^{n−1}, n ≥ 3: the relative-error release of `docs/proofs/float_safety.md` §3i. The release is
    /// m + δ summed exactly and rounded in double-double ([`crate::space::grid::snap_cube_map_dd`]), kept only
    /// within the public ball of radius R around the centre: unconditioned, R = r + Δ/2 + τ + margin (τ the
    /// angle's 1 − p quantile, for the tail p ∈ {10⁻¹⁰, …, 10⁻²} whose ε₀ + ln 1/(1 − p) is smallest);
    /// conditioned on the data ball, R = r (§3b's public set of cells). Draws with θ > T = R + r + Δ/2 + margin
    /// are drawn again. Its η is relative to the noise's reach T ([`s2_mean_release_error`] on S²,
    /// [`sphere_mean_release_error`] for n ≥ 4), not [`crate::privacy::float_safety::PIPELINE_ERROR`]. `None`
    /// (the absolute-error rounding of [`LaplaceManifold::rounding_in_ball`]) on the circle, where T > π/2, or
    /// where that costs no more.
    fn ball_chart(
        &self,
        noise: &PurkayasthaNoise,
        center: &DVector<f64>,
        radius: f64,
        sensitivity: f64,
        conditioned: bool,
    ) -> Fallible<Option<BallChart<DVector<f64>>>> {
        let n = self.ambient();
        if n == 2 {
            return self.circle_ball_chart(noise, center, radius, sensitivity, conditioned);
        }
        let sigma = 1.0 / noise.kappa();
        let lipschitz = noise.kappa();
        let law = SphereAngle::purkayastha(n, noise.kappa())?;
        // The exact mean lies within r′ = r + e_ρ (e_ρ ≤ 1e-12 here) of the centre, the computed one within
        // Δ/2 of it.
        let footpoint_radius = radius * (1.0 + 1e-12) + 1e-12 + 0.5 * sensitivity;
        // The coarsest cell allowed has chord diameter ≤ √(n − 1)·2^fine (a cube of side 2^fine in n − 1 chart
        // coordinates, mapped 1-Lipschitz onto the sphere); the margin holds four of them.
        // The expected error, capped at the data radius (about what a release conditioned on the ball can err).
        let fine = mean_cell_cap_log2(n, lipschitz, law.mean().min(radius));
        let diameter = if n == 3 { std::f64::consts::SQRT_2 } else { ((n - 1) as f64).sqrt() * (1.0 + 1e-15) };
        let margin = 0.25 * sensitivity + 4.0 * diameter * 2f64.powi(fine);
        let alpha = noise.gamma_acceptance_error();
        // S² keeps its f64 offset (and its bits); n ≥ 4 draws θ in double-double.
        let angle_error =
            if n == 3 { noise.gamma_angle_relative_error() } else { noise.gamma_angle_dd_relative_error() };
        let chart = |tau: f64, tail: f64| -> Result<BallChart<DVector<f64>>, &'static str> {
            // Conditioned (τ < 0): the data ball itself, as `PrivateFrechetMean::keeps` checks it.
            let ball = if tau < 0.0 { radius } else { footpoint_radius + tau + margin };
            let noise_radius = ball + footpoint_radius + margin;
            if noise_radius > 0.5 * PI {
                return Err("the ball is too wide for the relative-error release");
            }
            let eta = if n == 3 {
                s2_mean_release_error(noise_radius, angle_error)
            } else {
                sphere_mean_release_error(n, noise_radius, angle_error)
            };
            // Kept draws' exact points lie within R + margin of the centre: their face coordinate is at least
            // max|cᵢ| − (R + margin); for n ≥ 4 they also lie within acos max|ĉᵢ| + R + margin of the face's
            // axis, which bounds the chart's stretch more finely (`cube_chart_error_near_axis`).
            let reach = ball + margin;
            let chart_error = if n == 3 {
                cube_chart_error(n, eta, face_floor(center.as_slice(), reach))
            } else {
                cube_chart_error_near_axis(n, eta, center.as_slice(), reach)
            };
            // n ≥ 4: where every kept cell (within R + margin of the centre) lies inside the centre's face, the
            // homothety bound applies too (S² keeps the shell lemma alone, and its bits).
            let one_face = n >= 4 && ball + margin < face_edge_angle(center.as_slice());
            let rounding = Rounding::for_directions_with_error_up_to(n, lipschitz, chart_error, fine, one_face)
                .with_acceptance_error(alpha);
            Ok(BallChart {
                rounding,
                whiten: center.clone(),
                unwhiten: center.clone(),
                footpoint_radius,
                ball,
                noise_radius,
                margin,
                tail_cost: keep_ball_tail_cost(tail),
                footpoint_cost: 0.0,
                form: ChartForm::Direct,
            })
        };
        cheapest_relative_chart(&law, conditioned, chart, self.rounding_in_ball(sigma, center, radius))
    }

    /// The relative-error release on S^{n−1} (`docs/proofs/float_safety.md` §3i): on the circle, the footpoint's
    /// angle in turns plus ±θ/2π in double-double, rounded exactly onto the turn grid (§3i, "The circle"); for
    /// n ≥ 3, θ by the Gamma proposal (drawn
    /// again beyond T), the tangent direction v̂ at the (renormalised) footpoint m (Duff's frame on S², the
    /// Householder tangent for n ≥ 4),
    /// δ = sin θ·v̂ − 2 sin²(θ/2)·m in f64, m + δ exactly (TwoSum), rounded in double-double onto the cube map,
    /// and kept if its cell's point lies within R of the centre.
    fn sample_in_chart<R: Rng + ?Sized>(
        &self,
        noise: &PurkayasthaNoise,
        footpoint: &DVector<f64>,
        chart: &BallChart<DVector<f64>>,
        rng: &mut R,
    ) -> Fallible<Option<DVector<f64>>> {
        check_footpoint(self.distance(&chart.whiten, footpoint), chart)?;
        let spacing_log2 = chart.rounding.float_safe_grid().spacing_log2;
        let mut y = if self.ambient() == 2 {
            let theta = noise.sample_angle_by_gamma_dd(rng);
            if theta.hi > chart.noise_radius {
                return Ok(None);
            }
            let turns = circle_release_turns(footpoint.as_slice(), theta, rng.random::<bool>());
            let cell = crate::space::grid::turn_cell_of_turns_dd(turns.hi, turns.lo, spacing_log2);
            DVector::from_column_slice(&crate::space::grid::turn_representative(cell, spacing_log2))
        } else if self.ambient() == 3 {
            let theta = noise.sample_angle_by_gamma(rng);
            if theta > chart.noise_radius {
                return Ok(None);
            }
            let dir = crate::sample::sphere::uniform_circle(rng);
            DVector::from_column_slice(&s2_relative_release(footpoint.as_slice(), theta, dir, spacing_log2))
        } else {
            let theta = noise.sample_angle_by_gamma_dd(rng);
            if theta.hi > chart.noise_radius {
                return Ok(None);
            }
            DVector::from_vec(sphere_relative_release(footpoint.as_slice(), theta, spacing_log2, rng))
        };
        if let Some(coarse) = chart.rounding.coarse_grid() {
            crate::space::grid::snap_direction(coarse, y.as_mut_slice());
        }
        Ok((self.distance(&chart.whiten, &y) <= chart.ball).then_some(y))
    }

    type Noise = PurkayasthaNoise;

    fn laplace_noise(&self, sigma: f64, _t_max: Option<f64>) -> Fallible<PurkayasthaNoise> {
        PurkayasthaNoise::new(self.ambient(), 1.0 / check_positive(Param::Sigma, sigma)?)
    }

    fn sample_laplace<R: Rng + ?Sized>(
        &self,
        noise: &PurkayasthaNoise,
        eta: &DVector<f64>,
        rng: &mut R,
    ) -> DVector<f64> {
        noise.sample_around(eta, rng)
    }

    fn mean_distance(&self, noise: &PurkayasthaNoise, within: Option<f64>) -> f64 {
        let law = SphereAngle::purkayastha(self.ambient(), noise.kappa()).expect("validated parameters");
        truncated_mean(&law, within, (self.dimension() as f64 / noise.kappa()).min(PI))
    }
}

/// The footpoint m as the S² release uses it: divided by its norm unless its computed ‖m‖² is within 4 ulps of
/// 1, so |‖m‖ − 1| ≤ 6·2^-53 either way (the computed square norm within 3·2^-53 of the exact; renormalised, the
/// square root, the reciprocal and the products a few 2^-53 more; `docs/proofs/float_safety.md` §3i).
fn s2_footpoint(m: &[f64]) -> [f64; 3] {
    let m2 = m[0] * m[0] + m[1] * m[1] + m[2] * m[2];
    if (m2 - 1.0).abs() <= 4.0 * f64::EPSILON {
        [m[0], m[1], m[2]]
    } else {
        let g = 1.0 / m2.sqrt();
        [m[0] * g, m[1] * g, m[2] * g]
    }
}

/// δ = sin θ·v̂ − 2 sin²(θ/2)·m in f64 (v̂ = c·e₁ + s·e₂ in Duff's frame at the footpoint) and m: the release's
/// offset from its footpoint, with an error relative to θ (§3i).
pub(crate) fn s2_offset(footpoint: &[f64], theta: f64, dir: (f64, f64)) -> ([f64; 3], [f64; 3]) {
    let m = s2_footpoint(footpoint);
    let v = crate::sample::sphere::s2_point_at_angle(m, 0.0, 1.0, dir);
    let (sin, half) = (theta.sin(), (0.5 * theta).sin());
    let versine = 2.0 * (half * half);
    (m, std::array::from_fn(|i| sin * v[i] - versine * m[i]))
}

/// The S² release of §3i: m + δ exactly (TwoSum) and its cube-map cell in double-double
/// ([`crate::space::grid::snap_cube_map_dd`]), on the grid of spacing 2^`spacing_log2`.
pub(crate) fn s2_relative_release(footpoint: &[f64], theta: f64, dir: (f64, f64), spacing_log2: i32) -> [f64; 3] {
    let (m, d) = s2_offset(footpoint, theta, dir);
    let (mut hi, mut lo) = ([0.0; 3], [0.0; 3]);
    for i in 0..3 {
        let h = m[i] + d[i];
        let bb = h - m[i];
        hi[i] = h;
        lo[i] = (m[i] - (h - bb)) + (d[i] - bb);
    }
    let mut out = [0.0; 3];
    crate::space::grid::snap_cube_map_dd(&hi, &lo, spacing_log2, &mut out);
    out
}

/// η of the S² relative-error release (§3i): a bound on the distance between m + δ̂ (computed) and ‖m‖·z* (z*
/// the exact release of the same uniforms at m/‖m‖) for every draw with θ ≤ `reach` ≤ π/2, where θ̂ errs by at
/// most `angle_error` of itself: per unit of θ, the angle (angle_error + 2u for libm's sine), the tangent
/// direction (16.5u, §4a's frame and circle with sin = 1; 27u for the footpoint's norm, 6u, through the
/// frame's radial Lipschitz constant 4.5), the footpoint's norm (6u), three roundings (3u), and the versine's
/// relative (2·angle_error + 6u) times θ/2; plus 2^-100 for the double-double sum. Rounded up by 1 %.
pub fn s2_mean_release_error(reach: f64, angle_error: f64) -> f64 {
    let u = f64::EPSILON / 2.0;
    let per_unit =
        angle_error + 2.0 * u + 16.5 * u + 27.0 * u + 6.0 * u + 3.0 * u + (2.0 * angle_error + 6.0 * u) * 0.5 * reach;
    1.01 * per_unit * reach + 2f64.powi(-100)
}

/// The footpoint m/‖m‖ on S^{n−1}, n ≥ 4, in double-double: ‖m‖² from the exact squares (two-product) summed
/// in double-double, its root and each quotient mⱼ/‖m‖ (Lemma DD): within (1.53n + 30)·2^-106 of m/‖m‖ in each
/// coordinate, relatively, with mⱼ's sign (`docs/proofs/float_safety.md` §3i, "S^{n−1}, n ≥ 4, in
/// double-double").
fn unit_footpoint_dd(m: &[f64]) -> Vec<Dd> {
    let square = m.iter().fold(Dd::new(0.0), |acc, &x| acc.add(Dd::new(x).mul(Dd::new(x))));
    let norm = square.sqrt();
    m.iter().map(|&x| Dd::new(x).div(norm)).collect()
}

/// The S^{n−1} release z = cos θ·m̂ + sin θ·v̂ in double-double, n ≥ 4, before its cell: m̂ the footpoint
/// divided by its norm ([`unit_footpoint_dd`]), v̂ the Householder tangent at m̂ drawn from `rng`
/// ([`crate::sample::sphere::householder_tangent_dd`]), (sin θ, cos θ) by [`Dd::sin_cos`]. Within
/// [`sphere_mean_release_error`] of the exact release of the same uniforms for θ ≤ the reach (§3i).
pub(super) fn sphere_release_dd<R: Rng + ?Sized>(footpoint: &[f64], theta: Dd, rng: &mut R) -> Vec<Dd> {
    let m = unit_footpoint_dd(footpoint);
    let v = crate::sample::sphere::householder_tangent_dd(&m, rng);
    let (sin, cos) = theta.sin_cos();
    m.iter().zip(&v).map(|(m, v)| cos.mul(*m).add(sin.mul(*v))).collect()
}

/// The S^{n−1} release of §3i, n ≥ 4: z = cos θ·m̂ + sin θ·v̂ in double-double ([`sphere_release_dd`]) and its
/// cube-map cell in double-double ([`crate::space::grid::snap_cube_map_dd`]), on the grid of spacing
/// 2^`spacing_log2`.
pub(crate) fn sphere_relative_release<R: Rng + ?Sized>(
    footpoint: &[f64],
    theta: Dd,
    spacing_log2: i32,
    rng: &mut R,
) -> Vec<f64> {
    let z = sphere_release_dd(footpoint, theta, rng);
    let hi: Vec<f64> = z.iter().map(|x| x.hi).collect();
    let lo: Vec<f64> = z.iter().map(|x| x.lo).collect();
    let mut out = vec![0.0; z.len()];
    crate::space::grid::snap_cube_map_dd(&hi, &lo, spacing_log2, &mut out);
    out
}

/// η of the S^{n−1} relative-error release, n ≥ 4 (§3i, "S^{n−1}, n ≥ 4, in double-double"): a bound on the
/// distance between the computed z (`sphere_release_dd`) and the exact release z* of the same uniforms at
/// m/‖m‖ for every kept draw (θ̂ ≤ `reach` ≤ π/2), where θ̂ errs by at most `angle_error` of itself. Per unit
/// of θ: the angle (`angle_error`: θ ↦ cos θ·m̂ + sin θ·v is a unit-speed curve), the Gaussians' direction
/// (16.01u, `GAUSSIAN_DIRECTION_ERROR_UNITS`, the reflection an isometry) and the tangent's double-double arithmetic
/// ((24n + 400 + 150)u², with the sine's); plus, absolutely, the footpoint's (1.53n + 30)u², the cosine's 200u²
/// and the final products and sums 11.03u²(1 + θ). Rounded up by 1 % (θ* ≤ θ̂(1 + angle_error), ‖v̂‖ and ‖m̂‖
/// within 10⁻²⁰ of 1).
pub fn sphere_mean_release_error(n: usize, reach: f64, angle_error: f64) -> f64 {
    let u = f64::EPSILON / 2.0;
    let u2 = u * u;
    let n = n as f64;
    let per_unit = angle_error + GAUSSIAN_DIRECTION_ERROR_UNITS * u + (24.0 * n + 400.0 + 150.0 + 11.03) * u2;
    let absolute = (1.53 * n + 30.0 + 200.0 + 11.03) * u2;
    1.01 * (per_unit * reach + absolute)
}

/// The Gaussians' direction's error on S^{n−1}, n ≥ 4, in units of 2^-53 (`docs/proofs/float_safety.md` §3i,
/// "S^{n−1}, n ≥ 4", step 2): each computed normal is within 16u of its own size (Lemma N), so ‖ĝ − g‖ ≤ ρ‖g‖ with
/// ρ = 16u (the subnormal √n·2^-1074 is below 10⁻¹⁶⁰ρ‖g‖ for ‖g‖ ≥ 2^-477); the angle φ between ĝ and g has sin φ ≤ ρ (g's
/// distance to the line through ĝ is ‖g‖ sin φ) and φ < π/2, so the unit vectors are a chord 2 sin(φ/2) ≤ φ ≤
/// asin ρ < 16.01u apart. (The general |a/|a| − b/|b|| ≤ 2|a − b|/|b| gave 32u.)
pub(super) const GAUSSIAN_DIRECTION_ERROR_UNITS: f64 = 16.01;

/// The coarsest cell 2^s of the relative-error release's cube map on S^{n−1} (`docs/proofs/float_safety.md` §3i,
/// "The cells"), for noise of concentration κ = `lipschitz` whose angle has mean `mean_angle`: 2^-10 of the
/// noise scale (2^{−10−⌈log₂ κ⌉}, [`MEAN_SPACING_BELOW_NOISE_LOG2`]) on S², and for n ≥ 4 the largest 2^s with
/// √(n − 1)·2^s/2 ≤ 2^-10·E[θ] if that is coarser: a cell's chord diameter is at most √(n − 1)·2^s, so rounding
/// moves a release by at most 2^-10 < 10⁻³ of its expected error, the policy the noise-scale cap keeps on S²,
/// where E[θ] ≈ 2σ. Cells this wide are cheaper by the shell lemma (ε₀ ≈ 4(n − 1)η_c/h while the density's
/// spread over a cell stays small), and E[θ] ≈ (n − 1)σ grows with n.
pub(super) fn mean_cell_cap_log2(n: usize, lipschitz: f64, mean_angle: f64) -> i32 {
    let by_scale = -(MEAN_SPACING_BELOW_NOISE_LOG2 + lipschitz.max(1.0).log2().ceil() as i32);
    if n < 4 || !(mean_angle.is_finite() && mean_angle > 0.0) {
        return by_scale;
    }
    let coords = (n - 1) as f64;
    let by_error = (2.0 * 2f64.powi(-MEAN_SPACING_BELOW_NOISE_LOG2) * mean_angle / coords.sqrt()).log2().floor() as i32;
    by_scale.max(by_error)
}

/// A lower bound on the angle from the unit vector along `center` to the nearest point of S^{n−1} whose cube-map
/// face differs (two coordinates of equal largest magnitude): asin((a₁ − a₂)/√2), a₁ ≥ a₂ the two largest
/// |cᵢ|/‖c‖ (the angle to the hyperplane zᵢ = ±zⱼ is asin(|cᵢ ∓ cⱼ|/√2) ≥ that), shrunk for rounding. Every point
/// nearer than this lies strictly inside the centre's face.
pub(super) fn face_edge_angle(center: &[f64]) -> f64 {
    let norm = center.iter().map(|c| c * c).sum::<f64>().sqrt() * (1.0 + 1e-15);
    let (mut a1, mut a2) = (0.0f64, 0.0f64);
    for c in center {
        let a = c.abs() / norm;
        if a > a1 {
            (a1, a2) = (a, a1);
        } else if a > a2 {
            a2 = a;
        }
    }
    let gap = ((a1 - a2) / std::f64::consts::SQRT_2 - 1e-12).max(0.0);
    gap.min(1.0).asin() * (1.0 - 1e-12)
}

/// A lower bound on the largest |coordinate| of a unit vector within chordal distance `reach` of the unit
/// vector `center`: max|cᵢ| − reach (each coordinate moves by at most the chord).
pub(super) fn face_floor(center: &[f64], reach: f64) -> f64 {
    let norm = center.iter().map(|c| c * c).sum::<f64>().sqrt();
    center.iter().fold(0.0f64, |m, c| m.max(c.abs())) / (norm * (1.0 + 1e-15)) - reach * (1.0 + 1e-12)
}

/// The per-coordinate cube-map chart error on S^{n−1} of a point within chordal `eta` of the exact one (§4a,
/// "The chart"): √2·η/(|z*_face| − …), with |z*_face| ≥ max(`face` − 2η, (1 − η)/√n − η) (the generic floor, or
/// `face` where the exact point is known to lie near a public centre, `face_floor`), plus the double-double
/// quotient's 2^-99 (no γ₂: the chart division is not rounded to f64). Rounded up by 0.1 %.
pub fn cube_chart_error(n: usize, eta: f64, face: f64) -> f64 {
    let generic = (1.0 - eta) / (n as f64).sqrt() - eta;
    let floor = generic.max(face - 2.0 * eta);
    1.001 * (std::f64::consts::SQRT_2 * eta / floor) + 2f64.powi(-99)
}

/// The per-coordinate cube-map chart error on S^{n−1} of a point within chordal `eta` of an exact point lying
/// within the angle `reach` of the unit vector ĉ along `center` (`docs/proofs/float_safety.md` §3i, "In the
/// chart"). With face i of ĉ (a₁ = max|ĉᵢ|), every such exact point z* lies within β = acos a₁ + `reach` of
/// ±eᵢ, so |z*ᵢ| ≥ cos β and |z*ⱼ| ≤ sin β. Where β < π/4, and the computed point ẑ (‖ẑ − ‖m‖z*‖ ≤ η,
/// |‖m‖ − 1| ≤ 10⁻¹²) keeps |ẑᵢ| ≥ cos β − η above sin β + η ≥ |ẑⱼ|, both lie in face i and each chart
/// coordinate qⱼ = zⱼ/|zᵢ| moves by |Δⱼ − qⱼ(z*)Δᵢ|/|ẑᵢ| ≤ √(1 + tan²β)·η/|ẑᵢ| = η/(cos β·|ẑᵢ|); elsewhere, and
/// wherever it is smaller, [`cube_chart_error`] at `face_floor`. Plus the double-double quotient's 2^-99;
/// rounded up by 0.1 %, the angles and their cosines by 10⁻¹² relative.
pub fn cube_chart_error_near_axis(n: usize, eta: f64, center: &[f64], reach: f64) -> f64 {
    let generic = cube_chart_error(n, eta, face_floor(center, reach));
    let norm = center.iter().map(|c| c * c).sum::<f64>().sqrt();
    let a1 = center.iter().fold(0.0f64, |m, c| m.max(c.abs())) / (norm * (1.0 + 1e-15));
    let beta = (a1 * (1.0 - 1e-12)).min(1.0).acos() * (1.0 + 1e-12) + 1e-12 + reach * (1.0 + 1e-12);
    // NaN (a zero centre) fails the test too.
    if beta.is_nan() || beta >= std::f64::consts::FRAC_PI_4 {
        return generic;
    }
    let (cos, sin) = (beta.cos() * (1.0 - 1e-12), beta.sin() * (1.0 + 1e-12) + 1e-15);
    // |ẑᵢ| ≥ ‖m‖ cos β − η and |ẑⱼ| ≤ ‖m‖ sin β + η, ‖m‖ within 10⁻¹² of 1.
    let (face, other) = ((1.0 - 1e-12) * cos - eta, (1.0 + 1e-12) * sin + eta);
    if face <= other {
        return generic;
    }
    let near = 1.001 * (eta / (cos * face)) + 2f64.powi(-99);
    generic.min(near)
}
