//! `Mechanism::privatize_each` (one generator per point, draws first and snaps after: the keyed path of the
//! CLI, Python and `sample`) releases exactly what `privatize_slice` releases for each point alone with the
//! same generator, bit for bit, for every mechanism; and a mechanism whose release is not its snapped raw draw
//! but which does not say so (`EXACT_RELEASE`) is caught (the negative control).

use manifold_dp::audit::catalog::{GaussianOnReals, GeneralizedGaussianOnReals, ScalarLaplaceOnReals};
use manifold_dp::manifold::sphere::Sphere;
use manifold_dp::manifold::{SpdAffine, SpdLogEuclidean};
use manifold_dp::mechanism::Unprotected;
use manifold_dp::mechanism::scalar::{Gaussian, GeneralizedGaussian, ScalarLaplace};
use manifold_dp::mechanism::{
    Mechanism, RiemannianLaplace, So3Kind, So3Mechanism, TangentPlanarLaplace, UniformSphere,
};
use manifold_dp::privacy::Guarantee;
use manifold_dp::registry::{Budget, MechanismName, PointMechanism, Space};
use manifold_dp::sample::rng::{ReleaseRng, seeded_rng_for_experiments};
use nalgebra::{DMatrix, DVector, UnitQuaternion, Vector3};
use rand::CryptoRng;
use std::fmt::Debug;

const POINTS: usize = 40;

fn rng(i: usize) -> ReleaseRng {
    seeded_rng_for_experiments(1000 + i as u64)
}

/// `privatize_each` on `points` and `privatize_slice` on each point alone, with the same generators.
fn both<M: Mechanism>(m: &M, points: &[M::Point]) -> (Vec<M::Point>, Vec<M::Point>)
where
    M::Point: Clone,
{
    let mut each = points.to_vec();
    m.privatize_each(&mut each, rng).unwrap();
    let mut alone = points.to_vec();
    for (i, x) in alone.iter_mut().enumerate() {
        m.privatize_slice(std::slice::from_mut(x), &mut rng(i)).unwrap();
    }
    (each, alone)
}

fn check<M: Mechanism>(what: &str, m: &M, points: &[M::Point])
where
    M::Point: Clone + PartialEq + Debug,
{
    let (each, alone) = both(m, points);
    assert_eq!(each, alone, "{what}: privatize_each differs from privatize_slice point by point");
    assert_ne!(each, points, "{what}: nothing was released");
    // And `privatize` itself, the one release every other form must match (a mechanism that rounds inside
    // `privatize` but forgets `EXACT_RELEASE` releases its raw draws from the slice forms).
    let single: Vec<M::Point> = points.iter().enumerate().map(|(i, x)| m.privatize(x, &mut rng(i)).unwrap()).collect();
    assert_eq!(each, single, "{what}: privatize_each differs from privatize point by point");
}

fn rotations() -> Vec<UnitQuaternion<f64>> {
    (0..POINTS).map(|i| UnitQuaternion::from_scaled_axis(Vector3::new(0.05 * i as f64, 0.3, -0.2))).collect()
}

fn directions(dim: usize) -> Vec<DVector<f64>> {
    (0..POINTS).map(|i| DVector::from_fn(dim, |j, _| 1.0 + 0.37 * j as f64 + 0.11 * i as f64).normalize()).collect()
}

#[test]
fn every_registry_mechanism_releases_the_same_bits_point_by_point() {
    let spaces = [Space::So3, Space::Circle, Space::TimeOfDay, Space::LatLon, Space::Sphere(3), Space::Sphere(10)];
    let mut checked = 0;
    for space in spaces {
        for name in MechanismName::ALL.into_iter().filter(|n| n.applies_to(space)) {
            for coarse in [false, true] {
                let mut m = PointMechanism::new(space, name, Budget::Epsilon(2.0)).unwrap();
                if coarse {
                    m = m.with_output_step(1e-3).unwrap();
                }
                let what = format!("{name} on {space}, coarse grid {coarse}");
                match &m {
                    PointMechanism::So3(m) => check(&what, m, &rotations()),
                    PointMechanism::Sphere(m) => check(&what, m, &directions(space.sphere_dim().unwrap())),
                    PointMechanism::Real(_) => unreachable!("built with bounds only"),
                }
                checked += 1;
            }
        }
    }
    assert!(checked >= 20, "only {checked} cases");
    let bingham = So3Mechanism::for_epsilon(So3Kind::Bingham, 0.5).unwrap();
    check("bingham at ε = 0.5", &bingham, &rotations());
}

