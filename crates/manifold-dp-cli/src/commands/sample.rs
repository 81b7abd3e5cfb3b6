//! `manifold-dp sample`: N releases of one point, as CSV (`w,x,y,z` on SO(3), `angle` on the circle, `hours`
//! on a 24 h clock, `lat,lon` on the Earth, `x1,…,xN` on a sphere).

use crate::BadInput;
use crate::args::SampleArgs;
use crate::args::units::parse_quat_wxyz;
use crate::io::output::Output;
use anyhow::Result;
use manifold_dp::mechanism::Mechanism;
use manifold_dp::registry::PointMechanism;
use manifold_dp::registry::Space;
use manifold_dp::sample::rng::{ReleaseRng, os_rng, seeded_rng_for_experiments};
use manifold_dp::space::sphere::{self, Periodic};
use manifold_dp::space::{Representation, Tolerance};
use manifold_dp_arrow::clock;
use nalgebra::{DVector, UnitQuaternion};
use std::io::Write;

pub fn run(args: SampleArgs) -> Result<()> {
    let mech = args
        .mechanism
        .build()?
        .ok_or_else(|| BadInput("give --epsilon E (or --concentration K for bingham)".into()))?;
    let space = args.mechanism.space;
    let mut rng: ReleaseRng = match args.seed {
        Some(seed) => {
            eprintln!("note: seeded run for experiments; not for releases");
            seeded_rng_for_experiments(seed)
        }
        None => os_rng()?,
    };
    let mut out = Output::open(&args.output, args.force)?;
    let guarantee = match &mech {
        PointMechanism::So3(mech) => {
            let center = match &args.center {
                Some(s) => Representation::QuatWxyz
                    .decode(&parse_quat_wxyz(s)?, &Tolerance::default())
                    .map_err(|e| BadInput(format!("--center {s}: {e}")))?,
                None => UnitQuaternion::identity(),
            };
            writeln!(out, "w,x,y,z")?;
            for _ in 0..args.n {
                let [w, x, y, z] = Representation::QuatWxyz.encode(&mech.privatize(&center, &mut rng))[..] else {
                    unreachable!("quat-wxyz encodes 4 numbers")
                };
                writeln!(out, "{w},{x},{y},{z}")?;
            }
            mech.guarantee()
        }
        PointMechanism::Real(_) => unreachable!("the registry builds real only with bounds"),
        PointMechanism::Sphere(mech) => {
            let center = sphere_center(space, args.center.as_deref())?;
            writeln!(out, "{}", header(space))?;
            for _ in 0..args.n {
                let z = mech.privatize(&center, &mut rng);
                match space {
                    Space::Circle => writeln!(out, "{}", sphere::to_angle(&z))?,
                    Space::TimeOfDay => writeln!(out, "{}", Periodic::HOURS_OF_DAY.from_circle(&z))?,
                    Space::LatLon => {
                        let (lat, lon) = sphere::to_lat_lon_deg(&z);
                        writeln!(out, "{lat},{lon}")?
                    }
                    _ => {
                        let coords: Vec<String> = z.iter().map(f64::to_string).collect();
                        writeln!(out, "{}", coords.join(","))?
                    }
                }
            }
            let unit = space.natural_unit();
            mech.guarantee().in_unit(unit.name, unit.radians)
        }
    };
    let target = out.describe();
    out.finish()?;
    eprintln!("wrote {} releases to {target}; {guarantee}", args.n);
    Ok(())
}

fn header(space: Space) -> String {
    match space {
        Space::Circle => "angle".into(),
        Space::TimeOfDay => "hours".into(),
        Space::LatLon => "lat,lon".into(),
        _ => {
            let n = space.sphere_dim().unwrap_or(0);
            (1..=n).map(|i| format!("x{i}")).collect::<Vec<_>>().join(",")
        }
    }
}

/// The point given by --center on a direction space (default: angle 0, 00:00, 0°N 0°E, the first axis).
pub(crate) fn sphere_center(space: Space, text: Option<&str>) -> Result<DVector<f64>, BadInput> {
    let dim = space.sphere_dim().expect("a direction space");
    let Some(s) = text else {
        return Ok(DVector::from_fn(dim, |i, _| if i == 0 { 1.0 } else { 0.0 }));
    };
    let bad = |e: String| BadInput(format!("--center {s}: {e}"));
    let numbers = || -> Result<Vec<f64>, BadInput> {
        s.split(',').map(|p| p.trim().parse::<f64>().map_err(|_| bad(format!("{p:?} is not a number")))).collect()
    };
    match space {
        Space::Circle => sphere::from_angle(space.parse_distance(s)?).map_err(|e| bad(e.to_string())),
        Space::TimeOfDay => {
            let hours = clock::parse(s).map_err(bad)?.hours;
            Periodic::HOURS_OF_DAY.to_circle(hours).map_err(|e| bad(e.to_string()))
        }
        Space::LatLon => match numbers()?[..] {
            [lat, lon] => sphere::from_lat_lon_deg(lat, lon).map_err(|e| bad(e.to_string())),
            _ => Err(bad("write lat,lon in degrees, e.g. 48.85,2.35".into())),
        },
        _ => {
            let v = numbers()?;
            if v.len() != dim {
                return Err(bad(format!("write {dim} comma-separated coordinates of a unit vector")));
            }
            sphere::unit_vector_default(&v).map_err(|e| bad(e.to_string()))
        }
    }
}
