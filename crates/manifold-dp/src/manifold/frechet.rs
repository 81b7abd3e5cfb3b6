//! The Fréchet (Karcher) mean x̄ = argmin_m Σ ρ²(m, x_i) by Riemannian gradient descent:
//! m ← exp_m(α·(1/n) Σ log_m x_i), stopped when a **certified** upper bound on the exact gradient norm at the
//! computed iterate is at most the tolerance τ ([`KarcherStop`]): the computed norm plus the proven f64 error
//! of the logs and of their sum (e_ℓ + γ_d·T, [`super::float_error`]). Inside a ball of radius r < r* the
//! Fréchet function is strictly geodesically convex with second derivative ≥ h(r, κ), so an exact gradient
//! norm g places m within g/h of the exact mean (see `docs/proofs/frechet_mean_sensitivity.md`, which also
//! accounts for that residual in the sensitivity). Only the gradient norm at the returned point matters there,
//! not the path: the step length α is 1 (the classic Karcher step) or, where the curvature is ≤ 0,
//! Barzilai–Borwein's ([`StepLengths`]), which takes 5–6 passes where the unit step takes 9 on SPD data, whose
//! Hessian (≥ 1 in negative curvature) makes the unit step overshoot by a nearly constant factor.

use super::Manifold;
use super::float_error::{certified_gradient_bound, public_depth, sum_log_pairwise};
use super::sensitivity::{check_radius, frechet_sensitivity, h_factor};
use crate::Fallible;
use crate::error::Param;
use crate::error::{Error, check_positive};
use crate::numerics::rounding::add_up;
use nalgebra::DVector;

/// Stopping rule of the Karcher iteration, as asked for; [`KarcherStop`] is the rule as run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KarcherOptions {
    /// Stop when a certified bound on the exact ‖(1/n) Σ log_m x_i‖ is ≤ tolerance (in the manifold's distance
    /// unit); raised where double precision cannot certify it ([`KarcherStop::in_ball`]).
    pub tolerance: f64,
    /// Give up with [`Error::NotConverged`] after this many iterations (the result is then never released).
    pub max_iterations: usize,
}

impl Default for KarcherOptions {
    /// Gradient norm ≤ 1e-12, at most 1000 iterations. Data in a ball well inside r* converge in a handful.
    fn default() -> Self {
        KarcherOptions { tolerance: 1e-12, max_iterations: 1000 }
    }
}

/// A computed Fréchet mean and how it was reached.
#[derive(Debug, Clone, PartialEq)]
pub struct FrechetMean<P> {
    /// The mean.
    pub mean: P,
    /// Iterations used.
    pub iterations: usize,
    /// ‖(1/n) Σ log_mean x_i‖ at the returned mean, as computed.
    pub gradient_norm: f64,
    /// A proven upper bound on the exact gradient norm there (≤ the tolerance [`KarcherStop::tolerance`]).
    pub gradient_bound: f64,
}

/// The Karcher stop test as run for data in the ball B_r(m0) (`docs/proofs/frechet_mean_sensitivity.md`,
/// "The computed mean is not the exact mean"): stop at the first iterate m̂ whose certified bound
///
///   ĝ·(1 + 2(len + 8)u) + e_ℓ + γ_d·T ≤ τ
///
/// (ĝ the computed gradient norm, d the depth of the sum of the logs, e_ℓ and T from
/// [`Manifold::log_error`] for points within ρ̂(m0, m̂) + e_ρ + r′ of m̂) bounds the exact gradient norm at m̂.
/// r′ = r + e_ρ(m0, r) is the ball widened by the distance computation's error: a row accepted because its
/// computed distance is ≤ r lies within r′. τ = max(tolerance asked, 4·the floor e_ℓ + γ_d·T at any
/// m̂ within r′ of m0 and the public depth of n rows), a function of public parameters only.
#[derive(Debug, Clone, PartialEq)]
pub struct KarcherStop<P> {
    center: P,
    radius: f64,
    tolerance: f64,
    requested: f64,
    max_iterations: usize,
}

