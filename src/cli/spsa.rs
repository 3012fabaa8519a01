//! `ferrum spsa-inputs`: the search parameters (`search::params::TABLE`) as OpenBench's SPSA
//! input, one line per parameter: `name, int, value, min, max, c_end, r_end`.

use std::io::{IsTerminal, Write};

use crate::search::params::{self, Param};

/// The final learning rate of every parameter (OpenBench's usual value).
pub const R_END: f64 = 0.002;

/// A parameter of at most two values is a switch (0 off, 1 on): a change to test by SPRT, not
/// a value to tune.
pub fn is_switch(p: &Param) -> bool {
    i64::from(p.max) - i64::from(p.min) <= 1
}

/// The final perturbation: a twentieth of the range, at least one step (OpenBench needs 0.5
/// or more for an integer), as scripts/spsa.py chooses it too.
pub fn c_end(p: &Param) -> f64 {
    ((f64::from(p.max) - f64::from(p.min)) / 20.0).max(1.0)
}

/// The input text for `table`, switches left out: lines joined by newlines, none after the
/// last (OpenBench splits the text on newlines, and an empty last line is a malformed input).
pub fn inputs(table: &[Param]) -> String {
    table
        .iter()
        .filter(|p| !is_switch(p))
        .map(|p| {
            format!(
                "{}, int, {}, {}, {}, {}, {}",
                p.name,
                p.default,
                p.min,
                p.max,
                c_end(p),
                R_END
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Prints the input for this build's parameters; a terminal gets a final newline, a pipe or
/// file (what is pasted into OpenBench) does not.
pub fn run() -> Result<(), String> {
    let mut out = std::io::stdout().lock();
    let text = inputs(params::TABLE);
    let end = if out.is_terminal() { "\n" } else { "" };
    write!(out, "{text}{end}")
        .and_then(|()| out.flush())
        .map_err(|e| format!("spsa-inputs: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks `text` as OpenBench's tune form does (Django's verify_spsa_inputs): every line
    /// splits into exactly seven fields, the type is int, min <= value <= max, c >= 0.5 for an
    /// integer and r > 0. Returns the names in order.
    fn openbench_accepts(text: &str) -> Vec<String> {
        assert!(!text.is_empty(), "no parameters");
        text.split('\n')
            .map(|line| {
                let fields: Vec<&str> = line.split(',').collect();
                assert_eq!(fields.len(), 7, "{line:?}");
                let num = |i: usize| -> f64 {
                    fields[i]
                        .trim()
                        .parse()
                        .unwrap_or_else(|_| panic!("field {i} of {line:?}"))
                };
                assert_eq!(fields[1].trim(), "int", "{line}");
                let (value, min, max, c, r) = (num(2), num(3), num(4), num(5), num(6));
                assert!(min <= value && value <= max, "{line}");
                assert!(c >= 0.5, "{line}");
                assert!(r > 0.0, "{line}");
                // Integers print as integers, so OpenBench starts from the exact default.
                for field in &fields[2..5] {
                    assert!(field.trim().parse::<i32>().is_ok(), "{line}");
                }
                fields[0].trim().to_string()
            })
            .collect()
    }

    #[test]
    fn the_inputs_pass_openbench_checks_and_leave_out_only_the_switches() {
        let text = inputs(params::TABLE);
        assert!(!text.ends_with('\n') && !text.contains("\n\n"));
        let names = openbench_accepts(&text);
        let expected: Vec<&str> = params::TABLE
            .iter()
            .filter(|p| p.max - p.min > 1)
            .map(|p| p.name)
            .collect();
        assert_eq!(names, expected);
        // Every name is a parameter a tuning build takes as an option, and no switch is there.
        for p in params::TABLE {
            assert_eq!(names.iter().any(|n| n == p.name), !is_switch(p), "{p:?}");
        }
    }

    #[test]
    fn a_line_has_the_default_the_range_and_a_twentieth_of_it_as_c_end() {
        let table = [
            Param {
                name: "margin",
                default: 80,
                min: 20,
                max: 200,
            },
            Param {
                name: "on",
                default: 0,
                min: 0,
                max: 1,
            },
            Param {
                name: "depth",
                default: 3,
                min: 1,
                max: 8,
            },
            Param {
                name: "divisor",
                default: 200,
                min: 50,
                max: 800,
            },
        ];
        assert_eq!(
            inputs(&table),
            "margin, int, 80, 20, 200, 9, 0.002\n\
             depth, int, 3, 1, 8, 1, 0.002\n\
             divisor, int, 200, 50, 800, 37.5, 0.002"
        );
        assert_eq!(inputs(&table[1..2]), "");
    }
}
