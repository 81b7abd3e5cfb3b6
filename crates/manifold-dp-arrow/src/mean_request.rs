//! One request per private mean: the rules every front end shares before a table is read — which options go
//! together, how the centre and radius are read on each space, what a refusal says — and the ledger's record of
//! the request. The command line and Python build a [`MeanRequest`] from what the user typed, call
//! [`MeanRequest::plan`] and present the result; refusals name options as the front end spells them
//! ([`Spelling`]).

use crate::Error;
use crate::extrinsic::ExtrinsicPlan;
use crate::mean::{MeanNoise, MeanPlan, SpdMetric, max_radius};
use manifold_dp::Error as LibError;
use manifold_dp::error::Param;
use manifold_dp::manifold::ball::Outside;
use manifold_dp::mechanism::Conditioning;
use manifold_dp::registry::{Shown, Space, Spelling};
use manifold_dp::space::representation::Representation;

/// The public centre as the user gave it: text as typed (`identity`, `13:00`, `48.85,2.35`), or the point's
/// values in the table's layout (Python arrays, a scipy rotation converted to the input's format).
#[derive(Debug, Clone, PartialEq)]
pub enum MeanCenter {
    /// Text: `identity` on so3 and spd:K, a clock time on timeofday, else comma-separated numbers.
    Text(String),
    /// The values themselves.
    Values(Vec<f64>),
}

/// A real mean's public bounds: one pair for every column, or one pair per column (named, or in the columns'
/// order).
#[derive(Debug, Clone, PartialEq)]
pub enum MeanBounds {
    /// [lo, hi] for every column.
    Shared(f64, f64),
    /// One (lo, hi) per column; `names` when the bounds name their columns (`depth=0:700,mag=4:7`).
    PerColumn {
        /// The pairs, in column order.
        bounds: Vec<(f64, f64)>,
        /// The columns the pairs name, if they name them.
        names: Option<Vec<String>>,
    },
}

impl MeanBounds {
    /// As the command line writes them: `0,700`, or `depth=0:700,mag=4:7` (`c0`, `c1`, … for unnamed pairs).
    pub fn text(&self) -> String {
        match self {
            MeanBounds::Shared(lo, hi) => format!("{lo},{hi}"),
            MeanBounds::PerColumn { bounds, names } => bounds
                .iter()
                .enumerate()
                .map(|(i, (lo, hi))| {
                    let name = names.as_ref().map_or_else(|| format!("c{i}"), |n| n[i].clone());
                    format!("{name}={lo}:{hi}")
                })
                .collect::<Vec<_>>()
                .join(","),
        }
    }
}

/// Which mean: the Fréchet mean in a public ball (or a real mean within bounds), or the extrinsic mean of rows
/// anywhere on the space.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Estimator {
    /// The Fréchet mean of rows in a public ball, with the Riemannian Laplace or Gaussian.
    #[default]
    Frechet,
    /// The mean of the embedded rows with K-norm noise, projected back (`docs/proofs/extrinsic_mean.md`).
    Extrinsic,
}

/// A Fréchet (or bounded real) mean as the user asked for it, before any rule is applied. Build it with
/// struct-update syntax from [`MeanRequest::new`].
#[derive(Debug, Clone, PartialEq)]
pub struct MeanRequest {
    /// The space.
    pub space: Space,
    /// Which mean.
    pub estimator: Estimator,
    /// The public centre (every space but `real`).
    pub center: Option<MeanCenter>,
    /// The public radius as typed: a distance with its unit (`300km`, `20deg`; a bare number is radians where
    /// the space allows it), a plain number on spd:K.
    pub radius: Option<String>,
    /// `real` only: the public bounds.
    pub bounds: Option<MeanBounds>,
    /// so3: the rotation format (default quat-wxyz); circle: rad or deg.
    pub format: Option<String>,
    /// spd:K only: the metric (default affine-invariant).
    pub metric: Option<SpdMetric>,
    /// The value columns, if not the space's defaults.
    pub columns: Option<Vec<String>>,
    /// What happens to rows outside the ball or bounds.
    pub outside: Outside,
}

