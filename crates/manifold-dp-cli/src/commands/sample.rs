//! `manifold-dp sample`: N releases of one point, as CSV (`w,x,y,z` on SO(3), `angle` on the circle, `hours`
//! on a 24 h clock, `lat,lon` on the Earth, `x1,…,xN` on a sphere).

use crate::BadInput;
use crate::args::SampleArgs;
use crate::args::common::Flags;
use crate::io::decimal::push_csv_row;
use crate::io::output::Output;
use anyhow::{Context, Result};
use manifold_dp::mechanism::Mechanism;
use manifold_dp::mechanism::batch::KeyedRows;
use manifold_dp::registry::PointMechanism;
use manifold_dp::registry::Space;
use manifold_dp::sample::rng::StreamKey;
use manifold_dp::space::Representation;
use manifold_dp::space::sphere::{self, Periodic};
use manifold_dp_arrow::{MeanCenter, SamplePoint, SampleRequest};
use rayon::prelude::*;
use std::io::Write;

/// Releases per parallel task: each task draws its rows' noise and formats them into its own buffer.
const ROWS_PER_TASK: u64 = 4096;

/// Releases drawn, snapped and formatted together within a task.
const ROWS_PER_GROUP: usize = 64;

/// Tasks per batch: one batch's text (about 16 MB at 64 bytes a row) is written while the next is computed,
/// which bounds the memory whatever -n is.
const TASKS_PER_BATCH: u64 = 64;

pub fn run(args: SampleArgs) -> Result<()> {
    let mech = args
        .mechanism
        .build()?
        .ok_or_else(|| BadInput("give --epsilon E (or --concentration K for bingham)".into()))?;
    let space = args.mechanism.space;
    crate::commands::seeded(args.seed.is_some(), false)?;
    let key = match args.seed {
        Some(seed) => StreamKey::from_seed_for_experiments(seed),
        None => StreamKey::from_os()?,
    };
    let mut out = Output::open(&args.output, args.force)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()
        .context("cannot start worker threads")?;
    // The point, given in the space's terms or the space's default: the core's request (Python's too).
    let request = SampleRequest { center: args.center.clone().map(MeanCenter::Text), ..SampleRequest::new(space) };
    let point = request.point(&Flags).map_err(|e| BadInput(e.to_string()))?;
    let guarantee = match (&mech, &point) {
        (PointMechanism::So3(mech), SamplePoint::Rotation(center)) => {
            writeln!(out, "w,x,y,z")?;
            pool.install(|| {
                write_releases(
                    mech,
                    center,
                    args.n,
                    &key,
                    &mut out,
                    |q, c| *q = *c,
                    |q, text| {
                        let mut wxyz = [0.0; 4];
                        Representation::QuatWxyz.encode_into(q, &mut wxyz);
                        push_csv_row(text, &wxyz);
                    },
                )
            })?;
            mech.guarantee()
        }
        (PointMechanism::Sphere(mech), SamplePoint::Direction(center)) => {
            writeln!(out, "{}", header(space))?;
            pool.install(|| {
                write_releases(
                    mech,
                    center,
                    args.n,
                    &key,
                    &mut out,
                    |z, c| z.copy_from(c),
                    |z, text| match space {
                        Space::Circle => push_csv_row(text, &[sphere::to_angle(z)]),
                        Space::TimeOfDay => push_csv_row(text, &[Periodic::HOURS_OF_DAY.from_circle(z)]),
                        Space::LatLon => {
                            let (lat, lon) = sphere::to_lat_lon_deg(z);
                            push_csv_row(text, &[lat, lon])
                        }
                        _ => push_csv_row(text, z.as_slice()),
                    },
                )
            })?;
            let unit = space.natural_unit();
            mech.guarantee().in_unit(unit.name, unit.radians)
        }
        _ => unreachable!("the request's point is of the mechanism's space"),
    };
    let target = out.describe();
    out.finish()?;
    match (&args.center, request.together(&guarantee, args.n)?) {
        // Copies of one given point: each is a release of it, and together they compose.
        (Some(center), Some(together)) => {
            eprintln!(
                "wrote {} releases of {center} to {target}; each: {guarantee}; all {} together (releases of one point \
                 compose; their average approaches it): {together}",
                args.n, args.n
            );
        }
        _ => eprintln!("wrote {} releases to {target}; {guarantee}", args.n),
    }
    Ok(())
}

/// Writes `n` float-safe releases of `center` to `out`, one line each by `line` (`reset` copies the centre into
/// the working point without allocating), in parallel on the current rayon pool. Release i is row i of a keyed
/// release (`KeyedRows`, as `privatize` draws it: row i's block of `key`'s row stream, then its own overflow
/// stream), so the file depends on the key and n only, not on the number of threads or how the work is cut.
fn write_releases<M>(
    mech: &M,
    center: &M::Point,
    n: u64,
    key: &StreamKey,
    out: &mut Output,
    reset: impl Fn(&mut M::Point, &M::Point) + Sync,
    line: impl Fn(&M::Point, &mut Vec<u8>) + Sync,
) -> Result<()>
where
    M: Mechanism + Sync,
    M::Point: Clone + Send + Sync,
{
    let keyed = KeyedRows::new(key);
    // Text buffers of written batches, reused: fresh ones would cost page faults on every batch.
    let spare = std::sync::Mutex::new(Vec::<Vec<u8>>::new());
    let task = |t: u64| -> manifold_dp::Fallible<Vec<u8>> {
        let first = t * ROWS_PER_TASK;
        let rows = ROWS_PER_TASK.min(n - first) as usize;
        let mut text = spare.lock().map(|mut s| s.pop()).ok().flatten().unwrap_or_default();
        text.clear();
        text.reserve(rows * 80);
        // Points reset to the centre for each group of releases (no allocation per row). A group's draws come
        // first, then its snaps (`Mechanism::privatize_each`), which then overlap in the CPU; then its lines.
        let mut group = vec![center.clone(); ROWS_PER_GROUP];
        for start in (0..rows).step_by(ROWS_PER_GROUP) {
            let zs = &mut group[..ROWS_PER_GROUP.min(rows - start)];
            zs.iter_mut().for_each(|z| reset(z, center));
            keyed.privatize_consecutive(mech, zs, first + start as u64)?;
            zs.iter().for_each(|z| line(z, &mut text));
        }
        Ok(text)
    };
    let tasks = n.div_ceil(ROWS_PER_TASK);
    let mut done: Vec<Vec<u8>> = Vec::new();
    let mut next = 0;
    while next < tasks {
        let end = (next + TASKS_PER_BATCH).min(tasks);
        // The previous batch is written while this one is computed (the writing thread joins the computing
        // when it is done).
        let (written, batch) = rayon::join(
            || -> std::io::Result<()> {
                for text in done.drain(..) {
                    out.write_all(&text)?;
                    spare.lock().expect("no task panics holding it").push(text);
                }
                Ok(())
            },
            || (next..end).into_par_iter().map(task).collect::<manifold_dp::Fallible<Vec<_>>>(),
        );
        written?;
        (done, next) = (batch?, end);
    }
    done.iter().try_for_each(|text| out.write_all(text))?;
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
