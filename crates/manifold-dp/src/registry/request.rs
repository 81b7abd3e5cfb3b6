//! One request per per-row release: the rules that every front end shares — which options go together, how
//! "protect a distance at a level" becomes ε, what `auto` chose and when a named mechanism is much noisier —
//! so the command line and Python only parse the user's words, call [`PointRequest::plan`] and present the
//! [`PointPlan`]. A refusal names the options the way the front end spells them ([`Spelling`]), never in one
//! front end's words.

use super::{Budget, Chosen, MechanismChoice, MechanismName, PointMechanism, Space};
use crate::error::{Error, Fallible};
use crate::numerics::format::short;

/// A value shown beside an option in a message, for the front end to write in its own syntax.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown<'a> {
    /// The option alone (`--level`, `level=`).
    Bare,
    /// A number or a placeholder for one (`--epsilon E`, `epsilon=E`).
    Number(&'a str),
    /// A word or a text (`--protect 2km`, `protect="2km"`).
    Text(&'a str),
    /// A pair of numbers (`--bounds 0,1`, `bounds=(0, 1)`).
    Pair(&'a str, &'a str),
    /// A switch that is on (`--clamp-releases`, `clamp_releases=True`).
    On,
}

/// How a front end writes an option: the command line's `--snake-case value`, Python's `keyword=value`.
pub trait Spelling {
    /// The option `name` (the request's field name, snake_case) with `value`, as a user would type it.
    fn option(&self, name: &str, value: Shown<'_>) -> String;
}

/// A per-row release as the user asked for it, before any rule is applied: the space, the mechanism (or
/// `auto`), one budget (ε per radian, a protection distance with its level, or Bingham's concentration), and
/// for `real` the public bounds. Build it with struct-update syntax from [`PointRequest::new`].
#[derive(Debug, Clone, PartialEq)]
pub struct PointRequest<'a> {
    /// The space.
    pub space: Space,
    /// The mechanism, or `auto`.
    pub mechanism: MechanismChoice,
    /// ε per radian (per value on `real`).
    pub epsilon: Option<f64>,
    /// A distance with its unit (`2km`, `10deg`, `1h`), protected at `level`.
    pub protect: Option<&'a str>,
    /// The level of `protect`: ε = level / distance.
    pub level: Option<f64>,
    /// Bingham's concentration κ itself (guarantee κ/2 per radian).
    pub concentration: Option<f64>,
    /// `real` only: the public bounds every value is clamped to.
    pub bounds: Option<(f64, f64)>,
    /// `real` only: how many values each row holds.
    pub values: usize,
    /// `real` only: clamp every release back into the bounds (post-processing).
    pub clamp_releases: bool,
    /// A coarser public output grid, as a distance (`1km`), on rotations and directions.
    pub snap: Option<&'a str>,
}

impl<'a> PointRequest<'a> {
    /// A request for `mechanism` on `space` with no budget yet and one value per row.
    pub fn new(space: Space, mechanism: MechanismChoice) -> Self {
        PointRequest {
            space,
            mechanism,
            epsilon: None,
            protect: None,
            level: None,
            concentration: None,
            bounds: None,
            values: 1,
            clamp_releases: false,
            snap: None,
        }
    }
}

/// What the user asked for, resolved: the mechanism, the ε per radian it was built for (`None` under an explicit
/// concentration), and a note on the choice.
#[derive(Debug, Clone)]
pub struct PointPlan {
    /// The mechanism, its budget resolved and its output grid set.
    pub mechanism: PointMechanism,
    /// ε per radian (per value on `real`), `None` when a concentration was given.
    pub epsilon: Option<f64>,
    /// What `auto` chose and why, or a warning that the named mechanism is much noisier than another.
    pub note: Option<ChoiceNote>,
}

/// Why this mechanism: a note a front end shows beside the release (the command line on stderr, Python as the
/// mechanism's `note` or a warning).
#[derive(Debug, Clone, PartialEq)]
pub enum ChoiceNote {
    /// `auto` chose `chose`; `comparison` lists every candidate's expected error in the space's unit.
    Auto {
        /// The chosen mechanism.
        chose: MechanismName,
        /// E.g. "purkayastha: expected error 10 km; vmf: expected error 224 km (22.4× farther)".
        comparison: String,
    },
    /// The named mechanism moves points `times` (≥ 2) times farther than `better` at the same guarantee.
    MuchNoisier {
        /// The named mechanism.
        chosen: MechanismName,
        /// The most accurate one.
        better: MechanismName,
        /// How many times farther the named one moves points.
        times: f64,
        /// As in [`ChoiceNote::Auto`].
        comparison: String,
    },
}

impl ChoiceNote {
    fn of(chosen: &Chosen, space: Space) -> Option<Self> {
        let comparison = || chosen.comparison(space.natural_unit());
        if chosen.auto {
            return Some(ChoiceNote::Auto { chose: chosen.name, comparison: comparison() });
        }
        chosen.much_better().map(|(better, times)| ChoiceNote::MuchNoisier {
            chosen: chosen.name,
            better,
            times,
            comparison: comparison(),
        })
    }

    /// Whether this is a warning (a named mechanism much noisier than another) rather than information.
    pub fn is_warning(&self) -> bool {
        matches!(self, ChoiceNote::MuchNoisier { .. })
    }

    /// The note for people, options written as `spell` writes them.
    pub fn render(&self, spell: &dyn Spelling) -> String {
        match self {
            ChoiceNote::Auto { chose, comparison } => {
                format!("mechanism auto chose {chose} ({comparison})")
            }
            ChoiceNote::MuchNoisier { chosen, better, times, comparison } => format!(
                "{chosen} moves points {}× farther than {better} at this budget ({comparison}); {} (or auto) gives \
                 the same guarantee with less noise",
                short(*times),
                spell.option("mechanism", Shown::Text(better.as_str()))
            ),
        }
    }
}

fn refuse(message: String) -> Error {
    Error::NotApplicable(message)
}

impl PointRequest<'_> {
    /// The ledger's record of this release (one text from every front end, in the command line's syntax, which is
    /// the ledger's): `{command} {space} {mechanism} {budget as given}{bounds}{columns}: {source}`, with the
    /// budget as the user gave it (`--protect 2km --level 1`, `--epsilon 0.5` or `--concentration 8`) and
    /// `mechanism` the one that releases (what `auto` chose).
    pub fn ledger_label(&self, command: &str, mechanism: &str, columns: Option<&[String]>, source: &str) -> String {
        let budget = match (self.protect, self.level, self.epsilon, self.concentration) {
            (Some(p), Some(l), _, _) => format!("--protect {p} --level {l}"),
            (_, _, Some(e), _) => format!("--epsilon {e}"),
            (_, _, None, Some(k)) => format!("--concentration {k}"),
            _ => String::new(),
        };
        let bounds = self.bounds.map(|(lo, hi)| format!(" --bounds {lo},{hi}")).unwrap_or_default();
        let columns = columns.map(|c| format!(" --columns {}", c.join(","))).unwrap_or_default();
        format!("{command} {} {mechanism} {budget}{bounds}{columns}: {source}", self.space)
    }

    /// Applies the rules and builds the mechanism:
    /// - `bounds` goes with space `real` (and `real` needs it); `real` takes `epsilon` alone and the Laplace
    ///   (or `auto`); `clamp_releases` needs `bounds`;
    /// - elsewhere exactly one budget: `epsilon`, `protect` with `level` (ε = level / distance, the distance
    ///   in the space's units), or `concentration` (Bingham only);
    /// - `snap` sets a coarser public output grid (post-processing: the guarantee is unchanged).
    ///
    /// A refusal ([`Error::NotApplicable`], or the mechanism's own parameter error prefixed by the options that
    /// caused it) names the options as `spell` writes them and says what to give instead.
    pub fn plan(&self, spell: &dyn Spelling) -> Fallible<PointPlan> {
        let opt = |name: &str, value: Shown<'_>| spell.option(name, value);
        let real = opt("space", Shown::Text("real"));
        let with_options = |options: String| move |e: Error| refuse(format!("{options}: {e}"));
        if self.bounds.is_some() != (self.space == Space::Real) {
            return Err(refuse(format!(
                "{} goes with {real} (and {real} needs it)",
                opt("bounds", Shown::Pair("LO", "HI"))
            )));
        }
        if self.clamp_releases && self.bounds.is_none() {
            return Err(refuse(format!(
                "{} applies to {real} with {} only",
                opt("clamp_releases", Shown::On),
                opt("bounds", Shown::Pair("LO", "HI"))
            )));
        }
        if let Some((lo, hi)) = self.bounds {
            if let MechanismChoice::Named(m) = self.mechanism
                && m != MechanismName::Laplace
            {
                return Err(refuse(format!(
                    "{}: space real has one mechanism here, laplace; give {} (or auto)",
                    opt("mechanism", Shown::Text(m.as_str())),
                    opt("mechanism", Shown::Text("laplace"))
                )));
            }
            let epsilon = match (self.epsilon, self.protect, self.concentration) {
                (Some(e), None, None) => e,
                (None, None, None) => {
                    return Err(refuse(format!(
                        "give a budget: {real} takes {} (pure DP per row)",
                        opt("epsilon", Shown::Number("E"))
                    )));
                }
                (_, given, _) => {
                    let other = if given.is_some() { "protect" } else { "concentration" };
                    return Err(refuse(format!(
                        "{real} takes {} (pure DP per row), not {}",
                        opt("epsilon", Shown::Number("E")),
                        opt(other, Shown::Bare)
                    )));
                }
            };
            let (lo_text, hi_text) = (short(lo), short(hi));
            let bounded = PointMechanism::bounded(lo, hi, self.values, Budget::Epsilon(epsilon))
                .map_err(with_options(format!("{real} {}", opt("bounds", Shown::Pair(&lo_text, &hi_text)))))?;
            let mechanism = if self.clamp_releases { bounded.clamping_releases()? } else { bounded };
            return Ok(PointPlan { mechanism, epsilon: Some(epsilon), note: None });
        }
        let budget = self.budget(spell)?;
        let chosen = PointMechanism::choose(self.space, self.mechanism, budget).map_err(|e| match e {
            Error::NotApplicable(m) if self.concentration.is_some() => {
                refuse(format!("{}: {m}", opt("concentration", Shown::Bare)))
            }
            e => e,
        })?;
        let note = ChoiceNote::of(&chosen, self.space);
        let mut mechanism = chosen.mechanism;
        if let Some(step) = self.snap {
            let radians = self
                .space
                .parse_distance(step)
                .map_err(|e| refuse(format!("{}: {e}", opt("snap", Shown::Text(step)))))?;
            mechanism = mechanism.with_output_step(radians).map_err(with_options(opt("snap", Shown::Text(step))))?;
        }
        Ok(PointPlan { mechanism, epsilon: budget.epsilon()?, note })
    }

    /// The one budget of a non-`real` request.
    fn budget(&self, spell: &dyn Spelling) -> Fallible<Budget> {
        let opt = |name: &str, value: Shown<'_>| spell.option(name, value);
        match (self.epsilon, self.protect, self.level, self.concentration) {
            (Some(e), None, None, None) => Ok(Budget::Epsilon(e)),
            (None, Some(distance), Some(level), None) => {
                let radius = self
                    .space
                    .parse_distance(distance)
                    .map_err(|e| refuse(format!("{}: {e}", opt("protect", Shown::Text(distance)))))?;
                let budget = Budget::Protect { radius, level };
                budget.epsilon().map_err(|e| {
                    refuse(format!(
                        "{} {}: {e}",
                        opt("protect", Shown::Text(distance)),
                        opt("level", Shown::Number(&short(level)))
                    ))
                })?;
                Ok(budget)
            }
            (None, Some(_), None, None) => Err(refuse(format!(
                "{} needs {} (epsilon = level / distance)",
                opt("protect", Shown::Bare),
                opt("level", Shown::Number("L"))
            ))),
            (None, None, Some(_), None) => Err(refuse(format!(
                "{} goes with {} (epsilon = level / distance)",
                opt("level", Shown::Bare),
                opt("protect", Shown::Text("DISTANCE"))
            ))),
            (None, None, None, Some(k)) => Ok(Budget::Concentration(k)),
            (None, None, None, None) => Err(refuse(format!(
                "give a budget: {} (per radian) or {} {} (epsilon = L / distance; distances like 10deg, 1h on \
                 timeofday, 2km on latlon)",
                opt("epsilon", Shown::Number("E")),
                opt("protect", Shown::Text("DISTANCE")),
                opt("level", Shown::Number("L"))
            ))),
            _ => Err(refuse(format!(
                "give one budget: {}, {} with {}, or {} (bingham only)",
                opt("epsilon", Shown::Number("E")),
                opt("protect", Shown::Text("DISTANCE")),
                opt("level", Shown::Number("L")),
                opt("concentration", Shown::Number("K"))
            ))),
        }
    }
}

