//! The price of float-safe releases: the public grid a mechanism rounds onto, chosen from public parameters
//! only, and the additive ε₀ that rounding costs (`docs/proofs/float_safety.md`).
//!
//! With cells C of the grid, C⁺ the points within the pipeline error η of C and C⁻ the points of C farther than
//! η from its complement, the released cell satisfies P*(C⁻) ≤ P[release = C] ≤ P*(C⁺) under the exact law P*,
//! so ε·d-privacy of the exact law gives `P[M(x) = C] ≤ exp(ε·d(x, x′) + ε₀)·P[M(x′) = C]` with
//! ε₀ = sup_C ln P*(C⁺)/P*(C⁻) ≤ L·diam(C⁺) + ln(vol C⁺ / vol C⁻), L the log-Lipschitz constant of the
//! output density (§3 of the proof).

use crate::error::Param;
use crate::error::{Error, Fallible};
use crate::numerics::rounding::{add_up, div_up, fn_up, mul_up};
use crate::privacy::guarantee::{Chart, Grid, Guarantee, Metric, short};
use crate::space::grid::{
    round_tangent, round_to_grid, snap_direction, snap_quaternion, turn_cell_of_turns, turn_representative,
};
use nalgebra::UnitQuaternion;
use std::f64::consts::{FRAC_PI_2, TAU};

/// Bound η on the chordal distance between a release's f64 value (before rounding), or a positive multiple of
/// it where the chart is scale-invariant, and the exact point the same draws define (every release but the
/// unconditioned means on S² and SO(3), whose η is relative to the noise: §3i): 2^-48 ≈ 3.6e-15, sixteen
/// units in the last place of 1 (§4 of the proof; on S^{n−1}, n ≥ 3, proven in §4a for every n up to the
/// dimension cap: at most 25.3·2^-53). SO(3): the rotation's product (2γ₄ ≈ 8·2^-53) plus the noise
/// quaternion's own rounding (Laplace ≤ 14·2^-53, Bingham ≤ 2.01·2^-53), and in the chart one more 2^-53 per
/// coordinate for its division.
pub const PIPELINE_ERROR: f64 = 3.552713678800501e-15;

/// The δ a pure (or approximate) release states for noise-only events of probability at most
/// `event_probability` where its float bounds are not claimed (`docs/proofs/float_safety.md` §6, "What they
/// mean for a release"): off the event the release is within e^{L} of its twin, on it nothing is claimed, so
/// P[C | x] ≤ e^{L}(P[C | x′] + δ_B) + δ_B, i.e. δ = δ_B·(1 + e^{L}), where `loss` L bounds the loss between the
/// two inputs (ε for a pure guarantee). Rounded up (libm's exp raised by `fn_up`, far above its one ulp, then
/// `mul_up`/`add_up`), raised to the smallest normal double (a δ below it would print as 0) and capped at 1 (a
/// δ ≥ 1 is vacuous and true): a larger δ is a weaker, still true claim. 0 when `event_probability` is 0.
pub fn negligible_delta(event_probability: f64, loss: f64) -> f64 {
    if event_probability <= 0.0 {
        return 0.0;
    }
    let growth = fn_up(loss.max(0.0).exp());
    let delta = mul_up(event_probability, add_up(1.0, growth));
    if delta.is_finite() { delta.clamp(f64::MIN_POSITIVE, 1.0) } else { 1.0 }
}

/// `guarantee` with the samplers' events of probability at most `event_probability` (under every input) stated:
/// a metric guarantee adds it to its base δ_B, whose δ between inputs d apart is δ_B·(1 + e^{ε·d + ε₀})
/// (printed in that form, never at a diameter); a pure or approximate one adds
/// [`negligible_delta`]`(event_probability, ε)`, its δ between neighbours. Other notions are returned unchanged.
pub fn with_negligible_events(guarantee: Guarantee, event_probability: f64) -> Guarantee {
    if event_probability <= 0.0 {
        return guarantee;
    }
    match guarantee {
        Guarantee::MetricDp { .. } => guarantee.with_delta(event_probability),
        Guarantee::PureDp { epsilon, .. } | Guarantee::ApproxDp { epsilon, .. } => {
            guarantee.with_delta(negligible_delta(event_probability, epsilon))
        }
        other => other,
    }
}

/// Bound, in the chart's chordal units, on the distance between a noise sampler's computed draw and the exact
/// draw of the real uniforms it reads at full precision (`docs/proofs/float_safety.md` §3f, where assumption
/// (S) is closed): 2^-45 on the circle (the wrapped Laplace's proven 37.5·2^-53·2π ≈ 236 units of 2^-53),
/// 2^-46 on S^{n−1}, n ≥ 3 (S²'s VMF: 75 units) and 2^-47 on S³ for rotations (the SO(3) Laplace: half its
/// rotation angle's 57 units, plus its axis). Added to [`PIPELINE_ERROR`] in the chart's η.
pub fn sampler_error(chart: Chart) -> f64 {
    match chart {
        Chart::Turns => 2f64.powi(-45),
        Chart::CubeMap => 2f64.powi(-46),
        Chart::QuaternionCubeMap => 2f64.powi(-47),
        Chart::TangentPlane | Chart::LogDomain | Chart::SpdLogAtCenter | Chart::Embedding => 0.0,
    }
}

/// The finest spacing 2^s of the charts the relative-error releases snap in double-double (the cube maps and
/// the turns, chart coordinates |q| ≤ 1): below 2^-52 the multiples of 2^s near 1 are not doubles and
/// `round_to_grid_dd`'s single correction no longer finds the exact cell (`docs/proofs/float_safety.md` §3i,
/// step 3). Where the noise is finer still, the cells stay at 2^-52 and move a release by more than the policy's
/// 2^-10 of the noise scale; the cost is computed for the spacing taken.
pub const DD_SNAP_FINEST_LOG2: i32 = -52;

/// Cells narrower than this fraction of the noise scale (1/ε for ε ≥ 1, 1 otherwise) buy no utility:
/// 2^-20, so rounding moves a release by less than 1e-6 of its expected error.
const SPACING_BELOW_NOISE_LOG2: i32 = 20;

/// The same for the Riemannian Laplace on spheres and SO(3) (its single-point form, and the log-Euclidean SPD
/// chart), whose noise scales at large n are 1e-5 rad and below, where 2^-20 of it would put cells within a few
/// hundred pipeline and sampler errors (ε₀ 0.12 at 2·10⁴ locations within 300 km at ε = 1): 2^-14, so rounding
/// moves a release by less than 6.1e-5 of its expected error (the affine-invariant SPD chart allows 1e-4,
/// [`SPD_ROUNDING_OF_ERROR`]).
pub const RIEMANNIAN_SPACING_BELOW_NOISE_LOG2: i32 = 14;

/// The private Fréchet means on spheres, SO(3) and (log-Euclidean) SPD(k): cells up to 2^-10 of the noise
/// scale, so rounding moves a release by less than 1e-3 of its expected error. At 2^-14 the rotations' mean of 10⁶ rows within 20° at ε = 1
/// paid 1.8 % of ε, where the cheapest spacing, 2^-10 of the noise, pays 0.39 % with §4's absolute η
/// (`docs/proofs/float_safety.md` §4). The means on S^{n−1} and SO(3) use the same cap with §3i's η, relative
/// to the noise, and the shell lemma's ε₀ ([`Rounding::for_directions_with_error`]), where the cap is the
/// cheapest spacing: 10⁶ rows within 300 km at ε = 0.01 pay 0.018 % of ε, within 20° on SO(3) 0.007 %.
pub const MEAN_SPACING_BELOW_NOISE_LOG2: i32 = 10;

/// The least clamp B of the private log-Euclidean mean's log domain (2^-400): above it every quantity in
/// [`mean_log_domain_error`] is a normal double.
const MEAN_LOG_DOMAIN_CLAMP_FLOOR: f64 = 3.8725919148493183e-121;

/// η of the private log-Euclidean mean's log domain (`docs/proofs/float_safety.md` §3d, "The mean's error"): a
/// footpoint coordinate c with |c| ≤ C (clamped so) plus a noise coordinate within s·u of its own size of the
/// exact one, one f64 addition, clamped to [−B, B], C ≤ B, u = 2^-53, κ = 4su:
/// η = u·(B(1 + κ) + s(1 + u)·(B(1 + κ) + C)) + 2^-180·B (the normals' underflow), rounded up. Relative to B
/// and C, so a small ball pays little; the single-point mechanism keeps §3d's (2B + C + 8 + s(B + C))·u.
pub fn mean_log_domain_error(clamp: f64, input_bound: f64, s: f64) -> f64 {
    let u = f64::EPSILON / 2.0;
    let reach = mul_up(clamp, add_up(1.0, mul_up(4.0 * s, u)));
    let noise = mul_up(mul_up(s, add_up(1.0, u)), add_up(reach, input_bound));
    add_up(mul_up(u, add_up(reach, noise)), mul_up(2f64.powi(-180), clamp))
}

/// The default grid of `chart` on S^{`dim`−1} (`dim` = 4 for quaternions) for a mechanism with ε per radian of
/// the chart's angle and output density `lipschitz`-log-Lipschitz: among the spacings no coarser than 2^-20 of
/// the noise scale (so rounding moves a release by less than 1e-6 of its expected error) and at least four
/// pipeline errors wide, the one with the smallest [`additive_epsilon`]. Public parameters only.
pub fn default_grid(chart: Chart, dim: usize, epsilon_per_rad: f64, lipschitz: f64) -> Grid {
    grid_below(chart, dim, epsilon_per_rad, lipschitz, SPACING_BELOW_NOISE_LOG2)
}