/// The stopping rule for `n` rows within `radius` of `center`, and the sensitivity Δ of the mean it certifies:
/// Theorem 2's bound at the widened radius r′ (a row accepted by its computed distance ≤ r lies within r′), plus
/// 2τ/h(r′) for the computed mean's distance from the exact one (`docs/proofs/frechet_mean_sensitivity.md`, "The
/// computed mean is not the exact mean"). One rule for every private mean (Laplace, Gaussian, log-Euclidean).
pub fn certified_mean_sensitivity<M: Manifold + ?Sized>(
    manifold: &M,
    center: &M::Point,
    radius: f64,
    n: usize,
    options: KarcherOptions,
) -> Fallible<(KarcherStop<M::Point>, f64)>
where
    M::Point: Clone,
{
    let radius = check_radius(manifold, radius)?;
    check_positive(Param::Tolerance, options.tolerance)?;
    let stop = KarcherStop::in_ball(manifold, center, radius, n, options)?;
    let widened = check_radius(manifold, stop.radius())?;
    let h = h_factor(widened, manifold.curvature_bound());
    let sensitivity = frechet_sensitivity(manifold, widened, n)? + 2.0 * stop.tolerance() / h;
    Ok((stop, sensitivity))
}

impl<P: Clone> KarcherStop<P> {
    /// The stop test for n rows whose computed distance from `center` is at most `radius`.
    /// [`Error::NumericalLimit`] where no finite tolerance can be certified (a sphere's reach of π, an SPD
    /// centre too ill-conditioned for the whitening to be bounded), or the tolerance it needs would move the
    /// mean by more than 1 % of the radius.
    pub fn in_ball<M: Manifold<Point = P> + ?Sized>(
        m: &M,
        center: &P,
        radius: f64,
        n: usize,
        options: KarcherOptions,
    ) -> Fallible<Self> {
        let requested = check_positive(Param::Tolerance, options.tolerance)?;
        if !(radius >= 0.0 && radius.is_finite()) {
            return Err(Error::InvalidParameter {
                name: Param::Radius,
                value: radius,
                reason: "must be finite and ≥ 0",
            });
        }
        let widened = add_up(radius, m.distance_error(center, 0.0, radius));
        // The stopping iterate lies within τ/h of the exact mean, which lies in B_r′(m0): within `offset` of m0
        // once τ/h and the error of ρ̂(m0, m̂) fit in the slack (checked below).
        let slack = 0.01 * widened + 1e-6;
        let offset = widened + slack;
        let floor = m.log_error(center, offset, offset + widened).floor(public_depth(n));
        let tolerance = requested.max(4.0 * floor);
        let h = super::sensitivity::h_factor(widened, m.curvature_bound());
        let fits = tolerance / h <= 0.5 * slack && m.distance_error(center, 0.0, offset) <= 0.5 * slack;
        if !(tolerance.is_finite() && widened.is_finite() && fits) {
            return Err(Error::NumericalLimit(format!(
                "the Fréchet mean of {n} points within {radius} of this centre cannot be certified in double \
                 precision: the proven error of the logs and of their sum (at least {floor:.3e}) or of the \
                 distances is too large; use a smaller radius or (SPD) a better-conditioned centre"
            )));
        }
        Ok(KarcherStop {
            center: center.clone(),
            radius: widened,
            tolerance,
            requested,
            max_iterations: options.max_iterations,
        })
    }

    /// Whether `p`, reached from an iterate in B_r′(m0) by a step of length ≤ r′ (so ρ(m0, p) ≤ 2r′), lies
    /// in B_r′(m0): its computed distance from the centre plus that distance's proven error at reach 2r′ is
    /// at most r′. The ball where a Newton step may land ([`karcher_newton_step`]).
    pub fn holds<M: Manifold<Point = P> + ?Sized>(&self, m: &M, p: &P) -> bool {
        let error = m.distance_error(&self.center, 0.0, 2.0 * self.radius);
        let d = add_up(m.distance(&self.center, p), error);
        d <= self.radius
    }

    /// τ: the certified bound the iteration stops at (≥ the tolerance asked for).
    pub fn tolerance(&self) -> f64 {
        self.tolerance
    }

    /// The tolerance asked for.
    pub fn requested(&self) -> f64 {
        self.requested
    }

    /// r′ = r + e_ρ: a row whose computed distance from the centre is ≤ r lies within r′ of it.
    pub fn radius(&self) -> f64 {
        self.radius
    }

    /// The iteration limit.
    pub fn max_iterations(&self) -> usize {
        self.max_iterations
    }

