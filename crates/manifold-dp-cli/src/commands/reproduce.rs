//! `manifold-dp reproduce so3-figures`: the SO(3) paper's simulation study, with the exact samplers beside
//! the paper's own (computed by `manifold_dp_studies::so3`). Writes CSV tables and SVG figures; the comparison
//! with the paper is in `docs/reproduce_so3.md`.

use crate::args::ReproduceArgs;
use crate::io::stdout::outln;
use crate::render::plot::{self, Panel};
use anyhow::{Context, Result};
use manifold_dp_studies::so3::{Figure2, Figure3, ThroughputRow, so3_figures as study};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

pub fn so3_figures(args: ReproduceArgs) -> Result<()> {
    let dir = PathBuf::from(&args.out);
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let results = study(args.samples, args.seed)?;
    let mut written = Vec::new();
    written.extend(figure2(&dir, &results.figure2)?);
    written.extend(figure3(&dir, &results.figure3)?);
    written.extend(throughput(&dir, &results.throughput)?);
    outln!("wrote:");
    for p in written {
        outln!("  {}", p.display());
    }
    outln!("(seeded experiment; compare with the paper in docs/reproduce_so3.md)");
    Ok(())
}

/// Writes `text` to `path` (the reproductions' tables and reports) and returns the path.
pub(crate) fn write(path: &Path, text: &str) -> Result<PathBuf> {
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path.to_path_buf())
}

fn figure2(dir: &Path, fig: &Figure2) -> Result<Vec<PathBuf>> {
    let (n, critical) = (fig.n, fig.ks_critical);
    let mut summary =
        String::from("sampler,n,mean_angle_rad,exact_mean_angle_rad,ks_distance,ks_critical_1e-6,verdict\n");
    for s in &fig.samplers {
        let verdict = if s.consistent { "consistent with the exact law" } else { "REJECTED: not the exact law" };
        writeln!(
            summary,
            "{},{n},{},{},{},{critical},{verdict}",
            s.sampler, s.mean_angle, fig.exact_mean_angle, s.ks_distance
        )?;
    }
    let mut table =
        String::from("bin_lo_rad,bin_hi_rad,naive_density,gamma_density,exact_sampler_density,exact_density_mid\n");
    for b in &fig.bins {
        writeln!(table, "{},{},{},{},{},{}", b.lo, b.hi, b.naive, b.gamma, b.exact_sampler, b.exact_density_mid)?;
    }
    let panel = Panel {
        title: format!("Figure 2: {n} Laplace noise angles at epsilon = {}", fig.epsilon),
        x_label: "angle (rad)".into(),
        y_label: "density (per rad)".into(),
        log_y: false,
        histograms: fig.samplers.iter().map(|s| (s.sampler.to_string(), s.histogram.clone())).collect(),
        curves: vec![("exact density".into(), fig.density.clone())],
    };
    let svg = dir.join("fig2_laplace_samplers.svg");
    plot::draw(&svg, &[panel], 1)?;
    Ok(vec![write(&dir.join("fig2_summary.csv"), &summary)?, write(&dir.join("fig2_histograms.csv"), &table)?, svg])
}

fn figure3(dir: &Path, fig: &Figure3) -> Result<Vec<PathBuf>> {
    let critical = fig.ks_critical;
    let mut summary = String::from(
        "radius_deg,epsilon,mechanism,concentration,guarantee_epsilon,mean_angle_deg,theory_mean_angle_deg,\
         radius_68_deg_empirical,ks_distance,ks_critical_1e-6\n",
    );
    let mut table = String::from("radius_deg,epsilon,mechanism,bin_lo_rad,bin_hi_rad,density\n");
    let mut panels = Vec::new();
    for p in &fig.panels {
        let (rho_deg, eps) = (p.radius_deg, p.epsilon);
        for m in &p.mechanisms {
            writeln!(
                summary,
                "{rho_deg},{eps},{},{},{},{},{},{},{},{critical}",
                m.mechanism,
                m.concentration.map(|k| k.to_string()).unwrap_or_default(),
                m.guarantee_epsilon,
                m.mean_angle_deg,
                m.theory_mean_angle_deg,
                m.radius_68_deg_empirical,
                m.ks_distance
            )?;
            for (k, d) in m.histogram.density().iter().enumerate() {
                let (a, b) = m.histogram.edges(k);
                writeln!(table, "{rho_deg},{eps},{},{a},{b},{d}", m.mechanism)?;
            }
        }
        panels.push(Panel {
            title: format!("rho(0.683) = {rho_deg} deg: epsilon = {eps:.3}/rad"),
            x_label: "angle (rad)".into(),
            y_label: "density (per rad)".into(),
            log_y: false,
            histograms: p.mechanisms.iter().map(|m| (m.mechanism.to_string(), m.histogram.clone())).collect(),
            curves: vec![],
        });
    }
    let svg = dir.join("fig3_laplace_vs_bingham.svg");
    plot::draw(&svg, &panels, 2)?;
    Ok(vec![write(&dir.join("fig3_summary.csv"), &summary)?, write(&dir.join("fig3_histograms.csv"), &table)?, svg])
}

fn throughput(dir: &Path, rows: &[ThroughputRow]) -> Result<Vec<PathBuf>> {
    let mut table = String::from("epsilon,laplace_per_s,bingham_per_s,paper_laplace_per_s,laplace_over_bingham\n");
    for r in rows {
        writeln!(
            table,
            "{},{},{},{},{}",
            r.epsilon,
            r.laplace_per_s,
            r.bingham_per_s,
            r.paper_laplace_per_s,
            r.laplace_over_bingham()
        )?;
    }
    let curve = |f: fn(&ThroughputRow) -> f64| rows.iter().map(|r| (r.epsilon, f(r) / 1e6)).collect();
    let panel = Panel {
        title: "noisy rotations per second, one thread (ChaCha12)".into(),
        x_label: "epsilon (per rad)".into(),
        y_label: "million rotations per second".into(),
        log_y: true,
        histograms: vec![],
        curves: vec![
            ("Laplace (exact)".into(), curve(|r| r.laplace_per_s)),
            ("Bingham kappa = 2 eps (exact)".into(), curve(|r| r.bingham_per_s)),
            ("paper's Laplace sampler (not exact)".into(), curve(|r| r.paper_laplace_per_s)),
        ],
    };
    let svg = dir.join("throughput.svg");
    plot::draw(&svg, &[panel], 1)?;
    Ok(vec![write(&dir.join("throughput.csv"), &table)?, svg])
}
