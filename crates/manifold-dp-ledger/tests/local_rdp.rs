//! The local Rényi account: repeated local releases whose guarantees carry their noise law are charged by
//! their curves, composed order by order, against an (ε, δ) budget; a release is admitted while the filter's
//! rule holds, and refused (nothing recorded) once the total would pass the budget.

use manifold_dp::analysis::renyi_local::RDP_ORDERS;
use manifold_dp::mechanism::{LaplaceSo3, Mechanism, VmfSphere};
use manifold_dp::privacy::renyi::RdpCurve;
use manifold_dp::privacy::{Guarantee, Metric};
use manifold_dp_ledger::accounts::{local_curve, local_rdp_epsilon, local_rdp_split};
use manifold_dp_ledger::{Account, Ledger, LedgerError};

fn new_ledger() -> (tempfile::TempDir, Ledger) {
    let dir = tempfile::tempdir().unwrap();
    let ledger = Ledger::create(dir.path().join("ledger.sqlite")).unwrap();
    (dir, ledger)
}

fn rdp_budget(epsilon: f64, delta: f64) -> (Account, Guarantee) {
    (Account::LocalRdp, Guarantee::ApproxDp { epsilon, delta })
}

/// Records `release` until the ledger refuses it; the number admitted.
fn admit_until_refused(ledger: &Ledger, dataset: &str, release: &[Guarantee], most: usize) -> usize {
    for k in 0..most {
        match ledger.record(dataset, "privatize sphere vmf", release, None) {
            Ok(_) => {}
            Err(e) => {
                assert!(matches!(e, LedgerError::OverBudget(_)), "{e}");
                return k;
            }
        }
    }
    most
}

#[test]
fn repeated_vmf_releases_compose_in_renyi_dp_far_past_linear_composition() {
    let vmf = VmfSphere::new(3, 0.1).unwrap();
    let g = vmf.guarantee();
    assert!(g.renyi().is_some(), "{g:?}");
    let (budget_epsilon, budget_delta) = (8.0, 1e-6);
    let (_dir, ledger) = new_ledger();
    ledger.set_budgets_in("pts", &[rdp_budget(budget_epsilon, budget_delta)]).unwrap();
    // Linear composition of ε_p = 2κ + ε₀ each admits 39 releases.
    let pure = g.epsilon().unwrap() * 2.0 + g.additive_epsilon();
    let linear = (budget_epsilon / pure).floor() as usize;
    assert_eq!(linear, 39);
    let k = admit_until_refused(&ledger, "pts", &[g], 1000);
    assert!(k > 2 * linear, "admitted {k}, linear {linear}");
    // The k admitted fit, k + 1 would not: the filter's rule, recomputed from the one release's curve.
    let (curve, _) = local_curve(&[g]).unwrap();
    let (delta_r, _) = local_rdp_split(budget_delta);
    let at = |n: usize| local_rdp_epsilon(&RdpCurve::compose(&vec![curve; n]), delta_r);
    assert!(at(k) <= budget_epsilon && at(k + 1) > budget_epsilon, "{} {}", at(k), at(k + 1));
    // Nothing was recorded on refusal; the report shows the total at the budget's δ beside the linear one.
    assert_eq!(ledger.releases(Some("pts")).unwrap().len(), k);
    let spent = ledger.spent("pts").unwrap();
    let rdp = spent.get("local_rdp").unwrap();
    let Some(Guarantee::ApproxDp { epsilon, delta }) = rdp.total else { panic!("{rdp:?}") };
    assert!(epsilon <= budget_epsilon && epsilon > budget_epsilon - 1.0 && delta == budget_delta, "{epsilon}");
    assert_eq!(rdp.within_budget, Some(true));
    assert_eq!(rdp.remaining, None);
    let metric = spent.get("metric:sphere_chordal:unit").unwrap().total.unwrap();
    assert!(metric.epsilon().unwrap() >= 0.1 * k as f64 * (1.0 - 1e-12), "{metric}");
    // The same release without its law is charged at its pure ε's curve, min(ε_p, αε_p²/2): about as many
    // as linear composition admits at this size (the law's curve is what helps).
    let Guarantee::MetricDp { epsilon, metric, unit, additive_epsilon, grid, delta_base, .. } = g else { panic!() };
    let bare = Guarantee::MetricDp { epsilon, metric, unit, additive_epsilon, grid, delta_base, renyi: None };
    ledger.set_budgets_in("bare", &[rdp_budget(budget_epsilon, budget_delta)]).unwrap();
    let k_bare = admit_until_refused(&ledger, "bare", &[bare], 1000);
    assert!(k_bare + 2 >= linear && k_bare < k / 2, "bare {k_bare}, with its law {k}, linear {linear}");
}

