//! The unit sphere S^d ⊂ R^{d+1} with the great-circle metric: sectional curvature 1, injectivity radius π,
//! so Theorem 2 needs data within r < r* = π/4 (π/2 on the flat circle S¹).

use super::Manifold;
use crate::Fallible;
use crate::space::metric::Metric;
use crate::space::sphere::{check_dim, surface_distance};
use nalgebra::DVector;

/// S^d as the unit vectors of R^{d+1}; points are `DVector<f64>` of length d + 1 and unit norm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sphere {
    ambient: usize,
}

impl Sphere {
    /// The sphere of unit vectors in R^`ambient` (ambient ≥ 2; `sphere:3` is S²).
    pub fn new(ambient: usize) -> Fallible<Self> {
        Ok(Sphere { ambient: check_dim(ambient)? })
    }

    /// The ambient dimension d + 1.
    pub fn ambient(&self) -> usize {
        self.ambient
    }
}

impl Manifold for Sphere {
    type Point = DVector<f64>;

    fn describe(&self) -> String {
        format!("S^{} (unit vectors of R^{})", self.ambient - 1, self.ambient)
    }

    fn dimension(&self) -> usize {
        self.ambient - 1
    }

    fn distance(&self, a: &DVector<f64>, b: &DVector<f64>) -> f64 {
        surface_distance(a, b)
    }

    fn metric(&self) -> Metric {
        Metric::SphereSurface
    }

    /// log_x(y) = θ·u with θ = ρ(x, y) and u the unit tangent at x towards y; zero when y = x. (Undefined at
    /// the antipode; data in a ball of radius < π/2 never meet it.)
    fn log(&self, x: &DVector<f64>, y: &DVector<f64>) -> DVector<f64> {
        let mut v = y - x * x.dot(y);
        let s = v.norm();
        if s == 0.0 {
            v.fill(0.0);
            return v;
        }
        v *= surface_distance(x, y) / s;
        v
    }

    /// exp_x(v) = cos‖v‖·x + sin‖v‖·v/‖v‖, renormalised against rounding.
    fn exp(&self, x: &DVector<f64>, v: &DVector<f64>) -> DVector<f64> {
        let t = v.norm();
        if t == 0.0 {
            return x.clone();
        }
        let (s, c) = t.sin_cos();
        let y = x * c + v * (s / t);
        let n = y.norm();
        y / n
    }

    /// [`Sphere::log`] summed without a vector per point: on S² with fixed-size vectors ([`crate::manifold::fixed`]),
    /// elsewhere into one running sum.
    fn sum_log(&self, x: &DVector<f64>, ys: &[DVector<f64>]) -> DVector<f64> {
        if self.ambient == 3 {
            let b = nalgebra::Vector3::new(x[0], x[1], x[2]);
            return DVector::from_column_slice(crate::manifold::fixed::sphere2_sum_log(&b, ys).as_slice());
        }
        let mut sum = DVector::zeros(self.ambient);
        let mut v = DVector::zeros(self.ambient);
        for y in ys {
            v.copy_from(y);
            v.axpy(-x.dot(y), x, 1.0);
            let s = v.norm();
            if s != 0.0 {
                // surface_distance(x, y) = 2·atan2(‖x − y‖, ‖x + y‖), without its two temporaries.
                let (minus, plus) = x
                    .iter()
                    .zip(y.iter())
                    .fold((0.0, 0.0), |(m, p), (a, b)| (m + (a - b) * (a - b), p + (a + b) * (a + b)));
                sum.axpy(2.0 * minus.sqrt().atan2(plus.sqrt()) / s, &v, 1.0);
            }
        }
        sum
    }

    fn extrinsic_sum(&self, xs: &[DVector<f64>], _near: &DVector<f64>) -> Option<DVector<f64>> {
        Some(xs.iter().fold(DVector::zeros(self.ambient), |acc, x| acc + x))
    }

    fn extrinsic_mean(&self, sum: &DVector<f64>, _n: usize) -> Option<DVector<f64>> {
        let norm = sum.norm();
        (norm > 0.0 && norm.is_finite() && sum.len() == self.ambient).then(|| sum / norm)
    }

    /// Σ P_v + θ·cot θ·(T − P_v) with v = log_x y, θ = ‖v‖ and T = I − x·xᵀ the tangent space's identity, in
    /// ambient coordinates ([`super::newton`]).
    fn hessian_sum(&self, x: &DVector<f64>, ys: &[DVector<f64>]) -> Option<nalgebra::DMatrix<f64>> {
        let n = self.ambient;
        if n == 3 {
            // S² (and latitude/longitude): without a vector or matrix per point.
            let b = nalgebra::Vector3::new(x[0], x[1], x[2]);
            // The log as in `fixed::sphere2_sum_log`: θ·v/‖v‖ with v = y − (b·y)·b.
            let logs = ys.iter().map(|y| {
                let y = nalgebra::Vector3::new(y[0], y[1], y[2]);
                let c = b.dot(&y);
                let v = y - b * c;
                let s = v.norm();
                if s == 0.0 {
                    return [0.0; 3];
                }
                let theta = if c > 0.0 { (s / c).atan() } else { s.atan2(c) };
                let v = v * (theta / s);
                [v[0], v[1], v[2]]
            });
            return Some(super::newton::hessian_sum3(logs, super::newton::t_cot_t, Some([x[0], x[1], x[2]])));
        }
        let tangent = nalgebra::DMatrix::identity(n, n) - x * x.transpose();
        let mut h = nalgebra::DMatrix::zeros(n, n);
        for y in ys {
            let v = self.log(x, y);
            super::newton::add_log_hessian(&mut h, &tangent, &v, super::newton::t_cot_t(v.norm()));
        }
        Some(h)
    }

    /// H⁻¹·g on x^⊥: H is singular along x (H·x = 0), so (H + x·xᵀ)·d = g is solved for g projected onto x^⊥,
    /// whose solution lies in x^⊥.
    fn newton_direction(
        &self,
        x: &DVector<f64>,
        gradient: &DVector<f64>,
        hessian: &nalgebra::DMatrix<f64>,
    ) -> Option<DVector<f64>> {
        let g = gradient - x * x.dot(gradient);
        let d = super::newton::solve_positive(&(hessian + x * x.transpose()), &g)?;
        Some(&d - x * x.dot(&d))
    }

    fn distance_error(&self, _near: &DVector<f64>, _offset: f64, reach: f64) -> f64 {
        super::float_error::sphere_distance_error(self.ambient, reach)
    }

    fn log_error(&self, _near: &DVector<f64>, _offset: f64, reach: f64) -> super::LogError {
        super::float_error::sphere_log_error(self.ambient, reach)
    }

    fn injectivity_radius(&self) -> f64 {
        std::f64::consts::PI
    }

    /// 1 on S^d for d ≥ 2. The circle S¹ has no 2-planes, so no sectional curvature: it is locally
    /// isometric to the line and ρ²/2 has Hessian exactly 1 inside the injectivity radius. So κ = 0 bounds it,
    /// giving h = 1 and r* = π/2 (docs/proofs/frechet_mean_sensitivity.md).
    fn curvature_bound(&self) -> f64 {
        if self.ambient == 2 { 0.0 } else { 1.0 }
    }

    fn footpoint_independent_normaliser(&self) -> bool {
        true
    }
}