/// [`default_grid`] with cells up to 2^-`below_log2` of the noise scale.
fn grid_below(chart: Chart, dim: usize, epsilon_per_rad: f64, lipschitz: f64, below_log2: i32) -> Grid {
    let noise_log2 = epsilon_per_rad.max(1.0).log2().ceil() as i32;
    let fine = -(below_log2 + noise_log2);
    cheapest_grid(chart, chart_error(chart, dim), fine, |g| additive_epsilon(g, dim, lipschitz))
}

/// Among the spacings 2^s of `chart` from the finest at least four pipeline errors `eta` wide up to 2^`fine`
/// (or that finest one, if coarser), the one with the smallest `cost`; ties go to the finer grid. At most
/// ~1100 candidates (the f64 exponent range).
/// The shell lemma's ε₀ (`docs/proofs/float_safety.md` §3i, "The cost"): ln(1 + (e^`volume` − 1)·e^`spread`),
/// rounded up, for cells whose enlargement and erosion have chart volumes in the ratio μ(C⁺)/μ(C⁻) ≤ e^`volume`
/// and over which the law's density in chart coordinates varies by at most a factor e^`spread`. Since
/// P*(C⁺)/P*(C⁻) = 1 + P*(C⁺ ∖ C⁻)/P*(C⁻), the spread weighs only the thin shell C⁺ ∖ C⁻; §3's
/// `spread + volume` is never smaller.
fn shell_epsilon(volume: f64, spread: f64) -> f64 {
    let shell = fn_up(volume.exp_m1());
    if shell == 0.0 {
        // No error: C⁺ = C⁻ = C.
        return 0.0;
    }
    fn_up(mul_up(shell, fn_up(spread.exp())).ln_1p())
}

fn cheapest_grid(chart: Chart, eta: f64, fine: i32, cost: impl Fn(Grid) -> f64) -> Grid {
    cheapest_grid_from(chart, eta, i32::MIN, fine, cost)
}

/// [`cheapest_grid`] with no spacing finer than 2^`floor`.
fn cheapest_grid_from(chart: Chart, eta: f64, floor: i32, fine: i32, cost: impl Fn(Grid) -> f64) -> Grid {
    let finest = ((4.0 * eta).log2().ceil() as i32 + 1).max(floor);
    (finest..=fine.max(finest))
        .map(|spacing_log2| Grid { chart, spacing_log2 })
        .min_by(|a, b| cost(*a).total_cmp(&cost(*b)))
        .expect("a non-empty range")
}

/// The number of chart coordinates: 1 on the circle, n − 1 on S^{n−1} and in its tangent plane.
fn chart_dim(chart: Chart, dim: usize) -> usize {
    match chart {
        Chart::Turns => 1,
        Chart::CubeMap | Chart::QuaternionCubeMap | Chart::TangentPlane => dim - 1,
        Chart::LogDomain | Chart::SpdLogAtCenter | Chart::Embedding => dim,
    }
}

/// The pipeline error η in chart units (per coordinate; on the tangent plane, in its uniform part).
fn chart_error(chart: Chart, dim: usize) -> f64 {
    match chart {
        // A chordal error η moves the chart by at most: 1/(2π) turns per radian on the circle (an arc of
        // chordal length η is at most πη/2 radians, i.e. η/4 turns; plus atan2's few ulps); n per unit on the
        // cube map of S^{n−1} (the chart's smallest stretch is 1/(1 + |u|²) ≥ 1/n). Per coordinate the stretch
        // is at most √(2n), and n − √(2n) ≥ 0.55 leaves room for the chart's own division, γ₂ (§4a, tested).
        // The sampler's own error is an angle, so at most that much chord: it adds to η (§3f).
        Chart::Turns => (0.25 + 1e-3) * (PIPELINE_ERROR + sampler_error(chart)),
        Chart::CubeMap | Chart::QuaternionCubeMap => (dim as f64 + 1e-3) * (PIPELINE_ERROR + sampler_error(chart)),
        // Below 4 + 1 in magnitude (the grid is uniform there; it widens beyond, as this error does).
        Chart::TangentPlane => tangent_error(dim, 5.0),
        Chart::LogDomain | Chart::SpdLogAtCenter | Chart::Embedding => {
            unreachable!("SPD and embedding grids are chosen by their own constructors")
        }
    }
}

/// The pipeline error of a tangent coordinate of S^{`dim`−1} whose computed or exact value has magnitude at most
/// `m`: (2m + 8)·2^-53 for the arithmetic, plus the sampler's own error s·(m + 4)·2^-53, s =
/// [`crate::sample::normal::radius_direction_error_units`] over the n − 1 tangent coordinates. One product r·w
/// and one sum with |ĉ| ≤ 4 err by at most (2|u| + 5)·2^-53; the rest is slack for bounding |u| by either value,
/// and draws beyond the clamp clamp exactly (§3c). The noise r·w_i, of magnitude at most m + 4, is within
/// s·2^-53 of its own size of the exact draw of the real uniforms read (§3f).
fn tangent_error(dim: usize, m: f64) -> f64 {
    let s = crate::sample::normal::radius_direction_error_units(dim - 1);
    (2.0 * m + 8.0 + s * (m + 4.0)) * (f64::EPSILON / 2.0)
}

/// ε₀ of the tangent-plane grid of spacing 2^s (below 4; 2^{e−2+s} in [2^e, 2^{e+1}) beyond) clamped at
/// B = [`tangent_plane_clamp`]: per coordinate the worst ratio (w + 2η)/(w − 2η) over the kinds of cell (the
/// uniform ones; the one at each power of two 2^e ≥ 8, 0.75 of its binade's spacing wide; the clamp cell at B,
/// of half a spacing), and ε times the largest cell's diameter (§3c).
fn tangent_plane_additive_epsilon(grid: Grid, dim: usize, epsilon: f64) -> f64 {
    let m = (dim - 1) as f64;
    let s = grid.spacing_log2;
    let h = grid.spacing();
    let b = tangent_plane_clamp(dim, epsilon).log2() as i32;
    // (width, largest magnitude) of the narrowest cell of each kind.
    let mut cells = vec![(h, 8.0), (0.5 * 2f64.powi(b - 3 + s).max(h), 2f64.powi(b))];
    for e in 3..b {
        cells.push((0.75 * 2f64.powi(e - 2 + s), 2f64.powi(e + 1)));
    }
    let ratio = cells.iter().map(|&(w, top)| 2.0 * fn_up(tangent_error(dim, top)) / w).fold(0.0, f64::max);
    if ratio.is_nan() || ratio >= 1.0 {
        return f64::INFINITY;
    }
    let volume = mul_up(m, fn_up(((1.0 + ratio) / (1.0 - ratio)).ln()));
    let widest = 2f64.powi(b - 3 + s).max(h);
    let diameter = mul_up(m.sqrt(), add_up(widest, 2.0 * fn_up(tangent_error(dim, 2f64.powi(b)))));
    add_up(mul_up(epsilon, diameter), volume)
}

/// The clamp B of the planar Laplace's tangent coordinates on S^{`dim`−1} at `epsilon` per radian: the
/// smallest power of two ≥ max(4, π + (80 + 2m)/ε), m = `dim` − 1. Public parameters only. Clamping is
/// post-processing (it costs no privacy); it changes only draws whose noise radius exceeds (80 + 2m)/ε, which
/// lie past the antipode already (probability below 1e-17: Chernoff's bound for Gamma(m, 1/ε),
/// `docs/proofs/float_safety.md` §3c). `epsilon` must be at least [`crate::mechanism::MIN_EPSILON`].
pub fn tangent_plane_clamp(dim: usize, epsilon: f64) -> f64 {
    let m = (dim - 1) as f64;
    let reach = std::f64::consts::PI + (80.0 + 2.0 * m) / epsilon;
    2f64.powi(reach.max(4.0).log2().ceil() as i32)
}

/// The additive ε₀ of a release rounded onto `grid` on S^{`dim`−1} by a mechanism whose output density is
/// `lipschitz`-log-Lipschitz per radian of the chart's angle (per radian of the rotation angle θ for
/// quaternions; per radian of tangent distance, i.e. ε, for the planar Laplace's tangent plane), rounded up.
/// Requires the grid to be at least [`default_grid`]'s floor.
pub fn additive_epsilon(grid: Grid, dim: usize, lipschitz: f64) -> f64 {
    if grid.chart == Chart::TangentPlane {
        return tangent_plane_additive_epsilon(grid, dim, lipschitz);
    }
    let h = grid.spacing();
    let m = chart_dim(grid.chart, dim) as f64;
    let eta = fn_up(chart_error(grid.chart, dim));
    let wide = add_up(h, 2.0 * eta);
    let narrow = (h - 2.0 * eta).next_down();
    debug_assert!(narrow > 0.0, "grid finer than the pipeline error");
    // ln(vol C⁺ / vol C⁻) in the chart, coordinate by coordinate.
    let volume = mul_up(m, fn_up((wide / narrow).ln()));
    let (diameter, jacobian) = match grid.chart {
        // Arc length of C⁺ in radians; the circle's measure is uniform in turns.
        Chart::Turns => (mul_up(TAU, wide), 0.0),
        // Chart steps shrink on the sphere (derivative ≤ 1 in chordal distance; an angle is ≤ π/2 its chord),
        // and the chart's volume density (1 + |u|²)^{-n/2} varies by at most exp(n/2·diam) across a cell.
        Chart::CubeMap => {
            let chord = mul_up(m.sqrt(), wide);
            (mul_up(FRAC_PI_2, chord), mul_up(dim as f64 / 2.0, chord))
        }
        // The rotation angle is twice the angle on S³.
        Chart::QuaternionCubeMap => {
            let chord = mul_up(m.sqrt(), wide);
            (mul_up(std::f64::consts::PI, chord), mul_up(2.0, chord))
        }
        Chart::TangentPlane => unreachable!("handled above"),
        Chart::LogDomain | Chart::SpdLogAtCenter | Chart::Embedding => {
            unreachable!("SPD and embedding grids' ε₀ is computed by their constructors")
        }
    };
    add_up(add_up(mul_up(lipschitz, diameter), jacobian), volume)
}

