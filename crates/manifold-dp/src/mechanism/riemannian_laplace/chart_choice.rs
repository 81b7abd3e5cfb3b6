//! Choosing a mean's release chart: the cheapest tail level of the relative-error release's keep-ball.

use super::BallChart;
use crate::Fallible;
use crate::analysis::AngularLaw;
use crate::privacy::float_safety::Rounding;

/// ln 1/(1 − p), rounded up: what keeping an unconditioned release in a public ball costs when the noise puts
/// mass at most p beyond it (`docs/proofs/float_safety.md` §3i); 0 for p = 0.
pub(super) fn keep_ball_tail_cost(tail: f64) -> f64 {
    if tail > 0.0 { crate::numerics::rounding::fn_up(-(-tail).ln_1p()) } else { 0.0 }
}

/// The relative-error release's keep-ball (`docs/proofs/float_safety.md` §3i). Unconditioned: at the cheapest
/// tail level p ∈ {10⁻¹⁰, …, 10⁻²}, `chart`(τ, p + 10⁻¹¹) with τ = 1.001 × the angle law's 1 − p quantile (its
/// CDF is accurate to ~10⁻¹², so the mass beyond τ is below p + 10⁻¹¹), costing ε₀ + ln 1/(1 − p − 10⁻¹¹).
/// Conditioned on the data ball (`conditioned`): the one chart `chart`(−1, 0) whose keep-ball is the data ball,
/// costing 2ε₀ like the absolute rounding it replaces (§3b). Each with its footpoint map's cost, if any. `None` where no chart fits (wide balls) or the
/// `absolute`-error rounding costs no more.
pub(super) fn cheapest_relative_chart<P>(
    law: &dyn AngularLaw,
    conditioned: bool,
    chart: impl Fn(f64, f64) -> Result<BallChart<P>, &'static str>,
    absolute: Option<Rounding>,
) -> Fallible<Option<BallChart<P>>> {
    // The footpoint map's cost (the circle's computed angle) counts with the cells'; 0 on S^{n−1}, n ≥ 3, SO(3).
    let cost = |c: &BallChart<P>| c.rounding.additive_epsilon() + c.tail_cost + c.footpoint_cost;
    if conditioned {
        return Ok(match (chart(-1.0, 0.0), absolute) {
            (Ok(c), Some(old)) if c.rounding.additive_epsilon() + c.footpoint_cost < old.additive_epsilon() => Some(c),
            (Ok(c), None) => Some(c),
            _ => None,
        });
    }
    let levels = [1e-10, 1e-8, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2];
    let found = cheapest_over_levels(
        &levels,
        |level| keep_ball_tail_cost(level + 1e-11),
        cost,
        |level| {
            let tau = law.quantile(1.0 - level)? * 1.001;
            Ok(chart(tau, level + 1e-11))
        },
    )?;
    Ok(match (found, absolute) {
        (Ok(c), Some(old)) if cost(&c) < old.additive_epsilon() => Some(c),
        (Ok(c), None) => Some(c),
        _ => None,
    })
}

/// The cheapest candidate over the tail `levels`, the earliest on ties (`Err("no tail level fits")` if none
/// fits): `build(level)` makes a level's candidate, whose `cost` includes `tail_cost(level)`. A level whose tail
/// cost alone is no less than the best cost so far is skipped without being built, since its candidate could
/// not be strictly cheaper: the same choice as building every level, at a fraction of the set-up.
pub(super) fn cheapest_over_levels<C>(
    levels: &[f64],
    tail_cost: impl Fn(f64) -> f64,
    cost: impl Fn(&C) -> f64,
    mut build: impl FnMut(f64) -> Fallible<Result<C, &'static str>>,
) -> Fallible<Result<C, &'static str>> {
    let mut best: Result<C, &'static str> = Err("no tail level fits");
    for &level in levels {
        if let Ok(b) = &best
            && tail_cost(level) >= cost(b)
        {
            continue;
        }
        best = match (best, build(level)?) {
            (Ok(b), Ok(c)) => Ok(if cost(&c) < cost(&b) { c } else { b }),
            (Err(_), c) => c,
            (b, Err(_)) => b,
        };
    }
    Ok(best)
}
