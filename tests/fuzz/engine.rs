//! The engine under test as a raw pipe: any bytes in, its output lines as they come, and a
//! deadline on every wait, so a hang fails the session instead of stalling the test.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// What reading the engine's output gave.
pub enum Next {
    Line(Vec<u8>),
    Closed,
    Timeout,
}

pub struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Vec<u8>>,
    /// Every byte written, for the replay file of a failed session.
    pub sent: Vec<u8>,
    /// The last lines read, for the failure message.
    pub tail: Vec<String>,
}

const TAIL: usize = 40;

impl Engine {
    pub fn start() -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ferrum"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start ferrum");
        let stdout = child.stdout.take().expect("stdout");
        let stdin = child.stdin.take();
        let (tx, lines) = channel();
        // Output is drained at once, so the engine never blocks on a full pipe.
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut buf = Vec::new();
                match reader.read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        if buf.last() == Some(&b'\n') {
                            buf.pop();
                        }
                        if tx.send(buf).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        Engine {
            child,
            stdin,
            lines,
            sent: Vec::new(),
            tail: Vec::new(),
        }
    }

    /// Writes `bytes` (a line with its ending); the engine must still be reading.
    pub fn send(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.sent.extend_from_slice(bytes);
        let stdin = self.stdin.as_mut().ok_or("stdin already closed")?;
        stdin
            .write_all(bytes)
            .and_then(|()| stdin.flush())
            .map_err(|e| format!("engine stopped reading its input: {e}"))
    }

    /// End of input, which the engine must treat as `quit`.
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    pub fn next(&mut self, deadline: Instant) -> Next {
        let wait = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(wait) {
            Ok(line) => {
                if self.tail.len() == TAIL {
                    self.tail.remove(0);
                }
                self.tail.push(String::from_utf8_lossy(&line).into_owned());
                Next::Line(line)
            }
            Err(RecvTimeoutError::Disconnected) => Next::Closed,
            Err(RecvTimeoutError::Timeout) => Next::Timeout,
        }
    }

    /// The exit status, or None if the process is still running at `deadline`.
    pub fn wait_for_exit(&mut self, deadline: Instant) -> Option<ExitStatus> {
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
