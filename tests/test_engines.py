"""Engines, unit level: scripted and function-driven offline models, no problem bank needed.

Each test drives the real ``openai`` SDK against the offline model, with ``skills=[...]`` (a
function that may vary with the sample index) or a strict script, so what is checked is the
engine's mechanism: how many requests, what it sends back to the model, how it selects.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from dataclasses import dataclass
from fractions import Fraction

import pytest

from course_utils.engines import (
    EngineResult,
    best_of_n,
    bfs,
    majority_vote,
    one_shot,
    pass_at_k,
    reflexion,
    route,
    self_consistency,
    sweep,
    tree_of_thoughts,
    wilson_interval,
)
from course_utils.engines.extract import (
    extract_answer,
    extract_code,
    extract_expression,
    parse_steps,
    parse_value,
)
from course_utils.engines.prompts import REFLECTION
from course_utils.engines.sampling import sample
from course_utils.llm import make_client
from course_utils.offline import OfflineModel
from course_utils.problems import CodeProblem, WordProblem
from course_utils.usage import session_ledger


def Problem(id, function, spec, tests, difficulty=0.5):  # noqa: N802 (reads like the class)
    return CodeProblem(id=id, function=function, spec=spec, tests=tuple(tests), family="test",
                       pitfall="multiplier, pas ajouter", difficulty=difficulty)


def Word(id, question, answer):  # noqa: N802
    return WordProblem(id=id, question=question, answer=answer, steps=1, family="test")


DOUBLE = Problem("double", "double", "Renvoie le double de x.",
                 ("double(1) == 2", "double(3) == 6", "double(-2) == -4"))
RIGHT = "```python\ndef double(x):\n    return 2 * x\n```"
WRONG = "```python\ndef double(x):\n    return x + 2\n```"  # passes double(2) only: 0/3 here
PARTIAL = "```python\ndef double(x):\n    return abs(2 * x)\n```"  # 2/3


def last_user(request: dict) -> str:
    return [m for m in request["messages"] if m["role"] == "user"][-1]["content"]


def model_with(skill) -> tuple[OfflineModel, object]:
    """An offline model answered by ``skill(request, ctx)``, and a client on it."""
    model = OfflineModel(seed=0, skills=[skill])
    return model, make_client(offline=model)


class CountingSandbox:
    def __init__(self):
        self.runs = []

    def run(self, code, tests):
        from course_utils.sandbox import run_tests

        self.runs.append(code)
        return run_tests(code, tests)


# ----------------------------------------------------------------------------- statistics


def test_pass_at_k_is_the_unbiased_estimator():
    for n, c, k in itertools.product(range(1, 9), range(0, 9), range(1, 9)):
        if c > n or k > n:
            continue
        exact = 1 - math.comb(n - c, k) / math.comb(n, k)
        assert pass_at_k(n, c, k) == pytest.approx(exact)
    assert pass_at_k(10, 1, 1) == pytest.approx(0.1)
    assert pass_at_k(10, 0, 5) == 0.0
    assert pass_at_k(10, 6, 5) == 1.0
    # the plug-in estimate 1-(1-c/n)^k draws with replacement: it underestimates for k > 1
    assert pass_at_k(10, 3, 4) > 1 - (1 - 0.3) ** 4
    with pytest.raises(ValueError):
        pass_at_k(3, 1, 4)


def test_wilson_interval():
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and 0.25 < hi < 0.31
    lo, hi = wilson_interval(5, 10)
    assert lo == pytest.approx(1 - hi) and lo < 0.5 < hi
    lo, hi = wilson_interval(10, 10)
    assert hi == 1.0 and 0.69 < lo < 0.75
    assert wilson_interval(0, 0) == (0.0, 1.0)


# ----------------------------------------------------------------------------- extraction


def test_extraction_readers_never_raise():
    text = "Voici :\n```python\nimport math\n```\n```python\ndef f(x):\n    return x\n```"
    assert extract_code(text, "f").startswith("def f(x)")
    assert extract_code("```python\ndef g():\n    pass\n", "g").startswith("def g")  # unclosed
    assert extract_code("def h():\n    return 1") == "def h():\n    return 1\n"
    assert extract_code("Je ne sais pas.") is None and extract_code(None) is None
    assert extract_answer("3 + 4 = 7\nRéponse : 7") == 7
    assert extract_answer("**Réponse :** 1 234,5 €") == 1234.5
    assert extract_answer("rien") is None
    assert extract_expression("Réponse : (4 + 8) × (6 - 4) = 24") == "(4 + 8) * (6 - 4)"
    assert extract_expression("Réponse : impossible") is None
    assert parse_steps("4 + 8 = 12 (reste : 4 6 12)\nblabla\n6 / 4 = 1.5 (left: 1.5 4 8)") == [
        (4, "+", 8, 12), (6, "/", 4, Fraction(3, 2))]
    assert parse_value("4 * 6 = 24\nsûr") == "sûr"
    assert parse_value("trop petit\nImpossible.") == "impossible"
    assert parse_value("likely") == "probable" and parse_value("???") is None


# ----------------------------------------------------------------------------- sampling


def test_n_samples_come_from_one_request_with_usage_from_the_response():
    model, client = model_with(lambda request, ctx: f"échantillon {ctx.sample_index}")
    before = session_ledger().total
    out = sample([{"role": "user", "content": "Bonjour"}], 5, client=client,
                 model="offline-fast", temperature=0.8)
    spent = session_ledger().total
    assert out.texts == tuple(f"échantillon {i}" for i in range(5))
    assert len(model.chat_requests) == 1 and model.chat_requests[0]["n"] == 5
    assert out.requests == 1 and out.usage.calls == 1
    assert out.usage.total_tokens == spent.total_tokens - before.total_tokens > 0


class IgnoresN:
    """A client for a backend that ignores ``n`` (Ollama, many OpenRouter models)."""

    def __init__(self, client):
        self._client, self.base_url = client, client.base_url
        self.chat = self
        self.completions = self

    def create(self, **request):
        request.pop("n", None)
        return self._client.chat.completions.create(**request)


def test_a_backend_ignoring_n_gets_one_request_per_missing_sample():
    model, client = model_with(lambda request, ctx: f"échantillon {ctx.sample_index}")
    out = sample([{"role": "user", "content": "Bonjour"}], 6, client=IgnoresN(client),
                 model="offline-fast", temperature=0.8, max_workers=3)
    assert out.requests == 6 and len(model.chat_requests) == 6
    assert sorted(out.texts) == sorted(f"échantillon {i}" for i in range(6))
    assert out.usage.calls == 6


# ----------------------------------------------------------------------------- Best-of-N


def test_best_of_n_keeps_the_sample_passing_most_tests():
    answers = [WRONG, "Je ne sais pas.", PARTIAL, RIGHT, RIGHT, ""]
    model, client = model_with(lambda request, ctx: answers[ctx.sample_index % len(answers)])
    sandbox = CountingSandbox()
    result = best_of_n(DOUBLE, n=6, client=client, temperature=0.8, sandbox=sandbox)
    assert result.solved and result.passed == result.total == 3
    assert result.answer.startswith("def double(x):\n    return 2 * x")
    assert result.calls == 1 and result.usage.calls == 1 and result.usage.total_tokens > 0
    assert [e.ok for e in result.trace] == [False, False, False, True, True, False]
    assert "pas de bloc de code" in result.trace[1].note and "vide" in result.trace[5].note
    assert "identique à l'échantillon 3" in result.trace[4].note
    assert len(sandbox.runs) == 3  # identical code and code-less answers are not run
    assert isinstance(json.loads(result.to_json())["usage"]["total_tokens"], int)


def test_best_of_n_ties_go_to_the_first_sample_and_partial_scores_count():
    answers = [WRONG, PARTIAL, "```python\ndef double(x):\n    return 2 * abs(x)\n```"]
    model, client = model_with(lambda request, ctx: answers[ctx.sample_index % 3])
    result = best_of_n(DOUBLE, n=3, client=client)
    assert not result.solved and result.passed == 2 and "abs(2 * x)" in result.answer


def test_one_shot_at_temperature_zero_is_one_sample():
    model, client = model_with(lambda request, ctx: RIGHT)
    result = one_shot(DOUBLE, client=client)
    assert result.engine == "one_shot" and result.solved and result.calls == 1
    assert "temperature" in model.chat_requests[0] and model.chat_requests[0]["temperature"] == 0


def test_best_of_n_never_raises_on_a_refused_or_broken_sample():
    answers = ["```python\nimport os\ndef double(x):\n    return 2 * x\n```",
               "```python\ndef double(x) return\n```"]
    model, client = model_with(lambda request, ctx: answers[ctx.sample_index % 2])
    result = best_of_n(DOUBLE, n=2, client=client)
    assert not result.solved and result.passed == 0
    assert "non autorisé" in result.trace[0].note and "syntaxe" in result.trace[1].note


def test_the_code_prompt_follows_the_contract():
    model, client = model_with(lambda request, ctx: RIGHT)
    one_shot(DOUBLE, client=client)
    prompt = last_user(model.chat_requests[0])
    assert prompt.startswith("Écris une fonction Python `double`")
    assert "Renvoie le double de x." in prompt
    assert prompt.endswith("Réponds UNIQUEMENT avec le code Python dans un bloc ```python```.")
    assert "== 6" not in prompt  # tests are never shown in a first attempt


# ----------------------------------------------------------------------------- self-consistency


def test_majority_vote_ignores_abstentions_and_breaks_ties_by_first_seen():
    assert majority_vote([3, None, 5, 5, 3, None]) == (3, {3: 2, 5: 2})
    assert majority_vote([None, None]) == (None, {})
    assert majority_vote([7, 8, 8]) == (8, {7: 1, 8: 2})


def test_self_consistency_votes_on_word_problems_without_a_verifier():
    votes = [12, 7, 12, None, 9, 12, 7]
    model, client = model_with(lambda request, ctx: (
        "Je ne sais pas." if votes[ctx.sample_index] is None
        else f"Calcul rapide.\nRéponse : {votes[ctx.sample_index]}"))
    problem = Word("w1", "Combien font 3 × 4 ?", 12)
    result = self_consistency(problem, n=7, client=client)
    assert result.solved and result.answer == 12 and result.calls == 1
    assert {e.text: e.score for e in result.trace} == {"12": 3, "7": 2, "9": 1,
                                                       "abstention (pas de réponse lisible)": 1}
    assert last_user(model.chat_requests[0]).endswith("termine par une ligne `Réponse : N`.")
    wrong = Word("w2", "Combien font 3 × 4 ?", 7)  # the majority is wrong: voting cannot know
    model, client = model_with(lambda request, ctx: f"Réponse : {votes[ctx.sample_index] or 12}")
    assert not self_consistency(wrong, n=7, client=client).solved


def test_self_consistency_on_code_groups_programs_by_their_outputs():
    same_as_right = "```python\ndef double(x):\n    return x * 2\n```"
    answers = [WRONG, RIGHT, WRONG, same_as_right, PARTIAL, RIGHT, "rien"]
    model, client = model_with(lambda request, ctx: answers[ctx.sample_index])
    sandbox = CountingSandbox()
    result = self_consistency(DOUBLE, n=7, client=client, sandbox=sandbox)
    # RIGHT ×2 and its equivalent (x * 2) agree on every input: 3 votes against WRONG's 2
    assert result.solved and "2 * x" in result.answer
    assert sorted(e.score for e in result.trace) == [1, 1, 2, 3]
    assert len(sandbox.runs) == 4  # 4 distinct programs, probes and tests in one run each


def test_self_consistency_probes_never_carry_expected_values():
    seen = []

    class Spy(CountingSandbox):
        def run(self, code, tests):
            seen.append(tests)
            return super().run(code, tests)

    model, client = model_with(lambda request, ctx: RIGHT)
    self_consistency(DOUBLE, n=3, client=client, sandbox=Spy())
    probes = seen[0][:3]
    assert probes == ["[double(1)] == []", "[double(3)] == []", "[double(-2)] == []"]
    assert seen[0][3:] == list(DOUBLE.tests)  # graded in the same run, read apart from the vote


# ----------------------------------------------------------------------------- Reflexion


def test_reflexion_repairs_from_failing_tests_and_its_own_reflection():
    model = OfflineModel(seed=0).script([
        WRONG,
        "J'ai ajouté 2 au lieu de multiplier par 2 : doubler, c'est multiplier.",
        RIGHT,
    ])
    sandbox = CountingSandbox()
    result = reflexion(DOUBLE, iterations=3, client=make_client(offline=model), sandbox=sandbox)
    model.assert_complete()
    assert result.solved and result.calls == 3 and len(sandbox.runs) == 2  # once per attempt
    reflection_request, repair_request = model.chat_requests[1:]
    assert reflection_request["messages"][1] == {"role": "assistant", "content": WRONG}
    assert last_user(reflection_request).endswith(REFLECTION)
    assert "`double(1) == 2` → obtenu 3, attendu 2" in last_user(reflection_request)
    repair = last_user(repair_request)
    assert repair.startswith("Ton code échoue sur ces tests :\n- `double(1) == 2` → obtenu 3")
    assert "Ta réflexion : J'ai ajouté 2" in repair
    assert repair.endswith("Corrige la fonction. Réponds UNIQUEMENT avec le code Python dans un "
                           "bloc ```python```.")
    assert repair_request["messages"][-2] == {"role": "assistant", "content": WRONG}
    assert [e.kind for e in result.trace] == ["attempt", "reflection", "attempt"]
    assert result.usage.calls == 3


def test_reflexion_stops_after_its_iterations_and_keeps_the_best_attempt():
    model = OfflineModel(seed=0).script([PARTIAL, "Raté.", "", "Réponse vide.", WRONG])
    sandbox = CountingSandbox()
    result = reflexion(DOUBLE, iterations=3, client=make_client(offline=model), sandbox=sandbox)
    model.assert_complete()
    assert not result.solved and result.passed == 2 and "abs" in result.answer
    assert len(sandbox.runs) == 2  # the empty answer has no code to run
    assert "réponse vide" in result.trace[2].note
    assert "Erreur : réponse vide" in last_user(model.chat_requests[3])


def test_reflexion_without_reflection_is_plain_repair():
    model = OfflineModel(seed=0).script([WRONG, RIGHT])
    result = reflexion(DOUBLE, iterations=2, reflect=False, client=make_client(offline=model))
    model.assert_complete()
    assert result.solved and result.calls == 2
    assert "Ta réflexion" not in last_user(model.chat_requests[1])


@dataclass(frozen=True)
class Hit:
    score: float
    id: str
    text: str
    lesson: str
    domain: str | None = None


class FakeMemory:
    def __init__(self, lessons=()):
        self.lessons, self.added, self.queries = list(lessons), [], []

    def search(self, query, k=3, *, threshold=0.0, domain=None):
        self.queries.append((query, k))
        return [Hit(1.0, str(i), "t", lesson) for i, lesson in enumerate(self.lessons[:k])]

    def add(self, text, lesson, *, domain=None, metadata=None):
        self.added.append((text, lesson, domain))


def test_reflexion_retrieves_lessons_before_the_first_attempt_and_stores_one_after():
    memory = FakeMemory(["Doubler, c'est multiplier par 2, pas ajouter 2."])
    model = OfflineModel(seed=0).script([WRONG, "Il fallait multiplier par deux.", RIGHT])
    result = reflexion(DOUBLE, iterations=3, memory=memory, client=make_client(offline=model))
    first = last_user(model.chat_requests[0])
    assert first.startswith("Leçons retenues :\n- Doubler, c'est multiplier par 2, pas ajouter 2."
                            "\n\nÉcris une fonction Python `double`")
    assert memory.queries and "double" in memory.queries[0][0]
    assert len(memory.added) == 1
    text, lesson, domain = memory.added[0]
    assert "double(1) == 2" in lesson and "Il fallait multiplier par deux." in lesson
    assert domain == "code" and "double" in text
    assert result.trace[0].kind == "lessons" and result.trace[-1].note == "leçon enregistrée"


def test_reflexion_stores_nothing_when_the_first_attempt_passes():
    memory = FakeMemory()
    model = OfflineModel(seed=0).script([RIGHT])
    result = reflexion(DOUBLE, memory=memory, client=make_client(offline=model))
    assert result.solved and memory.added == []
    assert "Leçons retenues" not in last_user(model.chat_requests[0])


# ----------------------------------------------------------------------------- tree search


def test_bfs_keeps_the_beam_best_states_per_level():
    # from 0 with +1 / +3 / ×2, value = closeness to 10
    grow = lambda s: [s + 1, s + 3, s * 2]  # noqa: E731
    close = lambda s: -abs(10 - s)  # noqa: E731
    result = bfs(0, grow, close, beam=2, depth=3)
    assert [len(level) for level in result.levels] == [1, 2, 2, 2]
    assert result.proposed == 1 + 2 + 2 and result.valued == 3 + 6 + 6
    assert [s for s, _ in result.levels[1]] == [3, 1]  # 0 * 2 = 0 is the worst
    assert result.best == 9
    wide = bfs(0, grow, close, beam=9, depth=3, dedupe=lambda s: s)
    values = [v for _, v in wide.frontier]
    assert values == sorted(values, reverse=True) and len(set(s for s, _ in wide.frontier)) == 9
    assert bfs(0, grow, close, beam=3, depth=0).frontier == ((0, 0.0),)


def test_bfs_dedupes_equivalent_states():
    result = bfs(0, lambda s: [s + 1, 1 + s], lambda s: s, beam=5, depth=1, dedupe=lambda s: s)
    assert result.valued == 1


def _toy24(request, ctx):
    """A tiny Game-of-24 player: proposes every a op b on the numbers left; values by search."""
    prompt = last_user(request)
    numbers = [Fraction(x) for x in re.search(r"Nombres restants : ([^\n]+)", prompt).group(1).split()]

    def reachable(nums):
        if len(nums) == 1:
            return nums[0] == 24
        for i, j in itertools.permutations(range(len(nums)), 2):
            rest = [n for k, n in enumerate(nums) if k not in (i, j)]
            for value in _results(nums[i], nums[j]):
                if reachable(rest + [value]):
                    return True
        return False

    if "Propose" in prompt:
        lines = []
        for i, j in itertools.combinations(range(len(numbers)), 2):
            rest = [n for k, n in enumerate(numbers) if k not in (i, j)]
            for op, value in zip("+*-/", _results(numbers[i], numbers[j])):
                left = " ".join(str(n) for n in rest + [value])
                lines.append(f"{numbers[i]} {op} {numbers[j]} = {value} (reste : {left})")
        return "\n".join(lines)
    return "je cherche\n" + ("sûr" if reachable(numbers) else "impossible")


def _results(a, b):
    out = [a + b, a * b, a - b]
    if b:
        out.append(a / b)
    return out


def test_tree_of_thoughts_makes_propose_and_value_calls_and_its_answer_reaches_24():
    model, client = model_with(_toy24)
    result = tree_of_thoughts((4, 4, 6, 8), beam=2, client=client)
    prompts = [last_user(r) for r in model.chat_requests]
    proposes = [p for p in prompts if "Propose les étapes" in p]
    values = [p for p in prompts if "Peut-on encore atteindre 24" in p]
    assert proposes and values and len(proposes) + len(values) == result.calls
    assert all(r.get("n") == 3 for r in model.chat_requests if "Peut-on" in last_user(r))
    assert result.solved and result.passed >= 1 and result.total <= 2
    assert eval(result.answer) == 24  # noqa: S307 (an expression of digits and + - * /)
    assert sorted(int(x) for x in re.findall(r"\d+", result.answer)) == [4, 4, 6, 8]
    assert result.usage.calls == result.calls and result.usage.total_tokens > 0


def test_tree_of_thoughts_survives_unreadable_proposals():
    model, client = model_with(lambda request, ctx: "Je ne sais pas.")
    result = tree_of_thoughts((1, 1, 1, 1), beam=5, client=client)
    assert not result.solved and result.answer is None and result.total == 0
    assert result.calls == 1  # one propose call gave nothing: the search stops


# ----------------------------------------------------------------------------- router, sweep


def test_route_follows_its_rules():
    model, client = model_with(lambda request, ctx: RIGHT)
    easy = route(Problem("e", "double", "Renvoie le double de x.", DOUBLE.tests, 0.1),
                 client=client)
    assert easy.engine == "route→one_shot" and easy.solved and easy.calls == 1
    medium = route(Problem("m", "double", "x", DOUBLE.tests, 0.5), client=client)
    assert medium.engine == "route→best_of_n(n=4)"
    hard = route(Problem("h", "double", "x", DOUBLE.tests, 0.9), client=client)
    assert hard.engine == "route→reflexion(iterations=3)"


def test_route_escalates_when_the_tests_fail():
    model = OfflineModel(seed=0).script([WRONG, WRONG, RIGHT])
    result = route(Problem("e", "double", "x", DOUBLE.tests, 0.1), client=make_client(offline=model),
                   n=2, iterations=2)
    model.assert_complete()
    # one shot fails, Best-of-2 (one request, identical samples) fails, Reflexion's 1st attempt passes
    assert result.engine == "route→one_shot→best_of_n(n=2)→reflexion(iterations=2)"
    assert result.solved and result.calls == 3 and result.usage.calls == 3


def test_sweep_keeps_finished_points_when_interrupted_and_resumes(capsys):
    store, seen = {}, []

    def fn(point):
        seen.append(point)
        if point == 3 and seen.count(3) == 1:
            raise KeyboardInterrupt
        return point * point

    sweep(fn, range(5), results=store, progress=False)
    assert store == {0: 0, 1: 1, 2: 4}
    assert "interrompu : 3/5" in capsys.readouterr().out
    sweep(fn, range(5), results=store, progress=False)
    assert store == {0: 0, 1: 1, 2: 4, 3: 9, 4: 16} and seen == [0, 1, 2, 3, 3, 4]


def test_engine_result_prints_and_serialises():
    model, client = model_with(lambda request, ctx: RIGHT)
    result = one_shot(DOUBLE, client=client)
    assert isinstance(result, EngineResult)
    text = str(result)
    assert text.startswith("one_shot — double : ✅ résolu, 3/3 tests, 1 appel(s) au modèle")
    data = json.loads(result.to_json())
    assert data["engine"] == "one_shot" and data["trace"][0]["kind"] == "sample"


def test_more_samples_than_one_request_allows_come_in_chunks_of_eight():
    model, client = model_with(lambda request, ctx: f"échantillon {ctx.sample_index}")
    out = sample([{"role": "user", "content": "Bonjour"}], 20, client=client,
                 model="offline-fast", temperature=0.8)
    assert [r["n"] for r in model.chat_requests] == [8, 8, 4]
    assert out.texts == tuple(f"échantillon {i}" for i in range(20)) and out.requests == 3


def test_the_vote_reads_only_the_probes_not_the_tests():
    # WRONG twice agrees with itself on the probes; RIGHT once: the vote picks WRONG, whatever
    # the tests say (they only grade the winner afterwards).
    answers = [WRONG, RIGHT, WRONG]
    model, client = model_with(lambda request, ctx: answers[ctx.sample_index])
    result = self_consistency(DOUBLE, n=3, client=client)
    assert not result.solved and "x + 2" in result.answer and result.passed == 0


def test_reflexion_stores_the_reflection_that_preceded_the_fix():
    memory = FakeMemory()
    model = OfflineModel(seed=0).script([WRONG, "Raté, je ne sais pas pourquoi.", PARTIAL,
                                         "Il faut multiplier par deux, y compris les négatifs.",
                                         RIGHT])
    result = reflexion(DOUBLE, iterations=3, memory=memory, client=make_client(offline=model))
    assert result.solved and len(memory.added) == 1
    assert "y compris les négatifs" in memory.added[0][1] and "double(-2) == -4" in memory.added[0][1]


def test_reflexion_on_a_word_problem_never_shows_the_expected_answer():
    model = OfflineModel(seed=0).script(["Réponse : 7", "Je me suis trompé de calcul.", "Réponse : 12"])
    result = reflexion(Word("w", "Combien font 3 × 4 ?", 12), iterations=2,
                       client=make_client(offline=model))
    assert result.solved
    for request in model.chat_requests:
        assert "12" not in last_user(request)


def test_the_shared_sandbox_verdicts_are_memoised():
    from course_utils.engines.verify import cache_info, clear_cache

    clear_cache()
    model, client = model_with(lambda request, ctx: RIGHT)
    one_shot(DOUBLE, client=client)
    one_shot(DOUBLE, client=client)
    best_of_n(DOUBLE, 4, client=client)
    info = cache_info()
    assert info["runs"] == 1 and info["hits"] == 2


def test_public_engine_names_are_functions_even_after_importing_their_modules():
    # A module named like its function must not hide the function (``from … import reflexion``).
    import subprocess
    import sys

    code = ("import course_utils.engines.reflexion, course_utils.engines.best_of_n\n"
            "from course_utils.engines import reflexion, best_of_n, sweep, route\n"
            "print(all(callable(f) and type(f).__name__ == 'function' "
            "for f in (reflexion, best_of_n, sweep, route)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"
