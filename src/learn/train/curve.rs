//! The loss curve of a run: training and validation loss per epoch, and its drawing as an
//! SVG line chart written beside the net after every epoch.

/// Per epoch: (train loss, validation loss).
pub type Curve = Vec<(f64, f64)>;

/// The loss curve as an SVG line chart: training loss and validation loss per epoch. The
/// legend has a row of its own between the title and the plot, where no line can run under it.
pub fn curve_svg(curve: &Curve, title: &str) -> String {
    let (w, h, left, bottom, top, right) = (640.0, 420.0, 70.0, 50.0, 60.0, 20.0);
    let values = curve.iter().flat_map(|(t, v)| [*t, *v]);
    let lo = values.clone().fold(f64::INFINITY, f64::min);
    let hi = values.fold(f64::NEG_INFINITY, f64::max);
    let (lo, hi) = if lo.is_finite() && hi > lo {
        (lo, hi)
    } else {
        (0.0, 1.0)
    };
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
    for k in 0..=4 {
        let v = lo + (hi - lo) * f64::from(k) / 4.0;
        svg += &format!(
            "<line x1=\"{left}\" x2=\"{}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"#ddd\"/>\n\
             <text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{v:.5}</text>\n",
            w - right,
            left - 6.0,
            y(v) + 5.0,
            y = y(v)
        );
    }
    svg += &format!(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">epoch (1 to {})</text>\n",
        (w + left) / 2.0,
        h - 12.0,
        curve.len()
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
            9,
            "title, 5 ticks, axis, 2 names"
        );
    }

    #[test]
    fn the_chart_has_a_line_per_loss_with_a_point_per_epoch() {
        let svg = curve_svg(&vec![(0.3, 0.4), (0.2, 0.35), (0.1, 0.3)], "a run");
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains(">a run</text>") && svg.contains("epoch (1 to 3)"));
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
}
