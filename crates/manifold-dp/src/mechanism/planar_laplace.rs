//! The planar Laplace baseline (geo-indistinguishability, Andrés et al. 2013) applied in the tangent space
//! at a fixed reference point p of S^{n−1} and mapped back: release exp_p(log_p x + V), V with density
//! ∝ e^{−ε‖v‖} on T_pS^{n−1} ≅ R^{n−1}. It is ε-private for the distance ‖log_p x − log_p x′‖ (the
//! [`Metric::TangentPlane`]), not for the great-circle distance: the log map stretches distances across
//! geodesics by up to θ/sin θ at angle θ from p, without bound near −p (`docs/proofs/planar_laplace_tangent.md`).

//!
//! Float safety (`docs/proofs/float_safety.md` §3c): the noisy point is rounded where its law is a plain
//! Laplace law, in the tangent plane. The input's tangent coordinates (in a public orthonormal basis of p^⊥)
//! plus the noise are clamped to the public cube [−B, B]^{n−1} and rounded to the tangent-plane grid; the
//! release is exp_p of the rounded vector, a function of the cell alone. Rounding on the sphere instead could
//! not be proven: there the release density is unbounded next to −p.

use crate::error::Param;
use crate::error::{Error, Fallible, check_epsilon_range};
use crate::mechanism::Mechanism;
use crate::mechanism::Unprotected;
use crate::mechanism::sphere::check_point_dim;
use crate::privacy::float_safety::Rounding;
use crate::privacy::{Guarantee, Metric};
use crate::space::sphere::surface_distance;
use nalgebra::{DMatrix, DVector};
use rand::{CryptoRng, Rng};

/// Planar (tangent-space) Laplace noise at a reference point, ε-private in [`Metric::TangentPlane`].
#[derive(Debug, Clone)]
pub struct TangentPlanarLaplace {
    epsilon: f64,
    reference: DVector<f64>,
    /// The tangent direction used for the antipode −p, where the log map has no unique value.
    antipode_direction: DVector<f64>,
    /// A public orthonormal basis of p^⊥ (n × (n − 1), one column per tangent coordinate).
    basis: DMatrix<f64>,
    rounding: Rounding,
}

impl TangentPlanarLaplace {
    /// The same mechanism with releases rounded again onto a coarser public grid of step at most `radians`
    /// of tangent distance per coordinate ([`Rounding::coarsened`]): post-processing, the guarantee is
    /// unchanged but names the coarser grid.
    pub fn with_output_step(mut self, radians: f64) -> Fallible<Self> {
        self.rounding = self.rounding.coarsened(radians)?;
        Ok(self)
    }

    /// The mechanism at `reference` (a unit vector of dimension ≥ 2; see
    /// [`crate::space::sphere::unit_vector`]) for `epsilon` per radian of tangent-plane distance (in
    /// [`crate::mechanism::MIN_EPSILON`], [`crate::mechanism::MAX_EPSILON`]). The noise radius is
    /// Gamma(n − 1, 1/ε) and its direction uniform in the tangent space.
    pub fn new(reference: DVector<f64>, epsilon: f64) -> Fallible<Self> {
        let epsilon = check_epsilon_range(Param::Epsilon, epsilon)?;
        let dim = crate::analysis::sphere_angle::check_dim(reference.len())?;
        if ((reference.norm() - 1.0).abs()).is_nan() || (reference.norm() - 1.0).abs() > 1e-12 {
            return Err(Error::NotUnitVector { norm: reference.norm(), tolerance: 1e-12 });
        }
        // A fixed tangent direction: the coordinate axis least aligned with p, projected and normalised.
        let axis = reference.iamin();
        let mut e = DVector::zeros(dim);
        e[axis] = 1.0;
        let e = &e - &reference * reference[axis];
        let antipode_direction = e.normalize();
        Ok(TangentPlanarLaplace {
            epsilon,
            basis: tangent_basis(&reference),
            reference,
            antipode_direction,
            rounding: Rounding::for_tangent_plane(dim, epsilon),
        })
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

    /// The tangent coordinates of `x` in the public basis of p^⊥, as computed in f64: ĉ(x) = Êᵀ log_p x. The
    /// guarantee's distance is ‖ĉ(x) − ĉ(x′)‖ (`docs/proofs/float_safety.md` §3c).
    pub fn coordinates(&self, x: &DVector<f64>) -> DVector<f64> {
        self.basis.tr_mul(&self.log_map(x))
    }

    /// The clamp B of the noisy tangent coordinates ([`crate::privacy::float_safety::tangent_plane_clamp`]).
    pub fn clamp(&self) -> f64 {
        self.rounding.clamp()
    }

    /// The release of rounded tangent coordinates `u`: exp_p(Ê u), a function of the cell alone.
    fn point_of(&self, u: &DVector<f64>) -> DVector<f64> {
        self.exp_map(&(&self.basis * u))
    }

    /// Clamps tangent coordinates to [−B, B] and rounds them onto the grid, in place.
    fn round_coordinates(&self, u: &mut DVector<f64>) {
        self.rounding.snap_coordinates(u.as_mut_slice());
    }

    /// The noise radius r ~ Gamma(n − 1, 1/ε): a sum of n − 1 exponentials over ε, within
    /// (15 + ⌈log₂ n⌉ + 1)·2^-53 of its own size (`crate::sample::normal::gamma_integer`, float_safety.md §3f).
    #[inline]
    fn radius<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        crate::sample::normal::gamma_integer(self.reference.len() - 1, rng) / self.epsilon
    }

