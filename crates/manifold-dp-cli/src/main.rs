//! `manifold-dp`: differential privacy for rotations from the command line.
//!
//! This binary parses arguments, reads and writes files and prints reports; every computation is a call
//! into the `manifold-dp` library.

mod cli;
mod clock;
mod cmd_demo;
mod cmd_mean;
mod cmd_privatize;
mod cmd_radius;
mod cmd_reproduce;
mod cmd_reproduce_directional;
mod cmd_reproduce_riemannian;
mod cmd_sample;
mod columns;
mod directions;
mod output;
mod plot;
mod progress;
mod report;
mod rotations;
mod space;
mod spd_columns;
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

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
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
            let bad_input = err.chain().any(|e| e.is::<BadInput>() || e.is::<manifold_dp::Error>());
            ExitCode::from(if bad_input { 2 } else { 1 })
        }
    }
}
