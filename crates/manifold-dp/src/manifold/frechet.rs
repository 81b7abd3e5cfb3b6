//! The Fréchet (Karcher) mean x̄ = argmin_m Σ ρ²(m, x_i) by Riemannian gradient descent with unit step:
//! m ← exp_m((1/n) Σ log_m x_i), stopped when the gradient norm ‖(1/n) Σ log_m x_i‖ is at most the stated
//! tolerance. Inside a ball of radius r < r* the Fréchet function is strictly geodesically convex with
//! second derivative ≥ h(r, κ), so a gradient norm g places m within g/h of the exact mean (see
//! `docs/proofs/frechet_mean_sensitivity.md`, which also accounts for that residual in the sensitivity).

use super::Manifold;
use crate::Fallible;
use crate::error::{Error, check_positive};

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
    let mut mean = start.clone();
    let mut iterations = 0;
    loop {
        match karcher_step(m, &mean, &m.mean_log(&mean, xs), iterations, options)? {
            KarcherStep::Converged { gradient_norm } => return Ok(FrechetMean { mean, iterations, gradient_norm }),
            KarcherStep::Next(next) => mean = next,
        }
        iterations += 1;
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
    /// The next point, exp_base((1/n) Σ log_base x_i).
    Next(P),
}

/// One step of the Karcher iteration at `base` from its gradient (1/n) Σ log_base(x_i) (however it was
/// summed: [`Manifold::mean_log`] on one machine, [`Manifold::sum_log`] per chunk on many), after `iterations`
/// earlier steps. [`Error::NotConverged`] once `options.max_iterations` steps did not reach the tolerance.
pub fn karcher_step<M: Manifold + ?Sized>(
    m: &M,
    base: &M::Point,
    gradient: &nalgebra::DVector<f64>,
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
    Ok(KarcherStep::Next(m.exp(base, gradient)))
}