impl MeanRequest {
    /// A request on `space` with nothing else given.
    pub fn new(space: Space) -> Self {
        MeanRequest {
            space,
            estimator: Estimator::Frechet,
            center: None,
            radius: None,
            bounds: None,
            format: None,
            metric: None,
            columns: None,
            outside: Outside::Error,
        }
    }

    /// The plan of this mean with `noise`, after the rules every front end shares: a format only on so3 and the
    /// circle, a metric only on spd:K, bounds exactly on `real`, a centre and radius elsewhere (read in the
    /// space's units), the radius below the space's limit, and a noise the space has a sampler for. A refusal
    /// names the options as `spell` writes them and says what to give instead.
    pub fn plan(&self, noise: Option<&MeanNoise>, spell: &dyn Spelling) -> Result<MeanPlan, Error> {
        let space = self.space;
        let opt = |name: &str, value: Shown<'_>| spell.option(name, value);
        let space_is = |s: &str| opt("space", Shown::Text(s));
        self.check_format(spell)?;
        if self.metric.is_some_and(|m| m != SpdMetric::Affine) && !matches!(space, Space::Spd(_)) {
            return Err(refuse(format!("{} applies to {} only", opt("metric", Shown::Bare), space_is("spd:K"))));
        }
        if space == Space::So3 {
            self.format.as_deref().unwrap_or("quat-wxyz").parse::<Representation>()?;
        }
        if self.bounds.is_some() != (space == Space::Real) {
            return Err(refuse(format!(
                "{} goes with {} (and {} needs it)",
                opt("bounds", Shown::Pair("LO", "HI")),
                space_is("real"),
                space_is("real")
            )));
        }
        let plan = match &self.bounds {
            Some(MeanBounds::Shared(lo, hi)) => MeanPlan::bounded(self.columns.as_deref(), *lo, *hi, self.outside)?,
            Some(MeanBounds::PerColumn { bounds, .. }) => {
                MeanPlan::bounded_per_column(&self.bounded_columns(spell)?, bounds, self.outside)?
            }
            None => self.frechet_plan(spell)?,
        };
        // A mechanism the space has no sampler for is refused before the ledger or the file is touched.
        if let Some(noise) = noise {
            plan.check_noise(0, noise).map_err(|e| {
                refuse(format!(
                    "{} on {}: {e}",
                    opt("mechanism", Shown::Text("gaussian")),
                    space_is(&space.to_string())
                ))
            })?;
        }
        Ok(plan)
    }

    /// The extrinsic mean's plan and its ε, after its rules: pure ε-DP (the Laplace's ε), no public ball (a
    /// centre, radius, bounds, outside rule, conditioning or metric is refused rather than silently ignored), a
    /// format only on so3 and the circle, and a space it is defined on.
    pub fn extrinsic_plan(&self, noise: &MeanNoise, spell: &dyn Spelling) -> Result<(ExtrinsicPlan, f64), Error> {
        let opt = |name: &str, value: Shown<'_>| spell.option(name, value);
        let MeanNoise::Laplace { epsilon, conditioning } = *noise else {
            return Err(refuse(format!(
                "{} goes with {} (a public ball): the extrinsic mean is pure ε-DP; give {} without {}, or drop {}",
                opt("mechanism", Shown::Text("gaussian")),
                opt("estimator", Shown::Text("frechet")),
                opt("epsilon", Shown::Number("E")),
                opt("mechanism", Shown::Bare),
                opt("estimator", Shown::Bare)
            )));
        };
        let unused = [
            (self.center.is_some(), "center"),
            (self.radius.is_some(), "radius"),
            (self.bounds.is_some(), "bounds"),
            (self.outside != Outside::Error, "outside"),
            (conditioning != Conditioning::Auto, "conditioning"),
            (self.metric.is_some_and(|m| m != SpdMetric::Affine), "metric"),
        ];
        if let Some((_, name)) = unused.iter().find(|(given, _)| *given) {
            let given = opt(name, Shown::Bare);
            return Err(refuse(format!(
                "{given} is not used by {}: it takes every row, anywhere on the space, with no public ball (leave \
                 {given} out, or use {})",
                opt("estimator", Shown::Text("extrinsic")),
                opt("estimator", Shown::Text("frechet"))
            )));
        }
        self.check_format(spell)?;
        let plan = ExtrinsicPlan::new(self.space, self.format.as_deref(), self.columns.as_deref()).map_err(|e| {
            refuse(format!(
                "{} on {}: {e}",
                opt("estimator", Shown::Text("extrinsic")),
                opt("space", Shown::Text(&self.space.to_string()))
            ))
        })?;
        Ok((plan, epsilon))
    }

