//! The Fréchet (Karcher) mean x̄ = argmin_m Σ ρ²(m, x_i) by Riemannian gradient descent:
//! m ← exp_m(α·(1/n) Σ log_m x_i), stopped when the gradient norm ‖(1/n) Σ log_m x_i‖ is at most the stated
//! tolerance. Inside a ball of radius r < r* the Fréchet function is strictly geodesically convex with
//! second derivative ≥ h(r, κ), so a gradient norm g places m within g/h of the exact mean (see
//! `docs/proofs/frechet_mean_sensitivity.md`, which also accounts for that residual in the sensitivity). Only
//! the gradient norm at the returned point matters there, not the path: the step length α is 1 (the classic
//! Karcher step) or, where the curvature is ≤ 0, Barzilai–Borwein's ([`StepLengths`]), which takes 5–6 passes
//! where the unit step takes 9 on SPD data, whose Hessian (≥ 1 in negative curvature) makes the unit step
//! overshoot by a nearly constant factor.

use super::Manifold;
use crate::Fallible;
use crate::error::{Error, check_positive};
use nalgebra::DVector;

/// Stopping rule of the Karcher iteration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KarcherOptions {
    /// Stop when ‖(1/n) Σ log_m x_i‖ ≤ tolerance (in the manifold's distance unit).
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
    /// ‖(1/n) Σ log_mean x_i‖ at the returned mean.
    pub gradient_norm: f64,
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
/// centre, or the first point).
pub fn frechet_mean<M: Manifold + ?Sized>(
    m: &M,
    xs: &[M::Point],
    start: &M::Point,
    options: KarcherOptions,
) -> Fallible<FrechetMean<M::Point>> {
    if xs.is_empty() {
        return Err(Error::InvalidParameter { name: "n", value: 0.0, reason: "a mean needs at least one point" });
    }
    check_positive("tolerance", options.tolerance)?;
    let mut lengths = StepLengths::for_curvature(m.curvature_bound());
    let mut mean = start.clone();
    let mut iterations = 0;
    loop {
        let gradient = m.mean_log(&mean, xs);
        let (base, gradient, length) = lengths.next(mean, gradient, options.tolerance);
        match karcher_step_of_length(m, &base, &gradient, length, iterations, options)? {
            KarcherStep::Converged { gradient_norm } => {
                return Ok(FrechetMean { mean: base, iterations, gradient_norm });
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
    /// ‖(1/n) Σ log_base x_i‖ ≤ tolerance: the base point is the mean.
    Converged {
        /// ‖(1/n) Σ log_base x_i‖.
        gradient_norm: f64,
    },
    /// The next point, exp_base(α·(1/n) Σ log_base x_i) (α = 1 in [`karcher_step`]).
    Next(P),
}

/// One step of the Karcher iteration at `base` from its gradient (1/n) Σ log_base(x_i) (however it was
/// summed: [`Manifold::mean_log`] on one machine, [`Manifold::sum_log`] per chunk on many), after `iterations`
/// earlier steps. [`Error::NotConverged`] once `options.max_iterations` steps did not reach the tolerance.
pub fn karcher_step<M: Manifold + ?Sized>(
    m: &M,
    base: &M::Point,
    gradient: &DVector<f64>,
    iterations: usize,
    options: KarcherOptions,
) -> Fallible<KarcherStep<M::Point>> {
    karcher_step_of_length(m, base, gradient, 1.0, iterations, options)
}

/// [`karcher_step`] with the step exp_base(`length`·gradient) (see [`StepLengths`]); the stopping test is the
/// same.
pub fn karcher_step_of_length<M: Manifold + ?Sized>(
    m: &M,
    base: &M::Point,
    gradient: &DVector<f64>,
    length: f64,
    iterations: usize,
    options: KarcherOptions,
) -> Fallible<KarcherStep<M::Point>> {
    let tolerance = check_positive("tolerance", options.tolerance)?;
    let gradient_norm = gradient.norm();
    if gradient_norm <= tolerance {
        return Ok(KarcherStep::Converged { gradient_norm });
    }
    if iterations >= options.max_iterations || !gradient_norm.is_finite() {
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
        let options = KarcherOptions::default();
        let (mut mean, mut iterations) = (start.clone(), 0);
        loop {
            match karcher_step(m, &mean, &m.mean_log(&mean, xs), iterations, options).unwrap() {
                KarcherStep::Converged { gradient_norm } => return FrechetMean { mean, iterations, gradient_norm },
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
            assert!(fast.gradient_norm <= 1e-12 && unit.gradient_norm <= 1e-12);
            assert!(
                fast.iterations + 2 <= unit.iterations,
                "SPD({k}): {} vs {} steps",
                fast.iterations,
                unit.iterations
            );
            assert!(m.distance(&fast.mean, &unit.mean) <= 2e-12, "SPD({k})");
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
