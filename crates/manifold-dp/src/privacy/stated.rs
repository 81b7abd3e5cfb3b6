//! A central release's guarantee together with what it is a guarantee between: the rows it covers and where
//! they may lie, and (for a mean that drops rows outside its ball) what it does not protect, so that a printed
//! guarantee says what it protects in the object itself. The neighbouring relation is the guarantee's own
//! ([`Neighbouring`], serialised by it only where narrower than replacing any one row). Serialised as the
//! guarantee's keys (`notion`, `epsilon`, …) plus `rows`, `domain` and `not_protected`; a ledger or a budget
//! command reading it back as a [`Guarantee`] ignores the extra keys and keeps the relation.

use crate::privacy::Guarantee;
pub use crate::privacy::guarantee::Neighbouring;
use serde::Serialize;

/// A guarantee as a front end prints it for a central release.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StatedGuarantee {
    /// The guarantee (its keys, its neighbouring relation included, appear at the top level).
    #[serde(flatten)]
    pub guarantee: Guarantee,
    /// The number of rows n of the data sets compared (public: the release reveals it through σ).
    pub rows: u64,
    /// Where the rows may lie, for people (e.g. "anywhere on SO(3)").
    pub domain: String,
    /// What the guarantee does not protect, for people (absent where it protects every row).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_protected: Option<String>,
}

impl StatedGuarantee {
    /// The guarantee of a mean whose rows outside the public ball (or bounds) were dropped: over the `kept` rows
    /// inside, between tables with the same rows outside ([`Neighbouring::ReplaceOneRowInBall`], set here on a
    /// pure guarantee), and what that leaves unprotected — whether a row lies outside, and how many do, which
    /// the noise scale σ = Δ(kept)/ε reveals (as do Δ and n).
    pub fn dropped_outside(guarantee: Guarantee, kept: u64, domain: String) -> Self {
        let guarantee = match guarantee {
            Guarantee::PureDp { epsilon, delta, .. } => {
                Guarantee::PureDp { epsilon, neighbouring: Neighbouring::ReplaceOneRowInBall, delta }
            }
            other => other,
        };
        StatedGuarantee {
            guarantee,
            rows: kept,
            domain,
            not_protected: Some(
                "whether a row lies outside (its row is dropped), and how many rows do: the mean is over the rows \
                 inside, and its noise scale sigma = sensitivity(n)/epsilon, the sensitivity and n all reveal that \
                 count"
                    .into(),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_statement_reads_back_as_its_guarantee() {
        let s = StatedGuarantee {
            guarantee: Guarantee::pure(1.0),
            rows: 214,
            domain: "anywhere on SO(3)".into(),
            not_protected: None,
        };
        let text = serde_json::to_string(&s).unwrap();
        assert_eq!(text, r#"{"notion":"pure_dp","epsilon":1.0,"rows":214,"domain":"anywhere on SO(3)"}"#);
        let back: Guarantee = serde_json::from_str(&text).unwrap();
        assert_eq!(back, Guarantee::pure(1.0));
    }

    #[test]
    fn a_drop_mean_states_what_it_does_not_protect_and_keeps_its_relation() {
        let s = StatedGuarantee::dropped_outside(Guarantee::pure(1.0), 90, "rows within 0.5 rad".into());
        let v = serde_json::to_value(&s).unwrap();
        assert_eq!(v["neighbouring"], "replace_one_row_in_ball");
        assert_eq!(v["rows"], 90);
        assert!(v["not_protected"].as_str().unwrap().contains("how many rows do"));
        let back: Guarantee = serde_json::from_value(v).unwrap();
        assert_eq!(
            back,
            Guarantee::PureDp { epsilon: 1.0, neighbouring: Neighbouring::ReplaceOneRowInBall, delta: 0.0 }
        );
    }
}
