//! Prints the second table of `docs/renyi_local.md`: what the ledger's local Rényi account (`local_rdp`) reads
//! for k repeated local releases at δ = 10⁻⁶, against the fixed-in-advance conversion of the same curve. Run by
//! `scripts/renyi_local_table.sh`.

use manifold_dp::analysis::renyi_local::RDP_ORDERS;
use manifold_dp::mechanism::{BinghamSo3, LaplaceSo3, Mechanism, PurkayasthaSphere, VmfSphere};
use manifold_dp::privacy::Guarantee;
use manifold_dp::privacy::guarantee::short_up;
use manifold_dp::privacy::renyi::RdpCurve;
use manifold_dp_ledger::accounts::{local_curve, local_rdp_epsilon, local_rdp_split};

const DELTA: f64 = 1e-6;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut rows: Vec<(String, Guarantee)> = Vec::new();
    for eps in [0.1, 1.0] {
        rows.push((format!("VMF on S² (latlon), κ = {eps}"), VmfSphere::new(3, eps)?.guarantee()));
        rows.push((format!("VMF on the circle, κ = {eps}"), VmfSphere::new(2, eps)?.guarantee()));
        rows.push((format!("Purkayastha on S², κ = {eps}"), PurkayasthaSphere::new(3, eps)?.guarantee()));
        rows.push((format!("Laplace on SO(3), ε = {eps}/rad"), LaplaceSo3::new(eps)?.guarantee()));
        let b = BinghamSo3::new(eps)?;
        rows.push((format!("Bingham on SO(3), ε = {eps}/rad (κ = {})", 2.0 * eps), b.guarantee()));
    }
    println!("\n## The ledger's numbers\n");
    println!(
        "Made by `cargo run --release -p manifold-dp-ledger --example local_rdp_table`. The ledger admits local \
         releases one by one against a `local_rdp` budget (ε, δ) while some public order α has Σρ(α) ≤ \
         ε − ln(|Λ|/δ_R)/(α − 1), |Λ| = 23 orders, δ_R = δ·(1 − 2⁻²⁰) (`docs/proofs/accounting.md`, \"Local \
         releases in Rényi DP\"): a filter, valid for releases chosen adaptively, that pays ln|Λ|/(α − 1) for \
         choosing the order and uses the classical conversion. Columns: the curve that the release's guarantee \
         carries, k-fold, read by the ledger at δ = 10⁻⁶ (the smallest budget ε that admits all k), with its \
         order; the fixed-in-advance conversion of the table above (Canonne, Kamath & Steinke 2020); the \
         difference; and linear composition for reference.\n"
    );
    println!("| mechanism | k | ledger ε (δ = 1e-6) | α | fixed-in-advance ε | ledger − fixed | linear k·ε_p |");
    println!("|---|---|---|---|---|---|---|");
    let (delta_r, _) = local_rdp_split(DELTA);
    for (name, g) in &rows {
        let Guarantee::MetricDp { epsilon, metric, unit, additive_epsilon, .. } = *g else { unreachable!() };
        let pure = epsilon * manifold_dp_ledger::diameter(metric, unit).unwrap_or(f64::NAN) + additive_epsilon;
        let (curve, _) = local_curve(&[*g])?;
        for k in [10u64, 100, 1000] {
            let total = curve.repeated(k);
            let ledger = local_rdp_epsilon(&total, delta_r);
            // The order the ledger reads at: the one whose term alone gives its minimum.
            let order = RDP_ORDERS
                .iter()
                .zip(total.epsilons)
                .find(|(a, s)| local_rdp_epsilon(&single(**a, *s), delta_r) == ledger)
                .map_or(f64::NAN, |(a, _)| *a);
            let fixed = total.to_approx(DELTA)?;
            println!(
                "| {name} | {k} | {} | {order} | {} | {} | {} |",
                short_up(ledger),
                short_up(fixed.epsilon),
                short_up(ledger - fixed.epsilon),
                short_up(k as f64 * pure)
            );
        }
    }
    Ok(())
}

/// A curve that is `value` at `order` and infinite elsewhere: the ledger's reading at that order alone.
fn single(order: f64, value: f64) -> RdpCurve {
    let mut epsilons = [f64::INFINITY; RDP_ORDERS.len()];
    for (slot, a) in epsilons.iter_mut().zip(RDP_ORDERS) {
        if a == order {
            *slot = value;
        }
    }
    RdpCurve { epsilons }
}