    /// (The certified bound on the exact gradient norm at `base`, its floor e_ℓ + γ_d·T) for a gradient whose
    /// computed norm is `computed_norm`, with `len` coordinates, summed to depth `depth`; ∞ where `base` is
    /// too far from the ball for the logs to be bounded.
    pub fn certify<M: Manifold<Point = P> + ?Sized>(
        &self,
        m: &M,
        base: &P,
        computed_norm: f64,
        len: usize,
        depth: u32,
    ) -> (f64, f64) {
        let d = m.distance(&self.center, base);
        let within = 2.0 * d + 1e-6;
        let to_center = add_up(d, m.distance_error(&self.center, 0.0, within));
        if to_center.is_nan() || to_center > within {
            return (f64::INFINITY, f64::INFINITY);
        }
        // ρ(m̂, x_i) ≤ ρ(m̂, m0) + ρ(m0, x_i) ≤ to_center + r′.
        let logs = m.log_error(base, 0.0, add_up(to_center, self.radius));
        (certified_gradient_bound(computed_norm, len, depth, logs), logs.floor(depth))
    }
}

/// Checks that every point is within `radius` of `center` (Assumption 1 of Reimherr et al.), naming the first
/// point that is not.
pub fn check_ball<M: Manifold + ?Sized>(m: &M, xs: &[M::Point], center: &M::Point, radius: f64) -> Fallible<()> {
    for (index, x) in xs.iter().enumerate() {
        let distance = m.distance(center, x);
        // NaN distances (never from validated points) count as outside.
        if distance.is_nan() || distance > radius {
            return Err(Error::OutsideBall { index, distance, radius });
        }
    }
    Ok(())
}

/// The Fréchet mean of `xs` by the Karcher iteration started at `start` (a point near the data: the ball's
/// centre, or the first point), stopped by [`KarcherStop::in_ball`] around `start` with the data's largest
/// computed distance from it as the radius (one pass of distances).
pub fn frechet_mean<M: Manifold + ?Sized>(
    m: &M,
    xs: &[M::Point],
    start: &M::Point,
    options: KarcherOptions,
) -> Fallible<FrechetMean<M::Point>> {
    if xs.is_empty() {
        return Err(Error::InvalidParameter { name: Param::N, value: 0.0, reason: "a mean needs at least one point" });
    }
    let radius = xs.iter().map(|x| m.distance(start, x)).fold(0.0, |a: f64, d| if d.is_nan() { d } else { a.max(d) });
    let stop = KarcherStop::in_ball(m, start, radius, xs.len(), options)?;
    frechet_mean_within(m, xs, start, &stop)
}

/// The Fréchet mean of `xs` (each within the stop test's ball) from `start`, stopped by `stop`. The logs are
/// summed by [`sum_log_pairwise`] (blocks of rows, block sums added pairwise), whose depth the test uses.
pub fn frechet_mean_within<M: Manifold + ?Sized>(
    m: &M,
    xs: &[M::Point],
    start: &M::Point,
    stop: &KarcherStop<M::Point>,
) -> Fallible<FrechetMean<M::Point>> {
    if xs.is_empty() {
        return Err(Error::InvalidParameter { name: Param::N, value: 0.0, reason: "a mean needs at least one point" });
    }
    let mut lengths = StepLengths::for_curvature(m.curvature_bound());
    let mut mean = start.clone();
    let mut iterations = 0;
    loop {
        let (sum, depth) = sum_log_pairwise(m, &mean, xs);
        let gradient = sum / xs.len() as f64;
        // An undone step goes back to the previous point, whose sum had the same depth (same rows, same order).
        let (base, gradient, length) = lengths.next(mean, gradient, stop.tolerance());
        match karcher_step_of_length(m, &base, &gradient, depth, length, iterations, stop)? {
            KarcherStep::Converged { gradient_norm, bound } => {
                return Ok(FrechetMean { mean: base, iterations, gradient_norm, gradient_bound: bound });
            }
            KarcherStep::Next(next) => mean = next,
        }
        iterations += 1;
    }
}

