//! A central release's guarantee together with what it is a guarantee between: the neighbouring relation and
//! the rows it covers, so that a printed guarantee says what it protects (and what it does not) in the object
//! itself. Serialised as the guarantee's own keys (`notion`, `epsilon`, …) plus `neighbouring`, `rows` and
//! `domain`; a ledger or a budget command reading it back as a [`Guarantee`] ignores the extra keys.

use crate::privacy::Guarantee;
use serde::Serialize;

/// Which data sets a central guarantee calls neighbours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Neighbouring {
    /// Data sets of the same number of rows that differ in one row (replaced by any other row of the domain).
    ReplaceOneRow,
    /// Tables with the same rows outside the public ball (or bounds) that differ in one row lying inside it in
    /// both, replaced by another such row: the relation a mean with `outside = drop` is private for
    /// (`docs/proofs/mean_outside_ball.md` §2).
    ReplaceOneRowInBall,
}

/// A guarantee as a front end prints it for a central release.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StatedGuarantee {
    /// The guarantee (its keys appear at the top level).
    #[serde(flatten)]
    pub guarantee: Guarantee,
    /// Between which data sets it holds.
    pub neighbouring: Neighbouring,
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
    /// inside, between tables with the same rows outside, and what that leaves unprotected — whether a row lies
    /// outside, and how many do, which the noise scale σ = Δ(kept)/ε reveals (as do Δ and n).
    pub fn dropped_outside(guarantee: Guarantee, kept: u64, domain: String) -> Self {
        StatedGuarantee {
            guarantee,
            neighbouring: Neighbouring::ReplaceOneRowInBall,
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
            guarantee: Guarantee::PureDp { epsilon: 1.0 },
            neighbouring: Neighbouring::ReplaceOneRow,
            rows: 214,
            domain: "anywhere on SO(3)".into(),
            not_protected: None,
        };
        let text = serde_json::to_string(&s).unwrap();
        assert_eq!(
            text,
            r#"{"notion":"pure_dp","epsilon":1.0,"neighbouring":"replace_one_row","rows":214,"domain":"anywhere on SO(3)"}"#
        );
        let back: Guarantee = serde_json::from_str(&text).unwrap();
        assert_eq!(back, Guarantee::PureDp { epsilon: 1.0 });
    }
}

#[cfg(test)]
mod dropped_tests {
    use super::*;

    #[test]
    fn a_drop_mean_states_what_it_does_not_protect() {
        let s = StatedGuarantee::dropped_outside(Guarantee::PureDp { epsilon: 1.0 }, 90, "rows within 0.5 rad".into());
        let v = serde_json::to_value(&s).unwrap();
        assert_eq!(v["neighbouring"], "replace_one_row_in_ball");
        assert_eq!(v["rows"], 90);
        assert!(v["not_protected"].as_str().unwrap().contains("how many rows do"));
        let back: Guarantee = serde_json::from_value(v).unwrap();
        assert_eq!(back, Guarantee::PureDp { epsilon: 1.0 });
    }
}