/// The radius question, both ways: how far `level` of a mechanism's releases fall at its budget (`epsilon` or
/// Bingham's `concentration`), or which ε per radian keeps `level` of them within `radius` (a distance with its
/// unit, `10deg`, `2km`, `1h`; a named mechanism only, since `auto` compares mechanisms at a given ε).
#[derive(Debug, Clone, PartialEq)]
pub struct RadiusRequest<'a> {
    /// The space.
    pub space: Space,
    /// The mechanism, or `auto` (not when solving for ε).
    pub mechanism: MechanismChoice,
    /// ε per radian.
    pub epsilon: Option<f64>,
    /// Bingham's concentration κ itself.
    pub concentration: Option<f64>,
    /// A distance: solve for the ε that keeps `level` of the releases within it.
    pub radius: Option<&'a str>,
    /// The share of releases within the radius, in (0, 1).
    pub level: f64,
}

/// A radius question resolved: the mechanism at its budget, whether its ε was solved from a radius, and the
/// note on the choice.
#[derive(Debug, Clone)]
pub struct RadiusPlan {
    /// The mechanism, at the ε given or solved.
    pub mechanism: PointMechanism,
    /// Whether ε was solved from the radius asked.
    pub solved: bool,
    /// What `auto` chose, or that the named mechanism is much noisier than another.
    pub note: Option<ChoiceNote>,
}

