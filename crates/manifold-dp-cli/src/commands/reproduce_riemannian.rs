//! `manifold-dp reproduce riemannian-mean`: Figure 1 of Reimherr, Bharath & Soto, *Differentially private
//! Riemannian manifold summaries* (NeurIPS 2021), for SPD(2) and S² as in the paper, plus SO(3) (the study,
//! its data and mechanisms are in `manifold_dp_studies::riemannian`). CSV + text + SVG; the comparison with the
//! paper is in `docs/reproduce_riemannian.md`.

use super::reproduce::write;
use crate::args::RiemannianMeanArgs;
use crate::io::stdout::out;
use crate::render::plot::{self, Panel};
use anyhow::{Context, Result};
use manifold_dp_studies::riemannian::riemannian_mean as study;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

pub fn riemannian_mean(args: RiemannianMeanArgs) -> Result<()> {
    let start = Instant::now();
    anyhow::ensure!(args.repetitions >= 2, crate::BadInput("--repetitions must be at least 2".into()));
    let dir = PathBuf::from(&args.out);
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let results = study(args.repetitions, args.seed)?;
    let mut sensitivity_csv = String::from("manifold,n,distance,bound,euclidean_2r_over_n\n");
    let mut utility_csv = String::from("manifold,method,n,repetitions,sigma,mean_error,se,off_manifold_fraction\n");
    let mut panels = Vec::new();
    let mut summary = String::from("Empirical log-map spread C on the boundary (Theorem 2 bounds it by 2r(2 - h)): ");
    let spreads: Vec<String> = results
        .spreads
        .iter()
        .map(|s| format!("{} {:.5} vs {:.5}", s.manifold, s.empirical, s.theorem_bound))
        .collect();
    writeln!(summary, "{}", spreads.join("; "))?;
    for m in &results.manifolds {
        let name = m.name;
        for r in &m.sensitivity {
            writeln!(sensitivity_csv, "{name},{},{},{},{}", r.n, r.distance, r.bound, r.euclidean_2r_over_n)?;
        }
        for r in &m.utility {
            writeln!(
                utility_csv,
                "{name},{},{},{},{},{},{},{}",
                r.method, r.n, r.repetitions, r.sigma, r.mean_error, r.se, r.off_manifold_fraction
            )?;
        }
        let sens = &m.sensitivity_summary;
        panels.push(Panel {
            title: format!("{name}: sensitivity of the Fréchet mean"),
            x_label: "data set size n (points)".into(),
            y_label: format!("distance between neighbouring means ({})", unit_of(name)),
            log_y: true,
            histograms: Vec::new(),
            curves: vec![
                ("mean over pairs".into(), sens.iter().map(|r| (r.n as f64, r.mean)).collect()),
                ("max over pairs".into(), sens.iter().map(|r| (r.n as f64, r.max)).collect()),
                ("Theorem 2 bound".into(), sens.iter().map(|r| (r.n as f64, r.bound)).collect()),
            ],
        });
        panels.push(Panel {
            title: format!("{name}: error of the private mean, eps = 1"),
            x_label: "data set size n (points)".into(),
            y_label: "mean Euclidean distance to the mean (embedding units)".into(),
            log_y: true,
            histograms: Vec::new(),
            curves: m
                .methods()
                .into_iter()
                .map(|k| (k.to_string(), m.method(k).iter().map(|r| (r.n as f64, r.mean_error)).collect()))
                .collect(),
        });
        writeln!(
            summary,
            "\n{name}: mean Euclidean error (± 2 SE), and each intrinsic error relative to the extrinsic one"
        )?;
        let emp = Some(m.method("intrinsic-empirical")).filter(|v| !v.is_empty());
        let ext = m.method("extrinsic");
        for (i, r) in m.method("intrinsic").into_iter().enumerate() {
            let e = ext[i];
            let emp_text = match &emp {
                Some(v) => format!(
                    "  intrinsic-empirical {:.5} ± {:.5} ({:+.1} % vs extrinsic)",
                    v[i].mean_error,
                    2.0 * v[i].se,
                    100.0 * (v[i].mean_error / e.mean_error - 1.0)
                ),
                None => String::new(),
            };
            writeln!(
                summary,
                "  n = {:4}: intrinsic {:.5} ± {:.5} ({:+.1} % vs extrinsic){emp_text}  extrinsic {:.5} ± {:.5} \
                 (off the manifold: {:.1} %)",
                r.n,
                r.mean_error,
                2.0 * r.se,
                100.0 * (r.mean_error / e.mean_error - 1.0),
                e.mean_error,
                2.0 * e.se,
                100.0 * e.off_manifold_fraction
            )?;
        }
    }
    write(&dir.join("sensitivity.csv"), &sensitivity_csv)?;
    write(&dir.join("utility.csv"), &utility_csv)?;
    write(&dir.join("summary.txt"), &summary)?;
    plot::draw(&dir.join("riemannian_mean.svg"), &panels, 2)?;
    out!("{summary}");
    eprintln!(
        "wrote sensitivity.csv, utility.csv, summary.txt and riemannian_mean.svg to {} in {:.1} s",
        dir.display(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

/// The unit of a setup's geodesic distance, for axis labels.
fn unit_of(setup: &str) -> &'static str {
    if setup.starts_with("SPD") { "affine-invariant distance" } else { "rad" }
}
