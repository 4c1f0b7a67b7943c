"""The offline *arithmetic* skill: word problems, arithmetic questions, and why voting helps
on most problems but hurts on the designed systematic-mistake ones."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from course_utils.offline import competence
from course_utils.offline.skills import SkillContext, arithmetic
from course_utils.problems import systematic_mistake, typical_mistakes, word_problems
from offline_sampling import new_client, samples, wilson

SUFFIX = "\nRaisonne brièvement, puis termine par une ligne `Réponse : N`."
ANSWER = re.compile(r"\nRéponse : (-?[\d,]+)$")


def _number(text):
    match = ANSWER.search(text)
    assert match, text
    raw = match.group(1).replace(",", ".")
    value = float(raw)
    return int(value) if value.is_integer() else value


def _ask(text, **extra):
    request = {"model": "offline-fast", "messages": [{"role": "user", "content": text}], **extra}
    return arithmetic.respond(request, SkillContext(seed=0, model="offline-fast"))


@pytest.mark.parametrize("text", [
    word_problems()[0].question + SUFFIX,
    "Voici un exercice. " + word_problems()[10].question + " Donne le résultat.",
    "Combien font 17 × 23 ?",
    "Calcule (10 - 3) * 2 + 5.",
    "Que vaut 3 fois 4 plus 2 ?",
    "Un fermier compte ses vaches." + SUFFIX,
])
def test_recognises_word_problems_and_arithmetic_questions(text):
    answer = _ask(text)
    assert answer is not None and answer.splitlines()[-1].startswith("Réponse : ")


@pytest.mark.parametrize("text", [
    "Quel temps fait-il à Lyon ?",
    "Réponds uniquement par : OK",
    "Bonjour !",
    "Jeu de 24 : utilise les nombres 4 4 6 8 pour obtenir 24. Réponds par une ligne "
    "`Réponse : <expression>`.",
    "Écris une fonction Python `carre(x)`. Réponds UNIQUEMENT avec le code Python dans un bloc "
    "```python```.",
    "J'ai 3 chats et 2 chiens.",
])
def test_does_not_recognise_other_requests(text):
    assert _ask(text) is None


def test_with_tools_the_tool_use_skill_answers_not_arithmetic():
    tools = [{"type": "function", "function": {
        "name": "calculer", "description": "Calcule une expression arithmétique",
        "parameters": {"type": "object", "properties": {"expression": {"type": "string"}},
                       "required": ["expression"]}}}]
    assert _ask("Combien font 17 × 23 ?", tools=tools) is None
    model, client = new_client()
    client.chat.completions.create(model="offline-fast", tools=tools, messages=[
        {"role": "user", "content": "Combien font 17 × 23 ?"}])
    assert model.calls[-1]["skill"] == "tool_use"
    samples(client, [{"role": "user", "content": "Combien font 17 × 23 ?"}], 1)
    assert model.calls[-1]["skill"] == "arithmetic"


def test_unknown_word_problem_gets_an_honest_answer():
    assert _ask("Un fermier compte ses vaches." + SUFFIX).endswith("Réponse : inconnue")


def test_wrong_answers_are_typical_mistakes_and_success_matches_p():
    problem = next(p for p in word_problems() if p.steps == 5)
    _m, client = new_client(seed=1)
    answers = [_number(t) for t in samples(client, [{"role": "user", "content":
                                                     problem.question + SUFFIX}], 200)]
    p = competence("offline-fast").step_accuracy ** problem.steps
    low, high = wilson(sum(a == problem.answer for a in answers), 200)
    assert low <= p <= high
    assert {a for a in answers if a != problem.answer} <= set(typical_mistakes(problem).values())


def _vote(client, problem, model):
    answers = [_number(t) for t in samples(client, [{"role": "user", "content":
                                                     problem.question + SUFFIX}], 9,
                                           model=model)]
    single = sum(a == problem.answer for a in answers) / len(answers)
    majority = Counter(answers).most_common(1)[0][0] == problem.answer
    return single, majority


@pytest.mark.parametrize("model", ["offline-fast", "offline-big"])
def test_majority_of_nine_beats_one_sample_overall_and_loses_on_systematic_mistakes(model):
    _m, client = new_client(seed=2)
    ordinary, traps = [], []
    for problem in word_problems():
        (traps if systematic_mistake(problem) else ordinary).append(_vote(client, problem, model))
    everything = ordinary + traps
    single_all = sum(s for s, _ in everything) / len(everything)
    vote_all = sum(m for _, m in everything) / len(everything)
    single_traps = sum(s for s, _ in traps) / len(traps)
    vote_traps = sum(m for _, m in traps) / len(traps)
    print(f"\n{model}: one sample {single_all:.2f} → majority of 9 {vote_all:.2f} overall; "
          f"systematic-mistake problems {single_traps:.2f} → {vote_traps:.2f}")
    assert vote_all > single_all
    assert vote_traps < single_traps


def test_expression_mistakes_are_typical():
    _m, client = new_client(seed=3)
    answers = Counter(_number(t) for t in samples(client, [{"role": "user", "content":
                                                            "Combien font 2 + 3 * 4 ?"}], 200))
    assert answers.most_common(1)[0][0] == 14
    assert set(answers) <= {14, 20, 15, 13}  # 20: left to right; ±1: a slip
    low, high = wilson(answers[14], 200)
    assert low <= competence("offline-fast").expression_accuracy <= high
