//! The directional mechanisms on S^{n−1} behind one type, chosen by name at run time (what a command line
//! needs), and the in-place release loop they share.

use crate::analysis::{AngularLaw, epsilon_for_radius};
use crate::error::Param;
use crate::error::{Error, Fallible};
use crate::mechanism::Unprotected;
use crate::mechanism::{Mechanism, PurkayasthaSphere, VmfSphere, WrappedLaplaceCircle};
use crate::numerics::trig::atan2_turns;
use crate::privacy::float_safety::Rounding;
use crate::privacy::{Guarantee, calibration};
use nalgebra::DVector;
use rand::CryptoRng;
use std::f64::consts::PI;

/// Which directional mechanism.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SphereKind {
    /// [`VmfSphere`]: εd₂-private.
    Vmf,
    /// [`PurkayasthaSphere`]: εd∠-private.
    Purkayastha,
    /// [`WrappedLaplaceCircle`] (the circle only): εd∠-private baseline.
    WrappedLaplace,
}

impl SphereKind {
    /// The largest distance between two points in the metric this mechanism's ε is per unit of: 2 for the
    /// chordal distance (VMF), π for the great-circle distance.
    pub fn diameter(self) -> f64 {
        match self {
            SphereKind::Vmf => 2.0,
            SphereKind::Purkayastha | SphereKind::WrappedLaplace => PI,
        }
    }
}

/// A directional mechanism chosen at run time.
#[derive(Debug, Clone)]
pub enum SphereMechanism {
    /// von Mises–Fisher.
    Vmf(VmfSphere),
    /// Purkayastha.
    Purkayastha(PurkayasthaSphere),
    /// Wrapped Laplace on the circle.
    WrappedLaplace(WrappedLaplaceCircle),
}

impl SphereMechanism {
    /// The release's Rényi DP curve between any two directions (`docs/proofs/renyi_local.md`); the wrapped
    /// Laplace has none yet.
    pub fn renyi_curve(&self) -> Fallible<crate::privacy::renyi::RdpCurve> {
        match self {
            SphereMechanism::Vmf(m) => m.renyi_curve(),
            SphereMechanism::Purkayastha(m) => m.renyi_curve(),
            SphereMechanism::WrappedLaplace(_) => Err(Error::NotApplicable(
                "no Rényi curve is computed for the wrapped Laplace; its pure guarantee composes linearly".into(),
            )),
        }
    }

    /// The same mechanism with releases rounded again onto a coarser grid of step at most `radians` of
    /// great-circle angle (post-processing; see [`VmfSphere::with_output_step`]).
    pub fn with_output_step(self, radians: f64) -> Fallible<Self> {
        Ok(match self {
            SphereMechanism::Vmf(m) => SphereMechanism::Vmf(m.with_output_step(radians)?),
            SphereMechanism::Purkayastha(m) => SphereMechanism::Purkayastha(m.with_output_step(radians)?),
            SphereMechanism::WrappedLaplace(m) => SphereMechanism::WrappedLaplace(m.with_output_step(radians)?),
        })
    }

    /// The mechanism of `kind` on S^{dim−1} for ε per unit of its metric (per unit chord for VMF, per radian
    /// otherwise; either way at least ε per radian of great-circle distance).
    pub fn for_epsilon(kind: SphereKind, dim: usize, epsilon: f64) -> Fallible<Self> {
        Ok(match kind {
            SphereKind::Vmf => SphereMechanism::Vmf(VmfSphere::new(dim, epsilon)?),
            SphereKind::Purkayastha => SphereMechanism::Purkayastha(PurkayasthaSphere::new(dim, epsilon)?),
            SphereKind::WrappedLaplace => {
                if dim != 2 {
                    return Err(Error::InvalidParameter {
                        name: Param::Dimension,
                        value: dim as f64,
                        reason: "wrapped Laplace is defined on the circle only (dimension 2)",
                    });
                }
                SphereMechanism::WrappedLaplace(WrappedLaplaceCircle::new(epsilon)?)
            }
        })
    }

