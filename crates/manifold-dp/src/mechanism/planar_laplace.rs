//! The planar Laplace baseline (geo-indistinguishability, Andrés et al. 2013) applied in the tangent space
//! at a fixed reference point p of S^{n−1} and mapped back: release exp_p(log_p x + V), V with density
//! ∝ e^{−ε‖v‖} on T_pS^{n−1} ≅ R^{n−1}. It is ε-private for the distance ‖log_p x − log_p x′‖ (the
//! [`Metric::TangentPlane`]), not for the great-circle distance: the log map stretches distances across
//! geodesics by up to θ/sin θ at angle θ from p, without bound near −p (`docs/proofs/planar_laplace_tangent.md`).

use crate::error::{Error, Fallible, check_positive};
use crate::mechanism::Mechanism;
use crate::mechanism::sphere::check_point_dim;
use crate::privacy::{Guarantee, Metric};
use crate::sample::sphere::point_at_angle_into;
use crate::space::sphere::surface_distance;
use nalgebra::DVector;
use rand::CryptoRng;
use rand_distr::{Distribution, Gamma};

/// Planar (tangent-space) Laplace noise at a reference point, ε-private in [`Metric::TangentPlane`].
#[derive(Debug, Clone)]
pub struct TangentPlanarLaplace {
    epsilon: f64,
    reference: DVector<f64>,
    /// The tangent direction used for the antipode −p, where the log map has no unique value.
    antipode_direction: DVector<f64>,
    radius: Gamma<f64>,
    rounding: crate::privacy::float_safety::Rounding,
}

impl TangentPlanarLaplace {
    /// The same mechanism with releases rounded again onto a coarser public grid of step at most `radians`
    /// ([`crate::privacy::float_safety::Rounding::coarsened`]): post-processing, the guarantee is unchanged
    /// but names the coarser grid.
    pub fn with_output_step(mut self, radians: f64) -> crate::error::Fallible<Self> {
        self.rounding = self.rounding.coarsened(radians)?;
        Ok(self)
    }

    /// The mechanism at `reference` (a unit vector of dimension ≥ 2; see
    /// [`crate::space::sphere::unit_vector`]) for `epsilon` (finite, > 0) per radian of tangent-plane
    /// distance. The noise radius is Gamma(n − 1, 1/ε) and its direction uniform in the tangent space.
    pub fn new(reference: DVector<f64>, epsilon: f64) -> Fallible<Self> {
        let epsilon = check_positive("epsilon", epsilon)?;
        let dim = crate::space::sphere::check_dim(reference.len())?;
        if ((reference.norm() - 1.0).abs()).is_nan() || (reference.norm() - 1.0).abs() > 1e-12 {
            return Err(Error::NotUnitVector { norm: reference.norm(), tolerance: 1e-12 });
        }
        // A fixed tangent direction: the coordinate axis least aligned with p, projected and normalised.
        let axis = reference.iamin();
        let mut e = DVector::zeros(dim);
        e[axis] = 1.0;
        let e = &e - &reference * reference[axis];
        let antipode_direction = e.normalize();
        let radius = Gamma::new((dim - 1) as f64, 1.0 / epsilon).map_err(|_| Error::InvalidParameter {
            name: "epsilon",
            value: epsilon,
            reason: "gives an invalid noise radius law",
        })?;
        // On the sphere the release density is e^{−ε‖w − log_p x‖}·(‖w‖/sin‖w‖)^{n−2}: log-Lipschitz with
        // ε + (n − 2) within π/2 of p, unbounded near −p (docs/proofs/float_safety.md §5 states this gap).
        let rounding = crate::privacy::float_safety::Rounding::for_directions(dim, epsilon, epsilon + (dim - 2) as f64);
        Ok(TangentPlanarLaplace { epsilon, reference, antipode_direction, radius, rounding })
    }

    /// ε per radian of tangent-plane distance.
    pub fn epsilon(&self) -> f64 {
        self.epsilon
    }

    /// log_p x: the tangent vector at p of length d∠(p, x) pointing towards x.
    pub fn log_map(&self, x: &DVector<f64>) -> DVector<f64> {
        let p = &self.reference;
        let d = surface_distance(p, x);
        let v = x - p * p.dot(x);
        let n = v.norm();
        if n > 0.0 {
            v * (d / n)
        } else if d < 1.0 {
            DVector::zeros(p.len())
        } else {
            &self.antipode_direction * d
        }
    }

    /// exp_p w = cos‖w‖ p + sin‖w‖ w/‖w‖.
    pub fn exp_map(&self, w: &DVector<f64>) -> DVector<f64> {
        let a = w.norm();
        if a == 0.0 {
            return self.reference.clone();
        }
        let (s, c) = a.sin_cos();
        let z = &self.reference * c + w * (s / a);
        let n = z.norm();
        z / n
    }
}

impl Mechanism for TangentPlanarLaplace {
    type Point = DVector<f64>;

    fn guarantee(&self) -> Guarantee {
        self.rounding.guarantee(self.epsilon, Metric::TangentPlane)
    }

    /// Panics if `x` does not have the reference point's dimension (a programming error).
    fn privatize_unprotected<R: CryptoRng + ?Sized>(&self, x: &DVector<f64>, rng: &mut R) -> DVector<f64> {
        check_point_dim(x, self.reference.len());
        let r = self.radius.sample(rng);
        let mut u = DVector::zeros(self.reference.len());
        point_at_angle_into(self.reference.as_slice(), 0.0, 1.0, u.as_mut_slice(), rng);
        self.exp_map(&(self.log_map(x) + u * r))
    }

    fn snap(&self, z: &mut DVector<f64>) {
        self.rounding.snap_direction(z.as_mut_slice())
    }

    /// −ε‖log_p z − log_p x‖: the Jacobian of exp_p does not depend on x, so this is the log-likelihood up
    /// to a constant (exp_p is not injective beyond radius π, where the sum over pre-images would be
    /// needed; it is exact for z's only pre-image inside the ball of radius π).
    fn log_density(&self, z: &DVector<f64>, x: &DVector<f64>) -> f64 {
        -self.epsilon * (self.log_map(z) - self.log_map(x)).norm()
    }

    fn name(&self) -> &'static str {
        "planar-laplace"
    }
}
