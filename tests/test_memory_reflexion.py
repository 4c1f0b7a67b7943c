"""VectorMemory plugged into Reflexion (lesson 06): what is stored, what is retrieved, and that a
retrieved lesson changes the model's answer only when it names the pitfall.

The offline model is made deterministic here: never right without help (``code_p = 0``), always
right when a lesson in the prompt names the problem's pitfall (``lesson_gain = 1``).
"""

from __future__ import annotations

from course_utils.engines.reflexion import memory_query, reflexion
from course_utils.llm import make_client
from course_utils.memory import VectorMemory
from course_utils.offline import OfflineModel
from course_utils.problems import code_problems

HELPLESS = {"code_p_easy": 0.0, "code_p_hard": 0.0, "lesson_gain": 1.0, "reflection_hit": 1.0,
            "repair_q": 1.0}
SOURCE, TARGET = code_problems("bornes_inclusives")[:2]


def client(seed=0):
    return make_client(offline=OfflineModel(seed=seed, competence=HELPLESS))


def attempts(result):
    return [entry for entry in result.trace if entry.kind == "attempt"]


def test_reflexion_stores_an_instructive_lesson_under_the_task():
    memory = VectorMemory(":memory:")
    result = reflexion(SOURCE, iterations=3, memory=memory, client=client(), model="offline-fast")
    assert result.solved and len(memory) == 1
    entry = memory.entries()[0]
    assert entry.text == memory_query(SOURCE) and entry.domain == "code"
    assert "range(a, b + 1)" in entry.lesson and "attendu" in entry.lesson  # rule + failing test


def test_a_retrieved_lesson_from_another_member_of_the_family_fixes_the_first_attempt():
    memory = VectorMemory(":memory:")
    reflexion(SOURCE, iterations=3, memory=memory, client=client(), model="offline-fast")
    cold = reflexion(TARGET, iterations=1, client=client(1), model="offline-fast")
    warm = reflexion(TARGET, iterations=1, memory=memory, client=client(1), model="offline-fast")
    assert not cold.solved
    assert warm.solved, attempts(warm)[0].note
    # The lesson names `somme_intervalle`; the model still writes the function it was asked for.
    assert f"def {TARGET.function}(" in attempts(warm)[0].text


def test_a_status_lesson_changes_nothing():
    memory = VectorMemory(":memory:")
    memory.add(memory_query(SOURCE), "Résolu en 1 itération. Pitfall maîtrisé.", domain="code")
    result = reflexion(TARGET, iterations=1, memory=memory, client=client(1), model="offline-fast")
    assert [entry.kind for entry in result.trace][0] == "lessons"  # it was retrieved and shown…
    assert not result.solved  # …and, naming no pitfall, did not help
