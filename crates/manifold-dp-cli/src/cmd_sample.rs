//! `manifold-dp sample`: N releases of one rotation, as CSV `w,x,y,z`.

use crate::BadInput;
use crate::cli::SampleArgs;
use crate::output::Output;
use crate::units::parse_quat_wxyz;
use anyhow::Result;
use manifold_dp::mechanism::Mechanism;
use manifold_dp::sample::rng::{ReleaseRng, os_rng, seeded_rng_for_experiments};
use manifold_dp::space::{Representation, Tolerance};
use nalgebra::UnitQuaternion;
use std::io::Write;

pub fn run(args: SampleArgs) -> Result<()> {
    let mech = args
        .mechanism
        .build()?
        .ok_or_else(|| BadInput("give --epsilon E (or --concentration K for bingham)".into()))?;
    let center = match &args.center {
        Some(s) => Representation::QuatWxyz
            .decode(&parse_quat_wxyz(s)?, &Tolerance::default())
            .map_err(|e| BadInput(format!("--center {s}: {e}")))?,
        None => UnitQuaternion::identity(),
    };
    let mut rng: ReleaseRng = match args.seed {
        Some(seed) => {
            eprintln!("note: seeded run for experiments; not for releases");
            seeded_rng_for_experiments(seed)
        }
        None => os_rng()?,
    };
    let mut out = Output::open(&args.output, args.force)?;
    writeln!(out, "w,x,y,z")?;
    for _ in 0..args.n {
        let [w, x, y, z] = Representation::QuatWxyz.encode(&mech.privatize(&center, &mut rng))[..] else {
            unreachable!("quat-wxyz encodes 4 numbers")
        };
        writeln!(out, "{w},{x},{y},{z}")?;
    }
    let target = out.describe();
    out.finish()?;
    eprintln!("wrote {} releases to {target}; {}", args.n, mech.guarantee());
    Ok(())
}