    /// A format applies to so3 (a rotation format) and the circle (rad or deg) only.
    fn check_format(&self, spell: &dyn Spelling) -> Result<(), Error> {
        if self.format.is_some() && !matches!(self.space, Space::So3 | Space::Circle) {
            return Err(refuse(format!(
                "{} applies to {} (a rotation format) and circle (rad or deg) only",
                spell.option("format", Shown::Bare),
                spell.option("space", Shown::Text("so3"))
            )));
        }
        Ok(())
    }

    /// The ledger's record of this request (the same words from every front end, in the command line's
    /// syntax, which is the ledger's): `{command} {space} {ball} {budget} --outside {outside}{columns}: {source}`.
    pub fn ledger_label(&self, command: &str, noise: &MeanNoise, source: &str) -> String {
        let columns = self.columns.as_ref().map(|c| format!(" --columns {}", c.join(","))).unwrap_or_default();
        if let (Estimator::Extrinsic, MeanNoise::Laplace { epsilon, .. }) = (self.estimator, noise) {
            return format!("{command} {} --estimator extrinsic --epsilon {epsilon}{columns}: {source}", self.space);
        }
        let ball = match &self.bounds {
            Some(b) => format!("--bounds {}", b.text()),
            None => {
                let center = match &self.center {
                    Some(MeanCenter::Text(t)) => t.clone(),
                    Some(MeanCenter::Values(v)) => v.iter().map(f64::to_string).collect::<Vec<_>>().join(","),
                    None => String::new(),
                };
                format!("--center {center} --radius {}", self.radius.as_deref().unwrap_or_default())
            }
        };
        let budget = match noise {
            MeanNoise::Laplace { epsilon, .. } => format!("--epsilon {epsilon}"),
            MeanNoise::Gaussian { mu } => format!("--mechanism gaussian --mu {mu}"),
        };
        format!("{command} {} {ball} {budget} --outside {}{columns}: {source}", self.space, self.outside)
    }

    /// The columns per-column bounds apply to: the names the bounds give (which the columns, if also given,
    /// must repeat), else the columns given.
    fn bounded_columns(&self, spell: &dyn Spelling) -> Result<Vec<String>, Error> {
        let Some(MeanBounds::PerColumn { bounds, names }) = &self.bounds else {
            return Ok(self.columns.clone().unwrap_or_default());
        };
        match (names, &self.columns) {
            (Some(named), Some(given)) if named != given => Err(refuse(format!(
                "{} and {} name different columns: the bounds name them already, drop {}",
                spell.option("columns", Shown::Text(&given.join(","))),
                spell.option("bounds", Shown::Text(&self.bounds.as_ref().map(MeanBounds::text).unwrap_or_default())),
                spell.option("columns", Shown::Bare)
            ))),
            (Some(named), _) => Ok(named.clone()),
            (None, Some(given)) => Ok(given.clone()),
            (None, None) if bounds.len() == 1 => Ok(vec![crate::real::DEFAULT_COLUMN.to_string()]),
            (None, None) => Ok((0..bounds.len()).map(|i| format!("c{i}")).collect()),
        }
    }

