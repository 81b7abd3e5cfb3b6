//! `manifold-dp radius`: ρ(ε, p) or its inverse ε(ρ, p), on SO(3) or a direction space.

use crate::BadInput;
use crate::args::RadiusArgs;
use crate::args::common::Flags;
use crate::args::units::parse_level;
use anyhow::Result;
use manifold_dp::mechanism::Mechanism;
use manifold_dp::privacy::guarantee::{short, short_up};
use manifold_dp::registry::{PointMechanism, RadiusRequest};
use serde_json::json;
use std::io::Write;

pub fn run(args: RadiusArgs) -> Result<()> {
    let level = parse_level(&args.level)?;
    let space = args.mechanism.space;
    // Both directions (ε → radius, radius → ε) are the core's request, as Python's.
    let request = RadiusRequest {
        space,
        mechanism: args.mechanism.mechanism,
        epsilon: args.mechanism.epsilon,
        concentration: args.mechanism.concentration,
        radius: args.radius.as_deref(),
        level,
    };
    let plan = request.plan(&Flags).map_err(|e| BadInput(e.to_string()))?;
    crate::args::common::announce(plan.note.as_ref());
    let (mech, solved) = (plan.mechanism, plan.solved);
    let (name, guarantee, kappa, rho, mean) = match &mech {
        PointMechanism::So3(m) => {
            let name = match m.concentration() {
                Some(kappa) => format!("Bingham mechanism on SO(3), concentration κ = {}", short(kappa)),
                None => "Laplace mechanism on SO(3)".to_string(),
            };
            (name, m.guarantee(), m.concentration(), m.radius(level)?, m.mean_angle())
        }
        PointMechanism::Real(_) => unreachable!("the registry builds real only with bounds"),
        PointMechanism::Sphere(m) => {
            let name = format!("{} mechanism on --space {space} (S^{})", m.name(), m.dim() - 1);
            (name, m.guarantee(), m.concentration(), m.radius(level)?, m.mean_angle())
        }
    };
    let unit = space.natural_unit();
    let in_unit = unit.name != "deg";
    let eps = guarantee.epsilon().expect("a per-record mechanism has a metric-DP epsilon");
    let mut out = std::io::stdout().lock();
    if args.json {
        let mut obj = json!({
            "space": space.to_string(),
            "mechanism": mech.name(),
            "epsilon": eps,
            "epsilon_per_deg": eps.to_radians(),
            "level": level,
            "radius_rad": rho,
            "radius_deg": rho.to_degrees(),
            "mean_angle_rad": mean,
            "mean_angle_deg": mean.to_degrees(),
            "guarantee": guarantee,
        });
        if let Some(kappa) = kappa {
            obj["concentration"] = json!(kappa);
        }
        if in_unit {
            obj["unit"] = json!(unit.name);
            obj["epsilon_per_unit"] = json!(eps * unit.radians);
            obj["radius_in_unit"] = json!(rho / unit.radians);
            obj["mean_error_in_unit"] = json!(mean / unit.radians);
            obj["guarantee_in_unit"] = json!(guarantee.in_unit(unit.name, unit.radians));
        }
        writeln!(out, "{obj}")?;
        return Ok(());
    }
    let u = unit.name;
    let dist = |x: f64| {
        if in_unit {
            format!("{} {u} ({} rad, {}°)", short(x / unit.radians), short(x), short(x.to_degrees()))
        } else {
            format!("{} rad ({}°)", short(x), short(x.to_degrees()))
        }
    };
    // ε is a cost: printed rounded up, like every guarantee.
    let per_unit = if in_unit { format!(", {} per {u}", short_up(eps * unit.radians)) } else { String::new() };
    writeln!(out, "{name}")?;
    if solved {
        writeln!(
            out,
            "epsilon = {} per rad ({} per degree{per_unit}) puts {:.1}% of releases within {}",
            short_up(eps),
            short_up(eps.to_radians()),
            100.0 * level,
            dist(rho)
        )?;
    } else {
        writeln!(out, "{:.1}% of releases fall within {} of their input", 100.0 * level, dist(rho))?;
    }
    writeln!(out, "mean distance between release and input: {}", dist(mean))?;
    writeln!(out, "guarantee: {guarantee}")?;
    if in_unit {
        writeln!(out, "           i.e. {}", guarantee.in_unit(u, unit.radians))?;
    }
    Ok(())
}
