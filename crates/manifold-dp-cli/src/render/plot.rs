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

/// One drawn series: (legend, points, is a histogram).
type Series = (String, Vec<(f64, f64)>, bool);

fn draw_panel(panel: &Panel, area: &Area) -> Result<(), Box<dyn std::error::Error>> {
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
    // A long title shrinks to fit its panel (about 0.55 em per character) instead of being clipped.
    let width = f64::from(area.dim_in_pixel().0);
    let title_size = (0.9 * width / (0.55 * panel.title.chars().count().max(1) as f64)).clamp(9.0, 16.0);
    chart
        .caption(&panel.title, ("sans-serif", title_size))
        .margin(10)
        .margin_right(24)
        .x_label_area_size(36)
        .y_label_area_size(56);
    let corner = emptiest_corner(&series, panel.log_y);
    // Headroom on the legend's side, growing with its entries, so the legend never covers data.
    let legend_share = (0.05 + 0.07 * series.len() as f64).min(0.5);
    let stretch = legend_share / (1.0 - legend_share);
    let lower = matches!(corner, SeriesLabelPosition::LowerLeft | SeriesLabelPosition::LowerRight);
    if panel.log_y {
        let (mut lo, mut hi) = if y0 < y1 { (y0 / 1.5, y1 * 1.5) } else { (0.1, 10.0) };
        let span = (hi / lo).powf(stretch);
        if lower {
            lo /= span;
        } else {
            hi *= span;
        }
        let mut c = chart.build_cartesian_2d((x0..x1).log_scale(), (lo..hi).log_scale())?;
        // A few labels, written short, and no light grid: on log axes plotters' defaults overlap and crowd.
        c.configure_mesh()
            .x_labels(6)
            .y_labels(6)
            .x_label_formatter(&|v| tick(*v))
            .y_label_formatter(&|v| tick(*v))
            .light_line_style(WHITE)
            .x_desc(&panel.x_label)
            .y_desc(&panel.y_label)
            .draw()?;
        for (i, (label, pts, _)) in series.iter().enumerate() {
            let color = COLORS[i % COLORS.len()];
            c.draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2)))?
                .label(label.as_str())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2)));
            c.draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
        }
        c.configure_series_labels().position(corner).background_style(WHITE.mix(0.85)).border_style(BLACK).draw()?;
    } else {
        // Histograms start at 0, so the legend goes on top.
        let top = if y1 > 0.0 { y1 * 1.08 } else { 1.0 } * (1.0 + stretch);
        let corner = match corner {
            SeriesLabelPosition::LowerLeft => SeriesLabelPosition::UpperLeft,
            SeriesLabelPosition::LowerRight => SeriesLabelPosition::UpperRight,
            c => c,
        };
        let mut c = chart.build_cartesian_2d(x0..x1, 0.0..top)?;
        c.configure_mesh().light_line_style(WHITE).x_desc(&panel.x_label).y_desc(&panel.y_label).draw()?;
        for (i, (label, pts, is_hist)) in series.iter().enumerate() {
            let color = COLORS[i % COLORS.len()];
            let style = if *is_hist { color.stroke_width(1) } else { BLACK.stroke_width(2) };
            let legend_style = style;
            c.draw_series(LineSeries::new(pts.iter().copied(), style))?
                .label(label.as_str())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], legend_style));
        }
        c.configure_series_labels().position(corner).background_style(WHITE.mix(0.85)).border_style(BLACK).draw()?;
    }
    Ok(())
}

/// A tick label: integers without a fractional part, others to three significant digits.
fn tick(v: f64) -> String {
    if v.abs() >= 1.0 && (v - v.round()).abs() < 1e-9 * v.abs() {
        format!("{v:.0}")
    } else {
        manifold_dp::privacy::guarantee::short(v)
    }
}