    /// The Fréchet mean's plan: the centre and radius read in the space's units.
    fn frechet_plan(&self, spell: &dyn Spelling) -> Result<MeanPlan, Error> {
        let space = self.space;
        let opt = |name: &str, value: Shown<'_>| spell.option(name, value);
        let (Some(center), Some(radius_text)) = (&self.center, self.radius.as_deref()) else {
            return Err(refuse(format!(
                "give {} and {} (the public ball every row lies in) for the Fréchet mean, or {} for data anywhere \
                 on the space",
                opt("center", Shown::Bare),
                opt("radius", Shown::Bare),
                opt("estimator", Shown::Text("extrinsic"))
            )));
        };
        let radius_given = opt("radius", Shown::Text(radius_text));
        let radius = match space {
            Space::Spd(k) => radius_text.trim().parse::<f64>().map_err(|_| {
                refuse(format!(
                    "{radius_given}: on spd:{k} give a plain number (an affine-invariant distance, e.g. 1.5)"
                ))
            })?,
            _ => space.parse_distance(radius_text).map_err(|e| refuse(format!("{radius_given}: {}", e.0)))?,
        };
        let values = self.center_values(center, spell)?;
        let center_given = match center {
            MeanCenter::Text(t) => opt("center", Shown::Text(t)),
            MeanCenter::Values(v) => {
                opt("center", Shown::Text(&v.iter().map(f64::to_string).collect::<Vec<_>>().join(",")))
            }
        };
        MeanPlan::new(
            space,
            self.format.as_deref(),
            self.columns.as_deref(),
            values.as_deref(),
            radius,
            self.outside,
            self.metric.unwrap_or(SpdMetric::Affine),
        )
        .map_err(|e| match e {
            Error::Library(LibError::InvalidParameter { name: Param::Radius, value, .. }) if value > 0.0 => {
                refuse(format!(
                    "{radius_given}: must be below {} on {space}, where the Fréchet mean is unique and its \
                     sensitivity bounded (r* = π/4 on spheres and the Earth, π/2 on so3, the circle and time of \
                     day)",
                    manifold_dp::notes::show_distance(space, max_radius(space))
                ))
            }
            Error::Library(e @ LibError::InvalidParameter { name: Param::Radius, .. }) => {
                refuse(format!("{radius_given}: {e}"))
            }
            e => refuse(format!("{center_given}: {e}")),
        })
    }

    /// The centre as the plan takes it: `None` for the identity (so3, spd:K), else numbers in the table's form
    /// (a time of day may also be a clock time such as 08:30).
    fn center_values(&self, center: &MeanCenter, spell: &dyn Spelling) -> Result<Option<Vec<f64>>, Error> {
        let text = match center {
            MeanCenter::Values(v) => return Ok(Some(v.clone())),
            MeanCenter::Text(t) => t.trim(),
        };
        let space = self.space;
        let what = match space {
            // The plan says what a centre is where there is no identity (a direction: its columns).
            _ if text.eq_ignore_ascii_case("identity") => return Ok(None),
            Space::So3 => format!(
                "give a rotation in {}, or identity",
                spell.option("format", Shown::Text(self.format.as_deref().unwrap_or("quat-wxyz")))
            ),
            Space::Spd(k) => format!("give the {} entries row by row, or identity", k * k),
            Space::LatLon => "give latitude,longitude in degrees".into(),
            Space::Circle => format!("give an angle in {}", self.format.as_deref().unwrap_or("rad")),
            Space::TimeOfDay => match crate::clock::parse(text) {
                Ok(clock) => return Ok(Some(vec![clock.hours])),
                // A clock time that is not one says why (25:99: the hour); a number falls through.
                Err(why) if text.contains(':') => {
                    return Err(refuse(format!("{}: {why}", spell.option("center", Shown::Text(text)))));
                }
                Err(_) => "give hours (8.5) or a clock time (08:30)".into(),
            },
            Space::Sphere(n) => format!("give the {n} coordinates of a unit vector"),
            Space::Real => return Ok(None),
        };
        // How many numbers the space needs is the plan's rule (it refuses a centre of the wrong length).
        text.split(',')
            .map(|t| {
                t.trim().parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(|| {
                    refuse(format!(
                        "{}: {:?} is not a finite number; {what}",
                        spell.option("center", Shown::Text(text)),
                        t.trim()
                    ))
                })
            })
            .collect::<Result<Vec<f64>, Error>>()
            .map(Some)
    }
}

