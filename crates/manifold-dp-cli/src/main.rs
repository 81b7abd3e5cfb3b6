//! `manifold-dp`: differential privacy for rotations from the command line.
//!
//! This binary parses arguments, reads and writes files and prints reports; every computation is a call
//! into the `manifold-dp` library.

mod cleanup;
mod cli;
mod cmd_audit;
mod cmd_budget;
mod cmd_demo;
mod cmd_ledger;
mod cmd_mean;
mod cmd_privatize;
mod cmd_radius;
mod cmd_reproduce;
mod cmd_reproduce_directional;
mod cmd_reproduce_riemannian;
mod cmd_sample;
#[cfg(test)]
mod fuzz;
mod output;
mod plot;
mod progress;
mod report;
mod table;
mod units;

use clap::Parser;
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
    err.chain().any(|e| {
        e.is::<BadInput>()
            || e.is::<manifold_dp::Error>()
            || e.is::<manifold_dp::registry::UnknownName>()
            || e.is::<manifold_dp_arrow::Error>()
    })
}

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    // Before any file is created: an interrupted run must not leave temporary files behind.
    if let Err(err) = cleanup::install() {
        eprintln!("error: cannot watch for interrupts: {err}");
        return ExitCode::from(1);
    }
    let result = match cli.command {
        cli::Command::Sample(args) => cmd_sample::run(args),
        cli::Command::Radius(args) => cmd_radius::run(args),
        cli::Command::Privatize(args) => cmd_privatize::run(args),
        cli::Command::Mean(args) => cmd_mean::run(args),
        cli::Command::Reproduce(cli::ReproduceCommand::So3Figures(args)) => cmd_reproduce::so3_figures(args),
        cli::Command::Reproduce(cli::ReproduceCommand::DirectionalMean(args)) => {
            cmd_reproduce_directional::directional_mean(args)
        }
        cli::Command::Reproduce(cli::ReproduceCommand::RiemannianMean(args)) => {
            cmd_reproduce_riemannian::riemannian_mean(args)
        }
        cli::Command::Demo(args) => cmd_demo::run(args),
        // 0, or 3 when the audit flags the mechanism; errors are reported below.
        cli::Command::Audit(args) => match cmd_audit::run(args) {
            Ok(code) => return code,
            Err(err) => Err(err),
        },
        cli::Command::Budget(cli::BudgetCommand::Compose(args)) => cmd_budget::compose_cmd(args),
        cli::Command::Budget(cli::BudgetCommand::Convert(args)) => cmd_budget::convert_cmd(args),
        cli::Command::Budget(cli::BudgetCommand::Ledger(args)) => cmd_ledger::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // A closed pipe (`manifold-dp sample … | head`) is the reader's choice, not a failure.
        Err(err)
            if err.chain().any(|e| {
                e.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
            }) =>
        {
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("error: {err:#}");
            let ledger = err.chain().find_map(|e| e.downcast_ref::<manifold_dp_ledger::LedgerError>());
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
