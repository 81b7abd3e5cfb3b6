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