/// The step lengths α of a Karcher iteration on one machine (m ← exp_m(α·g), g the gradient at m).
///
/// The first two steps have length 1. After that, α is Barzilai and Borwein's (1988) secant length
/// α_k = α_{k−1}·⟨g_{k−1}, g_{k−1}⟩/⟨g_{k−1}, g_{k−1} − g_k⟩, which fits the curvature along the last step, with
/// the gradients compared in the coordinates each manifold gives them (whitened on SPD, body rotation vectors
/// on SO(3), ambient vectors on spheres; they differ from parallel transport by a second-order term), kept in
/// [1/2, 2], and 1 when the secant is not positive. A step of length ≠ 1 after which the gradient norm grew is
/// undone: the iteration goes on from the point before it with unit steps only, which is then the classic
/// Karcher iteration. The returned mean is whatever point first has a gradient norm within the tolerance.
///
/// Secant lengths are used only where the curvature is ≤ 0 ([`StepLengths::for_curvature`]): there the Fréchet
/// function is strictly convex everywhere (second derivative ≥ 1), so any point with gradient norm g lies within
/// g of the one mean, wherever the steps went. With positive curvature (spheres, SO(3)) that bound holds only in
/// the convex ball around the data, which the classic unit step stays in (Afsari, Tron & Vidal 2013); there
/// the steps stay 1.
#[derive(Debug, Clone)]
pub struct StepLengths<P> {
    /// The point, gradient and length of the last step, and that gradient's norm.
    last: Option<(P, DVector<f64>, f64, f64)>,
    steps: usize,
    unit_only: bool,
}

impl<P> StepLengths<P> {
    /// Step lengths for a manifold whose sectional curvatures are at most `curvature_bound`
    /// ([`Manifold::curvature_bound`]): secant lengths when it is ≤ 0, unit steps otherwise.
    pub fn for_curvature(curvature_bound: f64) -> Self {
        StepLengths { last: None, steps: 0, unit_only: curvature_bound > 0.0 || curvature_bound.is_nan() }
    }
}

impl<P: Clone> StepLengths<P> {
    /// Given the gradient at the current point, the point and gradient to step from (the previous ones when the
    /// last step is undone) and the step's length. A gradient within `tolerance` is returned as it is (the
    /// iteration stops there).
    pub fn next(&mut self, point: P, gradient: DVector<f64>, tolerance: f64) -> (P, DVector<f64>, f64) {
        let norm = gradient.norm();
        // Within the tolerance (or NaN): the caller's stopping test decides.
        if norm <= tolerance || norm.is_nan() {
            return (point, gradient, 1.0);
        }
        let (point, gradient, norm, length) = match self.last.take() {
            Some((p, g, length, n)) if length != 1.0 && norm > n => {
                self.unit_only = true;
                (p, g, n, 1.0)
            }
            Some((_, g_last, length_last, _)) if !self.unit_only && self.steps >= 2 => {
                let secant = g_last.dot(&(&g_last - &gradient));
                let length =
                    if secant > 0.0 { (length_last * g_last.norm_squared() / secant).clamp(0.5, 2.0) } else { 1.0 };
                (point, gradient, norm, length)
            }
            _ => (point, gradient, norm, 1.0),
        };
        self.steps += 1;
        self.last = Some((point.clone(), gradient.clone(), length, norm));
        (point, gradient, length)
    }
}

/// The outcome of one Karcher step.
#[derive(Debug, Clone, PartialEq)]
pub enum KarcherStep<P> {
    /// The certified bound on the exact gradient norm at the base point is within the tolerance: the base
    /// point is the mean.
    Converged {
        /// ‖(1/n) Σ log_base x_i‖ as computed.
        gradient_norm: f64,
        /// The certified bound ([`KarcherStop::certify`]).
        bound: f64,
    },
    /// The next point, exp_base(α·(1/n) Σ log_base x_i) (α = 1 in [`karcher_step`]).
    Next(P),
}

/// One step of the Karcher iteration at `base` from its gradient (1/n) Σ log_base(x_i), whose sum has
/// summation depth `depth` (however it was summed: [`sum_log_pairwise`] on one machine, chunk sums merged on
/// many), after `iterations` earlier steps. [`Error::NotConverged`] once `stop`'s iteration limit is reached;
/// [`Error::NumericalLimit`] where the computed gradient is within the tolerance but the bound's floor is not
/// (double precision cannot certify this sum: iterating further would not help).
pub fn karcher_step<M: Manifold + ?Sized>(
    m: &M,
    base: &M::Point,
    gradient: &DVector<f64>,
    depth: u32,
    iterations: usize,
    stop: &KarcherStop<M::Point>,
) -> Fallible<KarcherStep<M::Point>> {
    karcher_step_of_length(m, base, gradient, depth, 1.0, iterations, stop)
}