#[test]
fn mechanisms_outside_the_registry_and_exact_scalar_releases_agree_too() {
    // Plain numbers: exact rounded laws (`EXACT_RELEASE`), released point by point through `privatize`.
    let PointMechanism::Real(bounded) = PointMechanism::bounded(-1.0, 1.0, 3, Budget::Epsilon(1.0)).unwrap() else {
        unreachable!()
    };
    let rows: Vec<Vec<f64>> = (0..POINTS).map(|i| vec![0.01 * i as f64, -0.5, 2.0]).collect();
    check("bounded laplace", &bounded, &rows);
    let reals: Vec<f64> = (0..POINTS).map(|i| 0.25 * i as f64).collect();
    check("audit's laplace", &ScalarLaplaceOnReals::new(ScalarLaplace::for_epsilon(1.0, 1.0).unwrap()), &reals);
    check("audit's gaussian", &GaussianOnReals::new(Gaussian::new(1.0, 1.0).unwrap()).unwrap(), &reals);
    let gg = GeneralizedGaussianOnReals::new(GeneralizedGaussian::new(3, 1.0, 1.0).unwrap()).unwrap();
    check("audit's generalized gaussian", &gg, &reals);
    check("uniform on S²", &UniformSphere::new(3).unwrap(), &directions(3));
    let planar = TangentPlanarLaplace::new(directions(3)[0].clone(), 2.0).unwrap();
    check("planar laplace", &planar, &directions(3));
    check("riemannian laplace on S²", &RiemannianLaplace::new(Sphere::new(3).unwrap(), 0.5).unwrap(), &directions(3));
    // SPD(2): log-Euclidean (rounded in the log domain) and affine-invariant (in the log chart at a centre).
    let spds: Vec<DMatrix<f64>> =
        (0..POINTS).map(|i| DMatrix::from_row_slice(2, 2, &[1.0 + 0.01 * i as f64, 0.1, 0.1, 0.8])).collect();
    let le = RiemannianLaplace::new(SpdLogEuclidean::new(2).unwrap(), 0.3).unwrap();
    check("log-euclidean laplace on SPD(2)", &le, &spds);
    let id = DMatrix::identity(2, 2);
    let affine = RiemannianLaplace::in_ball(SpdAffine::new(2).unwrap(), 0.1, &id, 2.0).unwrap();
    check("affine-invariant laplace on SPD(2)", &affine, &spds);
}

/// A mechanism whose release is not its snapped raw draw (like the exact scalar laws) but which overrides
/// `privatize_slice` instead of saying `EXACT_RELEASE`: the check above must catch it.
struct ForgetsEach(ScalarLaplaceOnReals);

impl Mechanism for ForgetsEach {
    type Point = f64;
    fn guarantee(&self) -> Guarantee {
        self.0.guarantee()
    }
    fn privatize_unprotected<R: CryptoRng + ?Sized>(&self, x: &f64, rng: &mut R, unprotected: Unprotected) -> f64 {
        self.0.privatize_unprotected(x, rng, unprotected)
    }
    fn privatize_slice<R: CryptoRng + ?Sized>(&self, xs: &mut [f64], rng: &mut R) -> manifold_dp::Fallible<()> {
        self.0.privatize_slice(xs, rng)
    }
    fn snap(&self, z: &mut f64) {
        self.0.snap(z)
    }
    fn log_density(&self, z: &f64, x: &f64) -> f64 {
        self.0.log_density(z, x)
    }
    fn name(&self) -> &'static str {
        "control:forgets-each"
    }
}

#[test]
fn a_mechanism_that_does_not_declare_its_exact_release_is_caught() {
    let m = ForgetsEach(ScalarLaplaceOnReals::new(ScalarLaplace::for_epsilon(1.0, 1.0).unwrap()));
    let reals: Vec<f64> = (0..POINTS).map(|i| 0.25 * i as f64).collect();
    let (each, alone) = both(&m, &reals);
    assert_ne!(each, alone, "the control went unnoticed");
}
