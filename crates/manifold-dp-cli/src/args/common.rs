//! Flags and value parsers shared by several commands.

use clap::Args;
use manifold_dp::registry::{ChoiceNote, MechanismChoice, PointMechanism, PointRequest, Space};

/// The most worker threads `--threads` accepts: far more than any machine's useful parallelism, and few
/// enough that starting them cannot exhaust the system (`--threads 100000` would spend minutes creating threads).
pub const MAX_THREADS: usize = 256;

/// `--threads N`: 1 ≤ N ≤ [`MAX_THREADS`].
pub fn parse_threads(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if (1..=MAX_THREADS).contains(&n) => Ok(n),
        _ => Err(format!("{s:?} is not a thread count: use a whole number from 1 to {MAX_THREADS}")),
    }
}

/// `--epsilon` of a local mechanism: a number in [MIN_EPSILON, MAX_EPSILON], the range the samplers are proven
/// exact and tested for (the library refuses others too; checking here names the flag).
pub fn parse_epsilon(s: &str) -> Result<f64, String> {
    use manifold_dp::mechanism::{MAX_EPSILON, MIN_EPSILON};
    let value: f64 = s.trim().parse().map_err(|_| format!("{s:?} is not a number"))?;
    if (MIN_EPSILON..=MAX_EPSILON).contains(&value) {
        Ok(value)
    } else {
        Err(format!(
            "epsilon must lie in [{}, {}] per unit, the range the samplers are proven exact and tested for",
            manifold_dp::privacy::guarantee::short(MIN_EPSILON),
            manifold_dp::privacy::guarantee::short(MAX_EPSILON)
        ))
    }
}

/// Which mechanism and how much noise.
#[derive(Debug, Args)]
pub struct MechanismArgs {
    /// The space of the data: so3 (rotations), circle (angles), timeofday (24 h clock), latlon (latitude and
    /// longitude on the Earth, degrees), sphere:N (unit vectors of R^N), real (plain numbers with --bounds;
    /// privatize only).
    #[arg(long, default_value = "so3", value_parser = clap::value_parser!(Space))]
    pub space: Space,
    /// The mechanism. On so3: laplace (density ∝ exp(−ε·angle), the most accurate at every epsilon) or
    /// bingham (tight κ = 2ε, or --concentration κ). On the others: purkayastha (density ∝ exp(−ε·great-circle
    /// angle)), vmf (von Mises–Fisher, κ = ε: ε per unit of chordal distance, so also per radian), or on
    /// circle and timeofday wrapped-laplace (the directional paper's baseline, noisier at the same epsilon).
    /// auto: the one with the smallest expected error at the budget, from the exact laws (the summary says
    /// which and why).
    #[arg(long, value_parser = clap::value_parser!(MechanismChoice))]
    pub mechanism: MechanismChoice,
    /// Privacy budget per radian (of rotation angle on so3, of great-circle distance on spheres; vmf is also
    /// epsilon per unit of chordal distance), from 1e-6 to 1e6. Smaller is more private and noisier. To think
    /// in degrees, hours or km use --protect instead.
    #[arg(long, allow_hyphen_values = true, value_parser = parse_epsilon)]
    pub epsilon: Option<f64>,
    /// Bingham only, for reproducing papers: the concentration κ itself (the SO(3) paper's "epsilon").
    /// The guarantee reported is then κ/2 per radian.
    #[arg(long, conflicts_with = "epsilon", allow_hyphen_values = true)]
    pub concentration: Option<f64>,
}

impl MechanismArgs {
    /// Builds the mechanism; `None` when neither --epsilon nor --concentration was given.
    pub fn build(&self) -> anyhow::Result<Option<PointMechanism>> {
        if self.epsilon.is_none() && self.concentration.is_none() {
            return Ok(None);
        }
        self.plan(self.epsilon, self.concentration).map(Some)
    }

    fn plan(&self, epsilon: Option<f64>, concentration: Option<f64>) -> anyhow::Result<PointMechanism> {
        let request = PointRequest { epsilon, concentration, ..PointRequest::new(self.space, self.mechanism) };
        let plan = request.plan(&Flags)?;
        announce(plan.note.as_ref());
        Ok(plan.mechanism)
    }
}

/// Public bounds LO,HI for --space real.
pub fn parse_bounds(s: &str) -> Result<(f64, f64), String> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    let [lo, hi] = parts[..] else {
        return Err(format!("{s:?}: give the bounds as LO,HI (e.g. 0,700)"));
    };
    let num = |t: &str| t.parse::<f64>().ok().filter(|v| v.is_finite());
    match (num(lo), num(hi)) {
        (Some(lo), Some(hi)) if lo < hi => Ok((lo, hi)),
        (Some(_), Some(_)) => Err(format!("{s:?}: LO must be below HI")),
        _ => Err(format!("{s:?}: LO and HI must be finite numbers")),
    }
}

/// Says on stderr what `auto` chose and why, or warns that the named mechanism is much noisier than another.
pub fn announce(note: Option<&ChoiceNote>) {
    if let Some(note) = note {
        let warning = if note.is_warning() { "warning: " } else { "" };
        eprintln!("{warning}{}", note.render(&Flags));
    }
}

/// How the command line writes a request's options in the core's messages: `--snake-case value`.
pub struct Flags;

impl manifold_dp::registry::Spelling for Flags {
    fn option(&self, name: &str, value: manifold_dp::registry::Shown<'_>) -> String {
        use manifold_dp::registry::Shown;
        let flag = format!("--{}", name.replace('_', "-"));
        match value {
            Shown::Bare | Shown::On => flag,
            Shown::Number(v) | Shown::Text(v) => format!("{flag} {v}"),
            Shown::Pair(a, b) => format!("{flag} {a},{b}"),
        }
    }
}
