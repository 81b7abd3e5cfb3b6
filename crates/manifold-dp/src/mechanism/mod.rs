//! Mechanisms: validated constructors, a privatize step that draws exact noise, and the guarantee they
//! carry as data.

pub mod batch;
pub mod bingham_so3;
pub mod extrinsic_mean;
pub mod laplace_so3;
pub mod planar_laplace;
pub mod purkayastha;
pub mod riemannian_gaussian;
pub mod riemannian_laplace;
pub mod scalar;
pub mod so3;
pub mod spd_affine_gaussian_mean;
pub mod spd_log_euclidean_mean;
pub mod sphere;
pub mod uniform_sphere;
pub mod vmf;
pub mod wrapped_laplace;

pub use bingham_so3::BinghamSo3;
pub use extrinsic_mean::{Embedding, ExtrinsicMean, ExtrinsicRelease, ExtrinsicSum};
pub use laplace_so3::LaplaceSo3;
pub use planar_laplace::TangentPlanarLaplace;
pub use purkayastha::PurkayasthaSphere;
pub use riemannian_gaussian::{GaussianFrechetMean, GaussianManifold};
pub use riemannian_laplace::{Conditioning, LaplaceManifold, PrivateFrechetMean, RiemannianLaplace};
pub use so3::{So3Kind, So3Mechanism};
pub use spd_affine_gaussian_mean::{AffineGaussianMean, MAX_AFFINE_GAUSSIAN_MEAN_K, check_affine_gaussian_mean_k};
pub use spd_log_euclidean_mean::{LogEuclideanGaussianMean, MAX_LOG_EUCLIDEAN_MEAN_K, check_log_euclidean_mean_k};
pub use sphere::{SphereKind, SphereMechanism};
pub use uniform_sphere::UniformSphere;
pub use vmf::VmfSphere;
pub use wrapped_laplace::WrappedLaplaceCircle;

use crate::Fallible;
use crate::privacy::Guarantee;
use rand::CryptoRng;

pub use crate::error::{MAX_EPSILON, MIN_EPSILON};

/// The capability to call a mechanism's raw f64 pipeline ([`Mechanism::privatize_unprotected`]), which is **not
/// float-safe**: its low bits leak the input. Implementers receive it and pass it on; outside this crate it can
/// be made only with the `experiments` feature (`Unprotected::acknowledged`), for benchmarks, studies and
/// negative controls, so a default build cannot release unprotected draws by mistake.
#[derive(Debug, Clone, Copy)]
pub struct Unprotected(());

impl Unprotected {
    /// The crate's own callers: the float-safe release paths, which snap the raw draw, and the auditor.
    pub(crate) const INTERNAL: Unprotected = Unprotected(());

    /// The capability, for code that knowingly times or tests the raw pipeline.
    #[cfg(feature = "experiments")]
    pub fn acknowledged() -> Self {
        Unprotected(())
    }
}

/// A randomised release of one point of a space.
///
/// `privatize` requires a `CryptoRng`: releases must not use predictable generators (docs/math.md §6). Every
/// release is float-safe: the f64 pipeline's value is rounded by [`Mechanism::snap`] onto the public grid named
/// in the guarantee, so its low bits say nothing about the input (`docs/proofs/float_safety.md`).
pub trait Mechanism {
    /// The space's point type.
    type Point;

    /// Whether [`Mechanism::privatize`] draws the release exactly on its grid (the real-line laws: the exact
    /// cell, from integer coins) instead of snapping a raw draw (every manifold mechanism). Such a mechanism
    /// overrides `privatize` alone; the slice and keyed forms then release point by point through it.
    const EXACT_RELEASE: bool = false;

    /// What the mechanism guarantees, including the grid and the additive ε₀ of float-safe rounding.
    fn guarantee(&self) -> Guarantee;

    /// The raw f64 pipeline, **not float-safe**: its low bits leak the input. For negative controls and tests;
    /// releases go through [`Mechanism::privatize`].
    fn privatize_unprotected<R: CryptoRng + ?Sized>(&self, x: &Self::Point, rng: &mut R, _: Unprotected)
    -> Self::Point;

