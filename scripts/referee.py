"""One game between two running engines: keeps both clocks, asks the side to
move for a move, ends the game by the rules, by adjudication or by forfeit
(time, illegal move, crash, stall), and writes the game as a PGN record.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Optional

import chess
import chess.engine
import chess.pgn

from adjudicate import AdjudicationRules, Ending, rules_ending, score_cp
from clock import Clock, TimeControl
from engines import CRASH, ILLEGAL, STALL, TIME, EnginePlayer, Thought


@dataclass(frozen=True)
class GameSettings:
    tc: Optional[TimeControl]
    nodes: Optional[int]
    depth: Optional[int]
    tolerance: float       # seconds an engine may overstep its clock
    move_timeout: float    # seconds per move when there is no clock (nodes/depth)
    rules: AdjudicationRules
    event: str = "Ferrum match"
    chess960: bool = False  # openings and castling as in Chess960 (king takes rook)

    def pgn_time_control(self) -> str:
        return self.tc.pgn() if self.tc else "-"


@dataclass
class GameRecord:
    ending: Ending
    failure: Optional[str]              # kind of forfeit, if any
    failed_color: Optional[chess.Color]  # who forfeited
    detail: str                          # the engine's fault in words
    pgn: chess.pgn.Game
    plies: int


_COLOR = {chess.WHITE: "White", chess.BLACK: "Black"}

_FORFEIT_WORDS = {
    TIME: ("loses on time", "time forfeit"),
    ILLEGAL: ("makes an illegal move", "rules infraction"),
    CRASH: ("disconnects", "abandoned"),
    STALL: ("'s connection stalls", "abandoned"),
}


def move_comment(info: dict, elapsed: float) -> str:
    """'+0.35/12 0.512s' (mover's view, as cutechess writes it); '+M3' for mates."""
    parts = []
    score = info.get("score")
    if score is not None:
        pov = score.relative
        if pov.is_mate():
            mate = pov.mate()
            text = f"+M{mate}" if mate > 0 else f"-M{-mate}"
        else:
            text = f"{pov.score() / 100:+.2f}"
        depth = info.get("depth")
        parts.append(f"{text}/{depth}" if depth is not None else text)
    parts.append(f"{elapsed:.3f}s")
    return " ".join(parts)


def forfeit_ending(board: chess.Board, color: chess.Color, kind: str) -> Ending:
    """A forfeit loses, except on time against a side that has no mating material."""
    words, termination = _FORFEIT_WORDS[kind]
    name = _COLOR[color]
    sep = "" if words.startswith("'") else " "
    reason = f"{name}{sep}{words}"
    if kind == TIME and board.has_insufficient_material(not color):
        return Ending("1/2-1/2", termination, f"Draw: {reason}, but {_COLOR[not color]} cannot mate")
    return Ending("0-1" if color == chess.WHITE else "1-0", termination, reason)


def _limit(settings: GameSettings, clocks: Optional[dict], turn: chess.Color) -> chess.engine.Limit:
    limit = chess.engine.Limit(nodes=settings.nodes, depth=settings.depth)
    if clocks is not None:
        limit.white_clock = max(0.0, clocks[chess.WHITE].remaining)
        limit.black_clock = max(0.0, clocks[chess.BLACK].remaining)
        limit.white_inc = limit.black_inc = settings.tc.inc
        limit.remaining_moves = clocks[turn].movestogo()
    return limit


async def play_game(white: EnginePlayer, black: EnginePlayer, fen: str, settings: GameSettings,
                    round_label: str, game_key: object) -> GameRecord:
    """Play from `fen` to the end; the engines must already be started."""
    start = chess.Board(fen, chess960=settings.chess960)
    board = start.copy()
    players = {chess.WHITE: white, chess.BLACK: black}
    clocks = {c: Clock(settings.tc) for c in (chess.WHITE, chess.BLACK)} if settings.tc else None
    scores: dict[chess.Color, list] = {chess.WHITE: [], chess.BLACK: []}
    moves: list[tuple[chess.Move, str]] = []
    failure = failed_color = None
    detail = ""

    ending = rules_ending(board)
    while ending is None:
        turn = board.turn
        budget = clocks[turn].budget(settings.tolerance) if clocks else settings.move_timeout
        thought: Thought = await players[turn].think(board, _limit(settings, clocks, turn), game_key, budget)
        if thought.failure is None and clocks and clocks[turn].spend(thought.elapsed, settings.tolerance):
            thought.failure, thought.detail = TIME, f"took {thought.elapsed:.3f} s"
        if thought.failure is not None:
            failure, failed_color, detail = thought.failure, turn, thought.detail
            ending = forfeit_ending(board, turn, thought.failure)
            break
        board.push(thought.move)
        moves.append((thought.move, move_comment(thought.info, thought.elapsed)))
        scores[turn].append(score_cp(thought.info.get("score")))
        ending = rules_ending(board) or settings.rules.check(scores[chess.WHITE], scores[chess.BLACK])

    game = _pgn(start, moves, ending, settings, round_label, white.spec.name, black.spec.name, detail)
    return GameRecord(ending, failure, failed_color, detail, game, len(moves))


def _pgn(start: chess.Board, moves: list, ending: Ending, settings: GameSettings, round_label: str,
         white: str, black: str, detail: str) -> chess.pgn.Game:
    game = chess.pgn.Game()
    game.setup(start)
    game.headers["Event"] = settings.event
    game.headers["Site"] = "?"
    game.headers["Date"] = datetime.date.today().strftime("%Y.%m.%d")
    game.headers["Round"] = round_label
    game.headers["White"] = white
    game.headers["Black"] = black
    game.headers["Result"] = ending.result
    game.headers["TimeControl"] = settings.pgn_time_control()
    game.headers["Termination"] = ending.termination
    game.headers["PlyCount"] = str(len(moves))
    node = game
    for move, comment in moves:
        node = node.add_variation(move, comment=comment)
    # Like cutechess, the reason goes after the last move's comment.
    reason = ending.reason + (f" ({detail})" if detail else "")
    node.comment = f"{node.comment}, {reason}" if node.comment else reason
    return game