    /// The mechanism of `kind` that is pure ε-DP for a whole record: ε per unit divided by the metric's
    /// diameter (κ = ε/2 for VMF, ε/π otherwise), since any two inputs are at most a diameter apart
    /// (`docs/proofs/vmf_sphere.md`).
    pub fn for_pure_dp(kind: SphereKind, dim: usize, epsilon: f64) -> Fallible<Self> {
        Self::for_epsilon(kind, dim, calibration::epsilon_per_unit_for_pure_dp(epsilon, kind.diameter())?)
    }

    /// The pure-DP guarantee this mechanism gives for whole records: ε per unit times the diameter, plus the
    /// additive ε₀ of float-safe rounding.
    pub fn pure_dp(&self) -> Guarantee {
        let metric = self.guarantee();
        let epsilon = metric.epsilon().expect("metric DP has an epsilon") * self.kind().diameter();
        // Records are at most the diameter D apart, where the metric δ is δ_B·(1 + e^{ε·D + ε₀}).
        Guarantee::pure(crate::numerics::rounding::add_up(epsilon, metric.additive_epsilon()))
            .with_delta(metric.metric_delta_at(self.kind().diameter()).unwrap_or(0.0))
    }

    /// Which mechanism this is.
    pub fn kind(&self) -> SphereKind {
        match self {
            SphereMechanism::Vmf(_) => SphereKind::Vmf,
            SphereMechanism::Purkayastha(_) => SphereKind::Purkayastha,
            SphereMechanism::WrappedLaplace(_) => SphereKind::WrappedLaplace,
        }
    }

    /// The ambient dimension n of S^{n−1}.
    pub fn dim(&self) -> usize {
        match self {
            SphereMechanism::Vmf(m) => m.dim(),
            SphereMechanism::Purkayastha(m) => m.dim(),
            SphereMechanism::WrappedLaplace(_) => 2,
        }
    }

    /// The concentration κ of VMF or Purkayastha (equal to ε per unit).
    pub fn concentration(&self) -> Option<f64> {
        match self {
            SphereMechanism::Vmf(m) => Some(m.epsilon()),
            SphereMechanism::Purkayastha(m) => Some(m.epsilon()),
            SphereMechanism::WrappedLaplace(_) => None,
        }
    }

    fn with_law<T>(&self, f: impl FnOnce(&dyn AngularLaw) -> T) -> T {
        match self {
            SphereMechanism::Vmf(m) => f(&m.angle_law()),
            SphereMechanism::Purkayastha(m) => f(&m.angle_law()),
            SphereMechanism::WrappedLaplace(m) => f(&m.angle_law()),
        }
    }

    /// Radius of indistinguishability at level p: the great-circle angle (radians) within which a fraction
    /// p of releases fall.
    pub fn radius(&self, p: f64) -> Fallible<f64> {
        self.with_law(|law| law.quantile(p))
    }

    /// Expected great-circle angle (radians) between release and input.
    pub fn mean_angle(&self) -> f64 {
        self.with_law(|law| law.mean())
    }

    /// Density (per radian) of the angle between release and input.
    pub fn angle_pdf(&self, theta: f64) -> f64 {
        self.with_law(|law| law.pdf(theta))
    }

    /// The CDF of the angle between release and input at each of `sorted` (ascending, radians).
    pub fn angle_cdf_sorted(&self, sorted: &[f64]) -> Vec<f64> {
        self.with_law(|law| law.cdf_sorted(sorted))
    }

    /// The ε per unit for which a fraction `p` of releases fall within `rho` radians of their input.
    pub fn epsilon_for_radius(kind: SphereKind, dim: usize, rho: f64, p: f64) -> Fallible<f64> {
        epsilon_for_radius(rho, p, |eps| Ok(LawOf(Self::for_epsilon(kind, dim, eps)?)))
    }
}

/// An [`AngularLaw`] view of a mechanism (for the generic inversion).
struct LawOf(SphereMechanism);

impl AngularLaw for LawOf {
    fn pdf(&self, theta: f64) -> f64 {
        self.0.angle_pdf(theta)
    }
    fn cdf(&self, rho: f64) -> f64 {
        self.0.with_law(|law| law.cdf(rho))
    }
    fn mean(&self) -> f64 {
        self.0.mean_angle()
    }
}

impl Mechanism for SphereMechanism {
    type Point = DVector<f64>;

