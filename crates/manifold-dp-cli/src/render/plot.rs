//! SVG figures with plotters: panels of histograms (drawn as step outlines, so several overlay legibly)
//! with theoretical densities as curves.

use anyhow::{Result, anyhow};
use manifold_dp::stats::Histogram;
use plotters::prelude::*;
use std::path::Path;

/// One panel of a figure.
pub struct Panel {
    /// Title above the panel.
    pub title: String,
    /// Label of the x axis.
    pub x_label: String,
    /// Label of the y axis.
    pub y_label: String,
    /// Log scales on both axes (for throughput against ε), with points marked; curves only.
    pub log_y: bool,
    /// Empirical densities, with their legend labels.
    pub histograms: Vec<(String, Histogram)>,
    /// Curves (x, y), with their legend labels.
    pub curves: Vec<(String, Vec<(f64, f64)>)>,
}

const COLORS: [RGBColor; 5] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(255, 127, 14),
];

fn step_outline(h: &Histogram) -> Vec<(f64, f64)> {
    let density = h.density();
    let mut pts = Vec::with_capacity(2 * density.len() + 2);
    for (k, d) in density.iter().enumerate() {
        let (a, b) = h.edges(k);
        if k == 0 {
            pts.push((a, 0.0));
        }
        pts.push((a, *d));
        pts.push((b, *d));
    }
    if let Some(&(x, _)) = pts.last() {
        pts.push((x, 0.0));
    }
    pts
}

/// Draws `panels` in a grid of `columns` columns into an SVG file at `path`.
pub fn draw(path: &Path, panels: &[Panel], columns: usize) -> Result<()> {
    let rows = panels.len().div_ceil(columns.max(1));
    let size = (480 * columns.max(1) as u32, 360 * rows.max(1) as u32);
    let root = SVGBackend::new(path, size).into_drawing_area();
    root.fill(&WHITE).map_err(|e| anyhow!("{e}"))?;
    let areas = root.split_evenly((rows, columns.max(1)));
    for (panel, area) in panels.iter().zip(areas.iter()) {
        draw_panel(panel, area).map_err(|e| anyhow!("cannot draw {}: {e}", path.display()))?;
    }
    root.present().map_err(|e| anyhow!("cannot write {}: {e}", path.display()))?;
    Ok(())
}

type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

fn draw_panel(panel: &Panel, area: &Area) -> Result<(), Box<dyn std::error::Error>> {
    // (legend, points, is a histogram)
    type Series = (String, Vec<(f64, f64)>, bool);
    let mut series: Vec<Series> = Vec::new();
    for (label, h) in &panel.histograms {
        series.push((label.clone(), step_outline(h), true));
    }
    for (label, c) in &panel.curves {
        series.push((label.clone(), c.clone(), false));
    }
    let all = series.iter().flat_map(|s| s.1.iter());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY);
    for &(x, y) in all {
        if x.is_finite() && y.is_finite() && (!panel.log_y || y > 0.0) {
            (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
        }
    }
    if x0.partial_cmp(&x1) != Some(std::cmp::Ordering::Less) {
        (x0, x1) = (0.0, 1.0);
    }
    let mut chart = ChartBuilder::on(area);
    chart.caption(&panel.title, ("sans-serif", 16)).margin(10).x_label_area_size(36).y_label_area_size(56);
    if panel.log_y {
        let (lo, hi) = if y0 < y1 { (y0 / 1.5, y1 * 1.5) } else { (0.1, 10.0) };
        let mut c = chart.build_cartesian_2d((x0..x1).log_scale(), (lo..hi).log_scale())?;
        c.configure_mesh().x_desc(&panel.x_label).y_desc(&panel.y_label).draw()?;
        for (i, (label, pts, _)) in series.iter().enumerate() {
            let color = COLORS[i % COLORS.len()];
            c.draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2)))?
                .label(label.as_str())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2)));
            c.draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
        }
        c.configure_series_labels().background_style(WHITE.mix(0.8)).border_style(BLACK).draw()?;
    } else {
        let top = if y1 > 0.0 { y1 * 1.08 } else { 1.0 };
        let mut c = chart.build_cartesian_2d(x0..x1, 0.0..top)?;
        c.configure_mesh().x_desc(&panel.x_label).y_desc(&panel.y_label).draw()?;
        for (i, (label, pts, is_hist)) in series.iter().enumerate() {
            let color = COLORS[i % COLORS.len()];
            let style = if *is_hist { color.stroke_width(1) } else { BLACK.stroke_width(2) };
            let legend_style = style;
            c.draw_series(LineSeries::new(pts.iter().copied(), style))?
                .label(label.as_str())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], legend_style));
        }
        c.configure_series_labels().background_style(WHITE.mix(0.8)).border_style(BLACK).draw()?;
    }
    Ok(())
}