/// The proven chordal error bounds of the sphere pipelines (`docs/proofs/float_safety.md` §4a), as functions of
/// the ambient dimension n, each a bound on the distance from the exact point of the draws to the nearest
/// positive multiple of the computed one (the cube map is scale-invariant). They are evaluated in f64 from
/// positive terms, a relative error of a few ulps of themselves, far inside the slack below η = 2^-48; the tests
/// check them against [`PIPELINE_ERROR`] and [`chart_error`] for every n up to the dimension cap.
#[cfg(test)]
pub(crate) mod sphere_error {
    const U: f64 = f64::EPSILON / 2.0;

    fn gamma(k: f64) -> f64 {
        k * U / (1.0 - k * U)
    }

    /// cos θ and sin θ as the samplers give them for n ≥ 3, each within 7u (3.5 ulps of 1) of the exact
    /// values: Purkayastha's strips (the worst; libm in its tails, within u), VMF's 1 − t and √(t(2 − t))
    /// (u and 2u). μ ⊥ v and ‖v‖ = 1 exactly in the exact point, so the chord is √(Δc² + Δs²).
    pub(crate) const TRIG: f64 = 9.9 * U;

    /// The direction (cos φ, sin φ) of [`crate::sample::sphere::uniform_circle`], as a vector: √2·2.07u from
    /// the table entries (libm's ulp plus the argument's rounding, π/4·1.36u), 0.52u from the rotation's short
    /// polynomials, u from each of the two rounded products and u from the difference.
    pub(crate) const CIRCLE_DIRECTION: f64 = 5.5 * U;

    /// The given cos θ, sin θ (within 7u of a unit pair) bound c² + s² by 1 + 20u.
    const UNIT_PAIR: f64 = 1.0 + 20.0 * U;

    /// The Householder path (n ≥ 4) with cos θ, sin θ taken as given: §4a, steps (1)–(8).
    pub(crate) fn reflection(n: usize) -> f64 {
        assert!(n >= 4);
        let g2 = gamma((n - 2) as f64).powi(2);
        // (1) ‖g‖² and (3) μ·g: Sum2 of rounded products.
        let alpha = 2.0 * U + U * U + (1.0 + U) * g2;
        let eps_p = alpha;
        // (4) 1/(1 + |μ_n|), (5) t = P̂·inv_w.
        let omega = 2.0 * U / (1.0 - U);
        let lambda = (1.0 + omega) * (1.0 + U) - 1.0;
        let t_err = lambda + eps_p * (1.0 + lambda);
        // (6) cos θ·fl(√Ĝ), then four roundings on cos θ·‖g‖·μ_j.
        let phi_c = (2.0 - (1.0 - alpha).sqrt()) * (1.0 + U).powi(4) - 1.0;
        // (7) sin θ·s·(t·w − g): the t̂·w part four roundings, the g part three.
        let b = std::f64::consts::SQRT_2 * (t_err + (1.0 + t_err) * gamma(4.0)) + gamma(3.0);
        let y = phi_c.hypot(b) * UNIT_PAIR;
        // (8) the final product by 1/‖g‖: its common factor is free, its rounding u per coordinate.
        y + U * (UNIT_PAIR + y)
    }

    /// S² ([`crate::sample::sphere::s2_point_at_angle`]) with cos θ, sin θ taken as given and the direction
    /// (c, s) within `direction` of the exact one (0: taken as given too).
    pub(crate) fn s2(direction: f64) -> f64 {
        let phi3 = (1.0 + U).powi(2) * (1.0 + 2.0 * U / (1.0 - U)) - 1.0;
        // The computed frame (e₁, e₂) applied to a unit (c, s): its error matrix's largest row sum.
        let frame = U * (1.0 + phi3) + phi3 * (1.0 + std::f64::consts::SQRT_2) / 2.0;
        let d = 1.0 + direction;
        let b = direction + frame * d + gamma(4.0).hypot(gamma(3.0)) * d * (1.0 + frame);
        gamma(3.0).hypot(b) * UNIT_PAIR
    }

    /// The whole chordal bound of a release's raw point on S^{n−1}, n ≥ 3.
    pub(crate) fn chordal(n: usize) -> f64 {
        TRIG + if n == 3 { s2(CIRCLE_DIRECTION) } else { reflection(n) }
    }

    /// The error of one cube-map chart coordinate of S^{n−1}: √(2n)·η/(1 − η(1 + √n)) for a point within η
    /// (chordal) of the exact one, plus γ₂ for the chart's division (§4a, "The chart").
    pub(crate) fn chart(n: usize, eta: f64) -> f64 {
        let rn = (n as f64).sqrt();
        std::f64::consts::SQRT_2 * rn * eta / (1.0 - eta * (1.0 + rn)) + gamma(2.0)
    }
}

pub use crate::numerics::EIGEN_BACKWARD_ERROR;

/// How far rounding may move an affine-invariant SPD release, as a fraction of its expected error: 1e-4, not
/// the 1e-6 of the other charts. Its pipeline error (~1e-13 at a radius of 1.5, growing with the condition
/// numbers in the ball) would otherwise make ε₀ grow like 1/σ (§3e).
pub const SPD_ROUNDING_OF_ERROR: f64 = 1e-4;

/// How far rounding may move an unconditioned affine-invariant SPD *mean's* release, as a fraction of its
/// expected error: 10⁻³, the policy of the other private means (cells up to 2^-10 of the noise scale move theirs
/// by less than 10⁻³ of it). By the shell lemma ε₀ ≈ 4D·η/h, so these cells cost a tenth of
/// [`SPD_ROUNDING_OF_ERROR`]'s; the keep margin holds four of them (`docs/proofs/float_safety.md` §3e, "The grid").
pub const SPD_MEAN_ROUNDING_OF_ERROR: f64 = 1e-3;

/// log₂ of the coarsest spacing of the log chart at the centre of SPD(`k`) (§3e) for releases kept within `ball`
/// of the centre with expected error `mean_error`, moved by rounding by at most `of_error` of it: the largest
/// 2^s with s(ball + 1)·√D·2^s/2 ≤ `of_error`·`mean_error`, s(x) = sinh(x/√2)/(x/√2) the chart's largest
/// stretch (a cell's point lies within √D·h/2 of every point of the cell in the chart, and within
/// ball + 1 of the centre). Nonincreasing in `ball`.
pub fn spd_log_chart_cap_log2(k: usize, ball: f64, mean_error: f64, of_error: f64) -> i32 {
    let d = (k * (k + 1) / 2) as f64;
    let x = (ball + 1.0) / std::f64::consts::SQRT_2;
    (2.0 * of_error * mean_error / ((x.sinh() / x) * d.sqrt())).log2().floor() as i32
}

/// A bound on ‖Û − U‖₂ for the SPD samplers' Haar rotations against the exact rotation of the real uniforms read
/// (`docs/proofs/float_safety.md` §3f, Lemma H): 100·2^-53. On SO(3) the unit quaternion is within 10u (chord)
/// and its rotation matrix, quadratic in it, moves by at most 4·10u·(2 + 10u) in Frobenius norm, plus ≤ 4u per
/// entry for the matrix formula's own roundings (≤ 12u in Frobenius): 92u. On SO(2), `uniform_circle`'s 5.5u.
pub const HAAR_ROTATION_ERROR: f64 = 100.0 * (f64::EPSILON / 2.0);

/// η for the affine-invariant SPD release in the log chart at the centre (§3e): a bound, in chart units, on
/// the distance between the computed log coordinates of a draw and those of its exact point, on SPD(`k`),
/// for a whitened footpoint within `footpoint_radius` of I, noise N with ρ(N, I) ≤ `noise_radius`, and exact
/// points within `release_radius` of I. The draw is B = L·U·diag(e^{r/2}) (L the footpoint's computed
/// Cholesky factor), whose rounding perturbs B on the right (moving BBᵀ by at most 2√k·(−ln(1 − δ_B))); then
/// Y = BBᵀ is formed (δ_Y) and eigendecomposed (δ_E), each moving Y by at most √k·(−ln(1 − δ)); the logarithm
/// is assembled from the eigenpairs. ∞ where a perturbation is not small.
pub fn spd_log_chart_error(k: usize, footpoint_radius: f64, noise_radius: f64, release_radius: f64) -> f64 {
    let u = f64::EPSILON / 2.0;
    let kf = k as f64;
    let gamma = |n: f64| n * u / (1.0 - n * u);
    // cond of a matrix within ρ of I: at most e^{√2 ρ}; its square root for the factors.
    let cond = |rho: f64| (std::f64::consts::SQRT_2 * rho).exp();
    let root_cond = |rho: f64| (std::f64::consts::FRAC_1_SQRT_2 * rho).exp();
    // M = U·diag(e^{r/2}): each entry one exp (≤ 2 ulps) and one product, a relative error ≤ 3u·√k·cond(M);
    // the computed Haar rotation Û = U + F (§3f, Lemma H: ‖F‖₂ ≤ HAAR_ROTATION_ERROR) adds
    // ‖diag⁻¹·UᵀF·diag‖ ≤ ‖F‖·cond(M); fl(L·M): |E| ≤ γ_k|L||M|, relative to L·M at most γ_k·k·cond(L)·cond(M).
    let b = (3.0 * u * kf.sqrt() + HAAR_ROTATION_ERROR) * root_cond(noise_radius);
    let c = gamma(kf) * kf * root_cond(footpoint_radius) * root_cond(noise_radius);
    let delta_b = (1.0 + b) * (1.0 + c) - 1.0;
    // Y = fl(BBᵀ), symmetrised: |E| ≤ γ_{k+1}|B||Bᵀ|, relative to Y at most γ_{k+1}·k·cond(Y); cond(Y) within 1 %.
    let delta_y = gamma(kf + 1.0) * kf * cond(release_radius) * 1.01;
    // The eigensolver (E): ‖E‖₂ ≤ ‖E‖_F ≤ c_E·u·‖Y‖_F ≤ c_E·u·√k·‖Y‖₂, relative c_E·u·√k·cond(Y).
    let delta_e = EIGEN_BACKWARD_ERROR * u * kf.sqrt() * cond(release_radius) * 1.01;
    let small = delta_b.max(delta_y).max(delta_e) < 1e-3;
    if !small {
        return f64::INFINITY;
    }
    let moved = |delta: f64| -kf.sqrt() * (-delta).ln_1p();
    let rho = add_up(add_up(2.0 * moved(delta_b), moved(delta_y)), moved(delta_e));
    // V·diag(ln λ)·Vᵀ, symmetrised: V within c_E·u of orthonormal, ln within 2 ulps, |ln λ| ≤ radius + 1; and
    // the √2 of the off-diagonal coordinates.
    let assemble = u * (2.0 * EIGEN_BACKWARD_ERROR + 2.0 * kf + 8.0) * kf.sqrt() * (release_radius + 1.0);
    // log at I is 1-Lipschitz from (SPD, ρ) to (Sym, Frobenius), so ρ-errors are chart errors.
    fn_up(add_up(rho, assemble) * (1.0 + 1e-9))
}