    /// ĉ(x) + V in f64: the input's tangent coordinates plus the noise r·w, r ~ Gamma(n − 1, 1/ε) and w
    /// uniform on the unit sphere of R^{n−1}. Each coordinate is one product and one sum (§3c's error bound).
    fn noisy_coordinates<R: Rng + ?Sized>(&self, x: &DVector<f64>, rng: &mut R) -> DVector<f64> {
        check_point_dim(x, self.reference.len());
        let mut u = self.coordinates(x);
        let r = self.radius(rng);
        let w = uniform_direction(u.len(), rng);
        for (ui, wi) in u.iter_mut().zip(w.iter()) {
            *ui += r * wi;
        }
        u
    }
}

/// An orthonormal basis of p^⊥ (n × (n − 1)): the columns other than j of the Householder reflection
/// H = I − 2vvᵀ/vᵀv, v = p + sign(p_j)·e_j with j = argmax |p_j| (so no cancellation), which maps p to
/// −sign(p_j)·e_j; H is symmetric and orthogonal, so its other columns are orthonormal and ⊥ p.
fn tangent_basis(p: &DVector<f64>) -> DMatrix<f64> {
    let n = p.len();
    let j = p.iamax();
    let mut v = p.clone();
    v[j] += p[j].signum();
    let h = DMatrix::identity(n, n) - &v * v.transpose() * (2.0 / v.norm_squared());
    h.remove_column(j)
}

/// A uniform unit vector of R^`m` (m ≥ 1): normalised standard Gaussians, redrawn in the null event of a
/// norm below 1e-150 (a radially symmetric event, so the direction stays uniform).
fn uniform_direction<R: Rng + ?Sized>(m: usize, rng: &mut R) -> DVector<f64> {
    loop {
        let mut g = DVector::<f64>::zeros(m);
        crate::sample::normal::fill_normals(rng, g.as_mut_slice());
        let n = g.norm();
        if n > 1e-150 {
            return g / n;
        }
    }
}

impl Mechanism for TangentPlanarLaplace {
    type Point = DVector<f64>;

    fn check_input(&self, x: &DVector<f64>) -> crate::Fallible<()> {
        crate::mechanism::sphere::check_sphere_input(x, self.reference.len())
    }

    /// Rounded in the tangent plane, where the law is a plain Laplace law: the release is drawn and rounded
    /// in one step ([`Mechanism::privatize`]), not by snapping a point of the sphere.
    const EXACT_RELEASE: bool = true;

    fn guarantee(&self) -> Guarantee {
        // δ_N of the direction (n − 1 ≥ 2 coordinates), per pair δ_N·(1 + e^{ε·d + ε₀}) (`float_safety.md` §6).
        let events = if self.reference.len() >= 3 { crate::sample::normal::DIRECTION_EVENT_PROBABILITY } else { 0.0 };
        crate::privacy::float_safety::with_negligible_events(
            self.rounding.guarantee(self.epsilon, Metric::TangentPlane),
            events,
        )
    }

    /// exp_p(ĉ(x) + V) without clamping or rounding (**not float-safe**). Panics if `x` does not have the
    /// reference point's dimension (a programming error).
    fn privatize_unprotected<R: CryptoRng + ?Sized>(
        &self,
        x: &DVector<f64>,
        rng: &mut R,
        _: Unprotected,
    ) -> DVector<f64> {
        self.point_of(&self.noisy_coordinates(x, rng))
    }

    /// exp_p of the rounded, clamped ĉ(x) + V (`docs/proofs/float_safety.md` §3c); an error for a point of
    /// another dimension or with a non-finite coordinate.
    fn privatize<R: CryptoRng + ?Sized>(&self, x: &DVector<f64>, rng: &mut R) -> crate::Fallible<DVector<f64>> {
        self.check_input(x)?;
        let mut u = self.noisy_coordinates(x, rng);
        self.round_coordinates(&mut u);
        Ok(self.point_of(&u))
    }