/// [`karcher_step`] with a Newton step exp_base(H⁻¹·g) in place of the unit step where one is safe: the
/// manifold gives a direction ([`Manifold::newton_direction`], H = `hessian`, the mean Hessian of ½ρ² at
/// `base`), it is no longer than r′, and it lands in B_r′(m0) by a certified test ([`KarcherStop::holds`]).
/// Otherwise the unit step, as [`karcher_step`]. The stop test is the same: Newton steps change only the path,
/// and every iterate stays in B_r′(m0), which is all the certified stop needs
/// (`docs/proofs/frechet_mean_sensitivity.md`, "Newton steps").
pub fn karcher_newton_step<M: Manifold + ?Sized>(
    m: &M,
    base: &M::Point,
    gradient: &DVector<f64>,
    hessian: &nalgebra::DMatrix<f64>,
    depth: u32,
    iterations: usize,
    stop: &KarcherStop<M::Point>,
) -> Fallible<KarcherStep<M::Point>> {
    let unit = karcher_step(m, base, gradient, depth, iterations, stop)?;
    if let KarcherStep::Next(_) = &unit
        && let Some(direction) = m.newton_direction(base, gradient, hessian)
        && direction.norm() <= stop.radius()
    {
        let next = m.exp(base, &direction);
        if stop.holds(m, &next) {
            return Ok(KarcherStep::Next(next));
        }
    }
    Ok(unit)
}