fn refuse(why: String) -> Error {
    Error::Library(LibError::NotApplicable(why))
}

#[cfg(test)]
mod tests {
    use super::*;
    use manifold_dp::mechanism::Conditioning;

    /// The command line's spelling, as a front end would write it.
    struct Dashes;

    impl Spelling for Dashes {
        fn option(&self, name: &str, value: Shown<'_>) -> String {
            match value {
                Shown::Bare | Shown::On => format!("--{name}"),
                Shown::Number(v) | Shown::Text(v) => format!("--{name} {v}"),
                Shown::Pair(a, b) => format!("--{name} {a},{b}"),
            }
        }
    }

    const LAPLACE: MeanNoise = MeanNoise::Laplace { epsilon: 1.0, conditioning: Conditioning::Auto };

    fn refusal(request: &MeanRequest) -> String {
        request.plan(Some(&LAPLACE), &Dashes).expect_err("refused").to_string()
    }

    #[test]
    fn the_options_rules_are_the_cores_and_name_the_options() {
        let latlon = |center: &str, radius: &str| MeanRequest {
            center: Some(MeanCenter::Text(center.into())),
            radius: Some(radius.into()),
            ..MeanRequest::new(Space::LatLon)
        };
        assert!(refusal(&MeanRequest::new(Space::LatLon)).contains("give --center and --radius"));
        assert!(refusal(&latlon("48.85,x", "300km")).contains("--center 48.85,x: \"x\" is not a finite number"));
        assert!(refusal(&latlon("48.85,2.35", "300")).starts_with("--radius 300: "));
        assert!(refusal(&latlon("48.85,2.35", "9000km")).contains("--radius 9000km: must be below"));
        let formatted = MeanRequest { format: Some("deg".into()), ..latlon("48.85,2.35", "300km") };
        assert!(refusal(&formatted).contains("--format applies to --space so3"));
        let metric = MeanRequest { metric: Some(SpdMetric::LogEuclidean), ..latlon("48.85,2.35", "300km") };
        assert!(refusal(&metric).contains("--metric applies to --space spd:K only"));
        assert!(refusal(&MeanRequest::new(Space::Real)).contains("--bounds LO,HI goes with --space real"));
        let gaussian = MeanNoise::Gaussian { mu: 1.0 };
        let real = MeanRequest { bounds: Some(MeanBounds::Shared(0.0, 1.0)), ..MeanRequest::new(Space::Real) };
        let refused = real.plan(Some(&gaussian), &Dashes).expect_err("no Gaussian on real").to_string();
        assert!(refused.starts_with("--mechanism gaussian on --space real: "), "{refused}");
        // Accepted: the centre and radius read in the space's units, a clock time, the identity.
        let plan = latlon(" 48.85, 2.35 ", "300km").plan(Some(&LAPLACE), &Dashes).expect("a plan");
        assert!((plan.radius() - 300.0 / 6371.0088).abs() < 1e-6, "{}", plan.radius());
        let clock = MeanRequest {
            center: Some(MeanCenter::Text("13:30".into())),
            radius: Some("2h".into()),
            ..MeanRequest::new(Space::TimeOfDay)
        };
        assert!(clock.plan(Some(&LAPLACE), &Dashes).is_ok());
        let late = MeanRequest { center: Some(MeanCenter::Text("25:99".into())), ..clock.clone() };
        assert!(refusal(&late).starts_with("--center 25:99: "), "{}", refusal(&late));
        let identity = MeanRequest {
            center: Some(MeanCenter::Text("Identity".into())),
            radius: Some("20deg".into()),
            ..MeanRequest::new(Space::So3)
        };
        assert!(identity.plan(None, &Dashes).is_ok());
        let no_identity = latlon("identity", "300km");
        assert!(
            refusal(&no_identity).contains("--center identity: a direction has no identity"),
            "{}",
            refusal(&no_identity)
        );
    }

