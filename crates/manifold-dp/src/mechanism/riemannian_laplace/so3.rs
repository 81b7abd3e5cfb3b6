//! The Riemannian Laplace on SO(3): its grid and the relative-error release of means on the unit quaternions.

use super::chart_choice::{cheapest_relative_chart, keep_ball_tail_cost};
use super::sphere::{cube_chart_error, face_floor};
use crate::Fallible;
use crate::analysis::LaplaceAngle;
use crate::error::Param;
use crate::error::check_positive;
use crate::manifold::{Manifold, So3};
use crate::privacy::float_safety::{MEAN_SPACING_BELOW_NOISE_LOG2, RIEMANNIAN_SPACING_BELOW_NOISE_LOG2, Rounding};
use crate::sample::laplace_so3::LaplaceSo3Noise;
use nalgebra::UnitQuaternion;
use rand::Rng;
use rand::distr::Distribution;
use std::f64::consts::PI;

use super::{BallChart, ChartForm, LaplaceManifold, truncated_mean};

/// η of the SO(3) relative-error release (§3i), as a chord on S³, for draws with S³ angle φ = θ/2 ≤ `reach`
/// (≤ π/4): per unit of φ, the angle (θ̂ within `angle_error` of itself, libm's sine 2u), the axis (10u), the
/// product sin φ·a (u), the quaternion product m ⊗ (n − 1) (2γ₄ ≈ 8u, four-term dot products), slack
/// (2.5u), and the half-versine's relative (2·angle_error + 6u) times φ/2; plus 2^-100 for the
/// double-double sum. Rounded up by 1 %.
pub fn so3_mean_release_error(reach: f64, angle_error: f64) -> f64 {
    let u = f64::EPSILON / 2.0;
    let per_unit = angle_error
        + 2.0 * u
        + 10.0 * u
        + u
        + 8.0 * u
        + 2.5 * u
        + 2.0 * u
        + (2.0 * angle_error + 6.0 * u) * 0.5 * reach;
    1.01 * per_unit * reach + 2f64.powi(-100)
}

/// The footpoint quaternion as the SO(3) release uses it, (x, y, z, w), divided by its norm unless ‖m‖² is
/// within 4 ulps of 1 (|‖m‖ − 1| ≤ 6·2^-53 either way; on SO(3) the norm scales the exact release m ⊗ n* as a
/// whole, so it costs nothing: the chart is scale-invariant).
pub(super) fn so3_footpoint(m: &UnitQuaternion<f64>) -> nalgebra::Quaternion<f64> {
    let q = *m.quaternion();
    let m2 = q.coords.norm_squared();
    if (m2 - 1.0).abs() <= 4.0 * f64::EPSILON { q } else { q * (1.0 / m2.sqrt()) }
}

/// The SO(3) release of §3i: δ = m ⊗ (−2 sin²(φ/2), sin φ·a) in f64, m + δ exactly (TwoSum), its quaternion
/// cube-map cell in double-double (the cube map of S³ in the order x, y, z, w, then the sign rule of
/// [`crate::space::grid::snap_quaternion`]), on the grid of spacing 2^`spacing_log2`.
pub(crate) fn so3_relative_release(
    footpoint: &UnitQuaternion<f64>,
    half: f64,
    axis: &nalgebra::Vector3<f64>,
    spacing_log2: i32,
) -> UnitQuaternion<f64> {
    let m = so3_footpoint(footpoint);
    let (s, q) = (half.sin(), (0.5 * half).sin());
    let dn = nalgebra::Quaternion::new(-(2.0 * (q * q)), s * axis[0], s * axis[1], s * axis[2]);
    let d = m * dn;
    let (mc, dc) = (m.coords, d.coords);
    let (mut hi, mut lo) = ([0.0; 4], [0.0; 4]);
    for i in 0..4 {
        let h = mc[i] + dc[i];
        let bb = h - mc[i];
        hi[i] = h;
        lo[i] = (mc[i] - (h - bb)) + (dc[i] - bb);
    }
    let mut c = [0.0; 4];
    crate::space::grid::snap_cube_map_dd(&hi, &lo, spacing_log2, &mut c);
    if c[crate::space::grid::cube_face(&c)] < 0.0 {
        c.iter_mut().for_each(|x| *x = -*x);
    }
    UnitQuaternion::new_unchecked(nalgebra::Quaternion::new(c[3], c[0], c[1], c[2]))
}

/// The SO(3) Riemannian Laplace's grid with cells up to 2^-`below_log2` of the noise scale σ.
fn so3_laplace_rounding(sigma: f64, below_log2: i32) -> Option<Rounding> {
    // The SO(3) Laplace's acceptance test errs by a proven α (float_safety.md §3f, Lemma R): 4α more.
    let alpha = So3.laplace_noise(sigma, None).ok()?.acceptance_error();
    Some(Rounding::for_rotations_below(1.0 / sigma, 1.0 / sigma, below_log2).with_acceptance_error(alpha))
}

impl LaplaceManifold for So3 {
    fn rounding(&self, sigma: f64) -> Option<Rounding> {
        so3_laplace_rounding(sigma, RIEMANNIAN_SPACING_BELOW_NOISE_LOG2)
    }

