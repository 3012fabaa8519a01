"""Match statistics as pure functions: Elo from a score, 95% error bars
(trinomial per game, pentanomial per game pair), likelihood of superiority,
and the sequential probability ratio test (LLR and its bounds).

Model: logistic Elo throughout (score = 1 / (1 + 10^(-elo/400))), the
`model=logistic` of fastchess and the classic fishtest/cutechess scale; not
normalized Elo. The SPRT is the generalized SPRT with the normal
approximation used by fishtest and OpenBench: with N independent samples
(game pairs, or games for the trinomial case) of empirical mean mu and
variance var, and s0/s1 the scores expected under elo0/elo1,

    LLR = N * (s1 - s0) * (2*mu - s0 - s1) / (2*var)

which is N * ((mu - s0)^2 - (mu - s1)^2) / (2*var), i.e. the log ratio of two
normal likelihoods centred on s1 and s0 with the observed variance.
`llr_pentanomial_mle` gives the exact multinomial GSPRT for comparison.
"""

from __future__ import annotations

import math
from typing import Optional, Sequence

# Two-sided 95% quantile of the standard normal distribution.
Z95 = 1.959963984540054

# Score of each pentanomial bucket [LL, LD, DD/WL, WD, WW] for the first engine.
PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)

# Game scores for the trinomial buckets [L, D, W].
GAME_SCORES = (0.0, 0.5, 1.0)

# An empty bucket would make the variance collapse (e.g. 10 pairs all DD ->
# var 0 -> infinite LLR); fishtest and fastchess replace zero counts by this.
REGULARIZE = 1e-3


def elo_to_score(elo: float) -> float:
    """Expected score for a logistic Elo difference."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def score_to_elo(score: float) -> float:
    """Logistic Elo difference for an expected score; +-inf at 1 and 0."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def _mean_var(counts: Sequence[float], values: Sequence[float]) -> tuple[float, float, float]:
    """(n, mean, variance) of a histogram; variance is the population one."""
    n = float(sum(counts))
    if n <= 0:
        return 0.0, 0.5, 0.0
    mean = sum(c * v for c, v in zip(counts, values)) / n
    var = sum(c * (v - mean) ** 2 for c, v in zip(counts, values)) / n
    return n, mean, var


def _elo_interval(mean: float, var: float, n: float) -> tuple[float, float]:
    """Elo of the mean and half the width of its 95% interval on the Elo scale."""
    if n <= 0:
        return 0.0, math.inf
    dev = Z95 * math.sqrt(var / n)
    lo, hi = score_to_elo(mean - dev), score_to_elo(mean + dev)
    return score_to_elo(mean), (hi - lo) / 2.0


def _los(mean: float, var: float, n: float) -> float:
    """Likelihood of superiority: P(true score > 0.5) under the normal model."""
    if n <= 0:
        return 0.5
    if var <= 0:
        return 1.0 if mean > 0.5 else 0.0 if mean < 0.5 else 0.5
    return 0.5 * (1.0 + math.erf((mean - 0.5) / math.sqrt(2.0 * var / n)))


def trinomial_stats(wins: int, draws: int, losses: int) -> dict:
    """Score, Elo, 95% error and LOS from per-game results (games assumed independent)."""
    n, mean, var = _mean_var((losses, draws, wins), GAME_SCORES)
    elo, err = _elo_interval(mean, var, n)
    return {"n": n, "score": mean, "variance": var, "elo": elo, "error": err,
            "los": _los(mean, var, n)}


def pentanomial_stats(penta: Sequence[int]) -> dict:
    """Score, Elo, 95% error and LOS from game-pair counts [LL, LD, DD/WL, WD, WW].

    Pairs (same opening, colours swapped) are the independent samples, which
    removes the opening bias that a per-game model counts as noise.
    """
    _check_penta(penta)
    n, mean, var = _mean_var(penta, PAIR_SCORES)
    elo, err = _elo_interval(mean, var, n)
    return {"n": n, "score": mean, "variance": var, "elo": elo, "error": err,
            "los": _los(mean, var, n)}


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """(lower, upper) LLR bounds: accept H0 at or below lower, H1 at or above upper."""
    if not (0.0 < alpha < 1.0 and 0.0 < beta < 1.0):
        raise ValueError(f"alpha and beta must be in (0, 1), got {alpha}, {beta}")
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def _llr_normal(counts: Sequence[float], values: Sequence[float], elo0: float, elo1: float) -> float:
    raw_n = float(sum(counts))
    if raw_n <= 0:
        return 0.0
    regularized = [c if c > 0 else REGULARIZE for c in counts]
    _, mean, var = _mean_var(regularized, values)
    s0, s1 = elo_to_score(elo0), elo_to_score(elo1)
    return raw_n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)


