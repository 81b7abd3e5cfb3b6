//! `manifold-dp privatize`: read a table batch by batch, release its rotations, write the same table back.
//! Everything is written to temporary files beside the targets and renamed only at the end, so an error at
//! any row leaves no output behind. An output that is a stream (standard output, a device, a FIFO) shows rows
//! as they are written, so the input is validated in a first pass before any row goes there (when it is a
//! file), and the ledger is charged just before the first row; if a stream still fails midway, the error
//! says how many rows were published.

use crate::BadInput;
use crate::args::PrivatizeArgs;
use crate::args::common::Flags;
use crate::io::output::{Output, Readers};
use crate::io::pipeline::staged;
use crate::io::rejects::Rejects;
use crate::io::table::{FileFormat, InputBatch, TableReader, TableWriter};
use crate::render::progress::Progress;
use crate::render::report::{NoiseSummary, PrivatizeReport, Rejection};
use anyhow::{Context, Result};
use arrow_array::{BooleanArray, RecordBatch};
use manifold_dp::registry::{PointMechanism, PointRequest, Space};
use manifold_dp::sample::rng::StreamKey;
use manifold_dp_arrow::{Codec, Problem, Released, RowIds, privatize_batch};
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// Rejections listed in the report (all are counted).
const LISTED_REJECTIONS: usize = 10;

pub fn run(args: PrivatizeArgs) -> Result<()> {
    // Every output path is checked before anything else (formats, the ledger, the data).
    let mut outputs = vec![("--output", args.output.as_str())];
    outputs.extend(args.skip_invalid.iter().map(|p| ("--skip-invalid", p.as_str())));
    outputs.extend(args.report.iter().map(|p| ("--report", p.as_str())));
    for (flag, path) in &outputs {
        Output::check(path, args.force).map_err(|e| BadInput(format!("{flag}: {e}")))?;
    }
    crate::io::output::check_distinct(Some(&args.input), &outputs, args.ledger.ledger.as_deref())?;
    crate::commands::seeded(args.seed.is_some(), args.ledger.ledger.is_some())?;
    let in_fmt = FileFormat::resolve(args.input_format, &args.input, "--input-format")?;
    let out_fmt = FileFormat::resolve(args.output_format, &args.output, "--output-format")?;
    let space = args.mechanism.space;
    // Everything that can be refused without reading the data is checked before the file is opened; the rules
    // are the core's, shared with Python.
    let request = PointRequest {
        epsilon: args.mechanism.epsilon,
        protect: args.protect.as_deref(),
        level: args.level,
        concentration: args.mechanism.concentration,
        bounds: args.bounds,
        values: args.columns.as_ref().map_or(1, Vec::len),
        clamp_releases: args.clamp_releases,
        snap: args.snap.as_deref(),
        ..PointRequest::new(space, args.mechanism.mechanism)
    };
    let plan = request.plan(&Flags)?;
    crate::args::common::announce(plan.note.as_ref());
    let mech = plan.mechanism;
    if args.output_as.is_some() && space != Space::So3 {
        return Err(BadInput("--output-as applies to --space so3 only".into()).into());
    }
    // With --ledger, the release is checked against the data set's budgets before any work, and recorded just
    // before the output is published (to a stream: before the first row is written).
    let guarantee = mech.guarantee();
    let charge = crate::commands::ledger::Charge::prepare(
        &args.ledger,
        &args.input,
        request.ledger_label(
            "privatize",
            mech.name(),
            args.columns.as_deref(),
            &format!("{} -> {}", args.input, args.output),
        ),
        &[guarantee],
    )?;
    let key = match args.seed {
        Some(seed) => StreamKey::from_seed_for_experiments(seed),
        None => StreamKey::from_os()?,
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()
        .context("cannot start worker threads")?;
    let job = Job { args: &args, in_fmt, out_fmt, key: &key, charge: charge.as_ref().map(|c| (c, guarantee)) };
    pool.install(|| {
        let reader = TableReader::open(&args.input, in_fmt, args.delimiter, args.skip_invalid.is_some())?;
        let codec = Codec::locate(
            &reader.schema(),
            space,
            args.format.as_deref(),
            args.columns.as_deref(),
            args.output_as.as_deref(),
        )
        .map_err(|e| crate::codec_error(&args.input, e))?;
        let (noise, labels) = match &mech {
            PointMechanism::So3(m) => {
                let input = args.format.clone().unwrap_or_else(|| "quat-wxyz".into());
                let output = args.output_as.clone().unwrap_or_else(|| input.clone());
                let labels = Labels { space: space.to_string(), format: input, output_rotation_format: Some(output) };
                (NoiseSummary::so3(m)?, labels)
            }
            PointMechanism::Sphere(m) => {
                let format = args.format.clone().unwrap_or_else(|| default_format(space).to_string());
                (
                    NoiseSummary::sphere(m, space)?,
                    Labels { space: space.to_string(), format, output_rotation_format: None },
                )
            }
            PointMechanism::Real(m) => (
                NoiseSummary::real(m)?,
                Labels { space: space.to_string(), format: "numbers".into(), output_rotation_format: None },
            ),
        };
        job.privatize(reader, &mech, &codec, noise, labels)
    })
}

/// How values of a direction space are described in reports when --format is not given.
fn default_format(space: Space) -> &'static str {
    match space {
        Space::Circle => "rad",
        Space::TimeOfDay => "hours, clock time or timestamp",
        Space::LatLon => "deg",
        _ => "unit vector",
    }
}