    /// The private mean's grid: cells up to 2^-10 of σ ([`MEAN_SPACING_BELOW_NOISE_LOG2`]).
    fn rounding_in_ball(&self, sigma: f64, _center: &UnitQuaternion<f64>, _radius: f64) -> Option<Rounding> {
        so3_laplace_rounding(sigma, MEAN_SPACING_BELOW_NOISE_LOG2)
    }

    fn snap_point(&self, rounding: &Rounding, y: &mut nalgebra::UnitQuaternion<f64>) {
        rounding.snap_rotation(y)
    }

    /// The relative-error release of `docs/proofs/float_safety.md` §3i, as on S² (keep-ball of radius
    /// R = r + Δ/2 + τ + margin in rotation angle, or R = r conditioned on the data ball; redraw beyond
    /// T = R + r + Δ/2 + margin, η relative to T/2 on S³: [`so3_mean_release_error`]).
    fn ball_chart(
        &self,
        noise: &LaplaceSo3Noise,
        center: &UnitQuaternion<f64>,
        radius: f64,
        sensitivity: f64,
        conditioned: bool,
    ) -> Fallible<Option<BallChart<UnitQuaternion<f64>>>> {
        let lipschitz = noise.epsilon();
        let sigma = 1.0 / lipschitz;
        let law = LaplaceAngle::new(lipschitz)?;
        let footpoint_radius = radius * (1.0 + 1e-12) + 1e-12 + 0.5 * sensitivity;
        // The coarsest cell allowed has an S³ chord diameter ≤ √3·2^fine, twice that in rotation angle (×π/2).
        let fine = -(MEAN_SPACING_BELOW_NOISE_LOG2 + lipschitz.max(1.0).log2().ceil() as i32);
        let margin = 0.25 * sensitivity + 16.0 * 2f64.powi(fine);
        let alpha = noise.acceptance_error();
        // §3f: θ̂ = (Ê₁ + Ê₂ + Ê₃)/ε within (15 + 2 + 1)u of itself; one unit more.
        let angle_error = 19.0 * (f64::EPSILON / 2.0);
        let c = center.quaternion().coords;
        let chart = |tau: f64, tail: f64| -> Result<BallChart<UnitQuaternion<f64>>, &'static str> {
            // Conditioned (τ < 0): the data ball itself, as `PrivateFrechetMean::keeps` checks it.
            let ball = if tau < 0.0 { radius } else { footpoint_radius + tau + margin };
            let noise_radius = ball + footpoint_radius + margin;
            if noise_radius > 0.5 * PI {
                return Err("the ball is too wide for the relative-error release");
            }
            let eta = so3_mean_release_error(0.5 * noise_radius, angle_error);
            // Kept draws' exact points lie within R + margin of the centre in rotation angle: half that on S³.
            let face = face_floor(c.as_slice(), 0.5 * (ball + margin));
            let chart_error = cube_chart_error(4, eta, face);
            let rounding = Rounding::for_rotations_with_error(lipschitz, chart_error, MEAN_SPACING_BELOW_NOISE_LOG2)
                .with_acceptance_error(alpha);
            Ok(BallChart {
                rounding,
                whiten: *center,
                unwhiten: *center,
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

    /// The relative-error release on SO(3) (§3i): the half angle by the Gamma proposal (drawn again beyond
    /// T/2) and the axis, m + m ⊗ (n − 1) summed exactly, rounded in double-double, kept within R of the centre.
    fn sample_in_chart<R: Rng + ?Sized>(
        &self,
        noise: &LaplaceSo3Noise,
        footpoint: &UnitQuaternion<f64>,
        chart: &BallChart<UnitQuaternion<f64>>,
        rng: &mut R,
    ) -> Fallible<Option<UnitQuaternion<f64>>> {
        super::sphere::check_footpoint(self.distance(&chart.whiten, footpoint), chart)?;
        let (half, axis) = noise.sample_half_angle_and_axis(rng);
        if 2.0 * half > chart.noise_radius {
            return Ok(None);
        }
        let mut y = so3_relative_release(footpoint, half, &axis, chart.rounding.float_safe_grid().spacing_log2);
        if let Some(coarse) = chart.rounding.coarse_grid() {
            y = crate::space::grid::snap_quaternion(&y, coarse.spacing_log2);
        }
        Ok((self.distance(&chart.whiten, &y) <= chart.ball).then_some(y))
    }

    type Noise = LaplaceSo3Noise;

    fn laplace_noise(&self, sigma: f64, _t_max: Option<f64>) -> Fallible<LaplaceSo3Noise> {
        LaplaceSo3Noise::new(1.0 / check_positive(Param::Sigma, sigma)?)
    }

    fn sample_laplace<R: Rng + ?Sized>(
        &self,
        noise: &LaplaceSo3Noise,
        eta: &UnitQuaternion<f64>,
        rng: &mut R,
    ) -> UnitQuaternion<f64> {
        eta * noise.sample(rng)
    }

    fn mean_distance(&self, noise: &LaplaceSo3Noise, within: Option<f64>) -> f64 {
        let law = LaplaceAngle::new(noise.epsilon()).expect("validated parameters");
        truncated_mean(&law, within, (3.0 / noise.epsilon()).min(PI))
    }
}
