//! `manifold-dp`: differential privacy for rotations, directions and SPD matrices from the command line.
//!
//! This binary parses arguments, reads and writes files and prints reports; every computation is a call
//! into the `manifold-dp` library.

// Unsafe code only where a libc call has no safe wrapper (the umask and a write-back hint), each allowed at its
// function.
#![deny(unsafe_code)]

mod args;
mod commands;
#[cfg(test)]
mod fuzz;
mod io;
mod render;

use std::process::ExitCode;

/// Marks an error caused by the user's input or arguments (exit code 2), as opposed to an I/O or
/// internal failure (exit code 1).
#[derive(Debug)]
pub struct BadInput(pub String);

impl std::fmt::Display for BadInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadInput {}

impl From<manifold_dp::registry::UnknownName> for BadInput {
    fn from(e: manifold_dp::registry::UnknownName) -> Self {
        BadInput(e.0)
    }
}

/// An error followed by a note on what the failed run left behind. It reads as `{error:#}` and the note, and it
/// keeps the error's class: the exit code is the error's own (2 for bad input, 4 for a ledger refusal).
#[derive(Debug)]
pub struct Noted {
    pub error: anyhow::Error,
    pub note: String,
}

impl std::fmt::Display for Noted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:#}\n{}", self.error, self.note)
    }
}

impl std::error::Error for Noted {}

/// The errors in `err`'s chain, and in the chains of the errors a [`Noted`] carries.
fn causes(err: &anyhow::Error) -> Vec<&(dyn std::error::Error + 'static)> {
    let mut all = Vec::new();
    for e in err.chain() {
        all.push(e);
        if let Some(noted) = e.downcast_ref::<Noted>() {
            all.extend(causes(&noted.error));
        }
    }
    all
}

/// A table that cannot be read as the points asked for, as the command line says it: the file, the
/// library's reason, and which option fixes it.
pub fn codec_error(path: &str, e: manifold_dp_arrow::Error) -> BadInput {
    use manifold_dp_arrow::Error as E;
    let hint = match &e {
        E::MissingColumn { .. } | E::ColumnCount { .. } | E::DuplicateColumn(_) => {
            "\nName the value columns with --columns a,b,… (in order) and give their form with --format."
        }
        E::FormatNotForSpace { .. } => "\nDrop or change --format.",
        E::OutputColumnExists { .. } => "\nRename that column, or choose another --output-as.",
        _ => "",
    };
    BadInput(format!("{path}: {e}{hint}"))
}

/// Whether `err` was caused by the user's input or arguments (exit code 2).
pub fn is_bad_input(err: &anyhow::Error) -> bool {
    causes(err).into_iter().any(|e| {
        e.is::<BadInput>()
            || e.downcast_ref::<manifold_dp::Error>().is_some_and(manifold_dp::Error::is_bad_input)
            || e.downcast_ref::<manifold_dp_studies::Error>().is_some_and(manifold_dp_studies::Error::is_bad_input)
            || e.is::<manifold_dp::registry::UnknownName>()
            || e.is::<manifold_dp_arrow::Error>()
    })
}

fn main() -> ExitCode {
    let cli = args::parse();
    let result = match cli.command {
        args::Command::Sample(args) => commands::sample::run(args),
        args::Command::Radius(args) => commands::radius::run(args),
        args::Command::Privatize(args) => commands::privatize::run(args),
        args::Command::Mean(args::MeanCommand::Mean(args)) => commands::mean::run(args),
        args::Command::Reproduce(args::ReproduceCommand::So3Figures(args)) => commands::reproduce::so3_figures(args),
        args::Command::Reproduce(args::ReproduceCommand::DirectionalMean(args)) => {
            commands::reproduce_directional::directional_mean(args)
        }
        args::Command::Reproduce(args::ReproduceCommand::RiemannianMean(args)) => {
            commands::reproduce_riemannian::riemannian_mean(args)
        }
        args::Command::Demo(args) => commands::demo::run(args),
        // 0, or 3 when the audit flags the mechanism; errors are reported below.
        args::Command::Audit(args) => match commands::audit::run(args) {
            Ok(code) => return code,
            Err(err) => Err(err),
        },
        args::Command::Budget(args::BudgetCommand::Compose(args)) => commands::budget::compose_cmd(args),
        args::Command::Budget(args::BudgetCommand::Convert(args)) => commands::budget::convert_cmd(args),
        args::Command::Budget(args::BudgetCommand::Ledger(args)) => commands::ledger::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // A closed pipe (`manifold-dp sample … | head`) is the reader's choice, not a failure.
        Err(err)
            if causes(&err).into_iter().any(|e| {
                e.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
            }) =>
        {
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("error: {err:#}");
            let ledger = causes(&err).into_iter().find_map(|e| e.downcast_ref::<manifold_dp_ledger::LedgerError>());
            if let Some(manifold_dp_ledger::LedgerError::NotFound { path }) = ledger {
                eprintln!("Create it with: manifold-dp budget ledger --db {} init", path.display());
            }
            let bad_input = is_bad_input(&err) || ledger.is_some_and(|e| e.is_bad_input());
            // 4: a release refused by the privacy ledger (over a budget); nothing was recorded or written.
            let refused = ledger.is_some_and(|e| e.is_refusal());
            ExitCode::from(if refused {
                4
            } else if bad_input {
                2
            } else {
                1
            })
        }
    }
}
