//! One file per command: parse the arguments into library types, call the libraries, print or write.

pub mod audit;
pub mod budget;
pub mod demo;
pub mod ledger;
pub mod mean;
pub mod privatize;
pub mod radius;
pub mod reproduce;
pub mod reproduce_directional;
pub mod reproduce_riemannian;
pub mod sample;

/// A seeded run: refused with `--ledger` (the rule of `manifold_dp::privacy::rules`, shared by every front end),
/// and otherwise announced on standard error, as the Python package warns.
pub fn seeded(seeded: bool, ledger: bool) -> Result<(), crate::BadInput> {
    manifold_dp::privacy::rules::check_seed_and_ledger(seeded, ledger)
        .map_err(|e| crate::BadInput(format!("--seed with --ledger: {e}")))?;
    if seeded {
        eprintln!("warning: {}", manifold_dp::privacy::rules::SEEDED_WARNING);
    }
    Ok(())
}
