//! The `ferrum` command line: with no argument it speaks UCI on stdin/stdout; `bench`,
//! `perft` and `epd` run the engine's own instruments.

use std::io::{BufRead, Write};
use std::process::ExitCode;
use std::sync::Arc;

use ferrum::engine::{Engine, Message};
use ferrum::perft::{self, PerftConfig};
use ferrum::search::time::Limits;
use ferrum::search::time::{Signals, StopToken};
use ferrum::uci::output::Out;
use ferrum::uci::parse::{Command, parse_line};
use ferrum::{bench, datagen, epd, position::Game, tune};

const USAGE: &str = "usage: ferrum                      speak UCI on stdin/stdout
       ferrum bench [DEPTH]        search the bench positions, print nodes and nps
       ferrum perft DEPTH [--fen FEN] [--divide] [--threads N] [--hash MB]
       ferrum perft --suite FILE [--max-depth D] [--threads N] [--hash MB]
       ferrum epd FILE [--movetime MS | --depth D | --nodes N] [--hash MB] [--threads N] [--json FILE]
       ferrum datagen --out FILE [--games N] [--nodes N] [--book FILE] [--random-plies N] [--seed S] [--threads T] [--format text|packed]
       ferrum datagen --stats FILE     summarise a packed data file
       ferrum datagen --convert TEXT --out FILE   pack `FEN;result` lines (no scores)
       ferrum tune --data FILE [--iterations N] [--rate R] [--l2 L] [--hold-out F] [--freeze-squares] [--out FILE]
       ferrum train --data FILE[,FILE..] --out DIR [--hidden H] [--activation crelu|screlu] [--epochs E] [--batch B] [--lr R] [--wdl W] [--hold-out F] [--threads T] [--seed S] [--resume]
       ferrum eval [--fen FEN]     print the evaluation's terms for each colour
       ferrum tb [FEN] [--path DIRS]  WDL and DTZ from Syzygy tables (FENs from stdin without FEN)
       ferrum connect4 solve [FILE] [--analyze] | bench FILE...   Connect-Four solver (--help)
       ferrum tree [--fen FEN | --connect4 MOVES] [--algorithm A] [--depth D] [--max-moves N] [--out FILE]
                                   draw the search tree as SVG (--help)
       ferrum --version";

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        None => {
            uci_loop();
            Ok(())
        }
        Some("bench") => bench_command(args.get(1)),
        Some("perft") => perft_command(&args[1..]),
        Some("epd") => epd_command(&args[1..]),
        Some("datagen") => datagen_command(&args[1..]),
        Some("tune") => tune_command(&args[1..]),
        Some("eval") => eval_command(&args[1..]),
        Some("tb" | "probe") => tb_command(&args[1..]),
        Some("train") => train_command(&args[1..]),
        Some("connect4") => ferrum::connect4::cli::run(&args[1..]),
        Some("tree") => ferrum::tree::cli::run(&args[1..]),
        Some("--version" | "-V") => {
            println!("{}", ferrum::engine::NAME);
            Ok(())
        }
        Some("--help" | "-h" | "help") => {
            println!("{USAGE}");
            Ok(())
        }
        Some(other) => Err(format!("unknown command '{other}'")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("ferrum: {msg}\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

/// Command-line flags: `--name value` pairs, `--switch`es and positional arguments.
struct Flags {
    positional: Vec<String>,
    named: Vec<(String, Option<String>)>,
}

impl Flags {
    /// `takes_value` lists the flags followed by a value; any other `--x` is a switch.
    fn parse(args: &[String], takes_value: &[&str], switches: &[&str]) -> Result<Flags, String> {
        let mut flags = Flags {
            positional: Vec::new(),
            named: Vec::new(),
        };
        let mut it = args.iter();
        while let Some(a) = it.next() {
            if takes_value.contains(&a.as_str()) {
                let v = it.next().ok_or(format!("{a} needs a value"))?;
                flags.named.push((a.clone(), Some(v.clone())));
            } else if switches.contains(&a.as_str()) {
                flags.named.push((a.clone(), None));
            } else if a.starts_with("--") {
                return Err(format!("unknown flag '{a}'"));
            } else {
                flags.positional.push(a.clone());
            }
        }
        Ok(flags)
    }

    fn value(&self, name: &str) -> Option<&str> {
        self.named
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .and_then(|(_, v)| v.as_deref())
    }

    fn has(&self, name: &str) -> bool {
        self.named.iter().any(|(n, _)| n == name)
    }

    fn number<T: std::str::FromStr>(&self, name: &str) -> Result<Option<T>, String> {
        self.value(name)
            .map(|v| v.parse().map_err(|_| format!("{name}: bad value '{v}'")))
            .transpose()
    }
}

fn bench_command(depth: Option<&String>) -> Result<(), String> {
    let depth = match depth {
        None => None,
        Some(d) => match d.parse::<u32>() {
            Ok(d) if d > 0 => Some(d),
            _ => return Err(format!("bench: bad depth '{d}'")),
        },
    };
    bench::run(depth, &Out::stdout());
    Ok(())
}

fn eval_command(args: &[String]) -> Result<(), String> {
    let flags = Flags::parse(args, &["--fen"], &[])?;
    let game = match flags.value("--fen") {
        Some(fen) => Game::from_fen(fen, false).map_err(|e| format!("eval: {e}"))?,
        None => Game::default(),
    };
    for line in ferrum::eval::report(&game.pos) {
        println!("{line}");
    }
    Ok(())
}

fn train_command(args: &[String]) -> Result<(), String> {
    use ferrum::train::{self, Adam, Outputs, Params, Sample, Settings};
    let flags = Flags::parse(
        args,
        &[
            "--data",
            "--out",
            "--hidden",
            "--activation",
            "--epochs",
            "--batch",
            "--lr",
            "--wdl",
            "--hold-out",
            "--threads",
            "--seed",
        ],
        &["--resume"],
    )?;
    let data = flags
        .value("--data")
        .ok_or("train: --data FILE[,FILE..] is required")?;
    let dir = flags.value("--out").ok_or("train: --out DIR is required")?;
    let settings = Settings {
        hidden: flags.number("--hidden")?.unwrap_or(64),
        activation: ferrum::nnue::Activation::parse(
            flags.value("--activation").unwrap_or("screlu"),
        )?,
        epochs: flags.number("--epochs")?.unwrap_or(20),
        batch: flags.number("--batch")?.unwrap_or(16384),
        lr: flags.number("--lr")?.unwrap_or(0.001),
        wdl: flags.number("--wdl")?.unwrap_or(0.3),
        hold_out: flags.number("--hold-out")?.unwrap_or(0.05),
        threads: flags.number("--threads")?.unwrap_or(2),
        seed: flags.number("--seed")?.unwrap_or(1),
    };
    if !(1..=4096).contains(&settings.hidden)
        || settings.batch == 0
        || !(0.0..=1.0).contains(&settings.wdl)
        || !(0.0..1.0).contains(&settings.hold_out)
        || !settings.lr.is_finite()
        || settings.lr <= 0.0
    {
        return Err(
            "train: bad settings (hidden 1..4096, batch > 0, wdl and hold-out in [0, 1), lr > 0)"
                .to_string(),
        );
    }
    let mut samples = Vec::new();
    for path in data.split(',') {
        let records = ferrum::packed::read_file(path, "train")?;
        let before = samples.len();
        samples.extend(
            records
                .iter()
                .filter_map(|r| Sample::from_record(r, settings.wdl)),
        );
        let bad = records.len() - (samples.len() - before);
        if bad > 0 {
            eprintln!("train: warning: {path}: {bad} unreadable records skipped");
        }
    }
    let split = samples.len() - (samples.len() as f64 * settings.hold_out) as usize;
    let valid = samples.split_off(split);
    if samples.is_empty() {
        return Err(format!("train: no training positions in '{data}'"));
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create '{dir}': {e}"))?;
    let outputs = Outputs {
        dir: std::path::PathBuf::from(dir),
    };
    let (params, adam, epoch, curve) = if flags.has("--resume") {
        let (p, a, e, c) = train::read_checkpoint(&outputs.checkpoint())?;
        if p.hidden != settings.hidden || p.activation != settings.activation {
            return Err("train: the checkpoint's hidden size or activation differs".to_string());
        }
        eprintln!("train: resuming after epoch {e}");
        (p, a, e, c)
    } else {
        let p = Params::random(settings.hidden, settings.activation, settings.seed);
        let n = p.v.len();
        (p, Adam::new(n), 0, Vec::new())
    };
    eprintln!(
        "train: {} positions for training, {} held out; {}x2 {}, {} epochs, batch {}, lr {}, wdl {}",
        samples.len(),
        valid.len(),
        settings.hidden,
        settings.activation.name(),
        settings.epochs,
        settings.batch,
        settings.lr,
        settings.wdl
    );
    train::train(
        &mut samples,
        &valid,
        &settings,
        params,
        adam,
        epoch,
        curve,
        &outputs,
        &mut |line| eprintln!("{line}"),
    )?;
    println!(
        "net written to {}, loss curve to {}, checkpoint to {}",
        outputs.net().display(),
        outputs.curve().display(),
        outputs.checkpoint().display()
    );
    Ok(())
}

const TB_USAGE: &str = "usage: ferrum tb [FEN] [--path DIRS]
Prints 'wdl <n> dtz <n>' for a position from the Syzygy tables in DIRS (separated by ':';
default: the SYZYGY_PATH environment variable). WDL is -2 (loss) .. 2 (win) for the side to
move, taking the position as reached by a capture or pawn move; DTZ counts plies to the next
capture, pawn move or mate (negative when losing). Without FEN, reads one FEN a line from
stdin and answers each with that line or 'error <reason>'.";

fn tb_command(args: &[String]) -> Result<(), String> {
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{TB_USAGE}");
        return Ok(());
    }
    let flags = Flags::parse(args, &["--path"], &[])?;
    let path = match flags.value("--path") {
        Some(p) => p.to_string(),
        None => std::env::var("SYZYGY_PATH")
            .map_err(|_| "tb: give --path DIRS or set SYZYGY_PATH".to_string())?,
    };
    let (tables, messages) = ferrum::syzygy::Tables::load(&path);
    for m in messages.iter().filter(|m| m.starts_with("error")) {
        eprintln!("tb: {m}");
    }
    let tables = tables.ok_or(format!("tb: no Syzygy tables found in '{path}'"))?;
    let answer = |fen: &str| -> Result<String, String> {
        let game = Game::from_fen(fen, false)?;
        let not_in = || format!("position not in the tables: '{}'", fen.trim());
        let wdl = tables.probe_wdl(&game.pos).ok_or_else(not_in)?;
        let dtz = tables.probe_dtz(&game.pos).ok_or_else(not_in)?;
        Ok(format!("wdl {} dtz {dtz}", wdl as i32))
    };
    if !flags.positional.is_empty() {
        return answer(&flags.positional.join(" ")).map(|line| println!("{line}"));
    }
    let mut out = std::io::stdout().lock();
    for line in std::io::stdin().lock().lines() {
        let line = line.map_err(|e| format!("tb: cannot read stdin: {e}"))?;
        if line.trim().is_empty() {
            continue;
        }
        let reply = answer(&line).unwrap_or_else(|e| {
            eprintln!("tb: {e}");
            format!("error {e}")
        });
        writeln!(out, "{reply}").map_err(|e| format!("tb: cannot write: {e}"))?;
    }
    Ok(())
}

fn read_file(path: &str) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read '{path}': {e}"))
}

fn perft_command(args: &[String]) -> Result<(), String> {
    let flags = Flags::parse(
        args,
        &["--fen", "--threads", "--hash", "--suite", "--max-depth"],
        &["--divide"],
    )?;
    let defaults = PerftConfig::default();
    let config = PerftConfig {
        hash_mb: flags.number("--hash")?.unwrap_or(defaults.hash_mb),
        threads: flags
            .number("--threads")?
            .unwrap_or(defaults.threads)
            .max(1),
    };
    let out = Out::stdout();
    if let Some(path) = flags.value("--suite") {
        let text = read_file(path)?;
        let max_depth = flags.number("--max-depth")?.unwrap_or(u32::MAX);
        let start = std::time::Instant::now();
        let (_, failed) = perft::run_suite(&text, max_depth, config, &out);
        eprintln!("suite time: {} ms", start.elapsed().as_millis());
        return if failed == 0 {
            Ok(())
        } else {
            Err(format!("{failed} perft suite position(s) failed"))
        };
    }
    let depth: u32 = match flags.positional.first() {
        Some(d) => d.parse().map_err(|_| format!("perft: bad depth '{d}'"))?,
        None => return Err("perft: missing depth".to_string()),
    };
    let game = match flags.value("--fen") {
        Some(f) => Game::from_fen(f, false)?,
        None => Game::default(),
    };
    let (nodes, ms) = perft::run_divide(&game, depth, flags.has("--divide"), config, None, &out);
    eprintln!(
        "perft {depth}: {nodes} nodes in {ms} ms ({} nps, {} thread(s), hash {} MB)",
        nodes * 1000 / ms.max(1),
        config.threads,
        config.hash_mb
    );
    Ok(())
}

fn datagen_command(args: &[String]) -> Result<(), String> {
    let flags = Flags::parse(
        args,
        &[
            "--out",
            "--games",
            "--nodes",
            "--book",
            "--random-plies",
            "--seed",
            "--threads",
            "--format",
            "--stats",
            "--convert",
        ],
        &[],
    )?;
    if let Some(path) = flags.value("--stats") {
        return datagen_stats(path);
    }
    let path = flags
        .value("--out")
        .ok_or("datagen: --out FILE is required")?;
    // Packed when asked, or when the file is named .bin; text otherwise.
    let format = match flags.value("--format") {
        Some("packed") => datagen::Format::Packed,
        Some("text") => datagen::Format::Text,
        Some(other) => return Err(format!("datagen: unknown format '{other}'")),
        None if path.ends_with(".bin") => datagen::Format::Packed,
        None => datagen::Format::Text,
    };
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .read(true)
        .append(true)
        .open(path)
        .map_err(|e| format!("cannot open '{path}': {e}"))?;
    if format == datagen::Format::Packed {
        let cut = ferrum::packed::trim_cut_record(&mut file)?;
        if cut > 0 {
            eprintln!(
                "datagen: warning: dropped a cut record of {cut} bytes at the end of '{path}'"
            );
        }
    }
    if let Some(text_path) = flags.value("--convert") {
        let (records, bad) = ferrum::packed::convert_text(&read_file(text_path)?);
        ferrum::packed::write_records(&mut file, &records)
            .map_err(|e| format!("cannot write '{path}': {e}"))?;
        println!(
            "{} positions converted to {path} ({bad} bad lines skipped)",
            records.len()
        );
        return Ok(());
    }
    let openings = match flags.value("--book") {
        Some(book) => read_file(book)?
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(String::from)
            .collect(),
        None => Vec::new(),
    };
    let config = datagen::Config {
        games: flags.number("--games")?.unwrap_or(100),
        nodes: flags.number("--nodes")?.unwrap_or(5000),
        openings,
        random_plies: flags.number("--random-plies")?.unwrap_or(4),
        seed: flags.number("--seed")?.unwrap_or(1),
        threads: flags.number("--threads")?.unwrap_or(1),
        format,
    };
    // Appends (after any cut record), so an interrupted run can be continued with another seed.
    let mut sink = std::io::BufWriter::new(file);
    let start = std::time::Instant::now();
    let rate = |p: usize| p as f64 / start.elapsed().as_secs_f64().max(1e-3);
    let every = (config.games / 100).clamp(1, 100);
    let (games, positions) = datagen::run(&config, &mut sink, &mut |g, p| {
        if g % every == 0 || g == config.games {
            eprintln!(
                "datagen: {g}/{} games, {p} positions, {} s, {:.0} positions/s",
                config.games,
                start.elapsed().as_secs(),
                rate(p)
            );
        }
    })?;
    std::io::Write::flush(&mut sink).map_err(|e| format!("cannot write '{path}': {e}"))?;
    println!(
        "{games} games, {positions} positions written to {path} ({:.0} positions/s)",
        rate(positions)
    );
    Ok(())
}

fn datagen_stats(path: &str) -> Result<(), String> {
    let records = ferrum::packed::read_file(path, "datagen")?;
    for line in ferrum::packed::stats(&records) {
        println!("{line}");
    }
    Ok(())
}

fn tune_command(args: &[String]) -> Result<(), String> {
    let flags = Flags::parse(
        args,
        &[
            "--data",
            "--iterations",
            "--rate",
            "--l2",
            "--hold-out",
            "--out",
        ],
        &["--freeze-squares"],
    )?;
    let path = flags
        .value("--data")
        .ok_or("tune: --data FILE is required")?;
    let (samples, bad) = tune::load(&read_file(path)?);
    if samples.is_empty() {
        return Err(format!("tune: no usable positions in '{path}'"));
    }
    let settings = tune::Settings {
        iterations: flags.number("--iterations")?.unwrap_or(1000),
        rate: flags.number("--rate")?.unwrap_or(1.0),
        l2: flags.number("--l2")?.unwrap_or(0.0),
        squares: !flags.has("--freeze-squares"),
    };
    let hold_out: f64 = flags.number("--hold-out")?.unwrap_or(0.1);
    if !(0.0..1.0).contains(&hold_out) || !settings.l2.is_finite() || settings.l2 < 0.0 {
        return Err("tune: --hold-out must be in [0, 1) and --l2 at least 0".to_string());
    }
    // The last positions of the file are held out: whole games, mostly, so the held-out
    // loss is not flattered by positions of the same game in training.
    let split = samples.len() - (samples.len() as f64 * hold_out) as usize;
    let (train, held_out) = samples.split_at(split);
    eprintln!(
        "tune: {} positions for training, {} held out ({bad} bad lines skipped)",
        train.len(),
        held_out.len()
    );
    let outcome = tune::tune(train, held_out, settings, &mut |t, l, v| {
        eprintln!("tune: iteration {t}, loss {l:.6}, held-out loss {v:.6}");
    });
    let note = format!(
        "{} positions from {path} ({} held out), {} iterations, rate {}, L2 {}, K {:.3}; \
         loss {:.6} -> {:.6}, held-out loss {:.6} -> {:.6}.",
        train.len(),
        held_out.len(),
        settings.iterations,
        settings.rate,
        settings.l2,
        outcome.k,
        outcome.loss_before,
        outcome.loss_after,
        outcome.valid_before,
        outcome.valid_after
    );
    println!("{note}");
    let source = tune::params_source(&outcome.weights, &note);
    match flags.value("--out") {
        Some(out) => {
            std::fs::write(out, source).map_err(|e| format!("cannot write '{out}': {e}"))?
        }
        None => print!("{source}"),
    }
    Ok(())
}

fn epd_command(args: &[String]) -> Result<(), String> {
    let flags = Flags::parse(
        args,
        &[
            "--movetime",
            "--depth",
            "--nodes",
            "--hash",
            "--threads",
            "--json",
        ],
        &[],
    )?;
    let [path] = flags.positional.as_slice() else {
        return Err("epd: give exactly one EPD file".to_string());
    };
    let text = read_file(path)?;
    let mut limits = Limits {
        movetime: flags.number("--movetime")?,
        depth: flags.number("--depth")?,
        nodes: flags.number("--nodes")?,
        ..Limits::default()
    };
    if limits.movetime.is_none() && limits.depth.is_none() && limits.nodes.is_none() {
        limits.movetime = Some(1000);
    }
    let setup = epd::Setup {
        hash_mb: flags.number("--hash")?.unwrap_or(16),
        threads: flags.number("--threads")?.unwrap_or(1).max(1),
    };
    let outcomes = epd::run(path, &text, &limits, setup, &Out::stdout());
    if let Some(json) = flags.value("--json") {
        std::fs::write(json, epd::to_json(path, &outcomes))
            .map_err(|e| format!("cannot write '{json}': {e}"))?;
    }
    Ok(())
}

/// The protocol thread: reads lines, flips the stop/ponderhit counters at once, and queues
/// everything for the engine thread. End of input is `quit`.
fn uci_loop() {
    let out = Out::stdout();
    let engine = match Engine::new(out.clone()) {
        Ok(e) => e,
        Err(e) => {
            log::error!("{e}");
            out.info_string(&format!("error: {e}"));
            return;
        }
    };
    let signals = Arc::new(Signals::default());
    let (tx, rx) = crossbeam_channel::unbounded::<Message>();
    let engine_thread = std::thread::spawn(move || engine.run(rx));

    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let command = match input.read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => Command::Quit,
            Ok(_) => {
                let line = String::from_utf8_lossy(&buf);
                log::debug!("<< {}", line.trim_end());
                let parsed = parse_line(&line);
                for w in &parsed.warnings {
                    out.info_string(&format!("error: {w}"));
                }
                match parsed.command {
                    Some(c) => c,
                    None => continue,
                }
            }
        };
        match command {
            Command::Stop | Command::Quit => {
                signals.stop();
            }
            Command::PonderHit => {
                signals.ponderhit();
            }
            _ => {}
        }
        let quit = command == Command::Quit;
        let token = StopToken::new(Arc::clone(&signals));
        if tx.send(Message { command, token }).is_err() || quit {
            break;
        }
    }
    drop(tx);
    if engine_thread.join().is_err() {
        log::error!("engine thread ended abnormally");
    }
}