impl RadiusRequest<'_> {
    /// The mechanism the question is about: at the budget given, or at the ε solved exactly from the angle law's
    /// CDF so that `level` of the releases fall within `radius` (`analysis::*::epsilon_for_radius`). A
    /// refusal names the options as `spell` writes them.
    pub fn plan(&self, spell: &dyn Spelling) -> Fallible<RadiusPlan> {
        let opt = |name: &str, value: Shown<'_>| spell.option(name, value);
        let point = |epsilon: Option<f64>, concentration: Option<f64>| {
            PointRequest { epsilon, concentration, ..PointRequest::new(self.space, self.mechanism) }.plan(spell)
        };
        let Some(radius) = self.radius else {
            if self.epsilon.is_none() && self.concentration.is_none() {
                return Err(Error::Incomplete(format!(
                    "give {} (epsilon → radius) or {} (radius → epsilon; 10deg, 1h, 2km)",
                    opt("epsilon", Shown::Number("E")),
                    opt("radius", Shown::Text("DISTANCE"))
                )));
            }
            let plan = point(self.epsilon, self.concentration)?;
            return Ok(RadiusPlan { mechanism: plan.mechanism, solved: false, note: plan.note });
        };
        let rho = self
            .space
            .parse_distance(radius)
            .map_err(|e| Error::NotApplicable(format!("{}: {}", opt("radius", Shown::Text(radius)), e.0)))?;
        let MechanismChoice::Named(name) = self.mechanism else {
            return Err(Error::NotApplicable(format!(
                "{}: solving epsilon for a radius needs one mechanism; name a mechanism",
                opt("mechanism", Shown::Text("auto"))
            )));
        };
        // The mechanism must belong to the space (the point request's rule says so in the user's words).
        point(Some(1.0), None)?;
        let epsilon = match (name, self.space.sphere_dim()) {
            (MechanismName::Laplace, None) if self.space == Space::So3 => {
                crate::analysis::laplace_so3::epsilon_for_radius(rho, self.level)?
            }
            (MechanismName::Bingham, None) => crate::analysis::bingham_so3::epsilon_for_radius(rho, self.level)?,
            (_, Some(dim)) if name.sphere_kind().is_some() => crate::mechanism::SphereMechanism::epsilon_for_radius(
                name.sphere_kind().expect("checked"),
                dim,
                rho,
                self.level,
            )?,
            _ => {
                return Err(Error::NotApplicable(format!(
                    "{}: no radius is solved for {name} on {}",
                    opt("radius", Shown::Text(radius)),
                    self.space
                )));
            }
        };
        let plan = point(Some(epsilon), None)?;
        Ok(RadiusPlan { mechanism: plan.mechanism, solved: true, note: plan.note })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes every option as `<name|value>`, so a test sees which options a message names.
    struct Marked;

    impl Spelling for Marked {
        fn option(&self, name: &str, value: Shown<'_>) -> String {
            match value {
                Shown::Bare => format!("<{name}>"),
                Shown::Number(v) | Shown::Text(v) => format!("<{name}|{v}>"),
                Shown::Pair(a, b) => format!("<{name}|{a},{b}>"),
                Shown::On => format!("<{name}|on>"),
            }
        }
    }

    #[test]
    fn the_ledger_records_the_budget_as_given() {
        let latlon = PointRequest {
            protect: Some("2km"),
            level: Some(1.0),
            ..PointRequest::new(Space::LatLon, MechanismChoice::Auto)
        };
        let columns = ["lat".to_string(), "lon".to_string()];
        assert_eq!(
            latlon.ledger_label("privatize", "planar-laplace", Some(&columns), "in.csv -> out.csv"),
            "privatize latlon planar-laplace --protect 2km --level 1 --columns lat,lon: in.csv -> out.csv"
        );
        let bingham = PointRequest {
            concentration: Some(8.0),
            ..PointRequest::new(Space::So3, MechanismChoice::Named(MechanismName::Bingham))
        };
        assert_eq!(
            bingham.ledger_label("privatize", "bingham", None, "x"),
            "privatize so3 bingham --concentration 8: x"
        );
        let real = PointRequest {
            epsilon: Some(0.5),
            bounds: Some((0.0, 100.0)),
            ..PointRequest::new(Space::Real, MechanismChoice::Auto)
        };
        assert_eq!(
            real.ledger_label("spark privatize", "laplace", None, "spark DataFrame"),
            "spark privatize real laplace --epsilon 0.5 --bounds 0,100: spark DataFrame"
        );
    }

    #[test]
    fn a_radius_request_answers_both_ways() {
        let latlon = |mechanism, radius, epsilon| RadiusRequest {
            space: Space::LatLon,
            mechanism,
            epsilon,
            concentration: None,
            radius,
            level: 0.9,
        };
        let purkayastha = MechanismChoice::Named(MechanismName::Purkayastha);
        // Radius → ε, then ε → radius: the same 2 km.
        let solved = latlon(purkayastha, Some("2km"), None).plan(&Marked).expect("solved");
        assert!(solved.solved);
        let km = solved.mechanism.radius(0.9).expect("radius") * 6371.0088;
        assert!((km - 2.0).abs() < 1e-6, "{km}");
        let eps = solved.mechanism.guarantee().epsilon().expect("ε");
        let forward = latlon(purkayastha, None, Some(eps)).plan(&Marked).expect("ε given");
        assert!(!forward.solved);
        assert!((forward.mechanism.radius(0.9).expect("radius") * 6371.0088 - 2.0).abs() < 1e-6);
        // Refusals in the front end's words.
        let auto = latlon(MechanismChoice::Auto, Some("2km"), None).plan(&Marked).unwrap_err().to_string();
        assert!(auto.starts_with("<mechanism|auto>: solving epsilon for a radius needs one mechanism"), "{auto}");
        let neither = latlon(purkayastha, None, None).plan(&Marked).unwrap_err().to_string();
        assert!(neither.contains("<epsilon|E>") && neither.contains("<radius|DISTANCE>"), "{neither}");
        let unitless = latlon(purkayastha, Some("2"), None).plan(&Marked).unwrap_err().to_string();
        assert!(unitless.starts_with("<radius|2>: "), "{unitless}");
        let so3 = RadiusRequest { space: Space::So3, ..latlon(purkayastha, Some("10deg"), None) };
        assert!(so3.plan(&Marked).is_err(), "a sphere mechanism on so3 is refused");
    }

    fn refusal(request: PointRequest<'_>) -> String {
        request.plan(&Marked).unwrap_err().to_string()
    }

    #[test]
    fn every_rule_names_the_options_it_is_about() {
        let so3 = PointRequest::new(Space::So3, MechanismChoice::Named(MechanismName::Laplace));
        let real = PointRequest {
            bounds: Some((0.0, 1.0)),
            epsilon: Some(1.0),
            ..PointRequest::new(Space::Real, MechanismChoice::Auto)
        };
        let cases: Vec<(PointRequest<'_>, &str)> = vec![
            (PointRequest { bounds: Some((0.0, 1.0)), ..so3.clone() }, "<bounds|LO,HI> goes with <space|real>"),
            (PointRequest { bounds: None, ..real.clone() }, "<bounds|LO,HI> goes with <space|real>"),
            (
                PointRequest { clamp_releases: true, epsilon: Some(1.0), ..so3.clone() },
                "<clamp_releases|on> applies to",
            ),
            (
                PointRequest { mechanism: MechanismChoice::Named(MechanismName::Vmf), ..real.clone() },
                "<mechanism|vmf>: space real has one mechanism here, laplace; give <mechanism|laplace>",
            ),
            (PointRequest { epsilon: None, protect: Some("1"), level: Some(1.0), ..real.clone() }, "not <protect>"),
            (PointRequest { epsilon: None, concentration: Some(1.0), ..real.clone() }, "not <concentration>"),
            (PointRequest { epsilon: None, ..real.clone() }, "give a budget: <space|real> takes <epsilon|E>"),
            (PointRequest { bounds: Some((1.0, 0.0)), ..real.clone() }, "<space|real> <bounds|1,0>: "),
            (so3.clone(), "give a budget: <epsilon|E> (per radian) or <protect|DISTANCE> <level|L>"),
            (PointRequest { protect: Some("10deg"), ..so3.clone() }, "<protect> needs <level|L>"),
            (PointRequest { level: Some(1.0), ..so3.clone() }, "<level> goes with <protect|DISTANCE>"),
            (PointRequest { epsilon: Some(1.0), concentration: Some(2.0), ..so3.clone() }, "give one budget"),
            (PointRequest { protect: Some("10km"), level: Some(1.0), ..so3.clone() }, "<protect|10km>: "),
            (PointRequest { protect: Some("10deg"), level: Some(-1.0), ..so3.clone() }, "<protect|10deg> <level|-1>: "),
            (
                PointRequest { concentration: Some(2.0), ..so3.clone() },
                "<concentration>: a concentration applies to bingham",
            ),
            (PointRequest { epsilon: Some(1.0), snap: Some("1e-30deg"), ..so3.clone() }, "<snap|1e-30deg>: "),
        ];
        for (request, expected) in cases {
            let message = refusal(request.clone());
            assert!(message.contains(expected), "{request:?}: {message:?} lacks {expected:?}");
        }
    }

    #[test]
    fn a_valid_request_resolves_its_budget_and_says_why() {
        let at_5km = PointRequest {
            protect: Some("5km"),
            level: Some(1.0),
            ..PointRequest::new(Space::LatLon, MechanismChoice::Auto)
        };
        let plan = at_5km.plan(&Marked).unwrap();
        assert_eq!(plan.mechanism.name(), "purkayastha");
        let per_rad = crate::space::sphere::EARTH_RADIUS_KM / 5.0;
        assert!((plan.epsilon.unwrap() / per_rad - 1.0).abs() < 1e-12);
        let note = plan.note.unwrap();
        assert!(!note.is_warning());
        assert!(note.render(&Marked).starts_with("mechanism auto chose purkayastha (purkayastha: expected error 9.99"));
        // Naming the noisier one warns, and the warning names the better mechanism as the front end writes it.
        let vmf = PointRequest { mechanism: MechanismChoice::Named(MechanismName::Vmf), ..at_5km };
        let note = vmf.plan(&Marked).unwrap().note.unwrap();
        assert!(note.is_warning() && note.render(&Marked).contains("; <mechanism|purkayastha> (or auto)"));
        // Real: epsilon per value; a coarser grid and a concentration resolve too.
        let real = PointRequest {
            bounds: Some((0.0, 100.0)),
            epsilon: Some(1.0),
            values: 2,
            clamp_releases: true,
            ..PointRequest::new(Space::Real, MechanismChoice::Named(MechanismName::Laplace))
        };
        assert_eq!(real.plan(&Marked).unwrap().epsilon, Some(1.0));
        let bingham = PointRequest {
            concentration: Some(2.0),
            ..PointRequest::new(Space::So3, MechanismChoice::Named(MechanismName::Bingham))
        };
        let plan = bingham.plan(&Marked).unwrap();
        assert_eq!((plan.epsilon, plan.mechanism.guarantee().epsilon()), (None, Some(1.0)));
        let snapped = PointRequest {
            epsilon: Some(1.0),
            snap: Some("1deg"),
            ..PointRequest::new(Space::So3, MechanismChoice::Named(MechanismName::Laplace))
        };
        assert!(snapped.plan(&Marked).is_ok());
    }
}