/// The largest footpoint radius at which the affine-invariant SPD release may be formed near the identity
/// ([`spd_near_identity_chart_error`]): the footpoint's Cholesky factor then has its diagonal in
/// [e^{−R/2}, e^{R/2}] ⊂ [1/2, 2], where subtracting 1 is exact (Sterbenz).
pub const SPD_NEAR_IDENTITY_MAX_FOOTPOINT: f64 = 1.0;

/// η for the affine-invariant SPD release formed near the identity (§3e, "Near the centre"): the draw is
/// X = (A + Aᵀ + A·Aᵀ) + L·N·Lᵀ with A = L − I (L the whitened footpoint's computed Cholesky factor, F = LLᵀ) and
/// N = U·diag(expm1 r)·Uᵀ, so that the exact point is I + X*; its log is V·diag(log1p μ)·Vᵀ from X's
/// eigendecomposition. Every error is then relative to ‖X‖ ≤ e^{R′} − 1 and not to ‖I + X‖, so a small ball pays
/// little. Arguments as [`spd_log_chart_error`]'s; ∞ where a perturbation is not small or the footpoint radius
/// exceeds [`SPD_NEAR_IDENTITY_MAX_FOOTPOINT`].
pub fn spd_near_identity_chart_error(k: usize, footpoint_radius: f64, noise_radius: f64, release_radius: f64) -> f64 {
    if footpoint_radius.is_nan() || footpoint_radius > SPD_NEAR_IDENTITY_MAX_FOOTPOINT {
        return f64::INFINITY;
    }
    let u = f64::EPSILON / 2.0;
    let kf = k as f64;
    let gamma = |n: f64| n * u / (1.0 - n * u);
    let (rf, tn, rr) = (footpoint_radius, noise_radius, release_radius);
    // (1) ‖A‖_F² ≤ k(e^{R_F/2} − 1)² + e^{R_F}(e^{R_F} − 1)²/2: the diagonal of L in [e^{−R_F/2}, e^{R_F/2}], each
    // row's off-diagonal part L_sub⁻¹·f with ‖L_sub⁻¹‖₂ ≤ e^{R_F/2} and the f's the off-diagonal entries of F − I.
    let a2 = kf * (0.5 * rf).exp_m1().powi(2) + rf.exp() * rf.exp_m1().powi(2) / 2.0;
    // (2) A + Aᵀ is exact (A is triangular); fl(A·Aᵀ) within γ_k‖A‖_F², the sum within u of ‖F − I‖ + that.
    let e_f = gamma(kf) * a2 * (1.0 + u) + u * rf.exp_m1();
    // (3) N̂ against U·diag(expm1 r)·Uᵀ: expm1 within 2 ulps, the products γ_{k+1}·k, the Haar rotation's ‖E_H‖₂.
    let h = HAAR_ROTATION_ERROR;
    let e_n = ((1.0 + h).powi(2) * (4.0 * u + gamma(kf + 1.0) * kf * (1.0 + 4.0 * u)) + h * (2.0 + h)) * tn.exp_m1();
    // (4) L·N̂·Lᵀ: the two products γ_2k·k·‖L‖₂²·‖N̂‖_F, and N̂'s error carried through ‖L‖₂² ≤ e^{R_F}.
    let e_g = rf.exp() * e_n + gamma(2.0 * kf) * kf * rf.exp() * (tn.exp_m1() + e_n);
    // (5) The last sum, u per entry of X̂.
    let x_norm = rr.exp_m1();
    let e_x0 = e_f + e_g;
    let e_x = e_x0 + u * (x_norm + e_x0);
    // (6) (E): the eigenpairs are exact for X̂ + E, ‖E‖_F ≤ c_E·u·‖X̂‖_F.
    let e_e = EIGEN_BACKWARD_ERROR * u * (x_norm + e_x);
    // (9) log is (1/λ)-Lipschitz in the Frobenius norm where every eigenvalue is at least λ (Daleckii–Krein), and
    // along the segment from I + X* (eigenvalues ≥ e^{−R′}) to I + X̂ + E they are at least e^{−R′} − ‖moved‖.
    let moved = e_x + e_e;
    let low = (-rr).exp() - moved;
    if !(moved < 1e-3 * (-rr).exp() && low > 0.0) {
        return f64::INFINITY;
    }
    let lip = moved / low;
    // (8) V·diag(log1p μ)·Vᵀ: V within c_E·u of orthonormal, log1p within 2 ulps, |log1p μ| ≤ R′ + lip; the √2 of
    // the off-diagonal coordinates.
    let assemble = u * (2.0 * EIGEN_BACKWARD_ERROR + 2.0 * kf + 8.0) * kf.sqrt() * (rr + lip) * (1.0 + 8.0 * u);
    fn_up(add_up(lip, assemble) * (1.0 + 1e-9))
}

/// A bound on ‖Û − U‖_F for the SPD samplers' Haar rotations in double-double (`haar_rotation_dd`) against the
/// exact rotation of the real uniforms read (`docs/proofs/float_safety.md` §3e, "In double-double"): 2.93·2^-53.
/// The lattice the uniforms are read on moves the unit quaternion by at most 1.03u (chord), hence its rotation
/// by at most 2√2·1.03u ≤ 2.92u in Frobenius norm (‖R(p) − R(q)‖_F = 2√2·√(1 − ⟨p, q⟩²) ≤ 2√2·‖p − q‖); the
/// double-double arithmetic adds below 2^-90 (on SO(2), the lattice's 0.035u and the arithmetic's 2^-95).
pub const HAAR_ROTATION_DD_ERROR: f64 = 2.93 * (f64::EPSILON / 2.0);

/// η for the affine-invariant SPD release formed in double-double (§3e, "In double-double"): the Haar rotation
/// Û from [`HAAR_ROTATION_DD_ERROR`]'s sampler, B = L·Û·diag(fl(e^{r/2})) and Y = B·Bᵀ in double-double (L the
/// whitened footpoint's f64 Cholesky factor, exact as the footpoint's definition), Y rounded to f64, then
/// eigendecomposed and its logarithm assembled as on the direct path. Only the rounding of Y and (E) are relative
/// to ‖Y‖, and both are measured in the Frobenius norm of Y^{-½}·E·Y^{-½} (no √k on top):
///
/// - Û = U(I + G): B moves on the right by H = D^{-½}·G·D^{½}, ‖H‖_F ≤ e^{t_N/√2}·‖G‖_F; f64 exp within 2 ulps
///   (4u) scales B's columns by 1 + θ_j; a right perturbation B(I + H) moves BBᵀ by at most
///   2‖H‖_F/(1 − ‖H‖₂) in ρ (Mirsky: Σ(σ_i(I + H) − 1)² ≤ ‖H‖_F²);
/// - the double-double products: |E_B| ≤ (3.01k + 14)u²·|L||Û|·diag(e^{r/2}), relative to B at most
///   (3.01k + 14)u²·k·e^{(R_F + t_N + R′)/2}; |E_Y| ≤ (3.01k + 6)u²·|B||B|ᵀ, relative to Y at most
///   (3.01k + 6)u²·k²·e^{R_F + t_N + R′};
/// - rounding Y to f64 (u per entry) and (E) (c_E·u·‖Y‖_F): ‖Y^{-½}EY^{-½}‖_F ≤ ‖E‖_F/λ_min ≤ c·u·√k·cond(Y),
///   and ρ(Y + E, Y) ≤ g/(1 − g) for g that bound;
/// - the assembly, u·(2c_E + 2k + 8)·√k·(R′ + 1), as [`spd_log_chart_error`]'s.
///
/// Arguments as [`spd_log_chart_error`]'s; ∞ where a perturbation is not small.
pub fn spd_double_double_chart_error(k: usize, footpoint_radius: f64, noise_radius: f64, release_radius: f64) -> f64 {
    let u = f64::EPSILON / 2.0;
    let kf = k as f64;
    let (rf, tn, rr) = (footpoint_radius, noise_radius, release_radius);
    let cond = (std::f64::consts::SQRT_2 * rr).exp() * 1.01;
    // Right perturbations of B, in Frobenius norm.
    let h_haar = (std::f64::consts::FRAC_1_SQRT_2 * tn).exp() * HAAR_ROTATION_DD_ERROR;
    let h_exp = 4.0 * u * kf.sqrt();
    let h_dd = (3.01 * kf + 14.0) * u * u * kf * (0.5 * (rf + tn + rr)).exp() * 1.01;
    // Perturbations of Y, relative (Y^{-½}·E·Y^{-½}, Frobenius).
    let g_dd = (3.01 * kf + 6.0) * u * u * kf * kf * (rf + tn + rr).exp() * 1.01;
    let g_round = u * kf.sqrt() * cond;
    let g_eigen = EIGEN_BACKWARD_ERROR * u * kf.sqrt() * cond;
    let all = [h_haar, h_exp, h_dd, g_dd, g_round, g_eigen];
    if !all.iter().all(|&x| x < 1e-3) {
        return f64::INFINITY;
    }
    let right = |h: f64| 2.0 * h / (1.0 - h);
    let relative = |g: f64| g / (1.0 - g);
    let rho = [right(h_haar), right(h_exp), right(h_dd), relative(g_dd), relative(g_round), relative(g_eigen)]
        .into_iter()
        .fold(0.0, add_up);
    let assemble = u * (2.0 * EIGEN_BACKWARD_ERROR + 2.0 * kf + 8.0) * kf.sqrt() * (rr + 1.0);
    fn_up(add_up(rho, assemble) * (1.0 + 1e-9))
}

