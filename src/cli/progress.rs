//! Progress bars for the long subcommands, drawn on stderr only when stderr is a terminal, so
//! logs, CI and tests see exactly the text lines they saw before; and a stdout writer that
//! lifts the bar while a result line is printed.

use std::io::{IsTerminal, Write};

use indicatif::{ProgressBar, ProgressStyle};

use crate::uci::output::Out;

/// A bar of `len` steps counted in `unit`; hidden (every call a no-op) unless stderr is a
/// terminal.
pub fn bar(len: u64, unit: &str) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    // The template is ours and fixed: should it ever fail to parse, a plain bar is still fine.
    let style = ProgressStyle::with_template(&template(unit))
        .unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style.progress_chars("=> "));
    // Drawn at once: the first step of a long run may take minutes.
    bar.tick();
    bar
}

// Elapsed time, the bar, steps done of all, the estimated time left and a free message.
fn template(unit: &str) -> String {
    let unit = unit.replace(['{', '}'], "");
    format!("[{{elapsed_precise}}] [{{wide_bar}}] {{pos}}/{{len}} {unit}, eta {{eta}} {{msg}}")
}

/// A line on stderr, printed above the bar when there is one.
pub fn note(bar: &ProgressBar, line: &str) {
    bar.suspend(|| eprintln!("{line}"));
}

/// The protocol writer for a subcommand's results on stdout, printed above `bar`.
pub fn stdout_above(bar: &ProgressBar) -> Out {
    Out::to(Box::new(AboveBar::new(bar.clone(), std::io::stdout())))
}

/// Passes whole lines to `inner` with the bar lifted, so a line and the bar never share a
/// row of the terminal; a partial line waits for its end (or a flush).
pub struct AboveBar<W: Write> {
    bar: ProgressBar,
    inner: W,
    pending: Vec<u8>,
}

impl<W: Write> AboveBar<W> {
    pub fn new(bar: ProgressBar, inner: W) -> AboveBar<W> {
        AboveBar {
            bar,
            inner,
            pending: Vec::new(),
        }
    }

    fn emit(&mut self, upto: usize) -> std::io::Result<()> {
        let lines: Vec<u8> = self.pending.drain(..upto).collect();
        let inner = &mut self.inner;
        self.bar
            .suspend(|| inner.write_all(&lines).and_then(|()| inner.flush()))
    }
}

impl<W: Write> Write for AboveBar<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.pending.extend_from_slice(buf);
        if let Some(last) = self.pending.iter().rposition(|&b| b == b'\n') {
            self.emit(last + 1)?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let all = self.pending.len();
        self.emit(all)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_template_parses_and_a_unit_cannot_inject_a_placeholder() {
        assert!(ProgressStyle::with_template(&template("positions")).is_ok());
        assert!(template("{pos}").contains(" pos, eta"));
    }

    #[test]
    fn whole_lines_pass_through_in_order_and_a_flush_passes_the_rest() {
        let mut w = AboveBar::new(ProgressBar::hidden(), Vec::new());
        write!(w, "ab").unwrap();
        assert!(w.inner.is_empty());
        write!(w, "c\nd").unwrap();
        assert_eq!(w.inner, b"abc\n");
        writeln!(w, "e").unwrap();
        write!(w, "f").unwrap();
        w.flush().unwrap();
        assert_eq!(w.inner, b"abc\nde\nf");
    }
}