    fn guarantee(&self) -> Guarantee {
        match self {
            SphereMechanism::Vmf(m) => m.guarantee(),
            SphereMechanism::Purkayastha(m) => m.guarantee(),
            SphereMechanism::WrappedLaplace(m) => m.guarantee(),
        }
    }

    fn privatize_unprotected<R: CryptoRng + ?Sized>(
        &self,
        x: &DVector<f64>,
        rng: &mut R,
        _: Unprotected,
    ) -> DVector<f64> {
        match self {
            SphereMechanism::Vmf(m) => m.privatize_unprotected(x, rng, Unprotected::INTERNAL),
            SphereMechanism::Purkayastha(m) => m.privatize_unprotected(x, rng, Unprotected::INTERNAL),
            SphereMechanism::WrappedLaplace(m) => m.privatize_unprotected(x, rng, Unprotected::INTERNAL),
        }
    }

    fn privatize_slice_unprotected<R: CryptoRng + ?Sized>(&self, xs: &mut [DVector<f64>], rng: &mut R, _: Unprotected) {
        match self {
            SphereMechanism::Vmf(m) => m.privatize_slice_unprotected(xs, rng, Unprotected::INTERNAL),
            SphereMechanism::Purkayastha(m) => m.privatize_slice_unprotected(xs, rng, Unprotected::INTERNAL),
            SphereMechanism::WrappedLaplace(m) => m.privatize_slice_unprotected(xs, rng, Unprotected::INTERNAL),
        }
    }

    fn privatize<R: CryptoRng + ?Sized>(&self, x: &DVector<f64>, rng: &mut R) -> crate::Fallible<DVector<f64>> {
        match self {
            SphereMechanism::Vmf(m) => m.privatize(x, rng),
            SphereMechanism::Purkayastha(m) => m.privatize(x, rng),
            SphereMechanism::WrappedLaplace(m) => m.privatize(x, rng),
        }
    }

    /// Dispatches once for the whole slice.
    fn privatize_slice<R: CryptoRng + ?Sized>(&self, xs: &mut [DVector<f64>], rng: &mut R) -> crate::Fallible<()> {
        match self {
            SphereMechanism::Vmf(m) => m.privatize_slice(xs, rng),
            SphereMechanism::Purkayastha(m) => m.privatize_slice(xs, rng),
            SphereMechanism::WrappedLaplace(m) => m.privatize_slice(xs, rng),
        }
    }

    /// Dispatches once for the whole slice.
    fn privatize_each<R: CryptoRng>(
        &self,
        xs: &mut [DVector<f64>],
        rng: impl FnMut(usize) -> R,
    ) -> crate::Fallible<()> {
        match self {
            SphereMechanism::Vmf(m) => m.privatize_each(xs, rng),
            SphereMechanism::Purkayastha(m) => m.privatize_each(xs, rng),
            SphereMechanism::WrappedLaplace(m) => m.privatize_each(xs, rng),
        }
    }

    fn snap(&self, z: &mut DVector<f64>) {
        match self {
            SphereMechanism::Vmf(m) => m.snap(z),
            SphereMechanism::Purkayastha(m) => m.snap(z),
            SphereMechanism::WrappedLaplace(m) => m.snap(z),
        }
    }

    fn log_density(&self, z: &DVector<f64>, x: &DVector<f64>) -> f64 {
        match self {
            SphereMechanism::Vmf(m) => m.log_density(z, x),
            SphereMechanism::Purkayastha(m) => m.log_density(z, x),
            SphereMechanism::WrappedLaplace(m) => m.log_density(z, x),
        }
    }

    fn check_input(&self, x: &DVector<f64>) -> crate::Fallible<()> {
        match self {
            SphereMechanism::Vmf(m) => m.check_input(x),
            SphereMechanism::Purkayastha(m) => m.check_input(x),
            SphereMechanism::WrappedLaplace(m) => m.check_input(x),
        }
    }

    fn name(&self) -> &'static str {
        match self {
            SphereMechanism::Vmf(m) => m.name(),
            SphereMechanism::Purkayastha(m) => m.name(),
            SphereMechanism::WrappedLaplace(m) => m.name(),
        }
    }
}