/// How a mechanism makes its releases float-safe: its grid and the additive ε₀ the rounding costs, and
/// optionally a coarser public grid the float-safe release is rounded onto afterwards.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rounding {
    grid: Grid,
    additive_epsilon: f64,
    /// A coarser grid of the same chart, applied to the representative of the float-safe cell: a function of
    /// that cell, hence post-processing (ε₀ unchanged).
    coarse: Option<Grid>,
    /// B: coordinate charts (the tangent plane, the log domain) clamp each coordinate to [−B, B] before
    /// rounding (a power of two, so a grid point); ∞ for the sphere charts.
    clamp: f64,
    /// C: the private log-Euclidean mean clamps its footpoint's coordinates to [−C, C] before adding the noise,
    /// so that the bound C its η assumes holds by construction; ∞ elsewhere.
    footpoint_clamp: f64,
}

impl Rounding {
    /// A sphere or ball chart's rounding: no clamp on the release or the footpoint.
    fn unclamped(grid: Grid, additive_epsilon: f64) -> Self {
        Rounding { grid, additive_epsilon, coarse: None, clamp: f64::INFINITY, footpoint_clamp: f64::INFINITY }
    }

    /// Rounding of directions on S^{`dim`−1} (the turn grid on the circle, the cube map otherwise) for a
    /// mechanism with ε per radian and a `lipschitz`-log-Lipschitz output density (per radian).
    pub fn for_directions(dim: usize, epsilon_per_rad: f64, lipschitz: f64) -> Self {
        Self::for_directions_below(dim, epsilon_per_rad, lipschitz, SPACING_BELOW_NOISE_LOG2)
    }

    /// [`Rounding::for_directions`] with cells up to 2^-`below_log2` of the noise scale.
    pub fn for_directions_below(dim: usize, epsilon_per_rad: f64, lipschitz: f64, below_log2: i32) -> Self {
        let chart = if dim == 2 { Chart::Turns } else { Chart::CubeMap };
        Self::on(grid_below(chart, dim, epsilon_per_rad, lipschitz, below_log2), dim, lipschitz)
    }

    /// Rounding of directions on S^{`dim`−1}, `dim` ≥ 3, by the cube map, for a release whose computed cell is the
    /// exact cell of a point within `chart_error` (per chart coordinate) of the exact release, and whose output
    /// density is `lipschitz`-log-Lipschitz per radian: the private means' relative-error release
    /// (`docs/proofs/float_safety.md` §3i), whose error is bounded for the kept draws only and is far below
    /// [`PIPELINE_ERROR`]. Cells up to 2^-`below_log2` of the noise scale 1/`lipschitz`, the cheapest; ε₀ as
    /// [`additive_epsilon`]'s cube map, with the diameter's angle taken as 2·asin(chord/2) (not π/2 times the
    /// chord: the cells are tiny).
    pub fn for_directions_with_error(dim: usize, lipschitz: f64, chart_error: f64, below_log2: i32) -> Self {
        let fine = -(below_log2 + lipschitz.max(1.0).log2().ceil() as i32);
        Self::for_directions_with_error_up_to(dim, lipschitz, chart_error, fine, false)
    }

    /// [`Rounding::for_directions_with_error`] with cells up to 2^`coarsest_log2` in the chart, chosen by the
    /// caller (S^{n−1}, n ≥ 4: cells that move a release by at most 2^-10 of its expected error,
    /// `docs/proofs/float_safety.md` §3i, "The cells"). ε₀ is the shell lemma's at the spacing chosen, whatever
    /// the cap: the cap is a utility policy, not part of the proof.
    ///
    /// With `one_face` (every cell that may be released, enlarged by η, lies inside one face of the cube map, so
    /// each C⁺ is the image of C⁻ under the homothety of ratio λ = (h + 2η)/(h − 2η) about the cell's centre),
    /// ε₀ is also bounded by the homothety form m·ln λ + L·2asin(√m·η) + (n/2)·2√m·η
    /// (`docs/proofs/float_safety.md` §3i, "The homothety bound"), and the smaller of the two is used.
    pub fn for_directions_with_error_up_to(
        dim: usize,
        lipschitz: f64,
        chart_error: f64,
        coarsest_log2: i32,
        one_face: bool,
    ) -> Self {
        assert!(dim >= 3, "the cube map");
        Self::with_error_and_faces(Chart::CubeMap, dim, lipschitz, chart_error, coarsest_log2, one_face)
    }

    /// Rounding of the circle's turn chart for a release whose computed cell is the exact cell of a turn value
    /// within `chart_error` turns of the exact release's, with a `lipschitz`-log-Lipschitz output density per
    /// radian: the circle's relative-error mean (`docs/proofs/float_safety.md` §3i, "The circle"). Cells up to
    /// 2^`coarsest_log2` turns; ε₀ the smaller of the shell lemma's and the homothety bound's, ln λ +
    /// L·2π·2η with λ = (h + 2η)/(h − 2η) (an arc C⁺ is the image of C⁻ under the homothety of ratio λ about
    /// its centre, the circle's measure is uniform in turns, and each point moves by at most 2η turns).
    pub fn for_turns_with_error_up_to(lipschitz: f64, chart_error: f64, coarsest_log2: i32) -> Self {
        Self::with_error_and_faces(Chart::Turns, 2, lipschitz, chart_error, coarsest_log2, true)
    }

    /// [`Rounding::for_directions_with_error`] for rotations (the quaternion cube map of S³, ε per radian of
    /// rotation angle, twice the angle on S³).
    pub fn for_rotations_with_error(lipschitz: f64, chart_error: f64, below_log2: i32) -> Self {
        let fine = -(below_log2 + lipschitz.max(1.0).log2().ceil() as i32);
        Self::with_error(Chart::QuaternionCubeMap, 4, lipschitz, chart_error, fine)
    }

    fn with_error(chart: Chart, dim: usize, lipschitz: f64, chart_error: f64, fine: i32) -> Self {
        Self::with_error_and_faces(chart, dim, lipschitz, chart_error, fine, false)
    }

    fn with_error_and_faces(
        chart: Chart,
        dim: usize,
        lipschitz: f64,
        chart_error: f64,
        fine: i32,
        one_face: bool,
    ) -> Self {
        // The rotation angle is twice the angle on S³ (and so is the Jacobian's rate, as in `additive_epsilon`).
        let per_angle = if chart == Chart::QuaternionCubeMap { 2.0 } else { 1.0 };
        let m = (dim - 1) as f64;
        let eta = fn_up(chart_error);
        // The angle (radians) of a chart chord and the chart's volume density's log-variation over it: an arc of
        // t turns is 2πt radians and the circle's measure is uniform in turns; on the cube maps a chord c spans
        // 2·asin(c/2) and the density varies at rate n/2 (2 on S³ for rotations).
        let angle_of = |chord: f64| match chart {
            Chart::Turns => mul_up(TAU, chord),
            _ if chord < 2.0 => mul_up(per_angle, fn_up(2.0 * (0.5 * chord).asin())),
            _ => mul_up(per_angle, std::f64::consts::PI),
        };
        let jacobian_of = |chord: f64| match chart {
            Chart::Turns => 0.0,
            Chart::QuaternionCubeMap => mul_up(2.0, chord),
            _ => mul_up(dim as f64 / 2.0, chord),
        };
        let cost = |grid: Grid| {
            let h = grid.spacing();
            let (wide, narrow) = (add_up(h, 2.0 * eta), (h - 2.0 * eta).next_down());
            // ln μ(C⁺)/μ(C⁻) in chart (Lebesgue) measure: m·ln(1 + 4η/(h − 2η)), each step rounded up.
            let volume = mul_up(m, fn_up(div_up(4.0 * eta, narrow).ln_1p()));
            let chord = mul_up(m.sqrt(), wide);
            let shell = shell_epsilon(volume, add_up(mul_up(lipschitz, angle_of(chord)), jacobian_of(chord)));
            if !one_face {
                return shell;
            }
            // The homothety bound: C⁺ = c + λ(C⁻ − c), so P*(C⁺) = λ^m ∫_{C⁻} g(c + λ(v − c)) dv, and each point
            // moves by (λ − 1)|v − c| ≤ (4η/(h − 2η))·√m(h − 2η)/2 = 2√m·η in the chart.
            let moved = mul_up(mul_up(2.0, fn_up(m.sqrt())), eta);
            let homothety = add_up(volume, add_up(mul_up(lipschitz, angle_of(moved)), jacobian_of(moved)));
            shell.min(homothety)
        };
        // The relative-error releases snap in double-double (`round_to_grid_dd`), exact only where the grid's
        // points near |q| ≤ 1 are doubles: no spacing below 2^-52, whatever the cap (§3i, step 3).
        let grid = cheapest_grid_from(chart, eta, DD_SNAP_FINEST_LOG2, fine, cost);
        Rounding::unclamped(grid, cost(grid))
    }

