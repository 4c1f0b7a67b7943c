"""Statistics for sampled experiments: pass@k and a 95 % interval for a proportion.

``pass_at_k(n, c, k)`` is the unbiased estimator of Chen et al. 2021 (*Evaluating Large Language
Models Trained on Code*, the HumanEval paper): out of ``n`` samples of which ``c`` are correct,
the probability that at least one of ``k`` samples drawn without replacement is correct,
``1 - C(n-c, k) / C(n, k)``, computed as a product so it stays exact for large ``n``.
Plugging the sample rate into ``1 - (1 - c/n)**k`` instead is biased (it underestimates pass@k
for k > 1, since it draws with replacement).

``wilson_interval(successes, trials)`` is the Wilson score interval (95 % by default): unlike
``p ± 1.96·sqrt(p(1-p)/n)`` it stays inside [0, 1] and is not empty at 0 or n successes.
"""

from __future__ import annotations

import math


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k from ``n`` samples with ``c`` correct (Chen et al. 2021)."""
    if not (0 <= c <= n) or k < 1:
        raise ValueError(f"il faut 0 ≤ c ≤ n et k ≥ 1 (reçu n={n}, c={c}, k={k})")
    if k > n:
        raise ValueError(f"pass@{k} demande au moins k = {k} échantillons (n = {n})")
    if n - c < k:
        return 1.0
    # 1 - prod_{i = n-c+1}^{n} (1 - k / i)
    return 1.0 - math.prod(1.0 - k / i for i in range(n - c + 1, n + 1))


def wilson_interval(successes: int, trials: int, *, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of a proportion (95 % for ``z = 1.96``); (0, 1) with no trial."""
    if trials <= 0:
        return 0.0, 1.0
    if not 0 <= successes <= trials:
        raise ValueError(f"il faut 0 ≤ succès ≤ essais (reçu {successes}/{trials})")
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    low = 0.0 if successes == 0 else max(0.0, min(p, centre - half))
    high = 1.0 if successes == trials else min(1.0, max(p, centre + half))  # p always inside
    return low, high


def mean_interval(values: list[float], *, z: float = 1.96) -> tuple[float, float, float]:
    """(mean, low, high) with a normal-approximation interval, for averaged scores."""
    if not values:
        return 0.0, 0.0, 0.0
    mean = sum(values) / len(values)
    if len(values) == 1:
        return mean, mean, mean
    var = sum((v - mean) ** 2 for v in values) / (len(values) - 1)
    half = z * math.sqrt(var / len(values))
    return mean, mean - half, mean + half
