//! `manifold-dp radius`: ρ(ε, p) or its inverse ε(ρ, p).

use crate::BadInput;
use crate::cli::{MechanismArg, RadiusArgs};
use crate::units::{parse_angle, parse_level};
use anyhow::Result;
use manifold_dp::analysis::{bingham_so3, laplace_so3};
use manifold_dp::mechanism::{Mechanism, So3Mechanism};
use serde_json::json;
use std::io::Write;

pub fn run(args: RadiusArgs) -> Result<()> {
    let level = parse_level(&args.level)?;
    let mech = match (&args.radius, args.mechanism.build()?) {
        (Some(r), _) => {
            let rho = parse_angle(r)?;
            let eps = match args.mechanism.mechanism {
                MechanismArg::Laplace => laplace_so3::epsilon_for_radius(rho, level)?,
                MechanismArg::Bingham => bingham_so3::epsilon_for_radius(rho, level)?,
            };
            let mech = So3Mechanism::for_epsilon(args.mechanism.mechanism.kind(), eps)?;
            return report(&mech, level, rho, args.json, true);
        }
        (None, Some(mech)) => mech,
        (None, None) => {
            return Err(BadInput("give --epsilon E (ε → radius) or --radius 10deg (radius → ε)".into()).into());
        }
    };
    let rho = mech.radius(level)?;
    report(&mech, level, rho, args.json, false)
}

fn report(mech: &So3Mechanism, level: f64, rho: f64, as_json: bool, solved_for_epsilon: bool) -> Result<()> {
    let mut out = std::io::stdout().lock();
    let g = mech.guarantee();
    let eps = g.epsilon();
    let mean = mech.mean_angle();
    if as_json {
        let mut obj = json!({
            "space": "so3",
            "mechanism": mech.name(),
            "epsilon": eps,
            "epsilon_per_deg": eps.to_radians(),
            "level": level,
            "radius_rad": rho,
            "radius_deg": rho.to_degrees(),
            "mean_angle_rad": mean,
            "mean_angle_deg": mean.to_degrees(),
            "guarantee": g,
        });
        if let Some(kappa) = mech.concentration() {
            obj["concentration"] = json!(kappa);
        }
        writeln!(out, "{obj}")?;
        return Ok(());
    }
    let name = match mech.concentration() {
        Some(kappa) => format!("Bingham mechanism on SO(3), concentration κ = {kappa}"),
        None => "Laplace mechanism on SO(3)".to_string(),
    };
    writeln!(out, "{name}")?;
    if solved_for_epsilon {
        writeln!(
            out,
            "epsilon = {eps:.6} per rad ({:.6} per degree) puts {:.1}% of releases within {rho:.6} rad ({:.4}°)",
            eps.to_radians(),
            100.0 * level,
            rho.to_degrees()
        )?;
    } else {
        writeln!(
            out,
            "{:.1}% of releases fall within {rho:.6} rad ({:.4}°) of their input",
            100.0 * level,
            rho.to_degrees()
        )?;
    }
    writeln!(out, "mean angle between release and input: {mean:.6} rad ({:.4}°)", mean.to_degrees())?;
    writeln!(out, "guarantee: {g}")?;
    Ok(())
}
