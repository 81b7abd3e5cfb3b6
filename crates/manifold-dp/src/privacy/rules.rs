//! Rules about how releases are used, which every front end applies the same way (the command line, the Python
//! package, Spark): a seeded run is an experiment, never a charged release; and copies of one point released
//! again and again compose.

use crate::error::Param;
use crate::error::{Error, Fallible};
use crate::privacy::Guarantee;
use crate::privacy::accounting::compose;

/// What every front end says on every seeded run (a seed replaces the release's secret key).
pub const SEEDED_WARNING: &str =
    "seeded run, for experiments only and not for releases: anyone who knows the seed can remove the noise";

/// Refuses a seeded run that would be charged to a privacy ledger: with a known seed the noise can be removed,
/// so recording it as a release would state a guarantee that does not hold. A seeded run without a ledger is an
/// experiment (and says so with [`SEEDED_WARNING`]); a ledger release draws its key from the operating system.
pub fn check_seed_and_ledger(seeded: bool, ledger: bool) -> Fallible<()> {
    if seeded && ledger {
        return Err(Error::NotApplicable(
            "a seeded run cannot be charged to a privacy ledger: anyone who knows the seed can remove the noise, so \
             it is an experiment, not a release. Drop the seed to release (the key then comes from the operating \
             system), or drop the ledger to experiment"
                .into(),
        ));
    }
    Ok(())
}

/// The guarantee of `n` independent releases of one point, each with guarantee `each`: they compose
/// sequentially (`n`·ε for pure and metric DP, √n·μ for GDP, …, rounded up), since each is a release of the same
/// data. Averaging `n` releases of one point recovers it ever more closely; this is what that costs.
pub fn repeated(each: &Guarantee, n: u64) -> Fallible<Guarantee> {
    if n == 0 {
        return Err(Error::InvalidParameter { name: Param::N, value: 0.0, reason: "must be at least 1" });
    }
    // Binary powers: `compose` of two equal costs doubles them (rounded up), so log₂ n compositions suffice.
    let (mut total, mut power, mut rest) = (None::<Guarantee>, *each, n);
    loop {
        if rest & 1 == 1 {
            total = Some(match total {
                None => power,
                Some(t) => compose(&[t, power])?,
            });
        }
        rest >>= 1;
        if rest == 0 {
            break;
        }
        power = compose(&[power, power])?;
    }
    Ok(total.expect("n ≥ 1"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::privacy::Metric;

    #[test]
    fn a_seed_with_a_ledger_is_refused_and_alone_is_an_experiment() {
        assert!(check_seed_and_ledger(true, true).is_err());
        assert!(check_seed_and_ledger(true, false).is_ok());
        assert!(check_seed_and_ledger(false, true).is_ok());
        let e = check_seed_and_ledger(true, true).unwrap_err().to_string();
        assert!(e.contains("ledger") && e.contains("seed") && !e.contains("--"), "{e}");
    }

    #[test]
    fn n_copies_of_one_point_cost_n_times() {
        let each = Guarantee::metric_dp(0.5, Metric::So3Geodesic);
        for n in [1u64, 2, 3, 7, 1000, 1_000_000] {
            let total = repeated(&each, n).unwrap();
            let eps = total.epsilon().unwrap();
            assert!(eps >= 0.5 * n as f64 && eps <= 0.5 * n as f64 * (1.0 + 1e-12), "{n}: {eps}");
        }
        let mu = repeated(&Guarantee::gdp(1.0), 16).unwrap();
        assert!(matches!(mu, Guarantee::Gdp { mu, .. } if (mu - 4.0).abs() < 1e-12));
        assert!(repeated(&each, 0).is_err());
    }
}