    /// The representative of the tangent cell of z's coordinates ĉ(z) (clamped): a release maps to itself
    /// wherever exp_p is invertible (within π of p).
    fn snap(&self, z: &mut DVector<f64>) {
        let mut u = self.coordinates(z);
        self.round_coordinates(&mut u);
        *z = self.point_of(&u);
    }

    /// −ε‖ĉ(z) − ĉ(x)‖: the Jacobian of exp_p does not depend on x, so this is the log-likelihood up to a
    /// constant (exp_p is not injective beyond radius π, where the sum over pre-images would be needed; it is
    /// exact for z's only pre-image inside the ball of radius π).
    fn log_density(&self, z: &DVector<f64>, x: &DVector<f64>) -> f64 {
        -self.epsilon * (self.coordinates(z) - self.coordinates(x)).norm()
    }

    fn name(&self) -> &'static str {
        "planar-laplace"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::privacy::float_safety::tangent_plane_clamp;
    use crate::sample::rng::seeded_rng_for_experiments;

    fn random_unit(n: usize, seed: u64) -> DVector<f64> {
        uniform_direction(n, &mut seeded_rng_for_experiments(seed))
    }

    #[test]
    fn the_tangent_basis_is_orthonormal_and_orthogonal_to_the_reference() {
        for (n, seed) in [(2, 1), (3, 2), (3, 3), (4, 4), (10, 5)] {
            let p = random_unit(n, seed);
            let e = tangent_basis(&p);
            assert_eq!(e.shape(), (n, n - 1));
            assert!((e.tr_mul(&e) - DMatrix::identity(n - 1, n - 1)).amax() < 1e-15 * n as f64, "n = {n}");
            assert!(e.tr_mul(&p).amax() < 1e-15 * n as f64, "n = {n}");
        }
    }

    /// Whether z is exp_p of a point of `grid`, found from z alone: z's preimages under exp_p lie on the line
    /// through ĉ(z), at signed lengths a + 2πj and a − 2πj (a = ‖ĉ(z)‖); one of them, rounded onto the grid
    /// (it must lie within a quarter cell of a grid point: ĉ is computed to ~1e-12 even next to −p), must map
    /// back to z bit for bit. Returns the j used (0: no wrap).
    fn grid_preimage(m: &TangentPlanarLaplace, z: &DVector<f64>, grid: crate::privacy::Grid) -> Option<i32> {
        use crate::space::grid::round_tangent;
        let c = m.coordinates(z);
        let a = c.norm();
        let d = if a > 0.0 { &c / a } else { c.clone() };
        for j in 0..4 {
            for t in [a + std::f64::consts::TAU * j as f64, a - std::f64::consts::TAU * j as f64] {
                let pre = &d * t;
                let k = pre.map(|v| round_tangent(v, grid.spacing_log2));
                let close = (&k - &pre).amax() < grid.spacing() / 4.0;
                if close && m.point_of(&k) == *z {
                    return Some(j);
                }
            }
        }
        None
    }

    /// Every release is exp_p of a grid point, reconstructed independently from the release alone; snapping
    /// a release again does not move it.
    #[test]
    fn releases_are_exp_of_grid_points_reconstructed_from_the_release() {
        for (n, eps) in [(2, 2.0), (3, 2.0), (3, 50.0), (5, 20.0)] {
            let p = random_unit(n, 10 + n as u64);
            let m = TangentPlanarLaplace::new(p, eps).unwrap();
            let grid = m.guarantee().grid().unwrap();
            let mut rng = seeded_rng_for_experiments(20 + n as u64);
            let mut wrapped = 0;
            for i in 0..20_000 {
                let x = random_unit(n, 1000 + i);
                let z = m.privatize(&x, &mut rng).unwrap();
                let j = grid_preimage(&m, &z, grid);
                assert!(
                    j.is_some(),
                    "n = {n}, ε = {eps}: {z} (‖ĉ‖ = {}) is not exp_p of a grid point",
                    m.coordinates(&z).norm()
                );
                wrapped += (j != Some(0)) as usize;
                if j == Some(0) {
                    let mut again = z.clone();
                    m.snap(&mut again);
                    assert_eq!(again, z, "snap moves a release");
                }
            }
            eprintln!("n = {n}, ε = {eps}: {wrapped} of 20000 releases wrapped past the antipode");
        }
        // Negative control: raw releases are not exp_p of grid points.
        let m = TangentPlanarLaplace::new(random_unit(3, 13), 2.0).unwrap();
        let grid = m.guarantee().grid().unwrap();
        let mut rng = seeded_rng_for_experiments(29);
        let raw = (0..100).filter(|&i| {
            let z = m.privatize_unprotected(&random_unit(3, 2000 + i), &mut rng, Unprotected::INTERNAL);
            grid_preimage(&m, &z, grid).is_some()
        });
        assert_eq!(raw.count(), 0);
    }