/// What a run writes, and how.
struct Job<'a> {
    args: &'a PrivatizeArgs,
    in_fmt: FileFormat,
    out_fmt: FileFormat,
    key: &'a StreamKey,
    /// The ledger to charge before publishing, and the guarantee to record.
    charge: Option<(&'a crate::commands::ledger::Charge, manifold_dp::privacy::Guarantee)>,
}

/// How the values were read, for the report.
struct Labels {
    space: String,
    format: String,
    output_rotation_format: Option<String>,
}

impl Job<'_> {
    fn privatize(
        &self,
        mut reader: TableReader,
        mech: &PointMechanism,
        columns: &Codec,
        noise: NoiseSummary,
        labels: Labels,
    ) -> Result<()> {
        let Job { args, in_fmt, out_fmt, key, charge } = *self;
        let started = Instant::now();
        let skipping = args.skip_invalid.is_some();
        if (args.output == "-" || Output::is_special(&args.output)) && !skipping && args.input != "-" {
            // Nothing (not even the header) goes to a stream before every row is known to be valid: a first
            // pass reads them all.
            validate_all(&args.input, in_fmt, args.delimiter, columns)?;
        }
        let writer = TableWriter::create(
            &args.output,
            out_fmt,
            args.delimiter,
            columns.output_schema(),
            args.force,
            &columns.output_names(),
            Readers::AsUsual,
        )?;
        let rejects = match &args.skip_invalid {
            Some(path) => Some(Rejects::create(path, in_fmt, args.delimiter, &reader, args.force)?),
            None => None,
        };
        let mut report_out = match &args.report {
            Some(path) => Some(Output::open(path, args.force)?),
            None => None,
        };
        let stream = writer.is_stream();
        let published = &AtomicU64::new(0);
        let progress = Progress::new(reader.progress_total());
        // Three stages overlap: a thread reads and decodes the file, this thread validates and adds noise (on all
        // cores), a thread encodes and writes. Bounded channels keep at most a few batches in memory.
        let mut state = Counts::default();
        // Three stages overlap: a thread reads and decodes the file, this thread validates and adds noise (on all
        // cores), a thread encodes and writes.
        let ran = staged(
            || reader.next_batch().map_err(anyhow::Error::from).transpose(),
            |input| {
                let position = input.progress;
                let item = process(args, mech, key, columns, skipping, input, &mut state)?;
                if stream
                    && item.batch.num_rows() > 0
                    && let Some((c, guarantee)) = charge
                {
                    // The first rows are about to appear on the stream: the release is published now.
                    c.record(&[guarantee], args.quiet)?;
                }
                progress.set(position);
                Ok(item)
            },
            (writer, rejects),
            |(writer, rejects), item: Written| {
                writer.write(&item.batch)?;
                published.fetch_add(item.batch.num_rows() as u64, Ordering::SeqCst);
                if let (Some(r), Some((input, keep))) = (rejects.as_mut(), item.rejected) {
                    r.write(&input, &keep)?;
                }
                Ok(())
            },
        )
        .map(|(writer, rejects)| (state.rows_out, state.rejected, state.listed, writer, rejects));
        progress.finish();
        let (rows_out, rejected, listed, writer, rejects) = match ran {
            Ok(v) => v,
            Err(e) => {
                let charged = charge.is_some_and(|(c, _)| c.is_recorded());
                // Rows written to a regular file's temporary file are gone with it: only a stream publishes.
                let published = if stream { published.load(Ordering::SeqCst) } else { 0 };
                return Err(what_was_written(e, &args.output, published, charged));
            }
        };
        if rows_out + rejected == 0 {
            let e = BadInput(format!("{} has a header but no data rows; nothing to privatize", args.input));
            return Err(what_was_written(e.into(), &args.output, 0, false));
        }
        // Recorded before the output appears: a refusal leaves no output, and a crash between the two
        // over-counts (a release recorded but never published), never under-counts.
        if let Some((c, guarantee)) = charge {
            c.record(&[guarantee], args.quiet)?;
        }
        writer.finish()?;
        if let Some(r) = rejects {
            r.finish()?;
        }
        let seconds = started.elapsed().as_secs_f64();
        let report = PrivatizeReport {
            input: args.input.clone(),
            output: args.output.clone(),
            input_format: in_fmt.to_string(),
            output_format: out_fmt.to_string(),
            space: labels.space,
            format: labels.format,
            columns: columns.names().to_vec(),
            output_rotation_format: labels.output_rotation_format,
            output_columns: columns.output_names(),
            rows: rows_out,
            rejected_rows: rejected,
            rejects_file: args.skip_invalid.clone(),
            first_rejections: listed,
            noise,
            randomness: if args.seed.is_some() { "seeded (experiments only)" } else { "os" },
            seconds,
            rows_per_second: (rows_out + rejected) as f64 / seconds.max(1e-9),
        };
        if let Some(mut out) = report_out.take() {
            serde_json::to_writer_pretty(&mut out, &report)?;
            writeln!(out)?;
            out.finish()?;
        }
        if !args.quiet {
            eprintln!("{}", report.human());
        }
        Ok(())
    }
}

