use super::*;
use crate::mechanism::{Conditioning, PrivateFrechetMean};
use crate::sample::rng::seeded_rng_for_experiments;

fn diag(v: &[f64]) -> DMatrix<f64> {
    DMatrix::from_diagonal(&DVector::from_vec(v.to_vec()))
}

/// Δ is the affine Laplace mean's; σ = (Δ + 2e_F)/μ rounded up; e_F is negligible at the identity.
#[test]
fn sigma_is_the_laplace_mean_s_sensitivity_plus_the_chart_error_over_mu() {
    for k in [1, 2, 3] {
        let id = DMatrix::identity(k, k);
        let g = AffineGaussianMean::new(k, id.clone(), 1.5, 40, 1.0).unwrap();
        assert_eq!(g.footpoint_radius(), 1.5 + 0.5 * g.sensitivity());
        if k >= 2 {
            let l = PrivateFrechetMean::new(SpdAffine::new(k).unwrap(), id, 1.5, 40, 1.0, Conditioning::Unconditioned)
                .unwrap();
            assert_eq!(g.sensitivity(), l.sensitivity());
        }
        assert!(g.sensitivity() >= 0.075 && g.sensitivity() < 0.075 * (1.0 + 1e-6), "{}", g.sensitivity());
        assert!(g.chart_error() > 0.0 && g.chart_error() < 1e-11, "{}", g.chart_error());
        assert_eq!(g.sigma(), div_up(add_up(g.sensitivity(), 2.0 * g.chart_error()), 1.0));
        let g2 = AffineGaussianMean::new(k, DMatrix::identity(k, k), 1.5, 40, 2.0).unwrap();
        assert!((g2.sensitivity() + 2.0 * g2.chart_error()) / g2.sigma() <= 2.0);
        assert_eq!(g.guarantee(), Guarantee::gdp(1.0));
        assert_eq!(g.rounding_cost(), 0.0);
        let spacing_log2 = (g.sigma().log2().floor() as i32) - 20;
        assert_eq!(g.grid(), Grid { chart: Chart::SpdLogAtCenter, spacing_log2 });
    }
    // An ill-conditioned centre pays more for its whitening, inside σ; far worse is refused.
    let c = diag(&[1e8, 1.0]);
    let g = AffineGaussianMean::new(2, c, 1.0, 1000, 1.0).unwrap();
    assert!(g.chart_error() > 1e-7 && g.chart_error() < 1e-5, "{}", g.chart_error());
    let e = AffineGaussianMean::new(2, diag(&[5e11, 1.0]), 1.0, 1000, 1.0).unwrap_err();
    assert!(matches!(e, Error::NumericalLimit(_)), "{e}");
}

#[test]
fn bad_parameters_are_refused_with_an_error() {
    let id = |k| DMatrix::<f64>::identity(k, k);
    for k in [0, 4, 8] {
        let e = AffineGaussianMean::new(k, id(k.max(1)), 1.0, 10, 1.0).unwrap_err();
        assert!(e.to_string().contains("k ≤ 3"), "{e}");
        assert!(check_affine_gaussian_mean_k(k).is_err());
    }
    assert!(AffineGaussianMean::new(3, id(2), 1.0, 10, 1.0).is_err());
    assert!(AffineGaussianMean::new(2, diag(&[1.0, -1.0]), 1.0, 10, 1.0).is_err());
    for mu in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert!(AffineGaussianMean::new(3, id(3), 1.0, 10, mu).is_err(), "{mu}");
    }
    for r in [0.0, -1.0, f64::NAN] {
        assert!(AffineGaussianMean::new(3, id(3), r, 10, 1.0).is_err(), "{r}");
    }
    assert!(AffineGaussianMean::new(3, id(3), 1.0, 0, 1.0).is_err());
    let g = AffineGaussianMean::new(2, id(2), 1.0, 2, 1.0).unwrap();
    let mut rng = seeded_rng_for_experiments(1);
    assert!(g.release(&[id(2)], &mut rng).is_err());
    assert!(g.release(&[id(2), diag(&[10.0, 1.0])], &mut rng).is_err());
}

/// The chart point is the isometric coordinates of log(W·P·Wᵀ): at a diagonal centre, log of the whitened
/// diagonal; points beyond R_P are moved onto its sphere along their direction; an input whose whitening is not
/// positive definite in f64 stands at the centre.
#[test]
fn the_chart_point_is_the_whitened_log_moved_onto_the_ball() {
    let g = AffineGaussianMean::new(2, diag(&[4.0, 0.25]), 1.0, 10, 1.0).unwrap();
    let c = g.chart_point(&diag(&[4.0 * 1.5f64.exp().sqrt(), 0.25]));
    assert!((c[0] - 0.75).abs() < 1e-14 && c[1].abs() < 1e-14 && c[2].abs() < 1e-14, "{c}");
    let far = g.chart_point(&diag(&[4.0 * 100f64.exp(), 0.25]));
    assert!((far.norm() - g.footpoint_radius()).abs() < 1e-14 && far[1].abs() < 1e-14, "{far}");
    let broken = g.chart_point(&DMatrix::from_row_slice(2, 2, &[1.0, 2.0, 2.0, 1.0]));
    assert_eq!(broken, DVector::zeros(3));
    // The release's point of chart coordinates u has chart point u (within the pipeline's error).
    let u = DVector::from_vec(vec![0.3, -0.2, 0.1]);
    assert!((g.chart_point(&g.point_at(&u)) - &u).norm() < 1e-13);
}

/// Releases are the points of grid cells (their chart coordinates multiples of the spacing, within the
/// pipeline's error), near the mean, and reproducible from a seed.
#[test]
fn releases_are_grid_points_near_the_mean_and_reproducible() {
    for k in [2, 3] {
        let center = DMatrix::from_fn(k, k, |i, j| if i == j { 2.0 } else { 0.5 });
        let data: Vec<DMatrix<f64>> = (0..40)
            .map(|i| {
                let s = DMatrix::from_fn(k, k, |a, b| 0.2 * ((i + a + b) as f64).sin());
                let l = center.clone().cholesky().unwrap().l();
                &l * expm(&s) * l.transpose()
            })
            .collect();
        let g = AffineGaussianMean::new(k, center.clone(), 2.0, 40, 1.0).unwrap();
        let y = g.release(&data, &mut seeded_rng_for_experiments(3)).unwrap();
        let y2 = g.release(&data, &mut seeded_rng_for_experiments(3)).unwrap();
        assert_eq!(y, y2);
        let h = 2f64.powi(g.grid().spacing_log2);
        let u = g.chart_point(&y);
        for x in u.iter() {
            assert!((x / h - (x / h).round()).abs() < 1e-3, "{x} is not on the grid of spacing {h}");
        }
        let mean = frechet_mean_within(g.manifold(), &data, &center, g.stop()).unwrap().mean;
        assert!(g.manifold().distance(&y, &mean) < 10.0 * g.sigma() + 1e-9);
    }
}
