//! Either SO(3) mechanism behind one type, chosen by name at run time (what a command line needs).

use crate::analysis::AngularLaw;
use crate::error::Fallible;
use crate::mechanism::Unprotected;
use crate::mechanism::{BinghamSo3, LaplaceSo3, Mechanism};
use crate::privacy::Guarantee;
use nalgebra::UnitQuaternion;
use rand::CryptoRng;

/// Which SO(3) mechanism.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum So3Kind {
    /// [`LaplaceSo3`].
    Laplace,
    /// [`BinghamSo3`].
    Bingham,
}

/// An SO(3) mechanism chosen at run time.
#[derive(Debug, Clone, PartialEq)]
pub enum So3Mechanism {
    /// Laplace.
    Laplace(LaplaceSo3),
    /// Bingham.
    Bingham(BinghamSo3),
}

impl So3Mechanism {
    /// The release's Rényi DP curve between any two rotations (`docs/proofs/renyi_local.md`).
    pub fn renyi_curve(&self) -> Fallible<crate::privacy::renyi::RdpCurve> {
        match self {
            So3Mechanism::Laplace(m) => m.renyi_curve(),
            So3Mechanism::Bingham(m) => m.renyi_curve(),
        }
    }

    /// The same mechanism with releases rounded again onto a coarser grid of step at most `radians` of
    /// rotation angle (post-processing; see [`LaplaceSo3::with_output_step`]).
    pub fn with_output_step(self, radians: f64) -> Fallible<Self> {
        Ok(match self {
            So3Mechanism::Laplace(m) => So3Mechanism::Laplace(m.with_output_step(radians)?),
            So3Mechanism::Bingham(m) => So3Mechanism::Bingham(m.with_output_step(radians)?),
        })
    }

    /// The mechanism of `kind` for budget ε per radian (Bingham with the tight κ = 2ε).
    pub fn for_epsilon(kind: So3Kind, epsilon: f64) -> Fallible<Self> {
        Ok(match kind {
            So3Kind::Laplace => So3Mechanism::Laplace(LaplaceSo3::new(epsilon)?),
            So3Kind::Bingham => So3Mechanism::Bingham(BinghamSo3::new(epsilon)?),
        })
    }

    /// The Bingham mechanism with an explicit concentration κ (reproduction; guarantee κ/2).
    pub fn bingham_with_concentration(kappa: f64) -> Fallible<Self> {
        Ok(So3Mechanism::Bingham(BinghamSo3::with_concentration(kappa)?))
    }

    /// The Bingham concentration, if this is the Bingham mechanism.
    pub fn concentration(&self) -> Option<f64> {
        match self {
            So3Mechanism::Laplace(_) => None,
            So3Mechanism::Bingham(m) => Some(m.kappa()),
        }
    }

    /// Radius of indistinguishability at level p: the angle (radians) within which a fraction p of
    /// releases fall.
    pub fn radius(&self, p: f64) -> Fallible<f64> {
        match self {
            So3Mechanism::Laplace(m) => m.angle_law().quantile(p),
            So3Mechanism::Bingham(m) => m.angle_law().quantile(p),
        }
    }

    /// Density (per radian) of the angle between release and input, at `theta` ∈ [0, π].
    pub fn angle_pdf(&self, theta: f64) -> f64 {
        match self {
            So3Mechanism::Laplace(m) => m.angle_law().pdf(theta),
            So3Mechanism::Bingham(m) => m.angle_law().pdf(theta),
        }
    }

    /// The CDF of the angle between release and input at each of `sorted` (ascending, radians).
    pub fn angle_cdf_sorted(&self, sorted: &[f64]) -> Vec<f64> {
        match self {
            So3Mechanism::Laplace(m) => m.angle_law().cdf_sorted(sorted),
            So3Mechanism::Bingham(m) => m.angle_law().cdf_sorted(sorted),
        }
    }

    /// Expected angle (radians) between release and input.
    pub fn mean_angle(&self) -> f64 {
        match self {
            So3Mechanism::Laplace(m) => m.angle_law().mean(),
            So3Mechanism::Bingham(m) => m.angle_law().mean(),
        }
    }
}

impl Mechanism for So3Mechanism {
    type Point = UnitQuaternion<f64>;

    fn guarantee(&self) -> Guarantee {
        match self {
            So3Mechanism::Laplace(m) => m.guarantee(),
            So3Mechanism::Bingham(m) => m.guarantee(),
        }
    }

    #[inline]
    fn privatize_unprotected<R: CryptoRng + ?Sized>(
        &self,
        x: &UnitQuaternion<f64>,
        rng: &mut R,
        _: Unprotected,
    ) -> UnitQuaternion<f64> {
        match self {
            So3Mechanism::Laplace(m) => m.privatize_unprotected(x, rng, Unprotected::INTERNAL),
            So3Mechanism::Bingham(m) => m.privatize_unprotected(x, rng, Unprotected::INTERNAL),
        }
    }

    /// Dispatches once for the whole slice.
    fn privatize_each<R: CryptoRng>(
        &self,
        xs: &mut [UnitQuaternion<f64>],
        rng: impl FnMut(usize) -> R,
    ) -> crate::Fallible<()> {
        match self {
            So3Mechanism::Laplace(m) => m.privatize_each(xs, rng),
            So3Mechanism::Bingham(m) => m.privatize_each(xs, rng),
        }
    }

    fn snap(&self, z: &mut UnitQuaternion<f64>) {
        match self {
            So3Mechanism::Laplace(m) => m.snap(z),
            So3Mechanism::Bingham(m) => m.snap(z),
        }
    }

    fn log_density(&self, z: &UnitQuaternion<f64>, x: &UnitQuaternion<f64>) -> f64 {
        match self {
            So3Mechanism::Laplace(m) => m.log_density(z, x),
            So3Mechanism::Bingham(m) => m.log_density(z, x),
        }
    }

    fn name(&self) -> &'static str {
        match self {
            So3Mechanism::Laplace(m) => m.name(),
            So3Mechanism::Bingham(m) => m.name(),
        }
    }
}