    /// [`Mechanism::privatize_unprotected`] for every point of `xs`, in place (**not float-safe**).
    fn privatize_slice_unprotected<R: CryptoRng + ?Sized>(&self, xs: &mut [Self::Point], rng: &mut R, _: Unprotected) {
        for x in xs {
            *x = self.privatize_unprotected(x, rng, Unprotected::INTERNAL);
        }
    }

    /// Rounds a raw release onto the mechanism's public grid, in place: the representative of its cell.
    fn snap(&self, z: &mut Self::Point);

    /// Checks that `x` is a point this mechanism releases (its dimension; finite coordinates where the type
    /// admits others) before any noise is drawn: [`Mechanism::privatize`] and the slice forms call it, so a
    /// malformed point is an error ([`crate::Error::WrongLength`], [`crate::Error::NonFinite`], …), never a
    /// panic. By default every value of the point type is one.
    fn check_input(&self, _x: &Self::Point) -> Fallible<()> {
        Ok(())
    }

    /// One float-safe release of `x`, or why none can be made. Most mechanisms always release; a mechanism whose
    /// exact draw can land where double precision cannot represent a valid point (SPD in a public ball's chart)
    /// reports it ([`crate::Error::Unrepresentable`]) instead of redrawing, which would change the law.
    #[inline]
    fn privatize<R: CryptoRng + ?Sized>(&self, x: &Self::Point, rng: &mut R) -> Fallible<Self::Point> {
        self.check_input(x)?;
        let mut z = self.privatize_unprotected(x, rng, Unprotected::INTERNAL);
        self.snap(&mut z);
        Ok(z)
    }

    /// Releases every point of `xs` in place, float-safe, with independent noise. Every point is checked
    /// ([`Mechanism::check_input`]) before any is drawn; on an error of a draw, `xs` holds releases and inputs
    /// mixed: publish none of it.
    fn privatize_slice<R: CryptoRng + ?Sized>(&self, xs: &mut [Self::Point], rng: &mut R) -> Fallible<()> {
        xs.iter().try_for_each(|x| self.check_input(x))?;
        if Self::EXACT_RELEASE {
            for x in xs {
                *x = self.privatize(x, rng)?;
            }
            return Ok(());
        }
        self.privatize_slice_unprotected(xs, rng, Unprotected::INTERNAL);
        for x in xs {
            self.snap(x);
        }
        Ok(())
    }

    /// Releases every point of `xs` in place, float-safe, point `i` with noise from its own generator `rng(i)`
    /// (keyed releases draw each row from its own stream): the same bits as [`Mechanism::privatize_slice`] on
    /// each point alone with its generator (`tests/privatize_each.rs` checks every mechanism). Every point is
    /// checked before any is drawn; on an error of a draw, `xs` holds releases and inputs mixed: publish none.
    ///
    /// It draws every point, then snaps them all: the snaps (a division and a square root each, independent of
    /// one another) then overlap in the CPU instead of each waiting for its draw.
    fn privatize_each<R: CryptoRng>(&self, xs: &mut [Self::Point], mut rng: impl FnMut(usize) -> R) -> Fallible<()> {
        xs.iter().try_for_each(|x| self.check_input(x))?;
        if Self::EXACT_RELEASE {
            for (i, x) in xs.iter_mut().enumerate() {
                *x = self.privatize(x, &mut rng(i))?;
            }
            return Ok(());
        }
        for (i, x) in xs.iter_mut().enumerate() {
            self.privatize_slice_unprotected(std::slice::from_mut(x), &mut rng(i), Unprotected::INTERNAL);
        }
        for x in xs {
            self.snap(x);
        }
        Ok(())
    }

    /// ln of the output density at `z` given input `x`, w.r.t. the space's reference measure, up to a
    /// constant that does not depend on `x` (so differences are exact log-likelihood ratios; used by the
    /// auditor and by the privacy tests).
    fn log_density(&self, z: &Self::Point, x: &Self::Point) -> f64;

    /// A short name (`laplace`, `bingham`, `vmf`, `purkayastha`…).
    fn name(&self) -> &'static str;
}
