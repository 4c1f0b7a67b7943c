"""The offline *game24* skill: prompt formats, step slips and value accuracy as parametrised."""

from __future__ import annotations

import random
import re
from fractions import Fraction

import pytest

from course_utils.offline import competence
from course_utils.offline.skills import SkillContext, game24
from course_utils.problems import check24, game24_puzzles
from course_utils.problems.game24 import TARGET, reachable
from offline_sampling import new_client, samples, wilson

PROPOSE = ("Jeu de 24. Nombres restants : {}\nPropose les étapes suivantes possibles, une par "
           "ligne, au format `a + b = c (reste : …)`.")
VALUE = ("Jeu de 24. Nombres restants : {}\nPeut-on encore atteindre 24 ? Réponds par sûr, "
         "probable ou impossible.")
DIRECT = ("Jeu de 24 : utilise les nombres {}, chacun une fois, avec + - * / et des parenthèses "
          "pour obtenir 24. Réponds par une ligne `Réponse : <expression>`.")
COT = DIRECT + " Raisonne étape par étape avant de répondre."
PAPER_PROPOSE = ("Input: 2 8 8 14\nPossible next steps:\n2 + 8 = 10 (left: 8 10 14)\n"
                 "Input: {}\nPossible next steps:\n")
PAPER_VALUE = ("Evaluate if given numbers can reach 24 (sure/likely/impossible)\n10 14\n"
               "10 + 14 = 24\nsure\n1 3 3\n1 * 3 * 3 = 9\n(1 + 3) * 3 = 12\nimpossible\n{}\n")
PAPER_IO = ("Use numbers and basic arithmetic operations (+ - * /) to obtain 24.\nInput: 4 4 6 8\n"
            "Answer: (4 + 8) * (6 - 4) = 24\nInput: {}\n")
PAPER_COT = ("Use numbers and basic arithmetic operations (+ - * /) to obtain 24. Each step, you "
             "are only allowed to choose two of the remaining numbers to obtain a new number.\n"
             "Input: 4 4 6 8\nSteps:\n4 + 8 = 12 (left: 4 6 12)\n6 - 4 = 2 (left: 2 12)\n"
             "2 * 12 = 24 (left: 24)\nAnswer: (6 - 4) * (4 + 8) = 24\nInput: {}\n")
STEP = re.compile(r"^(\S+) ([+\-*/]) (\S+) = (\S+) \((?:reste :|left:) ([^)]*)\)$")
VERDICT = {"sûr": True, "probable": True, "impossible": False,
           "sure": True, "likely": True}


def _ask(text, **extra):
    request = {"model": "offline-fast", "messages": [{"role": "user", "content": text}], **extra}
    return game24.respond(request, SkillContext(seed=0, model="offline-fast"))


@pytest.mark.parametrize("template,pattern", [
    (PROPOSE, STEP), (PAPER_PROPOSE, STEP), (VALUE, r"(sûr|probable|impossible)$"),
    (PAPER_VALUE, r"(sure|likely|impossible)$"), (DIRECT, r"^Réponse : [\d()+\-*/ ]+$"),
    (COT, r"\nRéponse : "), (PAPER_IO, r"^Answer: .* = 24$"), (PAPER_COT, r"\(left: .*\nAnswer:"),
])
def test_recognises_course_and_paper_formats(template, pattern):
    answer = _ask(template.format("4 4 6 8" if "{}" in template else ""))
    assert answer is not None
    if pattern is STEP:
        assert STEP.match(answer.splitlines()[0]), answer
    else:
        assert re.search(pattern, answer, re.MULTILINE), answer


@pytest.mark.parametrize("text", [
    "Quel temps fait-il à Lyon ?",
    "Combien font 24 + 24 ?",
    "Écris une fonction Python `fizzbuzz(n)`. Réponds UNIQUEMENT avec le code Python.",
    "J'ai 24 ans et je cherche un jeu de société.",
])
def test_does_not_recognise_other_requests(text):
    assert _ask(text) is None


def test_not_taken_with_tools_and_recorded_as_game24():
    tools = [{"type": "function", "function": {"name": "calcul", "description": "Calcule",
                                               "parameters": {"type": "object", "properties": {
                                                   "expression": {"type": "string"}}}}}]
    assert _ask(PROPOSE.format("4 4 6 8"), tools=tools) is None
    model, client = new_client()
    samples(client, [{"role": "user", "content": VALUE.format("4 6 12")}], 1)
    assert model.calls[-1]["skill"] == "game24"


