//! The loss curve of a run: training and validation loss per epoch, and its drawing as an
//! SVG line chart written beside the net after every epoch.

/// Per epoch: (train loss, validation loss).
pub type Curve = Vec<(f64, f64)>;

/// The step between the loss axis's ticks: 1, 2 or 5 times a power of ten, the smallest of
/// them that splits `lo..hi` into at most four steps, and the decimals that write it exactly.
fn tick_step(lo: f64, hi: f64) -> (f64, usize) {
    let raw = (hi - lo) / 4.0;
    let exponent = raw.log10().floor() as i32;
    let (multiple, power) = [
        (1.0, exponent),
        (2.0, exponent),
        (5.0, exponent),
        (1.0, exponent + 1),
    ]
    .into_iter()
    .find(|(m, p)| m * 10f64.powi(*p) >= raw * (1.0 - 1e-9))
    .unwrap_or((1.0, exponent + 1));
    (multiple * 10f64.powi(power), (-power).max(0) as usize)
}

/// The epochs numbered under the plot (1-based): every one up to 10 epochs; in longer runs the
/// first, every second, fifth, tenth... epoch (the smallest step that needs at most ten) and
/// the last, which takes the place of a numbered epoch less than half a step before it.
fn epoch_labels(epochs: usize) -> Vec<usize> {
    let every = [1, 2, 5]
        .iter()
        .flat_map(|m| [1, 10, 100, 1000, 10_000].map(|p| m * p))
        .filter(|e| epochs.div_ceil(*e) <= 10)
        .min()
        .unwrap_or(epochs.max(1));
    let mut labels: Vec<usize> = (1..=epochs).filter(|e| e % every == 0 || *e == 1).collect();
    if labels.last() != Some(&epochs) && epochs > 0 {
        // The last epoch replaces a label too close to it to be read beside it.
        if labels
            .last()
            .is_some_and(|l| epochs - l < every.div_ceil(2))
        {
            labels.pop();
        }
        labels.push(epochs);
    }
    labels
}