def llr_pentanomial(penta: Sequence[int], elo0: float, elo1: float) -> float:
    """GSPRT log-likelihood ratio of H1 (elo1) over H0 (elo0) from pair counts."""
    _check_penta(penta)
    return _llr_normal(penta, PAIR_SCORES, elo0, elo1)


def llr_trinomial(wins: int, draws: int, losses: int, elo0: float, elo1: float) -> float:
    """Same test on single games; used when no complete pair exists (odd game count)."""
    return _llr_normal((losses, draws, wins), GAME_SCORES, elo0, elo1)


def _mle_with_mean(pdf: Sequence[float], values: Sequence[float], s: float) -> list[float]:
    """The distribution closest to `pdf` (max likelihood) whose mean is `s`.

    Lagrange multipliers give q_i = p_i / (1 + lam * (v_i - s)); lam is the root
    of sum p_i (v_i - s) / (1 + lam (v_i - s)) = 0, which is decreasing in lam,
    so bisection inside the range that keeps every q_i positive finds it.
    """
    lo = max((-1.0 / (v - s) for v in values if v > s), default=-1e9)
    hi = min((-1.0 / (v - s) for v in values if v < s), default=1e9)
    lo, hi = lo + 1e-12 * abs(lo) + 1e-15, hi - 1e-12 * abs(hi) - 1e-15

    def g(lam: float) -> float:
        return sum(p * (v - s) / (1.0 + lam * (v - s)) for p, v in zip(pdf, values))

    for _ in range(200):
        mid = (lo + hi) / 2.0
        if g(mid) > 0:
            lo = mid
        else:
            hi = mid
    lam = (lo + hi) / 2.0
    return [p / (1.0 + lam * (v - s)) for p, v in zip(pdf, values)]


def llr_pentanomial_mle(penta: Sequence[int], elo0: float, elo1: float) -> float:
    """Exact GSPRT LLR: sum n_i log(q1_i / q0_i) with q_k the constrained MLEs."""
    _check_penta(penta)
    n = float(sum(penta))
    if n <= 0:
        return 0.0
    regularized = [c if c > 0 else REGULARIZE for c in penta]
    total = sum(regularized)
    pdf = [c / total for c in regularized]
    q0 = _mle_with_mean(pdf, PAIR_SCORES, elo_to_score(elo0))
    q1 = _mle_with_mean(pdf, PAIR_SCORES, elo_to_score(elo1))
    return n * sum(p * math.log(b / a) for p, a, b in zip(pdf, q0, q1))


def sprt_decision(llr: float, lower: float, upper: float) -> Optional[str]:
    """'H1' (elo1 accepted), 'H0' (elo0 accepted) or None to keep playing."""
    if llr >= upper:
        return "H1"
    if llr <= lower:
        return "H0"
    return None


def format_elo(elo: float, error: float) -> str:
    """Elo with its error bar, tolerating infinite values at 0% or 100%."""
    def one(x: float) -> str:
        # Adding 0.0 turns -0.0 into 0.0 so an even score prints as +0.00.
        return f"{x + 0.0:+.2f}" if math.isfinite(x) else ("+inf" if x > 0 else "-inf")
    err = f"{error:.2f}" if math.isfinite(error) else "inf"
    return f"{one(elo)} +/- {err}"


def _check_penta(penta: Sequence[int]) -> None:
    if len(penta) != 5 or any(c < 0 for c in penta):
        raise ValueError(f"pentanomial counts must be 5 non-negative numbers, got {list(penta)}")