    /// Rounding of the planar Laplace's tangent coordinates at a point of S^{`dim`−1} for `epsilon` per
    /// radian of tangent distance (its output density is ε-log-Lipschitz there).
    pub fn for_tangent_plane(dim: usize, epsilon: f64) -> Self {
        Self::on(default_grid(Chart::TangentPlane, dim, epsilon, epsilon), dim, epsilon)
    }

    /// Rounding of rotations (unit quaternions, q ≡ −q) for ε and `lipschitz` per radian of rotation angle.
    pub fn for_rotations(epsilon_per_rad: f64, lipschitz: f64) -> Self {
        Self::for_rotations_below(epsilon_per_rad, lipschitz, SPACING_BELOW_NOISE_LOG2)
    }

    /// [`Rounding::for_rotations`] with cells up to 2^-`below_log2` of the noise scale.
    pub fn for_rotations_below(epsilon_per_rad: f64, lipschitz: f64, below_log2: i32) -> Self {
        let grid = grid_below(Chart::QuaternionCubeMap, 4, epsilon_per_rad, lipschitz, below_log2);
        Self::on(grid, 4, lipschitz)
    }

    fn on(grid: Grid, dim: usize, lipschitz: f64) -> Self {
        let clamp = match grid.chart {
            Chart::TangentPlane => tangent_plane_clamp(dim, lipschitz),
            _ => f64::INFINITY,
        };
        Rounding { clamp, ..Rounding::unclamped(grid, additive_epsilon(grid, dim, lipschitz)) }
    }

    /// Rounding of a flat log domain with `coords` isometric coordinates (the log-Euclidean metric on SPD(k),
    /// `coords` = k(k + 1)/2) for Laplace noise of scale `sigma` per unit (its density is 1/σ-log-Lipschitz),
    /// around inputs whose coordinates are at most `input_bound` in magnitude: a uniform grid clamped at
    /// B = the smallest power of two ≥ max(4, `input_bound` + (80 + 2·`coords`)σ) (`docs/proofs/float_safety.md`
    /// §3d). Public parameters only.
    pub fn for_log_domain(coords: usize, sigma: f64, input_bound: f64) -> Self {
        Self::log_domain(coords, sigma, input_bound, false)
    }

    /// [`Rounding::for_log_domain`] with ε₀ by the shell lemma (`docs/proofs/float_safety.md` §3i, "The cost",
    /// applied face by face on the clamped cube as §3c's lemma is): ln(1 + (((h + 2η)/(h − 2η))^D − 1)·
    /// e^{√D(h + 2η)/σ}), never above the additive form, and cells up to 2^-10 of the noise scale
    /// ([`MEAN_SPACING_BELOW_NOISE_LOG2`], the private means' policy). Used by the private log-Euclidean mean
    /// (§3d).
    pub fn for_log_domain_by_shell(coords: usize, sigma: f64, input_bound: f64) -> Self {
        Self::log_domain(coords, sigma, input_bound, true)
    }

    fn log_domain(coords: usize, sigma: f64, input_bound: f64, shell: bool) -> Self {
        let d = coords as f64;
        let s = crate::sample::normal::radius_direction_error_units(coords);
        let reach = input_bound + (80.0 + 2.0 * d) * sigma;
        let (clamp, eta, footpoint_clamp) = if shell {
            // The mean: B no larger than its ball needs, and η relative to B and C (§3d, "The mean's error").
            let mut clamp = 2f64.powi(reach.max(MEAN_LOG_DOMAIN_CLAMP_FLOOR).log2().ceil() as i32);
            // log₂ may round down just above a power of two; η needs C < B.
            if clamp <= input_bound {
                clamp *= 2.0;
            }
            (clamp, mean_log_domain_error(clamp, input_bound, s), input_bound)
        } else {
            let clamp = 2f64.powi(reach.max(4.0).log2().ceil() as i32);
            // One sum of an input coordinate and a noise coordinate t·w: (2B + C + 8)·2^-53 (§3d); and the noise
            // coordinate's own error, relative, at most B + C in size where it is not clamped (§3f).
            let eta = (2.0 * clamp + input_bound + 8.0 + s * (clamp + input_bound)) * (f64::EPSILON / 2.0);
            (clamp, eta, f64::INFINITY)
        };
        Self::log_domain_at(coords, sigma, clamp, eta, footpoint_clamp, shell)
    }

    /// The clamp B = 4 and η = (2B + C + 8 + s(B + C))·2^-53 the private log-Euclidean mean was planned with
    /// before "The mean's error" (`docs/proofs/float_safety.md` §3d): the tests' control.
    #[cfg(test)]
    pub(crate) fn for_log_domain_by_shell_as_before(coords: usize, sigma: f64, input_bound: f64) -> Self {
        let s = crate::sample::normal::radius_direction_error_units(coords);
        let reach = input_bound + (80.0 + 2.0 * coords as f64) * sigma;
        let clamp = 2f64.powi(reach.max(4.0).log2().ceil() as i32);
        let eta = (2.0 * clamp + input_bound + 8.0 + s * (clamp + input_bound)) * (f64::EPSILON / 2.0);
        Self::log_domain_at(coords, sigma, clamp, eta, input_bound, true)
    }

    fn log_domain_at(coords: usize, sigma: f64, clamp: f64, eta: f64, footpoint_clamp: f64, shell: bool) -> Self {
        let d = coords as f64;
        let lipschitz = 1.0 / sigma;
        let cost = |grid: Grid| {
            let h = grid.spacing();
            let (wide, narrow) = (add_up(h, 2.0 * fn_up(eta)), (h - 2.0 * fn_up(eta)).next_down());
            if shell {
                let volume = mul_up(d, fn_up(div_up(4.0 * fn_up(eta), narrow).ln_1p()));
                shell_epsilon(volume, mul_up(lipschitz, mul_up(d.sqrt(), wide)))
            } else {
                let volume = mul_up(d, fn_up((wide / narrow).ln()));
                add_up(mul_up(lipschitz, mul_up(d.sqrt(), wide)), volume)
            }
        };
        // The Riemannian Laplace's policy (cells up to 2^-14 of the noise scale): the noise coordinate's own
        // relative error, paid at the clamp, makes η some 30 times the arithmetic's alone (§3f, Lemma N). The
        // private mean's (by the shell lemma): cells up to 2^-10 of it, as on spheres and SO(3).
        let below = if shell { MEAN_SPACING_BELOW_NOISE_LOG2 } else { RIEMANNIAN_SPACING_BELOW_NOISE_LOG2 };
        let fine = -(below + lipschitz.max(1.0).log2().ceil() as i32);
        let grid = cheapest_grid(Chart::LogDomain, eta, fine, cost);
        Rounding { grid, additive_epsilon: cost(grid), coarse: None, clamp, footpoint_clamp }
    }

    /// The same uniform, clamped grid for the coordinates of a Euclidean embedding (the extrinsic means:
    /// rotation matrices in R⁹, unit vectors in R^N) under ℓ₂ K-norm noise of scale `sigma`, around embedded
    /// means whose coordinates are at most `input_bound` in magnitude: [`Rounding::for_log_domain`]'s grid,
    /// clamp and ε₀ (the proof is the same, `docs/proofs/extrinsic_mean.md` §4), named for its chart.
    pub fn for_embedding(coords: usize, sigma: f64, input_bound: f64) -> Self {
        let mut r = Self::for_log_domain(coords, sigma, input_bound);
        r.grid.chart = Chart::Embedding;
        r
    }

    /// Rounding in the log chart at the centre of SPD(`k`) (affine-invariant metric) for Laplace noise of scale
    /// `sigma` (density 1/σ-log-Lipschitz in ρ), chart error `eta` ([`spd_log_chart_error`]), releases kept
    /// only within `ball` of the centre and an expected error `mean_error`: a uniform grid of the isometric log
    /// coordinates, no clamp (cells outside the ball are never released), no coarser than moving a release by
    /// [`SPD_ROUNDING_OF_ERROR`] of its expected error, and otherwise the spacing with the smallest ε₀. By the
    /// shell lemma (§3i, "The cost"), ε₀ = ln(1 + (((h + 2η)/(h − 2η))^D − 1)·e^b), b = (1/σ)·s(R′)·√D·(h + 2η) +
    /// (m/√2)·√D·(h + 2η), with s(x) = sinh(x/√2)/(x/√2) the log chart's largest stretch within R′ = ball +
    /// √D·(h + 2η) of the centre and m/√2 the Lipschitz constant of its log volume density (§3e).
    pub fn for_spd_log_chart(k: usize, sigma: f64, eta: f64, ball: f64, mean_error: f64) -> Self {
        Self::for_spd_log_chart_up_to(k, sigma, eta, ball, mean_error, SPD_ROUNDING_OF_ERROR)
    }

    /// [`Rounding::for_spd_log_chart`] with cells no coarser than moving a release by `of_error` of its expected
    /// error (the private mean, unconditioned: [`SPD_MEAN_ROUNDING_OF_ERROR`]); the spacing cap is
    /// [`spd_log_chart_cap_log2`]. ε₀ is the shell lemma's at the spacing chosen, whatever the cap.
    pub fn for_spd_log_chart_up_to(k: usize, sigma: f64, eta: f64, ball: f64, mean_error: f64, of_error: f64) -> Self {
        Self::for_spd_log_chart_within(k, sigma, eta, ball, mean_error, of_error, i32::MAX)
    }