/// The loss curve as an SVG line chart: training loss and validation loss per epoch. The loss
/// axis runs between round values (ticks 1, 2 or 5 times a power of ten apart) that hold every
/// point; the epochs are numbered under the plot. The legend has a row of its own between the
/// title and the plot, where no line can run under it.
pub fn curve_svg(curve: &Curve, title: &str) -> String {
    let (w, h, left, bottom, top, right) = (640.0, 420.0, 70.0, 50.0, 60.0, 20.0);
    let values = curve.iter().flat_map(|(t, v)| [*t, *v]);
    let lo = values.clone().fold(f64::INFINITY, f64::min);
    let hi = values.fold(f64::NEG_INFINITY, f64::max);
    let (lo, hi) = if lo.is_finite() && hi > lo {
        (lo, hi)
    } else if lo.is_finite() {
        // One value (or all equal): a band around it.
        (lo - lo.abs().max(1e-6) * 0.1, lo + lo.abs().max(1e-6) * 0.1)
    } else {
        (0.0, 1.0)
    };
    let (step, decimals) = tick_step(lo, hi);
    // The axis from the round value at or below the lowest point to the one at or above the
    // highest (a point on a round value, within rounding, is its own end).
    let first = (lo / step + 1e-9).floor() as i64;
    let last = (hi / step - 1e-9).ceil() as i64;
    let (lo, hi) = (first as f64 * step, last as f64 * step);
    let n = curve.len().max(2) - 1;
    let x = |i: usize| left + (w - left - right) * i as f64 / n as f64;
    let y = |v: f64| top + (h - top - bottom) * (hi - v) / (hi - lo);
    let line = |pick: fn(&(f64, f64)) -> f64| -> String {
        curve
            .iter()
            .enumerate()
            .map(|(i, p)| format!("{:.1},{:.1}", x(i), y(pick(p))))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
         font-family=\"sans-serif\" font-size=\"14\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"{left}\" y=\"24\" font-size=\"16\">{}</text>\n",
        crate::basics::xml::escape(title)
    );
    for k in first..=last {
        let v = k as f64 * step;
        svg += &format!(
            "<line x1=\"{left}\" x2=\"{}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"#ddd\"/>\n\
             <text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{v:.decimals$}</text>\n",
            w - right,
            left - 6.0,
            y(v) + 5.0,
            y = y(v)
        );
    }
    for epoch in epoch_labels(curve.len()) {
        svg += &format!(
            "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{epoch}</text>\n",
            x(epoch - 1),
            h - bottom + 18.0
        );
    }
    svg += &format!(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">epoch</text>\n",
        (w + left) / 2.0,
        h - 8.0,
    );
    svg += &format!(
        "<polyline fill=\"none\" stroke=\"#1f6fd1\" stroke-width=\"2\" points=\"{}\"/>\n\
         <polyline fill=\"none\" stroke=\"#d1531f\" stroke-width=\"2\" points=\"{}\"/>\n",
        line(|p| p.0),
        line(|p| p.1),
    );
    for (i, (name, colour)) in [("training loss", "#1f6fd1"), ("validation loss", "#d1531f")]
        .iter()
        .enumerate()
    {
        // The legend's row: 14-point text on a baseline 13 above the plot, clear of the title's
        // (at 24) while `top` stays 60.
        let (x0, baseline) = (left + 180.0 * i as f64, top - 13.0);
        // A swatch of the line's colour at the text's middle height, then the name.
        let (x1, swatch_y, text_x) = (x0 + 24.0, baseline - 5.0, x0 + 30.0);
        svg += &format!(
            "<line x1=\"{x0}\" x2=\"{x1}\" y1=\"{swatch_y}\" y2=\"{swatch_y}\" stroke=\"{colour}\" stroke-width=\"2\"/>\n\
             <text x=\"{text_x}\" y=\"{baseline}\" fill=\"{colour}\">{name}</text>\n"
        );
    }
    svg += "</svg>\n";
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `y` attribute of an SVG element's line.
    fn y_of(line: &str) -> f64 {
        let y = line.split(" y=\"").nth(1).unwrap_or("");
        y.split('"')
            .next()
            .unwrap_or("")
            .parse()
            .unwrap_or(f64::NAN)
    }

    #[test]
    fn the_title_is_written_as_text_not_markup() {
        let svg = curve_svg(&vec![(0.3, 0.4)], "a <b> & c");
        assert!(svg.contains(">a &lt;b&gt; &amp; c</text>"), "{svg}");
    }

    #[test]
    fn the_legend_sits_above_the_plot_where_no_line_runs() {
        // Validation loss highest: its line runs along the plot's top edge, where a legend
        // inside the plot would be written over it.
        let svg = curve_svg(&vec![(0.27, 0.29), (0.26, 0.29), (0.25, 0.28)], "a run");
        // The highest point of either line, read from the drawing.
        let top_of_lines = svg
            .lines()
            .filter_map(|l| l.split("points=\"").nth(1))
            .flat_map(|points| points.split('"').next().unwrap_or("").split(' '))
            .filter_map(|point| point.split(',').nth(1)?.parse::<f64>().ok())
            .fold(f64::INFINITY, f64::min);
        assert!(top_of_lines.is_finite(), "no line points: {svg}");
        let title_baseline = y_of(svg.lines().find(|l| l.contains(">a run<")).unwrap_or(""));
        for name in ["training loss", "validation loss"] {
            let y = y_of(svg.lines().find(|l| l.contains(name)).unwrap_or(""));
            // A baseline at y holds 14-point text from about y - 11 to y + 3.
            assert!(
                y + 3.0 < top_of_lines && y - 11.0 > title_baseline + 3.0,
                "{name} at y {y}, lines from {top_of_lines}, title at {title_baseline}: {svg}"
            );
        }
        assert_eq!(
            svg.matches("<text").count(),
            12,
            "title, 5 ticks, 3 epochs, axis, 2 names"
        );
    }

    #[test]
    fn the_chart_has_a_line_per_loss_with_a_point_per_epoch() {
        let svg = curve_svg(&vec![(0.3, 0.4), (0.2, 0.35), (0.1, 0.3)], "a run");
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains(">a run</text>") && svg.contains(">epoch</text>"));
        let lines: Vec<&str> = svg.lines().filter(|l| l.contains("<polyline")).collect();
        assert_eq!(lines.len(), 2);
        for line in lines {
            let points = line.split("points=\"").nth(1).unwrap_or("");
            assert_eq!(points.split(' ').count(), 3, "{line}");
        }
        // The highest loss (0.4, first epoch) sits on the top margin, the lowest (0.1, last
        // epoch) on the bottom one, at the plot's right edge.
        assert!(
            svg.contains("\"70.0,60.0 ") && svg.contains(" 620.0,370.0\""),
            "{svg}"
        );
    }

    /// The loss axis's tick labels as written, top to bottom.
    fn tick_labels(svg: &str) -> Vec<&str> {
        svg.lines()
            .filter(|l| l.contains("text-anchor=\"end\""))
            .filter_map(|l| l.split('>').nth(1)?.split('<').next())
            .collect()
    }

    /// The loss axis's tick labels, top to bottom, as numbers.
    fn tick_values(svg: &str) -> Vec<f64> {
        tick_labels(svg)
            .iter()
            .filter_map(|t| t.parse().ok())
            .collect()
    }

    #[test]
    fn loss_ticks_are_round_steps_from_below_the_lowest_to_above_the_highest_loss() {
        // n8b's losses over 20 epochs: from 0.00536 down to 0.002646.
        let curve: Curve = (0..20)
            .map(|i| {
                let f = f64::from(i) / 19.0;
                (
                    0.00536 - (0.00536 - 0.002646) * f.sqrt(),
                    0.00417 - 0.00097 * f,
                )
            })
            .collect();
        let ticks = tick_values(&curve_svg(&curve, "n8b"));
        assert!((3..=7).contains(&ticks.len()), "{ticks:?}");
        let step = ticks[1] - ticks[0];
        // 1, 2 or 5 times a power of ten, every label a whole number of steps.
        let mantissa = step / 10f64.powf((step.log10() + 1e-9).floor());
        assert!(
            [1.0, 2.0, 5.0].iter().any(|m| (mantissa - m).abs() < 1e-6),
            "step {step}"
        );
        for pair in ticks.windows(2) {
            assert!(
                ((pair[1] - pair[0]) - step).abs() < step * 1e-6,
                "{ticks:?}"
            );
        }
        for t in &ticks {
            assert!(
                ((t / step) - (t / step).round()).abs() < 1e-6,
                "{t} in {ticks:?}"
            );
        }
        assert!(
            ticks[0] <= 0.002646 && ticks[0] > 0.002646 - step,
            "{ticks:?}"
        );
        let top = ticks[ticks.len() - 1];
        assert!(top >= 0.00536 && top < 0.00536 + step, "{ticks:?}");
    }

    #[test]
    fn loss_ticks_of_a_narrow_range_are_written_with_enough_decimals_to_differ() {
        let svg = curve_svg(&vec![(0.003110, 0.003093), (0.003105, 0.003100)], "close");
        let labels = tick_labels(&svg);
        assert!(labels.len() >= 3, "{labels:?}");
        let mut distinct = labels.clone();
        distinct.dedup();
        assert_eq!(distinct, labels);
    }

    #[test]
    fn each_epoch_of_a_short_run_is_numbered_under_its_points() {
        let svg = curve_svg(&vec![(0.3, 0.4), (0.2, 0.35), (0.1, 0.3)], "a run");
        for (epoch, x) in [(1, "70.0"), (2, "345.0"), (3, "620.0")] {
            assert!(
                svg.contains(&format!(
                    "<text x=\"{x}\" y=\"388\" text-anchor=\"middle\">{epoch}</text>"
                )),
                "epoch {epoch}: {svg}"
            );
        }
    }

    #[test]
    fn long_runs_number_the_first_every_nth_and_the_last_epoch() {
        assert_eq!(epoch_labels(10), (1..=10).collect::<Vec<_>>());
        assert_eq!(epoch_labels(20), [1, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20]);
        assert_eq!(epoch_labels(23), [1, 5, 10, 15, 20, 23]);
        // 21 is too close to 20 to be read beside it: it takes 20's place.
        assert_eq!(epoch_labels(21), [1, 5, 10, 15, 21]);
        assert_eq!(epoch_labels(1), [1]);
        assert!(epoch_labels(0).is_empty());
    }

    #[test]
    fn a_chart_of_equal_losses_still_draws_its_lines() {
        let svg = curve_svg(&vec![(0.5, 0.5)], "flat");
        assert!(!svg.contains("NaN") && !svg.contains("inf"), "{svg}");
        assert_eq!(svg.matches("<polyline").count(), 2);
    }
}