/// What the worker hands the writer: the noisy batch and, with --skip-invalid, the rows set aside.
struct Written {
    batch: RecordBatch,
    rejected: Option<(InputBatch, BooleanArray)>,
}

#[derive(Default)]
struct Counts {
    rows_out: u64,
    rejected: u64,
    listed: Vec<Rejection>,
}

/// Validates one batch, releases its valid rows and prepares what the writer needs.
fn process(
    args: &PrivatizeArgs,
    mech: &PointMechanism,
    key: &StreamKey,
    columns: &Codec,
    skipping: bool,
    input: InputBatch,
    counts: &mut Counts,
) -> Result<Written> {
    // A row's noise is keyed by its data row number in the file (0-based here), whatever the batching.
    let ids: Vec<u64> = input.rows.iter().map(|r| r - 1).collect();
    let Released { batch, rejected, kept } = privatize_batch(mech, columns, &input.batch, key, RowIds::Given(&ids))
        .map_err(|e| crate::codec_error(&args.input, e))?;
    let invalid = rejected.len();
    if !skipping && let Some((i, problem)) = rejected.first() {
        return Err(row_error(&args.input, &input, *i, problem).into());
    }
    for (i, problem) in rejected {
        if counts.listed.len() < LISTED_REJECTIONS {
            counts.listed.push(rejection(&input, i, problem));
        }
    }
    for m in &input.malformed {
        if counts.listed.len() < LISTED_REJECTIONS {
            let reason = m.reason(input.batch.num_columns());
            counts.listed.push(Rejection { row: m.row, line: Some(m.line), column: None, reason });
        }
    }
    counts.listed.sort_by_key(|r| r.row);
    counts.rejected += (invalid + input.malformed.len()) as u64;
    counts.rows_out += batch.num_rows() as u64;
    let rejected = if invalid + input.malformed.len() > 0 {
        let keep = kept.unwrap_or_else(|| BooleanArray::from(vec![true; input.batch.num_rows()]));
        Some((input, keep))
    } else {
        None
    };
    Ok(Written { batch, rejected })
}

fn row_error(path: &str, input: &InputBatch, i: usize, problem: &Problem) -> BadInput {
    let column = problem.column.as_ref().map(|c| format!(", column {c:?}")).unwrap_or_default();
    let reason = &problem.reason;
    BadInput(format!(
        "{path}: {}{column}: {reason}\nFix the row, or pass --skip-invalid REJECTS to set invalid rows aside.",
        input.locate(i),
    ))
}

fn rejection(input: &InputBatch, i: usize, problem: Problem) -> Rejection {
    Rejection {
        row: input.rows[i],
        line: input.lines.as_ref().map(|l| l[i]),
        column: problem.column,
        // A report is for publishing: it names the row and what is wrong, never the row's values.
        reason: crate::render::report::without_values(&problem.reason),
    }
}

/// Reads every row of `path` and fails on the first one that is not a point, as the release would.
fn validate_all(path: &str, fmt: FileFormat, delimiter: Option<u8>, columns: &Codec) -> Result<()> {
    let mut reader = TableReader::open(path, fmt, delimiter, false)?;
    while let Some(input) = reader.next_batch()? {
        let problems = columns.problems(&input.batch).map_err(|e| crate::codec_error(path, e))?;
        if let Some((i, problem)) = problems.first() {
            let e = row_error(path, &input, *i, problem);
            return Err(what_was_written(e.into(), "-", 0, false));
        }
    }
    Ok(())
}

/// `err`, followed by what the failed run left: nothing, or (on a stream) the rows already published and
/// whether the ledger was charged for them. Keeps the error's class (exit code: 2 for bad input, 4 for a ledger
/// refusal, also one that comes while rows stream out).
fn what_was_written(err: anyhow::Error, output: &str, published: u64, charged: bool) -> anyhow::Error {
    let target = if output == "-" { "standard output".to_string() } else { output.to_string() };
    let note = if published > 0 {
        let ledger = if charged { " and recorded in the ledger as one release" } else { "" };
        format!(
            "{published} privatized rows had already been written to {target} before the failure; they are \
             published{ledger}. The rows after them were not released."
        )
    } else if charged {
        "Nothing was written, but the ledger had already recorded the release.".to_string()
    } else {
        "Nothing was written; the ledger (if any) was not charged.".to_string()
    };
    crate::Noted { error: err, note }.into()
}