def _parse(line):
    match = STEP.match(line)
    assert match, line
    a, op, b, c = (Fraction(match.group(i)) if i != 2 else match.group(i) for i in (1, 2, 3, 4))
    exact = {"+": a + b, "-": a - b, "*": a * b, "/": a / b if b else None}[op]
    left = sorted(Fraction(x) for x in match.group(5).split())
    return a, b, c, exact, left


def _states(count, size, seed=0):
    rng = random.Random(seed)
    puzzles = game24_puzzles()
    out = []
    while len(out) < count:
        numbers = list(rng.choice(puzzles))
        while len(numbers) > size:  # random legal steps down to ``size`` numbers
            i, j = rng.sample(range(len(numbers)), 2)
            a, b = numbers[i], numbers[j]
            value = rng.choice([a + b, abs(a - b), a * b])
            numbers = [n for k, n in enumerate(numbers) if k not in (i, j)] + [value]
        out.append(sorted(numbers))
    return out


def test_propose_lines_parse_and_the_slip_share_matches_its_parameter():
    model = "offline-fast"
    comp = competence(model)
    _m, client = new_client(seed=1)
    lines = slips = 0
    for state in _states(60, 4) + _states(40, 3, seed=1):
        state_text = " ".join(str(n) for n in state)
        for text in samples(client, [{"role": "user", "content": PROPOSE.format(state_text)}], 1,
                            model=model):
            for line in text.splitlines():
                a, b, c, exact, left = _parse(line)
                rest = list(state)
                rest.remove(a)
                rest.remove(b)
                assert left == sorted(rest + [c])
                lines += 1
                slips += c != exact
        assert len(text.splitlines()) == min(comp.proposals, len(text.splitlines()))
    low, high = wilson(slips, lines)
    assert lines >= 400 and low <= comp.slip_rate <= high, (slips, lines)


def value_accuracy_table(model: str, per_count: int = 400, seed: int = 2) -> dict[int, float]:
    """Measured value accuracy by count of remaining numbers; prints the table (test helper)."""
    _m, client = new_client(seed=seed)
    table = {}
    for size in (1, 2, 3, 4):
        right = 0
        states = _states(per_count // 8, size, seed=seed + size)
        for state in states:
            truth = TARGET in reachable(state)
            for text in samples(client, [{"role": "user", "content": VALUE.format(
                    " ".join(map(str, state)))}], 8, model=model):
                right += VERDICT[text.splitlines()[-1]] == truth
        table[size] = right / (len(states) * 8)
    configured = competence(model).value_accuracy
    print(f"\nvalue accuracy ({model}), remaining → measured / configured")
    for size, measured in table.items():
        print(f"  {size}: {measured:.3f} / {configured[size - 1]:.3f}")
    return table


@pytest.mark.parametrize("model", ["offline-fast", "offline-big"])
def test_value_accuracy_by_remaining_numbers_matches_parameters(model):
    table = value_accuracy_table(model)
    for size, measured in table.items():  # 8 comparisons in all: 99 % intervals
        low, high = wilson(round(measured * 400), 400, z=2.576)
        assert low <= competence(model).value_accuracy_for(size) <= high, (size, measured)


def test_direct_answers_are_rarely_right_on_hard_puzzles():
    puzzles = game24_puzzles()
    _m, client = new_client(seed=3)

    def rate(chosen):
        right = 0
        for numbers in chosen:
            text = samples(client, [{"role": "user", "content": DIRECT.format(
                " ".join(map(str, numbers)))}], 1)[0]
            right += check24(numbers, text.split("Réponse :")[-1])
        return right / len(chosen)

    easy, hard = rate(puzzles[:60]), rate(puzzles[-60:])
    assert hard < 0.2 and easy > hard


def test_cot_after_paper_steps_continues_from_them():
    text = _ask(PAPER_COT.format("4 4 6 8") + "Steps:\n4 + 8 = 12 (left: 4 6 12)\n"
                "6 - 4 = 2 (left: 2 12)\n2 * 12 = 24 (left: 24)\n")
    assert check24([4, 4, 6, 8], text.split("Answer:")[-1])
