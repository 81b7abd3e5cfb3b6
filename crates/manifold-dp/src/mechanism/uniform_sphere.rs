//! The uniform baseline: release a uniform point of S^{n−1}, whatever the input. Perfectly private
//! (pure DP with ε = 0); the floor every useful mechanism must beat.

use crate::error::Fallible;
use crate::mechanism::Mechanism;
use crate::mechanism::Unprotected;
use crate::mechanism::sphere::check_point_dim;
use crate::privacy::Guarantee;
use nalgebra::DVector;
use rand::{CryptoRng, Rng, RngExt};
use rand_distr::StandardNormal;

/// Uniform noise on S^{n−1}: 0-DP.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UniformSphere {
    dim: usize,
    rounding: crate::privacy::float_safety::Rounding,
}

impl UniformSphere {
    /// The same mechanism with releases rounded again onto a coarser public grid of step at most `radians`
    /// ([`crate::privacy::float_safety::Rounding::coarsened`]): post-processing, the guarantee is unchanged
    /// but names the coarser grid.
    pub fn with_output_step(mut self, radians: f64) -> crate::error::Fallible<Self> {
        self.rounding = self.rounding.coarsened(radians)?;
        Ok(self)
    }

    /// The baseline on S^{dim−1} (dim ≥ 2).
    pub fn new(dim: usize) -> Fallible<Self> {
        let dim = crate::analysis::sphere_angle::check_dim(dim)?;
        Ok(UniformSphere { dim, rounding: crate::privacy::float_safety::Rounding::for_directions(dim, 0.0, 0.0) })
    }

    /// A uniform point: a standard Gaussian vector, normalised (redrawn in the null event of ~0).
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> DVector<f64> {
        loop {
            let g = DVector::<f64>::from_fn(self.dim, |_, _| rng.sample(StandardNormal));
            let n = g.norm();
            if n > 1e-150 {
                return g / n;
            }
        }
    }
}

impl Mechanism for UniformSphere {
    type Point = DVector<f64>;

    fn check_input(&self, x: &DVector<f64>) -> crate::Fallible<()> {
        crate::mechanism::sphere::check_sphere_input(x, self.dim)
    }

    fn guarantee(&self) -> Guarantee {
        Guarantee::pure(0.0)
    }

    fn privatize_unprotected<R: CryptoRng + ?Sized>(
        &self,
        x: &DVector<f64>,
        rng: &mut R,
        _: Unprotected,
    ) -> DVector<f64> {
        check_point_dim(x, self.dim);
        self.sample(rng)
    }

    /// The uniform law's release does not depend on the input at all; it is rounded like every release.
    fn snap(&self, z: &mut DVector<f64>) {
        self.rounding.snap_direction(z.as_mut_slice())
    }

    fn log_density(&self, _z: &DVector<f64>, _x: &DVector<f64>) -> f64 {
        0.0
    }

    fn name(&self) -> &'static str {
        "uniform"
    }
}