    /// [`Rounding::for_spd_log_chart_up_to`] with the spacing also at most 2^`coarsest_log2`: the ball-conditioned
    /// mean's cells, which must fit in its margin Δ/4 besides the far draws' error (`docs/proofs/float_safety.md`
    /// §3e, "The grid").
    pub fn for_spd_log_chart_within(
        k: usize,
        sigma: f64,
        eta: f64,
        ball: f64,
        mean_error: f64,
        of_error: f64,
        coarsest_log2: i32,
    ) -> Self {
        let d = (k * (k + 1) / 2) as f64;
        let m = (k * (k - 1) / 2) as f64;
        let lipschitz = 1.0 / sigma;
        let cost = |grid: Grid| {
            let h = grid.spacing();
            let (wide, narrow) = (add_up(h, 2.0 * eta), (h - 2.0 * eta).next_down());
            let diameter = mul_up(d.sqrt(), wide);
            let x = add_up(ball, diameter) / std::f64::consts::SQRT_2;
            let stretch = fn_up(if x > 0.0 { x.sinh() / x } else { 1.0 });
            let volume = mul_up(d, fn_up(div_up(4.0 * eta, narrow).ln_1p()));
            let jacobian = mul_up(m / std::f64::consts::SQRT_2, diameter);
            shell_epsilon(volume, add_up(mul_up(lipschitz, mul_up(stretch, diameter)), jacobian))
        };
        let fine = spd_log_chart_cap_log2(k, ball, mean_error, of_error).min(coarsest_log2);
        let grid = cheapest_grid(Chart::SpdLogAtCenter, eta, fine, cost);
        Rounding::unclamped(grid, cost(grid))
    }

    /// The same rounding for a rejection sampler whose computed acceptance probability is within a factor
    /// e^{±`alpha`} of the exact one at every proposal: the accepted law's density is then within e^{±2α} of
    /// the exact law's, so ε₀ grows by 4α (`docs/proofs/float_safety.md` §3f, Lemma R).
    pub fn with_acceptance_error(mut self, alpha: f64) -> Self {
        self.additive_epsilon = add_up(self.additive_epsilon, mul_up(4.0, alpha));
        self
    }

    /// The clamp B of a coordinate chart (∞ for the sphere charts).
    pub fn clamp(&self) -> f64 {
        self.clamp
    }

    /// The bound C on a footpoint's coordinates that the chart's η assumes (∞ where it needs none).
    pub fn footpoint_clamp(&self) -> f64 {
        self.footpoint_clamp
    }

    /// Clamps a footpoint's coordinates to [−C, C] ([`Rounding::footpoint_clamp`]): the projection onto a
    /// public box, 1-Lipschitz in the Euclidean norm, so the footpoints of neighbouring data sets stay as close
    /// as before and no nearer one moves further from a centre inside the box (`docs/proofs/float_safety.md` §3d).
    pub fn clamp_footpoint(&self, u: &mut [f64]) {
        for x in u {
            *x = x.clamp(-self.footpoint_clamp, self.footpoint_clamp);
        }
    }

    /// The same rounding followed by the coarser grid whose step is the largest power of two no larger than
    /// `radians` of the space's angle (per chart coordinate: turns are 2π rad, a cube-map step of ℓ at most ℓ
    /// rad, a quaternion step of ℓ at most 2ℓ rad of rotation). Rounding the float-safe release again is
    /// post-processing: the guarantee and ε₀ do not change. Errors if the step is finer than the float-safe
    /// grid (which it cannot refine) or coarser than a quarter of the chart.
    pub fn coarsened(self, radians: f64) -> Fallible<Self> {
        let per_unit = match self.grid.chart {
            Chart::Turns => TAU,
            Chart::CubeMap => 1.0,
            Chart::QuaternionCubeMap => 2.0,
            Chart::TangentPlane | Chart::LogDomain | Chart::SpdLogAtCenter | Chart::Embedding => 1.0,
        };
        if !(radians.is_finite() && radians > 0.0) {
            return Err(Error::InvalidParameter { name: Param::OutputStep, value: radians, reason: "must be > 0" });
        }
        let spacing_log2 = (radians / per_unit).log2().floor().clamp(-1100.0, 1100.0) as i32;
        if spacing_log2 < self.grid.spacing_log2 {
            return Err(Error::Unattainable(format!(
                "an output step of {} rad is finer than the float-safe grid ({} rad per step): ask for a coarser \
                 one, or leave the step out",
                short(radians),
                short(self.grid.spacing() * per_unit)
            )));
        }
        if spacing_log2 > -2 {
            return Err(Error::Unattainable(format!(
                "an output step of {} rad is coarser than the grid allows (at most {} rad per step)",
                short(radians),
                short(0.25 * per_unit)
            )));
        }
        Ok(Rounding { coarse: Some(Grid { chart: self.grid.chart, spacing_log2 }), ..self })
    }

    /// The grid releases lie on (the coarser one, if set).
    pub fn grid(&self) -> Grid {
        self.coarse.unwrap_or(self.grid)
    }

    /// The coarser grid releases are rounded onto after the float-safe one, if set.
    pub fn coarse_grid(&self) -> Option<Grid> {
        self.coarse
    }

    /// The float-safe grid the ε₀ is proven for (finer than or equal to [`Rounding::grid`]).
    pub fn float_safe_grid(&self) -> Grid {
        self.grid
    }

    /// The additive ε₀.
    pub fn additive_epsilon(&self) -> f64 {
        self.additive_epsilon
    }

    /// The release guarantee: ε per unit of `metric`, plus ε₀, on the grid.
    pub fn guarantee(&self, epsilon: f64, metric: Metric) -> Guarantee {
        Guarantee::snapped_metric_dp(epsilon, metric, self.additive_epsilon, self.grid())
    }

    /// Rounds a direction (a positive multiple of a unit vector) onto the grid, in place.
    #[inline]
    pub fn snap_direction(&self, v: &mut [f64]) {
        snap_direction(self.grid, v);
        if let Some(coarse) = self.coarse {
            snap_direction(coarse, v)
        }
    }

    /// The spacing exponent s of the turn grid when releases lie on the circle's turn grid with −50 ≤ s ≤ 0,
    /// where [`Rounding::snap_turns_at`] applies; `None` otherwise.
    #[inline]
    pub fn turn_spacing(&self) -> Option<i32> {
        (self.grid.chart == Chart::Turns && (-50..=0).contains(&self.grid.spacing_log2))
            .then_some(self.grid.spacing_log2)
    }

    /// The float-safe release on the circle whose angle is `turns` (|`turns`| ≤ 1, the input's angle plus the
    /// drawn offset, each at most ½ turn): the representative of the turn cell of `turns`
    /// ([`turn_cell_of_turns`]), then the coarser grid's, if set. Within η of the exact angle when the input's
    /// angle is within 2·2^-53 turns of the exact one and the offset within 2·2^-53 turns of the drawn one
    /// (`docs/proofs/float_safety.md` §4, "The circle by its angle"). Requires [`Rounding::turn_spacing`] to be
    /// `Some`.
    #[inline]
    pub fn snap_turns_at(&self, turns: f64, out: &mut [f64]) {
        let s = self.grid.spacing_log2;
        out.copy_from_slice(&turn_representative(turn_cell_of_turns(turns, s), s));
        if let Some(coarse) = self.coarse {
            snap_direction(coarse, out)
        }
    }

    /// Clamps the coordinates of a coordinate chart to [−B, B] (B is a power of two ≥ 4, a point of every
    /// such grid) and rounds them onto the grid, in place (the tangent plane's by [`round_tangent`], the log
    /// domain's uniformly), then onto the coarser grid, if set.
    ///
    /// # Panics
    /// On a sphere chart (use [`Rounding::snap_direction`] or [`Rounding::snap_rotation`]).
    #[inline]
    pub fn snap_coordinates(&self, u: &mut [f64]) {
        let round = match self.grid.chart {
            Chart::TangentPlane => round_tangent,
            Chart::LogDomain | Chart::SpdLogAtCenter | Chart::Embedding => round_to_grid,
            _ => panic!("a sphere grid applied to chart coordinates"),
        };
        for x in u {
            *x = round(x.clamp(-self.clamp, self.clamp), self.grid.spacing_log2);
            if let Some(coarse) = self.coarse {
                *x = round(*x, coarse.spacing_log2)
            }
        }
    }