/// Checks that `x` has `dim` coordinates, all finite: [`Mechanism::check_input`] of the sphere mechanisms.
pub(crate) fn check_sphere_input(x: &DVector<f64>, dim: usize) -> crate::Fallible<()> {
    if x.len() != dim {
        return Err(crate::Error::WrongLength { expected: dim, got: x.len() });
    }
    match x.iter().position(|v| !v.is_finite()) {
        Some(component) => Err(crate::Error::NonFinite { component, value: x[component] }),
        None => Ok(()),
    }
}

/// Panics unless `x` has `dim` coordinates: releasing a point of another sphere is a programming error
/// (data are validated into points of the right sphere before they reach a mechanism).
#[inline]
pub(crate) fn check_point_dim(x: &DVector<f64>, dim: usize) {
    assert_eq!(x.len(), dim, "a point of R^{} given to a mechanism on S^{}", x.len(), dim - 1);
}

/// One float-safe release on the circle by its angle (`docs/proofs/float_safety.md` §4, "The circle by its
/// angle"): the input's angle in turns ([`atan2_turns`], computed while the noise is drawn), plus the drawn
/// offset `offset(rng)` in turns, snapped on the turn grid; the output is the representative of that cell, as
/// for every circle release. Where the grid or the input leaves that path (a turn grid finer than 2^-50 or
/// coarser than a turn, a zero or non-finite input), the rotated point `rotate(mu, out, rng)` is snapped as
/// before. `x` has two coordinates.
#[inline]
pub(crate) fn release_on_circle<R: ?Sized>(
    rounding: &Rounding,
    x: &mut [f64],
    rng: &mut R,
    offset: impl FnOnce(&mut R) -> f64,
    rotate: impl FnOnce(&[f64], &mut [f64], &mut R),
) {
    draw_on_circle(rounding, x, rng, offset, rotate);
    snap_drawn_on_circle(rounding, x);
}

/// The first half of [`release_on_circle`], for batches (all draws first, then all snaps, which then overlap in
/// the CPU instead of each waiting for its draw): leaves the release's angle in turns in `x[0]` and +∞ in `x[1]`
/// (no release is infinite), or, off the angle's path, the finished release.
#[inline]
pub(crate) fn draw_on_circle<R: ?Sized>(
    rounding: &Rounding,
    x: &mut [f64],
    rng: &mut R,
    offset: impl FnOnce(&mut R) -> f64,
    rotate: impl FnOnce(&[f64], &mut [f64], &mut R),
) {
    let mu = [x[0], x[1]];
    if let (Some(_), Some(input)) = (rounding.turn_spacing(), atan2_turns(mu[1], mu[0])) {
        // |input| ≤ ½ and |offset| ≤ ½: the sum is one rounding, within 2^-53 of the real sum.
        x[0] = input + offset(rng);
        x[1] = f64::INFINITY;
    } else {
        rotate(&mu, x, rng);
        rounding.snap_direction(x);
    }
}

/// The second half of [`release_on_circle`]: snaps an angle left by [`draw_on_circle`].
#[inline]
pub(crate) fn snap_drawn_on_circle(rounding: &Rounding, x: &mut [f64]) {
    if x[1] == f64::INFINITY {
        rounding.snap_turns_at(x[0], x);
    }
}

/// Releases every point of `xs` in place with `draw(centre, out, rng)`, copying each centre into one
/// scratch buffer so that no point allocates.
pub(crate) fn release_each<R: ?Sized>(
    xs: &mut [DVector<f64>],
    dim: usize,
    rng: &mut R,
    draw: impl Fn(&[f64], &mut [f64], &mut R),
) {
    // A stack buffer for the usual small dimensions: callers that release one row at a time (the CLI's
    // `sample`) would otherwise pay an allocation per row.
    let (mut stack, mut heap) = ([0.0; 16], Vec::new());
    let centre: &mut [f64] = if dim <= stack.len() {
        &mut stack[..dim]
    } else {
        heap.resize(dim, 0.0);
        &mut heap
    };
    for x in xs {
        check_point_dim(x, dim);
        if let (Ok(c), Ok(p)) = (<&mut [f64; 3]>::try_from(&mut *centre), <&[f64; 3]>::try_from(x.as_slice())) {
            // S², the common case: three moves instead of a call to memcpy.
            *c = *p;
        } else {
            centre.copy_from_slice(x.as_slice());
        }
        draw(centre, x.as_mut_slice(), rng);
    }
}