#[test]
fn the_ledger_pays_the_union_over_orders_and_nothing_else() {
    // ε_T = min_α Σρ(α) + ln(|Λ|/δ_R)/(α − 1): at least the single-order classical conversion, and above it by
    // at most ln|Λ|/(α − 1) plus δ_R's share at the order the conversion picks.
    let curve = LaplaceSo3::new(0.1).unwrap().renyi_curve().unwrap().repeated(100);
    let (delta_r, share) = local_rdp_split(1e-6);
    assert_eq!(share, 1e-6 / (1u64 << 20) as f64);
    assert!(delta_r < 1e-6 && delta_r > 1e-6 * (1.0 - 2e-6));
    let ledger = local_rdp_epsilon(&curve, delta_r);
    let classical = curve.to_approx_classical(1e-6).unwrap();
    assert!(ledger > classical.epsilon, "{ledger} {classical:?}");
    let worst = RDP_ORDERS.iter().map(|a| ((RDP_ORDERS.len() as f64).ln() + 1e-5) / (a - 1.0)).fold(0.0, f64::max);
    assert!(ledger <= classical.epsilon + worst);
    let at = (RDP_ORDERS.len() as f64).ln() / (classical.order - 1.0);
    assert!(ledger <= classical.epsilon + at + 1e-5, "{ledger} {classical:?} {at}");
}

#[test]
fn local_and_central_budgets_share_a_label_and_unbounded_or_central_releases_are_kept_apart() {
    let (_dir, ledger) = new_ledger();
    let so3 = LaplaceSo3::new(0.1).unwrap().guarantee();
    ledger
        .set_budgets_in("d", &[rdp_budget(2.0, 1e-6), (Account::of(&Guarantee::pure(1.0)), Guarantee::pure(1.0))])
        .unwrap();
    // A central release is charged to the pure budget only.
    ledger.record("d", "mean so3", &[Guarantee::pure(0.6)], None).unwrap();
    ledger.record("d", "privatize so3 laplace", &[so3], None).unwrap();
    let spent = ledger.spent("d").unwrap();
    assert_eq!(spent.get("pure").unwrap().total, Some(Guarantee::pure(0.6)));
    let Some(Guarantee::ApproxDp { epsilon, .. }) = spent.get("local_rdp").unwrap().total else { panic!() };
    let (curve, _) = local_curve(&[so3]).unwrap();
    assert_eq!(epsilon, local_rdp_epsilon(&curve, local_rdp_split(1e-6).0));
    assert!(matches!(ledger.check("d", &[Guarantee::pure(0.5)]), Err(LedgerError::OverBudget(_))));
    // A local release in a metric of no finite diameter implies nothing there: refused, not charged 0.
    let spd = Guarantee::metric_dp(0.1, Metric::SpdAffineInvariant);
    assert!(matches!(ledger.check("d", &[spd]), Err(LedgerError::Unaccountable { .. })));
    // A budget with δ = 0 is no local Rényi budget.
    assert!(ledger.set_budgets_in("e", &[rdp_budget(1.0, 0.0)]).is_err());
    assert_eq!(ledger.releases(Some("d")).unwrap().len(), 2);
}
