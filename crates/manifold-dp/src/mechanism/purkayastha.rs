//! The Purkayastha mechanism on S^{n−1}: release a draw with density ∝ exp(−κ d∠(x, z)). The normaliser
//! does not depend on x (rotation invariance) and |d∠(x, z) − d∠(x′, z)| ≤ d∠(x, x′), so κ = ε gives
//! εd∠-privacy (`docs/proofs/purkayastha_sphere.md`).

use crate::analysis::SphereAngle;
use crate::error::Fallible;
use crate::error::Param;
use crate::mechanism::Mechanism;
use crate::mechanism::Unprotected;
use crate::mechanism::sphere::{
    check_point_dim, draw_on_circle, release_each, release_on_circle, snap_drawn_on_circle,
};
use crate::privacy::float_safety::Rounding;
use crate::privacy::{Guarantee, Metric};
use crate::sample::purkayastha::PurkayasthaNoise;
use crate::space::sphere::surface_distance;
use nalgebra::DVector;
use rand::CryptoRng;

/// The Purkayastha mechanism on S^{n−1}, εd∠-private (ε per radian of great-circle distance).
#[derive(Debug, Clone, PartialEq)]
pub struct PurkayasthaSphere {
    noise: PurkayasthaNoise,
    rounding: Rounding,
}

impl PurkayasthaSphere {
    /// The same mechanism with releases rounded again onto a coarser public grid of step at most `radians`
    /// ([`crate::privacy::float_safety::Rounding::coarsened`]): post-processing, the guarantee is unchanged
    /// but names the coarser grid.
    pub fn with_output_step(mut self, radians: f64) -> crate::error::Fallible<Self> {
        self.rounding = self.rounding.coarsened(radians)?;
        Ok(self)
    }

    /// The mechanism on S^{dim−1} ⊂ R^dim (dim ≥ 2) for budget `epsilon` (finite, > 0) per radian: κ = ε.
    pub fn new(dim: usize, epsilon: f64) -> Fallible<Self> {
        let epsilon = crate::error::check_epsilon_range(Param::Epsilon, epsilon)?;
        let noise = PurkayasthaNoise::new(dim, epsilon)?;
        // e^{−κ d∠(z, μ)} is κ-log-Lipschitz per radian.
        let rounding = Rounding::for_directions(dim, epsilon, epsilon).with_acceptance_error(noise.acceptance_error());
        Ok(PurkayasthaSphere { noise, rounding })
    }

    /// ε per radian (= κ).
    pub fn epsilon(&self) -> f64 {
        self.noise.kappa()
    }

    /// The ambient dimension n.
    pub fn dim(&self) -> usize {
        self.noise.dim()
    }

    /// The exact sampler.
    pub fn noise(&self) -> &PurkayasthaNoise {
        &self.noise
    }

    /// The law of the great-circle angle between release and input: density ∝ e^{−εθ} sin^{n−2}θ.
    pub fn angle_law(&self) -> SphereAngle {
        SphereAngle::purkayastha(self.dim(), self.epsilon()).expect("parameters validated at construction")
    }

    /// The noise law's family and parameters, which its guarantee carries for the ledger's Rényi account.
    pub fn family(&self) -> crate::analysis::renyi_local::LocalFamily {
        crate::analysis::renyi_local::LocalFamily::Purkayastha { dim: self.dim(), kappa: self.epsilon() }
    }

    /// The release's Rényi DP curve between any two inputs (the local model's neighbours), its float-safety
    /// term included: [`crate::privacy::renyi::RdpCurve::of_release`] with the diameter π
    /// (`docs/proofs/renyi_local.md`).
    pub fn renyi_curve(&self) -> Fallible<crate::privacy::renyi::RdpCurve> {
        crate::privacy::renyi::RdpCurve::of_release(self.family(), &self.guarantee(), std::f64::consts::PI)
    }
}

impl PurkayasthaSphere {
    /// On the circle: the drawn offset in turns ([`PurkayasthaNoise::sample_offset_turns`]).
    #[inline(always)]
    fn offset<R: CryptoRng + ?Sized>(&self, rng: &mut R) -> f64 {
        self.noise.sample_offset_turns(rng)
    }

    /// The raw draw from the same words, for inputs off the angle's path.
    #[inline(always)]
    fn rotate<R: CryptoRng + ?Sized>(&self, mu: &[f64], out: &mut [f64], rng: &mut R) {
        self.noise.sample_into(mu, out, rng)
    }
}

impl Mechanism for PurkayasthaSphere {
    type Point = DVector<f64>;

    fn check_input(&self, x: &DVector<f64>) -> crate::Fallible<()> {
        crate::mechanism::sphere::check_sphere_input(x, self.dim())
    }