/// The corner of the plot (in its own scale) holding the fewest data points, for the legend.
fn emptiest_corner(series: &[Series], log: bool) -> SeriesLabelPosition {
    let scale = |v: f64| if log { v.max(f64::MIN_POSITIVE).ln() } else { v };
    let pts: Vec<(f64, f64)> = series
        .iter()
        .flat_map(|s| s.1.iter())
        .filter(|(x, y)| x.is_finite() && y.is_finite() && (!log || (*x > 0.0 && *y > 0.0)))
        .map(|&(x, y)| (scale(x), scale(y)))
        .collect();
    let bounds = |f: fn(&(f64, f64)) -> f64| {
        pts.iter().map(f).fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)))
    };
    let ((x0, x1), (y0, y1)) = (bounds(|p| p.0), bounds(|p| p.1));
    if pts.is_empty() || x1 <= x0 || y1 <= y0 {
        return SeriesLabelPosition::UpperRight;
    }
    // A legend box covers about the outer 45 % of the width and 35 % of the height of its corner.
    let count = |right: bool, top: bool| {
        pts.iter()
            .filter(|(x, y)| {
                let fx = (x - x0) / (x1 - x0);
                let fy = (y - y0) / (y1 - y0);
                (if right { fx > 0.55 } else { fx < 0.45 }) && (if top { fy > 0.65 } else { fy < 0.35 })
            })
            .count()
    };
    [
        (SeriesLabelPosition::UpperRight, count(true, true)),
        (SeriesLabelPosition::UpperLeft, count(false, true)),
        (SeriesLabelPosition::LowerLeft, count(false, false)),
        (SeriesLabelPosition::LowerRight, count(true, false)),
    ]
    .into_iter()
    .min_by_key(|&(_, n)| n)
    .map_or(SeriesLabelPosition::UpperRight, |(p, _)| p)
}

/// An input point and its release, as (x, y) each.
pub type Moved = ((f64, f64), (f64, f64));

/// A before/after scatter into an SVG file at `path`: each input point (blue), its release (red), and a light
/// segment between them, so that how far releases move can be seen. Longitude-like x, latitude-like y.
pub fn before_after(path: &Path, title: &str, x_label: &str, y_label: &str, pairs: &[Moved]) -> Result<()> {
    let root = SVGBackend::new(path, (640, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| anyhow!("{e}"))?;
    let draw = || -> Result<(), Box<dyn std::error::Error>> {
        let all = pairs.iter().flat_map(|&(a, b)| [a, b]);
        let (mut x0, mut x1, mut y0, mut y1) = (f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY);
        for (x, y) in all {
            (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
        }
        if !(x0 < x1 && y0 < y1) {
            (x0, x1, y0, y1) = (0.0, 1.0, 0.0, 1.0);
        }
        // Room for the legend above the points.
        let (pad_x, pad_y) = (0.05 * (x1 - x0), 0.05 * (y1 - y0));
        let top = y1 + 0.25 * (y1 - y0);
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 16))
            .margin(10)
            .margin_right(24)
            .x_label_area_size(36)
            .y_label_area_size(56)
            .build_cartesian_2d((x0 - pad_x)..(x1 + pad_x), (y0 - pad_y)..top)?;
        chart
            .configure_mesh()
            .light_line_style(WHITE)
            .x_labels(6)
            .y_labels(6)
            .x_label_formatter(&|v| tick(*v))
            .y_label_formatter(&|v| tick(*v))
            .x_desc(x_label)
            .y_desc(y_label)
            .draw()?;
        let grey = RGBColor(180, 180, 180);
        chart.draw_series(pairs.iter().map(|&(a, b)| PathElement::new(vec![a, b], grey.stroke_width(1))))?;
        let (blue, red) = (COLORS[0], COLORS[1]);
        chart
            .draw_series(pairs.iter().map(|&(_, b)| Cross::new(b, 3, red.stroke_width(1))))?
            .label("private release")
            .legend(move |(x, y)| Cross::new((x + 8, y), 3, red.stroke_width(1)));
        // Inputs last, larger and outlined: many rows share a venue, and the releases would hide them.
        chart.draw_series(pairs.iter().map(|&(a, _)| Circle::new(a, 6, WHITE.filled())))?;
        chart
            .draw_series(pairs.iter().map(|&(a, _)| Circle::new(a, 5, blue.filled())))?
            .label("input")
            .legend(move |(x, y)| Circle::new((x + 8, y), 5, blue.filled()));
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()?;
        Ok(())
    };
    draw().map_err(|e| anyhow!("cannot draw {}: {e}", path.display()))?;
    root.present().map_err(|e| anyhow!("cannot write {}: {e}", path.display()))?;
    Ok(())
}