    #[test]
    fn noisy_coordinates_stay_within_the_proven_error_and_clamp_exactly() {
        // §3c: |fl(ĉ + fl(r·w)) − (ĉ + r·w)| ≤ (4B + 5)·2^-53 wherever |ĉ + r·w| ≤ 2B. The exact sum is
        // recovered with error-free transformations (fma for the product, two-sum for the addition).
        let m = TangentPlanarLaplace::new(random_unit(3, 7), 1e-3).unwrap();
        let b = m.clamp();
        let eta = (4.0 * b + 5.0) * f64::EPSILON / 2.0;
        let mut rng = seeded_rng_for_experiments(8);
        let mut worst: f64 = 0.0;
        for i in 0..200_000u64 {
            let c = m.coordinates(&random_unit(3, 3000 + i % 97));
            let r = m.radius(&mut rng) * (1.0 + (i % 7) as f64);
            let w = uniform_direction(2, &mut rng);
            for j in 0..2 {
                let hi = r * w[j];
                let lo = r.mul_add(w[j], -hi);
                let s = c[j] + hi;
                let bb = s - c[j];
                let err = (c[j] - (s - bb)) + (hi - bb) + lo;
                if s.abs() <= 2.0 * b {
                    worst = worst.max(err.abs());
                    assert!(err.abs() <= eta, "error {err:e} beyond the bound {eta:e}");
                }
            }
        }
        assert!(worst > 0.0 && worst > eta / 64.0, "the draws never came near the bound ({worst:e} vs {eta:e})");
        // Beyond ±B the clamp is exact and lands on the grid.
        let mut u = DVector::from_vec(vec![3.0 * b, -1e300]);
        m.round_coordinates(&mut u);
        assert_eq!(u.as_slice(), &[b, -b]);
    }

    #[test]
    fn the_clamp_is_public_past_the_antipode_and_almost_never_reached() {
        for n in [2usize, 3, 4, 10, 100, 10_001] {
            let mm = (n - 1) as f64;
            for eps in [1e-6, 1e-3, 1.0, 10.0, 1e6] {
                let b = tangent_plane_clamp(n, eps);
                assert!(b >= 4.0 && b.log2().fract() == 0.0 && b >= std::f64::consts::PI + (80.0 + 2.0 * mm) / eps);
                assert!(b.is_finite());
            }
            // Chernoff: P(Gamma(m, 1) ≥ a) ≤ e^{m − a}(a/m)^m, a = 80 + 2m.
            let a = 80.0 + 2.0 * mm;
            let ln_tail = mm - a + mm * (a / mm).ln();
            assert!(ln_tail < (1e-27f64).ln(), "n = {n}: ln P = {ln_tail}");
        }
    }

    #[test]
    fn a_coarser_output_step_is_a_rounding_of_the_float_safe_cell() {
        let fine = TangentPlanarLaplace::new(random_unit(3, 30), 5.0).unwrap();
        let coarse = fine.clone().with_output_step(1e-3).unwrap();
        let (gf, gc) = (fine.guarantee(), coarse.guarantee());
        assert_eq!(gc.additive_epsilon(), gf.additive_epsilon());
        assert_eq!(gc.grid().unwrap().spacing_log2, -10);
        let mut rng = seeded_rng_for_experiments(31);
        for i in 0..2000 {
            let z = coarse.privatize(&random_unit(3, 5000 + i), &mut rng).unwrap();
            assert!(grid_preimage(&coarse, &z, gc.grid().unwrap()).is_some());
        }
        assert!(fine.with_output_step(1e-15).is_err());
    }

    /// The guarantee carries the tangent-plane grid and its ε₀ (whose size at every accepted ε the
    /// `float_safety` tests bound), and ε below the accepted range is refused.
    #[test]
    fn the_guarantee_names_the_tangent_plane_grid() {
        for n in [2usize, 3, 10] {
            for eps in [1e-6, 1.0, 1e6] {
                let g = TangentPlanarLaplace::new(random_unit(n, 40), eps).unwrap().guarantee();
                let expected = Rounding::for_tangent_plane(n, eps);
                assert_eq!((g.grid(), g.additive_epsilon()), (Some(expected.grid()), expected.additive_epsilon()));
                assert_eq!(expected.grid().chart, crate::privacy::Chart::TangentPlane);
            }
        }
        assert!(TangentPlanarLaplace::new(random_unit(3, 41), 1e-7).is_err());
    }
}