    fn guarantee(&self) -> Guarantee {
        // δ_B of the sampler's negligible events, per pair δ_B·(1 + e^{ε·d + ε₀}) (`float_safety.md` §6).
        crate::privacy::float_safety::with_negligible_events(
            self.rounding.guarantee(self.epsilon(), Metric::SphereSurface),
            self.noise.negligible_event_probability(),
        )
        // The noise law, from which the ledger computes the release's Rényi curve (`renyi_local.md` §6).
        .with_renyi(self.family())
    }

    /// Panics if `x` does not have the mechanism's dimension (a programming error; validate data with
    /// [`crate::space::sphere::unit_vector`] first).
    fn privatize_unprotected<R: CryptoRng + ?Sized>(
        &self,
        x: &DVector<f64>,
        rng: &mut R,
        _: Unprotected,
    ) -> DVector<f64> {
        check_point_dim(x, self.dim());
        self.noise.sample_around(x, rng)
    }

    fn privatize_slice_unprotected<R: CryptoRng + ?Sized>(&self, xs: &mut [DVector<f64>], rng: &mut R, _: Unprotected) {
        release_each(xs, self.dim(), rng, |mu, out, rng| self.noise.sample_into(mu, out, rng));
    }

    /// On the circle, the release snapped from its angle (`docs/proofs/float_safety.md` §4, "The circle by its
    /// angle"); elsewhere the raw draw snapped.
    fn privatize<R: CryptoRng + ?Sized>(&self, x: &DVector<f64>, rng: &mut R) -> crate::Fallible<DVector<f64>> {
        self.check_input(x)?;
        if self.dim() == 2 {
            let mut z = x.clone();
            release_on_circle(
                &self.rounding,
                z.as_mut_slice(),
                rng,
                |r| self.offset(r),
                |mu, out, r| self.rotate(mu, out, r),
            );
            return Ok(z);
        }
        let mut z = self.noise.sample_around(x, rng);
        self.snap(&mut z);
        Ok(z)
    }

    /// On the circle, every angle drawn first, then every snap.
    fn privatize_slice<R: CryptoRng + ?Sized>(&self, xs: &mut [DVector<f64>], rng: &mut R) -> crate::Fallible<()> {
        xs.iter().try_for_each(|x| self.check_input(x))?;
        if self.dim() == 2 {
            for x in xs.iter_mut() {
                draw_on_circle(
                    &self.rounding,
                    x.as_mut_slice(),
                    rng,
                    |r| self.offset(r),
                    |mu, out, r| self.rotate(mu, out, r),
                );
            }
            for x in xs {
                snap_drawn_on_circle(&self.rounding, x.as_mut_slice());
            }
            return Ok(());
        }
        self.privatize_slice_unprotected(xs, rng, Unprotected::INTERNAL);
        for x in xs {
            self.snap(x);
        }
        Ok(())
    }