    /// Rounds a rotation onto the grid.
    #[inline]
    pub fn snap_rotation(&self, q: &mut UnitQuaternion<f64>) {
        *q = snap_quaternion(q, self.grid.spacing_log2);
        if let Some(coarse) = self.coarse {
            *q = snap_quaternion(q, coarse.spacing_log2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_grids_follow_the_noise_scale_and_keep_the_cost_small() {
        assert!(default_grid(Chart::Turns, 2, 1.0, 1.0).spacing_log2 <= -20);
        assert!(default_grid(Chart::CubeMap, 3, 1000.0, 1000.0).spacing_log2 <= -30);
        for (chart, dims) in [
            (Chart::Turns, vec![2usize]),
            (Chart::QuaternionCubeMap, vec![4]),
            (Chart::CubeMap, vec![3, 4, 10, 100, 10_000]),
            (Chart::TangentPlane, vec![2, 3, 10]),
        ] {
            for dim in dims {
                for eps in [1e-6, 1e-2, 1.0, 10.0, 1e3, 1e6] {
                    let g = default_grid(chart, dim, eps, eps);
                    let noise_scale = 1.0 / eps.max(1.0);
                    // In high dimension at extreme ε the pipeline error, not the noise, sets the spacing (from
                    // n = 10 at ε = 1e6 since §3f added the samplers' error to η; from n = 100 before).
                    if dim <= 4 || (dim <= 10 && eps < 1e6) {
                        assert!(g.spacing() <= 2f64.powi(-20) * noise_scale * 1.000001, "{chart:?} {dim} {eps}");
                    }
                    let e0 = additive_epsilon(g, dim, eps);
                    assert!(e0 > 0.0 && e0.is_finite(), "{chart:?} n={dim} eps={eps}: {e0}");
                    if dim <= 4 {
                        // 1e-5 and 0.25 before §3f added the samplers' own error to η (×3 on rotations, ×5 on
                        // spheres): at ε = 1e6 SO(3) costs 0.56 (0.19 before), S³ 0.95.
                        let bound = if eps <= 10.0 {
                            2e-5
                        } else if eps <= 1e4 {
                            1e-3
                        } else {
                            1.0
                        };
                        assert!(e0 < bound, "{chart:?} n={dim} eps={eps}: {e0}");
                    }
                }
            }
        }
    }

    /// The pipeline's share of the cube map's η_c on S^{n−1}: (n + 1e-3)·η.
    fn pipeline_share(n: usize) -> f64 {
        (n as f64 + 1e-3) * PIPELINE_ERROR
    }

    #[test]
    fn the_sphere_bounds_fit_eta_and_the_chart_error_for_every_dimension() {
        use crate::analysis::sphere_angle::MAX_SPHERE_DIM;
        let u = f64::EPSILON / 2.0;
        let mut worst = 0.0f64;
        for n in 3..=MAX_SPHERE_DIM {
            let eta = sphere_error::chordal(n);
            worst = worst.max(eta);
            assert!(eta <= PIPELINE_ERROR, "n = {n}: {} u", eta / u);
            // The chart's stretch and its division, inside the pipeline's share of the η_c that ε₀ and the grid
            // are computed from (the sampler's share, §3f, comes on top: chart_error is the sum).
            let chart = sphere_error::chart(n, PIPELINE_ERROR);
            assert!(chart <= pipeline_share(n), "n = {n}: {chart} vs {}", pipeline_share(n));
            assert!(pipeline_share(n) < chart_error(Chart::CubeMap, n));
        }
        // The numbers §4a states: 25.3u at most (15.4u of it arithmetic, n-independent), 24.2u on S².
        assert!(worst <= 25.3 * u && sphere_error::reflection(MAX_SPHERE_DIM) <= 15.4 * u, "{}", worst / u);
        assert!(sphere_error::chordal(3) <= 24.2 * u, "{}", sphere_error::chordal(3) / u);
        // The control: the cube map's stretch taken as n (the proof's earlier accounting) leaves no room for
        // the chart's division, so the check above would fail without the √(2n) stretch.
        assert!(3.0 * PIPELINE_ERROR + 2.0 * u > pipeline_share(3));
        // Plain sums' worst case, ~2(n − 1)u (the compensation's reason), would not fit η at the cap.
        assert!(2.0 * (MAX_SPHERE_DIM - 1) as f64 * u > PIPELINE_ERROR);
    }

    #[test]
    fn epsilon0_on_spheres_grows_with_the_dimension_as_the_proof_says() {
        // §4: on a fixed grid, ε₀ = L·(π/2)·√m·w + (n/2)·√m·w + m·ln(w/w′), w = h + 2η_c, w′ = h − 2η_c,
        // η_c = (n + 1e-3)·(η + the sampler's error, §3f), m = n − 1: every term grows with n.
        let grid = Grid { chart: Chart::CubeMap, spacing_log2: -30 };
        let (h, l) = (grid.spacing(), 10.0);
        let mut last = 0.0;
        for n in [3usize, 4, 10, 100, 1000, 10_000] {
            let eta_c = (n as f64 + 1e-3) * (PIPELINE_ERROR + sampler_error(Chart::CubeMap));
            let m = (n - 1) as f64;
            let (w, w2) = (h + 2.0 * eta_c, h - 2.0 * eta_c);
            let want = l * FRAC_PI_2 * m.sqrt() * w + n as f64 / 2.0 * m.sqrt() * w + m * (w / w2).ln();
            let got = additive_epsilon(grid, n, l);
            assert!(got >= want && got <= want * (1.0 + 1e-9), "n = {n}: {got} vs {want}");
            assert!(got > last, "n = {n}");
            last = got;
        }
        // The default grids' ε₀ grows with n too (its grid is chosen from n as well).
        let mut last = 0.0;
        for n in [3usize, 10, 100, 1000, 10_000] {
            let e0 = additive_epsilon(default_grid(Chart::CubeMap, n, 1.0, 1.0), n, 1.0);
            assert!(e0 > last, "n = {n}: {e0}");
            last = e0;
        }
    }

    /// §4's SO(3) budget: the product fl(x∘n̂) moves the direction by at most 2γ₄ (times 1 + 10⁻¹⁵ for
    /// chord against sine), the noise quaternion's own rounding by its stated bound (measured in
    /// `sample::laplace_so3` and `sample::bingham_so3`), and the chart's division adds 2^-53 per coordinate: the
    /// chord fits η = 2^-48, and n times it plus the division fits the chart's allowance (n + 10⁻³)·η.
    #[test]
    fn the_so3_error_budget_fits_the_pipeline_error() {
        use crate::sample::{bingham_so3, laplace_so3};
        let u = f64::EPSILON / 2.0;
        let gamma4 = 4.0 * u / (1.0 - 4.0 * u);
        for noise in [laplace_so3::NOISE_QUATERNION_ERROR, bingham_so3::NOISE_QUATERNION_ERROR] {
            let chord = (2.0 * gamma4 + noise) * (1.0 + 1e-15);
            assert!(chord <= 23.0 * u && chord <= PIPELINE_ERROR, "{}", chord / u);
            assert!(4.0 * chord + u <= chart_error(Chart::QuaternionCubeMap, 4), "{}", chord / u);
        }
    }

    /// The relative-error charts never go below 2^-52 (`DD_SNAP_FINEST_LOG2`), where the double-double snap
    /// stops being exact: at a noise scale of 2^-50 with a chart error of 10⁻³⁰ the cap 2^-60 would be the
    /// cheapest spacing (the control, the same search without the floor), and the plan takes 2^-52 on the cube
    /// map, the quaternion cube map and the turns; near 1 the grid of 2^-56 has points that are not doubles.
    #[test]
    fn relative_charts_keep_the_double_double_snap_exact() {
        let lipschitz = 2f64.powi(50);
        let cube = Rounding::for_directions_with_error_up_to(4, lipschitz, 1e-30, -60, true);
        let turns = Rounding::for_turns_with_error_up_to(lipschitz, 1e-30, -60);
        let rotations = Rounding::for_rotations_with_error(lipschitz, 1e-30, 10);
        for r in [cube, turns, rotations] {
            assert_eq!(r.float_safe_grid().spacing_log2, DD_SNAP_FINEST_LOG2, "{r:?}");
            assert!(r.additive_epsilon().is_finite());
        }
        let unfloored = cheapest_grid(Chart::CubeMap, 1e-30, -60, |g| 1.0 / g.spacing());
        assert_eq!(unfloored.spacing_log2, -60, "the control");
        assert_eq!(0.75 + 2f64.powi(-54), 0.75, "a multiple of 2^-56 near 1 that is no double");
    }

    #[test]
    fn a_coarser_output_grid_is_post_processing() {
        use crate::space::grid::{snap_direction, snap_quaternion};
        let fine = Rounding::for_directions(2, 1.0, 1.0);
        // One second of a day: 2^⌊log₂(1/86400)⌋ = 2^-17 turns.
        let coarse = fine.coarsened(TAU / 86_400.0).unwrap();
        assert_eq!(coarse.grid(), Grid { chart: Chart::Turns, spacing_log2: -17 });
        assert_eq!(coarse.float_safe_grid(), fine.grid());
        assert_eq!(coarse.additive_epsilon(), fine.additive_epsilon());
        let g = coarse.guarantee(1.0, Metric::SphereSurface);
        assert_eq!(g.grid(), Some(coarse.grid()));
        assert_eq!(g.additive_epsilon(), fine.additive_epsilon());
        // Releases lie on the coarse grid: snapping them onto it again changes no bit.
        let mut rng = crate::sample::rng::seeded_rng_for_experiments(4);
        use rand::RngExt;
        for _ in 0..1000 {
            let a: f64 = rng.random::<f64>() * TAU;
            let mut v = [a.cos(), a.sin()];
            coarse.snap_direction(&mut v);
            let once = v;
            snap_direction(coarse.grid(), &mut v);
            assert_eq!(v, once);
        }
        let rot = Rounding::for_rotations(1.0, 1.0).coarsened(1e-3).unwrap();
        assert_eq!(rot.grid().spacing_log2, (1e-3f64 / 2.0).log2().floor() as i32);
        let mut q = nalgebra::UnitQuaternion::from_scaled_axis(nalgebra::Vector3::new(0.3, -1.0, 0.2));
        rot.snap_rotation(&mut q);
        assert_eq!(snap_quaternion(&q, rot.grid().spacing_log2), q);
        // Finer than the float-safe grid, too coarse, or not a step: refused.
        assert!(fine.coarsened(1e-12).is_err());
        assert!(fine.coarsened(4.0).is_err());
        assert!(fine.coarsened(0.0).is_err() && fine.coarsened(f64::NAN).is_err());
        assert!(Rounding::for_directions(3, 1.0, 1.0).coarsened(1e-6).is_ok());
    }
}