/// [`karcher_step`] with the step exp_base(`length`·gradient) (see [`StepLengths`]); the stopping test is the
/// same.
pub fn karcher_step_of_length<M: Manifold + ?Sized>(
    m: &M,
    base: &M::Point,
    gradient: &DVector<f64>,
    depth: u32,
    length: f64,
    iterations: usize,
    stop: &KarcherStop<M::Point>,
) -> Fallible<KarcherStep<M::Point>> {
    let tolerance = stop.tolerance();
    let gradient_norm = gradient.norm();
    // The bound is never below the computed norm: certify only once that is within the tolerance.
    if gradient_norm <= tolerance {
        let (bound, floor) = stop.certify(m, base, gradient_norm, gradient.len(), depth);
        if bound <= tolerance {
            return Ok(KarcherStep::Converged { gradient_norm, bound });
        }
        if floor >= tolerance {
            return Err(Error::NumericalLimit(format!(
                "the Karcher iteration reached a computed gradient norm of {gradient_norm:.3e}, but the proven error \
                 of its logs and of their sum (summation depth {depth}) is {floor:.3e}, above the tolerance \
                 {tolerance:.3e}: double precision cannot certify this mean (sum the passes pairwise, or use \
                 fewer rows per merge)"
            )));
        }
    }
    if iterations >= stop.max_iterations() || !gradient_norm.is_finite() {
        return Err(Error::NotConverged { iterations, gradient_norm, tolerance });
    }
    if length == 1.0 {
        return Ok(KarcherStep::Next(m.exp(base, gradient)));
    }
    Ok(KarcherStep::Next(m.exp(base, &(gradient * length))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifold::{So3, SpdAffine, Sphere};
    use nalgebra::{DMatrix, UnitQuaternion, Vector3};

    /// A deterministic number in [−1, 1] from two indices.
    fn wiggle(i: usize, j: usize) -> f64 {
        ((i * 7919 + j * 104_729) as f64 * 0.618_033_988_749_895).fract() * 2.0 - 1.0
    }

    /// The classic Karcher iteration (unit steps only), for comparison.
    fn unit_steps<M: Manifold>(m: &M, xs: &[M::Point], start: &M::Point) -> FrechetMean<M::Point> {
        let radius = xs.iter().map(|x| m.distance(start, x)).fold(0.0, f64::max);
        let stop = KarcherStop::in_ball(m, start, radius, xs.len(), KarcherOptions::default()).unwrap();
        let (mut mean, mut iterations) = (start.clone(), 0);
        loop {
            let (sum, depth) = sum_log_pairwise(m, &mean, xs);
            match karcher_step(m, &mean, &(sum / xs.len() as f64), depth, iterations, &stop).unwrap() {
                KarcherStep::Converged { gradient_norm, bound } => {
                    return FrechetMean { mean, iterations, gradient_norm, gradient_bound: bound };
                }
                KarcherStep::Next(next) => mean = next,
            }
            iterations += 1;
        }
    }

    /// Within the tolerance, never more steps than the unit-step iteration, and on SPD (whose unit step
    /// overshoots) at least two fewer; both means are within 2·tolerance (h = 1) of each other.
    #[test]
    fn step_lengths_reach_the_same_mean_in_fewer_steps() {
        for k in [2, 3] {
            let m = SpdAffine::new(k).unwrap();
            let xs: Vec<DMatrix<f64>> = (0..400)
                .map(|i| {
                    let g = DMatrix::from_fn(k, k, |r, c| 0.5 * wiggle(i, r * k + c) + if r == c { 1.0 } else { 0.0 });
                    &g * g.transpose()
                })
                .collect();
            let start = xs.iter().fold(DMatrix::zeros(k, k), |acc, x| acc + x) / xs.len() as f64;
            let (fast, unit) =
                (frechet_mean(&m, &xs, &start, KarcherOptions::default()).unwrap(), unit_steps(&m, &xs, &start));
            // The certified tolerance on SPD is above 1e-12 (the eigensolvers' proven error dominates).
            let radius = xs.iter().map(|x| m.distance(&start, x)).fold(0.0, f64::max);
            let tolerance =
                KarcherStop::in_ball(&m, &start, radius, xs.len(), KarcherOptions::default()).unwrap().tolerance();
            assert!(fast.gradient_norm <= fast.gradient_bound && fast.gradient_bound <= tolerance);
            assert!(unit.gradient_norm <= unit.gradient_bound && unit.gradient_bound <= tolerance);
            assert!(
                fast.iterations + 2 <= unit.iterations,
                "SPD({k}): {} vs {} steps",
                fast.iterations,
                unit.iterations
            );
            assert!(m.distance(&fast.mean, &unit.mean) <= fast.gradient_bound + unit.gradient_bound, "SPD({k})");
        }
        let s2 = Sphere::new(3).unwrap();
        let xs: Vec<DVector<f64>> = (0..400)
            .map(|i| DVector::from_vec(vec![0.3 * wiggle(i, 0), 0.3 * wiggle(i, 1), 1.0]).normalize())
            .collect();
        let (fast, unit) =
            (frechet_mean(&s2, &xs, &xs[0], KarcherOptions::default()).unwrap(), unit_steps(&s2, &xs, &xs[0]));
        assert!(fast.gradient_norm <= 1e-12 && fast.iterations <= unit.iterations);
        assert!(s2.distance(&fast.mean, &unit.mean) <= 4e-12);
        let rs: Vec<UnitQuaternion<f64>> =
            (0..400).map(|i| UnitQuaternion::from_scaled_axis(Vector3::from_fn(|j, _| 0.4 * wiggle(i, j)))).collect();
        let (fast, unit) =
            (frechet_mean(&So3, &rs, &rs[0], KarcherOptions::default()).unwrap(), unit_steps(&So3, &rs, &rs[0]));
        assert!(fast.gradient_norm <= 1e-12 && fast.iterations <= unit.iterations);
        assert!(So3.distance(&fast.mean, &unit.mean) <= 4e-12);
        // Positive curvature keeps the classic unit step.
        let mut lengths = StepLengths::for_curvature(1.0);
        for (i, g) in [1.0, 0.1, -0.01, 0.001].into_iter().enumerate() {
            assert_eq!(lengths.next(i, DVector::from_vec(vec![g]), 1e-12).2, 1.0);
        }
    }

    /// A data set on the circle whose rows summed one after another (as `mean_log`, and the stop test before
    /// it, did) give a gradient of exactly 0 at the start, while the exact gradient there is 1.67e-12 > τ:
    /// 2^20 rows at angle +θ, 2^20 at 5e-12 rad (each absorbed by the partial sum 2^20·θ ≈ 98304, whose half
    /// ulp is 7.3e-12), 2^20 at −θ. θ = 3/32 is an exact log (found by nudging sin θ), so ±θ cancel exactly
    /// in any order and the exact mean is at 5e-12/3 rad. The old test stopped at the start (angle 0, 1.67e-12
    /// from the exact mean); the certified one sums pairwise and stops within τ/h = 1e-12 of it.
    #[test]
    fn the_stop_test_certifies_the_exact_gradient() {
        let circle = Sphere::new(2).unwrap();
        let start = DVector::from_vec(vec![1.0, 0.0]);
        let theta = 3.0 / 32.0;
        let mut up = DVector::from_vec(vec![f64::cos(theta), f64::sin(theta)]);
        for step in 0..2000 {
            if circle.log(&start, &up)[1] == theta {
                break;
            }
            assert!(step < 1999, "no exact log near θ");
            let s = up[1];
            up[1] = if circle.log(&start, &up)[1] < theta { s.next_up() } else { s.next_down() };
        }
        let down = DVector::from_vec(vec![up[0], -up[1]]);
        assert_eq!(circle.log(&start, &down)[1], -theta);
        let tiny = DVector::from_vec(vec![1.0, 5e-12]);
        assert_eq!(circle.log(&start, &tiny)[1], 5e-12);
        let block = 1 << 20;
        let xs: Vec<DVector<f64>> = std::iter::repeat_n(up, block)
            .chain(std::iter::repeat_n(tiny, block))
            .chain(std::iter::repeat_n(down, block))
            .collect();
        // Summed one after another, the computed gradient at the start is exactly 0: the old stop test passed.
        assert_eq!(circle.mean_log(&start, &xs).norm(), 0.0);
        let exact_mean_angle = 5e-12 / 3.0;
        let mean = frechet_mean(&circle, &xs, &start, KarcherOptions::default()).unwrap();
        let stop = KarcherStop::in_ball(&circle, &start, 0.1, xs.len(), KarcherOptions::default()).unwrap();
        assert_eq!(stop.tolerance(), 1e-12);
        // On the circle (h = 1) the exact gradient at angle φ is the exact mean angle minus φ.
        let angle = mean.mean[1].atan2(mean.mean[0]);
        let exact_gradient = (exact_mean_angle - angle).abs();
        assert!(exact_gradient <= mean.gradient_bound, "{exact_gradient:e} > {:e}", mean.gradient_bound);
        assert!(mean.gradient_bound <= 1e-12, "{:e}", mean.gradient_bound);
        assert!(mean.iterations >= 1);
    }

    /// Two unit steps, then secant lengths (clamped to [1/2, 2]); a step of length ≠ 1 after which the gradient
    /// grew is undone, and only unit steps follow.
    #[test]
    fn step_lengths_undo_a_step_that_made_things_worse() {
        let g = |x: f64, y: f64| DVector::from_vec(vec![x, y]);
        let mut lengths = StepLengths::for_curvature(0.0);
        assert_eq!(lengths.next(0, g(1.0, 0.0), 1e-12), (0, g(1.0, 0.0), 1.0));
        assert_eq!(lengths.next(1, g(0.1, 0.0), 1e-12), (1, g(0.1, 0.0), 1.0));
        // Secant: 1·0.01/(0.1·(0.1 + 0.01)) = 0.909…: the unit step overshot.
        let (point, _, length) = lengths.next(2, g(-0.01, 0.0), 1e-12);
        assert_eq!(point, 2);
        assert!((length - 0.01 / 0.011).abs() < 1e-12, "{length}");
        // The gradient grew after that step: back to point 2 with a unit step, and unit steps from then on.
        assert_eq!(lengths.next(3, g(0.5, 0.0), 1e-12), (2, g(-0.01, 0.0), 1.0));
        assert_eq!(lengths.next(4, g(-0.001, 0.0), 1e-12).2, 1.0);
        assert_eq!(lengths.next(5, g(1e-5, 0.0), 1e-12).2, 1.0);
        // Within the tolerance: returned as it is.
        assert_eq!(lengths.next(6, g(1e-13, 0.0), 1e-12), (6, g(1e-13, 0.0), 1.0));
        // A secant that is not positive gives a unit step; a huge one is clamped.
        let mut lengths = StepLengths::for_curvature(0.0);
        lengths.next(0, g(1.0, 0.0), 1e-12);
        lengths.next(1, g(0.1, 0.0), 1e-12);
        assert_eq!(lengths.next(2, g(0.2, 0.0), 1e-12).2, 1.0);
        let mut lengths = StepLengths::for_curvature(0.0);
        lengths.next(0, g(1.0, 0.0), 1e-12);
        lengths.next(1, g(0.1, 0.0), 1e-12);
        assert_eq!(lengths.next(2, g(0.099, 0.0), 1e-12).2, 2.0);
    }
}