    fn privatize_each<R: CryptoRng>(
        &self,
        xs: &mut [DVector<f64>],
        mut rng: impl FnMut(usize) -> R,
    ) -> crate::Fallible<()> {
        xs.iter().try_for_each(|x| self.check_input(x))?;
        if self.dim() == 2 {
            for (i, x) in xs.iter_mut().enumerate() {
                let r = &mut rng(i);
                draw_on_circle(
                    &self.rounding,
                    x.as_mut_slice(),
                    r,
                    |r| self.offset(r),
                    |mu, out, r| self.rotate(mu, out, r),
                );
            }
            for x in xs {
                snap_drawn_on_circle(&self.rounding, x.as_mut_slice());
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

    fn snap(&self, z: &mut DVector<f64>) {
        self.rounding.snap_direction(z.as_mut_slice())
    }

    fn log_density(&self, z: &DVector<f64>, x: &DVector<f64>) -> f64 {
        -self.epsilon() * surface_distance(z, x)
    }

    fn name(&self) -> &'static str {
        "purkayastha"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numerics::trig::atan2_turns;
    use crate::sample::rng::seeded_rng_for_experiments;
    use crate::space::grid::turn_cell;
    use std::f64::consts::TAU;

    /// Releases of `m` at `x` by the angle's path against the rotated point snapped (the path before), from the
    /// same seeded words: (releases whose bits differ, releases). Every difference must be one cell, with the
    /// rotated point's angle within 20·2^-53 turns of the boundary between them (the two paths' errors,
    /// 3.5 and 8.7·2^-53 turns, and libm's 1.7: `docs/proofs/float_safety.md` §4, "The circle by its angle").
    fn differences(m: &PurkayasthaSphere, x: &DVector<f64>, n: usize, seed: u64) -> usize {
        let s = m.rounding.grid().spacing_log2;
        let cells = 2f64.powi(-s);
        let (mut by_angle, mut by_point) = (seeded_rng_for_experiments(seed), seeded_rng_for_experiments(seed));
        let mut differ = 0;
        for _ in 0..n {
            let z = m.privatize(x, &mut by_angle).unwrap();
            let raw = m.privatize_unprotected(x, &mut by_point, Unprotected::INTERNAL);
            let mut old = raw.clone();
            m.snap(&mut old);
            if z.as_slice().iter().zip(old.as_slice()).all(|(a, b)| a.to_bits() == b.to_bits()) {
                continue;
            }
            differ += 1;
            let (k, k_old) = (turn_cell(z[0], z[1], s), turn_cell(old[0], old[1], s));
            assert!((k + 1) % cells as u64 == k_old || (k_old + 1) % cells as u64 == k, "cells {k}, {k_old}");
            let t = raw[1].atan2(raw[0]) / TAU * cells;
            let to_boundary = 0.5 - (t - t.round()).abs();
            assert!(to_boundary <= 20.0 * f64::EPSILON / 2.0 * cells, "{to_boundary} cells from a boundary");
        }
        differ
    }

    /// The circle's release by its angle changes bits only next to cell boundaries: counted on 10⁶ seeded
    /// releases at ε = 1 and 2·10⁵ at four other ε (printed), each difference checked to be one cell across a
    /// boundary within the two paths' errors. Negative control: an offset of the wrong sign (the rotation's sign
    /// bit read backwards) changes nearly every release.
    #[test]
    fn circle_releases_by_angle_differ_only_at_cell_boundaries() {
        let x = DVector::from_vec(vec![0.6, 0.8]);
        for (epsilon, n) in [(1.0, 1_000_000), (0.01, 200_000), (0.3, 200_000), (30.0, 200_000), (1e5, 200_000)] {
            let m = PurkayasthaSphere::new(2, epsilon).unwrap();
            let differ = differences(&m, &x, n, 7);
            eprintln!(
                "ε = {epsilon}: grid 2^{} turns, {differ} of {n} releases differ in their bits",
                m.rounding.grid().spacing_log2
            );
            assert!(differ as f64 <= 1e-4 * n as f64, "ε = {epsilon}: {differ} of {n}");
        }
        // Negative control: the drawn angle with its sign flipped.
        let m = PurkayasthaSphere::new(2, 1.0).unwrap();
        let (mut a, mut b) = (seeded_rng_for_experiments(8), seeded_rng_for_experiments(8));
        let wrong = (0..1000)
            .filter(|_| {
                let input = atan2_turns(x[1], x[0]).unwrap();
                let mut z = [0.0; 2];
                m.rounding.snap_turns_at(input - m.noise.sample_offset_turns(&mut a), &mut z);
                let mut old = m.privatize_unprotected(&x, &mut b, Unprotected::INTERNAL);
                m.snap(&mut old);
                z[0].to_bits() != old[0].to_bits() || z[1].to_bits() != old[1].to_bits()
            })
            .count();
        assert!(wrong > 900, "the control was not caught: {wrong}");
    }

    /// Off the angle's path (a zero input; a coarsened grid) releases still come out, on the grid, without a panic;
    /// the slice and keyed forms give `privatize`'s bits.
    #[test]
    fn circle_releases_off_the_path_and_in_batches() {
        let m = PurkayasthaSphere::new(2, 1.0).unwrap();
        let mut rng = seeded_rng_for_experiments(9);
        let z = m.privatize(&DVector::from_vec(vec![0.0, 0.0]), &mut rng).unwrap();
        assert_eq!((z[0], z[1]), (1.0, 0.0));
        let coarse = m.clone().with_output_step(1e-3).unwrap();
        let x = DVector::from_vec(vec![-0.28, 0.96]);
        let z = coarse.privatize(&x, &mut rng).unwrap();
        let mut again = z.clone();
        coarse.snap(&mut again);
        assert_eq!(z, again, "a coarsened release is a point of its grid");
        let xs: Vec<DVector<f64>> =
            (0..100).map(|i| DVector::from_vec(vec![(i as f64).cos(), (i as f64).sin()])).collect();
        let one_by_one: Vec<_> = {
            let mut rng = seeded_rng_for_experiments(10);
            xs.iter().map(|x| m.privatize(x, &mut rng).unwrap()).collect()
        };
        let mut slice = xs.clone();
        m.privatize_slice(&mut slice, &mut seeded_rng_for_experiments(10)).unwrap();
        assert_eq!(slice, one_by_one);
        let mut keyed = xs.clone();
        m.privatize_each(&mut keyed, |i| seeded_rng_for_experiments(100 + i as u64)).unwrap();
        for (i, (k, x)) in keyed.iter().zip(&xs).enumerate() {
            assert_eq!(*k, m.privatize(x, &mut seeded_rng_for_experiments(100 + i as u64)).unwrap());
        }
    }
}