    #[test]
    fn the_extrinsic_mean_takes_no_ball_and_pure_epsilon() {
        let so3 = MeanRequest { estimator: Estimator::Extrinsic, ..MeanRequest::new(Space::So3) };
        let (_, epsilon) = so3.extrinsic_plan(&LAPLACE, &Dashes).expect("a plan");
        assert_eq!(epsilon, 1.0);
        assert_eq!(
            so3.ledger_label("mean", &LAPLACE, "frames.csv"),
            "mean so3 --estimator extrinsic --epsilon 1: frames.csv"
        );
        let refused =
            |r: &MeanRequest, noise: &MeanNoise| r.extrinsic_plan(noise, &Dashes).err().map(|e| e.to_string());
        let with_radius = MeanRequest { radius: Some("10deg".into()), ..so3.clone() };
        let text = refused(&with_radius, &LAPLACE).expect("refused");
        assert!(text.starts_with("--radius is not used by --estimator extrinsic"), "{text}");
        let conditioned = MeanNoise::Laplace { epsilon: 1.0, conditioning: Conditioning::Ball };
        assert!(refused(&so3, &conditioned).expect("refused").starts_with("--conditioning is not used"));
        let gaussian = MeanNoise::Gaussian { mu: 1.0 };
        assert!(refused(&so3, &gaussian).expect("refused").starts_with("--mechanism gaussian goes with --estimator"));
        let spd = MeanRequest { estimator: Estimator::Extrinsic, ..MeanRequest::new(Space::Spd(2)) };
        assert!(refused(&spd, &LAPLACE).expect("refused").starts_with("--estimator extrinsic on --space spd:2: "));
    }

    #[test]
    fn per_column_bounds_name_their_columns() {
        let bounds = MeanBounds::PerColumn {
            bounds: vec![(0.0, 700.0), (4.0, 7.0)],
            names: Some(vec!["depth".into(), "mag".into()]),
        };
        let other = vec!["mag".to_string(), "depth".to_string()];
        let clash = MeanRequest { bounds: Some(bounds.clone()), columns: Some(other), ..MeanRequest::new(Space::Real) };
        assert!(refusal(&clash).contains("--columns mag,depth and --bounds depth=0:700,mag=4:7 name different"));
        let request = MeanRequest { bounds: Some(bounds), ..MeanRequest::new(Space::Real) };
        assert!(request.plan(Some(&LAPLACE), &Dashes).is_ok());
        assert_eq!(
            request.ledger_label("mean", &LAPLACE, "quakes.csv"),
            "mean real --bounds depth=0:700,mag=4:7 --epsilon 1 --outside error: quakes.csv"
        );
    }

    #[test]
    fn the_ledger_label_is_one_text_for_text_and_values() {
        let typed = MeanRequest {
            center: Some(MeanCenter::Text("48.85,2.35".into())),
            radius: Some("300km".into()),
            columns: Some(vec!["lat".into(), "lon".into()]),
            outside: Outside::Clip,
            ..MeanRequest::new(Space::LatLon)
        };
        let values = MeanRequest { center: Some(MeanCenter::Values(vec![48.85, 2.35])), ..typed.clone() };
        let expected = "mean latlon --center 48.85,2.35 --radius 300km --epsilon 1 --outside clip --columns lat,lon: f";
        assert_eq!(typed.ledger_label("mean", &LAPLACE, "f"), expected);
        assert_eq!(values.ledger_label("mean", &LAPLACE, "f"), expected);
        let gaussian = MeanNoise::Gaussian { mu: 0.5 };
        assert!(typed.ledger_label("spark mean", &gaussian, "f").contains("--mechanism gaussian --mu 0.5 --outside"));
    }
}
