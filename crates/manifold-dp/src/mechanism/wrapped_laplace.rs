//! The wrapped Laplace baseline on the circle S¹: add Laplace noise of scale 1/ε to the angle and wrap.
//! The output density is ∝ Σ_k e^{−ε|z − x + 2πk|} ∝ cosh(ε(π − d(x, z))); the ratio for inputs x, x′ is at
//! most e^{ε d(x, x′)} with d the circular (great-circle) distance, so it is εd∠-private
//! (`docs/proofs/wrapped_laplace_circle.md`). Directional mechanisms beat it at equal ε (the paper's baseline).

use crate::analysis::WrappedLaplaceAngle;
use crate::error::Fallible;
use crate::error::Param;
use crate::mechanism::Mechanism;
use crate::mechanism::Unprotected;
use crate::mechanism::sphere::check_point_dim;
use crate::privacy::float_safety::Rounding;
use crate::privacy::{Guarantee, Metric};
use crate::sample::uniform::TruncatedExp;
use crate::space::sphere::surface_distance;
use nalgebra::DVector;
use rand::{CryptoRng, Rng, RngExt};
use std::f64::consts::{PI, TAU};

/// Wrapped Laplace noise on the circle, εd∠-private (ε per radian of circular distance).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WrappedLaplaceCircle {
    epsilon: f64,
    /// The noise's magnitude modulo 2π.
    wrapped: TruncatedExp,
    rounding: Rounding,
}

impl WrappedLaplaceCircle {
    /// The same mechanism with releases rounded again onto a coarser public grid of step at most `radians`
    /// ([`crate::privacy::float_safety::Rounding::coarsened`]): post-processing, the guarantee is unchanged
    /// but names the coarser grid.
    pub fn with_output_step(mut self, radians: f64) -> crate::error::Fallible<Self> {
        self.rounding = self.rounding.coarsened(radians)?;
        Ok(self)
    }

    /// The mechanism for `epsilon` (finite, > 0) per radian: Laplace scale 1/ε.
    pub fn new(epsilon: f64) -> Fallible<Self> {
        let epsilon = crate::error::check_epsilon_range(Param::Epsilon, epsilon)?;
        // The wrapped density is ε-log-Lipschitz per radian (a sum of ε-log-Lipschitz terms).
        Ok(WrappedLaplaceCircle {
            epsilon,
            wrapped: TruncatedExp::new(epsilon, TAU)?,
            rounding: Rounding::for_directions(2, epsilon, epsilon),
        })
    }

    /// ε per radian.
    pub fn epsilon(&self) -> f64 {
        self.epsilon
    }

    /// The law of the circular distance between release and input.
    pub fn angle_law(&self) -> WrappedLaplaceAngle {
        WrappedLaplaceAngle::new(self.epsilon).expect("epsilon validated at construction")
    }

    /// One Laplace(1/ε) draw reduced modulo 2π into (−2π, 2π): ±T with a fair sign and T ~ Exp(ε) truncated to
    /// [0, 2π] (Exp(ε) mod 2π has that law, by memorylessness), drawn by inversion at full precision at both
    /// ends, so the shift is within 52·2^-53·π of the exact one of the real uniform it reads for every ε,
    /// where a Laplace draw wrapped afterwards would lose absolute accuracy for small ε and never reach its
    /// tail for large ε (`docs/proofs/float_safety.md` §3f).
    pub fn sample_shift<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        let magnitude = self.wrapped.sample(rng);
        if rng.random::<bool>() { magnitude } else { -magnitude }
    }
}

impl Mechanism for WrappedLaplaceCircle {
    type Point = DVector<f64>;

    fn check_input(&self, x: &DVector<f64>) -> crate::Fallible<()> {
        crate::mechanism::sphere::check_sphere_input(x, 2)
    }

    fn guarantee(&self) -> Guarantee {
        self.rounding.guarantee(self.epsilon, Metric::SphereSurface)
    }

    /// Panics if `x` is not a point of R² (a programming error).
    fn privatize_unprotected<R: CryptoRng + ?Sized>(
        &self,
        x: &DVector<f64>,
        rng: &mut R,
        _: Unprotected,
    ) -> DVector<f64> {
        check_point_dim(x, 2);
        // Rotate x by the shift: wrapping is implicit.
        let (s, c) = self.sample_shift(rng).sin_cos();
        let z = DVector::from_column_slice(&[c * x[0] - s * x[1], s * x[0] + c * x[1]]);
        let n = z.norm();
        z / n
    }

    fn snap(&self, z: &mut DVector<f64>) {
        self.rounding.snap_direction(z.as_mut_slice())
    }

    fn log_density(&self, z: &DVector<f64>, x: &DVector<f64>) -> f64 {
        // ln cosh(ε(π − d)) up to a constant: ε(π − d) + ln(1 + e^{−2ε(π − d)}).
        let a = self.epsilon * (PI - surface_distance(z, x));
        a + (-2.0 * a).exp().ln_1p()
    }

    fn name(&self) -> &'static str {
        "wrapped-laplace"
    }
}
