//! Newton steps for the Karcher iteration on spheres and SO(3): the Hessian of the Fréchet function
//! F(m) = (1/2n) Σ ρ²(m, x_i), built from the same logs as its gradient. A distributed mean (one pass over the
//! data per step) then needs two or three passes instead of six or more. Newton steps change only the path:
//! the stop test, and what it certifies, are every Karcher iteration's, and a Newton step is taken only when it
//! lands in the data's ball (`docs/proofs/frechet_mean_sensitivity.md`, "Newton steps").
//!
//! On a sphere of radius R (sectional curvature 1/R²) the Hessian of ½ρ²(·, x) at m, with v = log_m x and
//! θ = ‖v‖, is P_v + (θ/R)·cot(θ/R)·(I − P_v) on the tangent space, P_v the projection onto v (Jacobi fields
//! of constant curvature). SO(3) with the rotation angle as distance is locally S³ of radius 2 (the angle on S³
//! is half the rotation angle), so there c = (θ/2)·cot(θ/2).

use nalgebra::{DMatrix, DVector};

/// t·cot t, the Hessian of ½ρ² across the geodesic on the unit sphere at distance t (1 at t = 0; positive
/// for t < π/2).
pub fn t_cot_t(t: f64) -> f64 {
    if t.abs() < 1e-4 { 1.0 - t * t / 3.0 } else { t / t.tan() }
}

/// Adds P_v + c·(T − P_v) to `h`, T the identity of the tangent space given as `tangent` (I − b·bᵀ on a
/// sphere in ambient coordinates, I on SO(3)), P_v = v·vᵀ/‖v‖² (none at v = 0, where the Hessian is T).
pub fn add_log_hessian(h: &mut DMatrix<f64>, tangent: &DMatrix<f64>, v: &DVector<f64>, c: f64) {
    let t2 = v.norm_squared();
    *h += tangent * c;
    if t2 > 0.0 {
        h.ger(1.0 - c, v, &(v / t2), 1.0);
    }
}

/// Σ over `logs` of P_v + c(‖v‖)·(I − P_v) for 3-vectors, without a matrix per term: (Σc)·I + Σ (1 − c)/‖v‖²·v·vᵀ
/// (v = 0 adds I). With `tangent_of` = Some(b) the identity is the tangent space's, I − b·bᵀ (b a unit vector).
pub fn hessian_sum3(
    logs: impl Iterator<Item = [f64; 3]>,
    c: impl Fn(f64) -> f64,
    tangent_of: Option<[f64; 3]>,
) -> DMatrix<f64> {
    let mut trace_part = 0.0;
    let mut outer = [[0.0; 3]; 3];
    for v in logs {
        let t2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
        if t2 == 0.0 {
            trace_part += 1.0;
            continue;
        }
        let cv = c(t2.sqrt());
        trace_part += cv;
        let w = (1.0 - cv) / t2;
        for (i, row) in outer.iter_mut().enumerate() {
            for (j, x) in row.iter_mut().enumerate().skip(i) {
                *x += w * v[i] * v[j];
            }
        }
    }
    DMatrix::from_fn(3, 3, |i, j| {
        let identity = match tangent_of {
            Some(b) => f64::from(u8::from(i == j)) - b[i] * b[j],
            None => f64::from(u8::from(i == j)),
        };
        trace_part * identity + outer[i.min(j)][i.max(j)]
    })
}

/// Solves H·d = g by Cholesky, H symmetrised first; `None` where H is not positive definite or d is not
/// finite.
pub fn solve_positive(h: &DMatrix<f64>, g: &DVector<f64>) -> Option<DVector<f64>> {
    let sym = (h + h.transpose()) * 0.5;
    let d = sym.cholesky()?.solve(g);
    d.iter().all(|x| x.is_finite()).then_some(d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifold::{Manifold, So3, Sphere};
    use nalgebra::UnitQuaternion;

    /// The analytic Hessian against a central difference of the gradient field: for a direction w,
    /// H·w ≈ −(grad F(exp_m(s·w)) transported back − grad F(m))/s, where −grad F = mean log. On SO(3) in body
    /// coordinates the transport of the small step is the identity to first order, so a finite difference of
    /// mean_log along the body direction w gives −H·w to O(s) (+ the O(‖g‖·s) connection term, small near the
    /// mean; the data here are symmetric about m, so g ≈ 0).
    #[test]
    fn the_so3_hessian_matches_a_finite_difference_of_the_gradient() {
        let m = So3;
        let base = UnitQuaternion::identity();
        let axes = [[0.3, 0.1, -0.2], [-0.3, -0.1, 0.2], [0.05, 0.6, 0.1], [-0.05, -0.6, -0.1]];
        let xs: Vec<_> =
            axes.iter().map(|a| UnitQuaternion::from_scaled_axis(nalgebra::Vector3::new(a[0], a[1], a[2]))).collect();
        let h = m.hessian_sum(&base, &xs).unwrap() / xs.len() as f64;
        let s = 1e-6;
        for w in [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]] {
            let w = DVector::from_column_slice(&w);
            let moved = m.exp(&base, &(&w * s));
            let back = m.exp(&base, &(&w * -s));
            let fd = (m.mean_log(&back, &xs) - m.mean_log(&moved, &xs)) / (2.0 * s);
            let hw = &h * &w;
            assert!((&fd - &hw).norm() < 1e-6, "{fd} vs {hw}");
        }
    }

    /// S² (the fixed-size path) and S³ (the general one).
    #[test]
    fn the_sphere_hessian_matches_a_finite_difference_of_the_gradient() {
        for n in [3, 4] {
            let m = Sphere::new(n).unwrap();
            let mut base = DVector::zeros(n);
            base[n - 1] = 1.0;
            let pts = [[0.3, 0.1], [-0.3, -0.1], [0.1, 0.5], [-0.1, -0.5]];
            let xs: Vec<_> = pts
                .iter()
                .map(|p| {
                    let mut v = DVector::zeros(n);
                    (v[0], v[1]) = (p[0], p[1]);
                    m.exp(&base, &v)
                })
                .collect();
            let h = m.hessian_sum(&base, &xs).unwrap() / xs.len() as f64;
            let s = 1e-6;
            for k in 0..n - 1 {
                let mut w = DVector::zeros(n);
                w[k] = 1.0;
                let moved = m.exp(&base, &(&w * s));
                let back = m.exp(&base, &(&w * -s));
                // At the pole the tangent planes of nearby points differ by O(s) in the normal direction
                // only; compare the tangent components.
                let fd = (m.mean_log(&back, &xs) - m.mean_log(&moved, &xs)) / (2.0 * s);
                let hw = &h * &w;
                assert!((fd.rows(0, n - 1) - hw.rows(0, n - 1)).norm() < 1e-6, "S^{}: {fd} vs {hw}", n - 1);
            }
        }
    }

    #[test]
    fn newton_directions_refuse_what_is_not_positive_definite() {
        let h = DMatrix::from_row_slice(2, 2, &[1.0, 0.0, 0.0, -1.0]);
        assert!(solve_positive(&h, &DVector::from_column_slice(&[1.0, 1.0])).is_none());
        let nan = DMatrix::from_row_slice(1, 1, &[f64::NAN]);
        assert!(solve_positive(&nan, &DVector::from_column_slice(&[1.0])).is_none());
        assert!((t_cot_t(1e-5) - 1.0).abs() < 1e-9 && (t_cot_t(0.5) - 0.5 / 0.5f64.tan()).abs() < 1e-15);
    }
}
