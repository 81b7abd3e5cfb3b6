use super::*;
use crate::audit::gof::ks_test;
use crate::sample::rng::seeded_rng_for_experiments;

/// KS statistics of `draws` angles against the exact law at σ and at 1.1σ (the negative control), with the
/// DKW–Massart critical value at false-failure probability 1e-7 per test.
fn ks_pair(space: GaussianSpace, sigma: f64, draws: usize, seed: u64) -> (f64, f64, f64, GaussianProposal) {
    let noise = GaussianNoise::new(space, sigma).unwrap();
    let mut rng = seeded_rng_for_experiments(seed);
    let mut xs: Vec<f64> = (0..draws).map(|_| noise.sample_angle(&mut rng)).collect();
    let good = ks_test(&mut xs, |s| space.radial_cdf(sigma, s), 1e-7);
    let bad = ks_test(&mut xs, |s| space.radial_cdf(1.1 * sigma, s), 1e-7);
    (good.statistic, bad.statistic, good.critical, noise.proposal())
}

fn check(space: GaussianSpace, sigmas: &[f64]) {
    for (i, &sigma) in sigmas.iter().enumerate() {
        let (good, bad, crit, proposal) = ks_pair(space, sigma, 60_000, 1000 + i as u64);
        assert!(good <= crit, "{space:?} σ {sigma} ({proposal:?}): KS {good} > {crit}");
        assert!(bad > crit, "{space:?} σ {sigma} ({proposal:?}): the control at 1.1σ passed ({bad} ≤ {crit})");
    }
}

#[test]
fn the_circle_angle_follows_the_exact_law() {
    check(GaussianSpace::sphere(2).unwrap(), &[0.05, 0.6, 3.0]);
}

#[test]
fn the_s2_angle_follows_the_exact_law() {
    check(GaussianSpace::sphere(3).unwrap(), &[0.05, 0.6, 1.6]);
}

#[test]
fn the_s4_angle_follows_the_exact_law() {
    check(GaussianSpace::sphere(5).unwrap(), &[0.05, 0.6, 1.6]);
}

#[test]
fn the_so3_angle_follows_the_exact_law() {
    check(GaussianSpace::So3, &[0.05, 0.6, 2.0]);
}

#[test]
fn both_proposals_and_both_pieces_are_exercised() {
    let s2 = GaussianSpace::sphere(3).unwrap();
    assert!(
        matches!(GaussianNoise::new(s2, 0.6).unwrap().proposal(), GaussianProposal::Chi { ln_far, .. } if ln_far > -5.0)
    );
    assert_eq!(GaussianNoise::new(s2, 1.6).unwrap().proposal(), GaussianProposal::Uniform);
    assert_eq!(GaussianNoise::new(GaussianSpace::So3, 2.0).unwrap().proposal(), GaussianProposal::Uniform);
    assert!(matches!(GaussianNoise::new(GaussianSpace::So3, 0.6).unwrap().proposal(), GaussianProposal::Chi { .. }));
}

#[test]
fn acceptance_errors_are_small() {
    for space in [
        GaussianSpace::sphere(2).unwrap(),
        GaussianSpace::sphere(3).unwrap(),
        GaussianSpace::sphere(100).unwrap(),
        GaussianSpace::So3,
    ] {
        for &sigma in &[1e-6, 1e-3, 0.1, 1.0, 10.0] {
            let a = GaussianNoise::new(space, sigma).unwrap().acceptance_error();
            assert!(a < 1e-9, "{space:?} σ {sigma}: α {a}");
        }
    }
}

#[test]
fn points_lie_at_the_drawn_distance() {
    let mut rng = seeded_rng_for_experiments(7);
    let s2 = GaussianNoise::new(GaussianSpace::sphere(3).unwrap(), 0.3).unwrap();
    let mu = DVector::from_vec(vec![0.0, 0.6, 0.8]);
    for _ in 0..100 {
        let z = s2.sample_around(&mu, &mut rng);
        assert!((z.norm() - 1.0).abs() < 1e-14);
    }
    let so3 = GaussianNoise::new(GaussianSpace::So3, 0.3).unwrap();
    for _ in 0..100 {
        let q = so3.sample_rotation(&mut rng);
        assert!((q.as_ref().norm() - 1.0).abs() < 1e-14);
    }
}
