"""A minimal blocking UCI client for the measuring scripts: start an engine, send lines,
read until a line with a given prefix."""
import subprocess


class Engine:
    def __init__(self, path):
        self.p = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.send("uci")
        self.until("uciok")

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def until(self, prefix):
        """Every line read up to and including the first that starts with `prefix`."""
        lines = []
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise SystemExit("engine closed its output")
            lines.append(line.strip())
            if line.startswith(prefix):
                return lines

    def fresh_position(self, fen):
        """A new game (`ucinewgame`, answered by `readyok`) set to `fen`: the next `go`
        searches with an empty table."""
        self.send("ucinewgame")
        self.send("isready")
        self.until("readyok")
        self.send(f"position fen {fen}")

    def quit(self):
        self.send("quit")
        self.p.wait(timeout=10)
