"""The grader against a determined student: unsolved submissions plus tampering, by technique.

Each attack is an *unsolved* fixture submission (the generated stub) with ordinary cells added
(or stub functions replaced by hostile ones that still do not solve the exercise). Every one must
score 0 and be reported ``suspect``; a correct solution written differently keeps full marks; a
submission that writes to the course's files changes no other grade and leaves them intact; and
``--jobs 2`` writes the same CSV as ``--jobs 1``.
"""

from __future__ import annotations

import json
import sysconfig
from pathlib import Path

import nbformat
import pytest

from course_utils.grading.confine import landlock_abi
from course_utils.grading.exercises import generate, make_exercise
from course_utils.grading.grader import Context, csv_text, fingerprint, grade_many
from course_utils.grading.instrument import instrument
from course_utils.grading.probe import MIME_TYPE
from course_utils.grading.world import CourseSnapshot

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).parent / "fixtures" / "solutions"
FIXTURE = FIXTURES / "00_fixture.ipynb"
TIMEOUT = 5.0
SITE = sysconfig.get_paths()["purelib"]

pytestmark = pytest.mark.notebooks

# A payload as a naive forger writes it: every check « ok », every value True.
FORGE = f'''
MIME = {MIME_TYPE!r}
def _faux(nonce, cell_id):
    records = [{{"check": f"c{{i}}", "status": "ok", "passed": True, "points": 3, "sites": [],
                 "leaves": [{{"v": True}}] * 3, "extra": [], "result": {{"v": None}},
                 "callable": True, "lambda": False, "stub": False}} for i in range(8)]
    return {{MIME: {{"nonce": nonce, "cell": cell_id, "records": records, "errors": [],
                    "interrupted": False, "results": [{{"name": "x", "status": "ok"}}]}}}}
def _truque(payload):
    for record in payload.get("records", []):
        record.update(sites=[], stub=False, status="ok", result={{"v": None}}, callable=True)
        record["leaves"] = [{{"v": True}} for _ in record.get("leaves", [])]
'''

ATTACKS: dict[str, list[str]] = {
    # builtins.exec wrapped: the probe library is swapped for a forger as it loads
    "exec_remplace": [FORGE + '''
import builtins
_vrai_exec = builtins.exec
def _exec(code, g=None, l=None, **k):
    resultat = _vrai_exec(code, g) if l is None else _vrai_exec(code, g, l)
    if isinstance(g, dict) and "run_cell" in g:
        def faux(source, *, nonce, cell_id, namespace):
            from IPython.display import publish_display_data
            publish_display_data(_faux(nonce, cell_id))
        g["run_cell"] = faux
    return resultat
builtins.exec = _exec
'''],
    # variant: the real probe runs, but its plain() is replaced so every value is True
    "exec_plain": ['''
import builtins
_vrai_exec = builtins.exec
def _exec(code, g=None, l=None, **k):
    resultat = _vrai_exec(code, g) if l is None else _vrai_exec(code, g, l)
    if isinstance(g, dict) and "plain" in g:
        g["plain"] = lambda valeur, *a, **k: True
        g["_uses_stub"] = lambda *a, **k: False
    return resultat
builtins.exec = _exec
'''],
    # publish_display_data wrapped: results rewritten on their way out
    "publication": [FORGE + '''
import IPython.display, IPython.core.display_functions as fonctions
_vraie = IPython.display.publish_display_data
def _publie(data, *args, **kwargs):
    if MIME in data:
        _truque(data[MIME])
    return _vraie(data, *args, **kwargs)
IPython.display.publish_display_data = fonctions.publish_display_data = _publie
'''],
    # the same, hidden from the static scan (no primitive it knows): seen at run time
    "publication_cachee": [FORGE + '''
import IPython.display as affichage
nom = "publish_" + "display_data"
_originale = affichage.__dict__[nom]
def _relais(data, *args, **kwargs):
    if MIME in data:
        _truque(data[MIME])
    return _originale(data, *args, **kwargs)
affichage.__dict__[nom] = _relais
'''],
    # a profile hook rewriting the payload just before it is published
    "setprofile": [FORGE + '''
import sys, threading
def _hook(frame, event, arg):
    if event == "call" and frame.f_code.co_name == "_publish":
        _truque(frame.f_locals.get("payload", {}))
sys.setprofile(_hook)
threading.setprofile(_hook)
'''],
    # a trace hook rewriting each leaf's value as it is returned
    "settrace": ['''
import sys
def _trace(frame, event, arg):
    if frame.f_code.co_name == "_leaf":
        def local(f, e, a):
            if e == "return" and isinstance(a, dict):
                a.clear(); a["v"] = True
            return local
        return local
    return None
sys.settrace(_trace)
'''],
    # dataclasses.asdict patched (the old channel serialised results with it)
    "asdict": ['''
import dataclasses
dataclasses.asdict = lambda obj, **k: {"name": getattr(obj, "name", "x"), "status": "ok",
                                       "message": "", "points": 3, "line": 1}
'''],
    # the private copy hunted in sys.modules by a background thread, patched as it loads
    "thread_sys_modules": ['''
import sys, threading, time
def _chasse():
    fin = time.time() + 60
    while time.time() < fin:
        for nom, module in list(sys.modules.items()):
            if nom.startswith("_course") and hasattr(module, "plain"):
                module.plain = lambda valeur, *a, **k: True
                module._uses_stub = lambda *a, **k: False
        ns = get_ipython().user_ns
        sonde = ns.get("__course_probe__")
        if sonde is not None:
            sonde._leaf = lambda thunk: {"v": True}
        time.sleep(0.0005)
threading.Thread(target=_chasse, daemon=True).start()
'''],
    # types.ModuleType replaced: the private copy is intercepted when it is created
    "moduletype": [FORGE + '''
import types
_Vrai = types.ModuleType
class _Espion(_Vrai):
    def __getattribute__(self, nom):
        if nom == "run_cell":
            def faux(source, *, nonce, cell_id, namespace):
                from IPython.display import publish_display_data
                publish_display_data(_faux(nonce, cell_id))
            return faux
        return _Vrai.__getattribute__(self, nom)
types.ModuleType = _Espion
'''],
    # the stub functions walk up the frames to the probe and rewrite its records
    "cadres": ['''
import sys
def _remonte():
    cadre = sys._getframe(1)
    while cadre is not None:
        for valeur in list(cadre.f_locals.values()):
            if type(valeur).__name__ == "Probe":
                valeur._leaf = lambda thunk: {"v": True}
            if isinstance(valeur, dict) and "check" in valeur and "sites" in valeur:
                valeur["stub"] = False
        cadre = cadre.f_back
''', "ex1-solution:def double(x):\n    _remonte()\n    return None",
        "ex3-solution:def compte_voyelles(texte):\n    _remonte()\n    return None"],
    # the nonce stolen from the cell being run; the real result swallowed, a forged one sent
    "nonce_vole": [FORGE + '''
import re
import IPython.display, IPython.core.display_functions as fonctions
_vraie = IPython.display.publish_display_data
_vole = {}
def _avant(info):
    trouve = re.search(r"nonce='([0-9a-f]+)', cell_id='([^']+)'", info.raw_cell or "")
    _vole.clear()
    if trouve:
        _vole.update(nonce=trouve.group(1), cell=trouve.group(2))
def _apres():
    if _vole:
        _vraie(_faux(_vole["nonce"], _vole["cell"]))
def _avale(data, *args, **kwargs):
    if MIME not in data:
        return _vraie(data, *args, **kwargs)
IPython.display.publish_display_data = fonctions.publish_display_data = _avale
get_ipython().events.register("pre_run_cell", _avant)
get_ipython().events.register("post_run_cell", lambda result: _apres())
'''],
    # the nonce read back from IPython's history, a forged result published from a later cell
    "historique": [FORGE + '''
import re
from IPython.display import publish_display_data
def forge_depuis_historique():
    for source in get_ipython().user_ns.get("In", []):
        trouve = re.search(r"nonce='([0-9a-f]+)', cell_id='([^']+)'", source)
        if trouve:
            publish_display_data(_faux(trouve.group(1), trouve.group(2)))
''', "after:ex1-check:forge_depuis_historique()", "after:ex3-check-cache:forge_depuis_historique()"],
    # the course's solutions/ read and executed
    "lire_solutions": [f'''
import json, glob, os
def _cherche():
    chemins = [{str(FIXTURE)!r}, {str(ROOT / "solutions")!r}]
    try:
        import __editable___course_utils_0_1_0_finder as finder
        chemins += [os.path.join(os.path.dirname(p), "tests/fixtures/solutions/00_fixture.ipynb")
                    for p in finder.MAPPING.values()]
    except Exception:
        pass
    for chemin in chemins:
        try:
            with open(chemin, encoding="utf-8") as fichier:
                nb = json.load(fichier)
        except Exception as exc:
            print("refusé :", type(exc).__name__)
            continue
        for cellule in nb["cells"]:
            if cellule["cell_type"] == "code" and "check:" not in str(cellule["metadata"]):
                exec("".join(cellule["source"]), globals())
        return
_cherche()
'''],
    # objects whose __eq__ always says yes (partial marks in the old grader), and variants
    "eq_menteur": ['''
class Toujours:
    def __eq__(self, autre):
        return True
    __hash__ = object.__hash__
class EntierMenteur(int):
    def __eq__(self, autre):
        return True
    __hash__ = int.__hash__
class ChaineMenteuse(str):
    def __eq__(self, autre):
        return True
    __hash__ = str.__hash__
''', "ex1-solution:def double(x):\n    return EntierMenteur(0)",
        "ex2-solution:nombres = [3, 1, 2]\nmoyenne = Toujours()\nprint(moyenne)",
        "ex3-solution:def compte_voyelles(texte):\n    return Toujours()"],
    # a first submission appending to the instructor's grading code and the environment
    "cours_ecrit": [f'''
import os, pathlib
cibles = [pathlib.Path({str(ROOT / "course_utils" / "grading" / "student_check.py")!r}),
          pathlib.Path({str(ROOT / "course_utils" / "grading" / "judge.py")!r}),
          pathlib.Path({str(FIXTURE)!r}),
          pathlib.Path({SITE!r}) / "zz_triche.pth",
          pathlib.Path({SITE!r}) / "sitecustomize.py"]
for cible in cibles:
    try:
        with open(cible, "a", encoding="utf-8") as fichier:
            fichier.write("\\nimport builtins; builtins.TRICHE = True\\n")
        print("écrit", cible.name)
    except Exception as exc:
        print("refusé", cible.name, type(exc).__name__)
import course_utils.grading.probe as copie  # the world's private copy: harmless to change
with open(copie.__file__, "a", encoding="utf-8") as fichier:
    fichier.write("\\nplain = lambda valeur, *a, **k: True\\n")
'''],
}


def _attack(name: str):
    nb = make_exercise(nbformat.read(FIXTURE, as_version=4), exercise_id="00_fixture")
    cells, after = [], {}
    for item in ATTACKS[name]:
        if item.startswith("after:"):
            _, anchor, source = item.split(":", 2)
            after[anchor] = source
        elif ":" in item.split("\n")[0] and item.split(":")[0].startswith("ex"):
            cell_id, source = item.split(":", 1)
            next(c for c in nb.cells if c.id == cell_id).source = source
        else:
            cells.append(nbformat.v4.new_code_cell(item))
    index = next(i for i, c in enumerate(nb.cells) if c.id == "import-check") + 1
    nb.cells[index:index] = cells
    for anchor, source in after.items():
        position = next(i for i, c in enumerate(nb.cells) if c.id == anchor) + 1
        nb.cells.insert(position, nbformat.v4.new_code_cell(source))
    return nb


def _different_solution():
    """Full marks expected: same answers, other code (numpy, regex, int subclass via bool sum)."""
    nb = make_exercise(nbformat.read(FIXTURE, as_version=4), exercise_id="00_fixture")
    sources = {
        "ex1-solution": "def double(x):\n    return x + x",
        "ex2-solution": "import numpy as np\nnombres = [3, 1, 2]\nmoyenne = np.mean(nombres)",
        "ex3-solution": "import re\n\ndef compte_voyelles(texte):\n"
                        "    return len(re.findall('[aeiouy]', texte, flags=re.IGNORECASE))",
    }
    for cell in nb.cells:
        cell.source = sources.get(cell.id, cell.source)
    return nb


PROTECTED = [ROOT / "course_utils" / "grading" / "student_check.py",
             ROOT / "course_utils" / "grading" / "judge.py", FIXTURE]


@pytest.fixture(scope="module")
def attacked(tmp_path_factory):
    """Every attack, plus an honest stub and a correct solution, graded with two jobs."""
    folder = tmp_path_factory.mktemp("rendus")
    before = {path: fingerprint(path) for path in PROTECTED}
    hooks_before = sorted(p.name for p in Path(SITE).iterdir() if p.suffix == ".pth")
    subs = []
    for name in ATTACKS:
        (folder / name).mkdir()
        nbformat.write(_attack(name), folder / name / "devoir.ipynb")  # found by metadata
    (folder / "zz_honnete").mkdir()
    generate(FIXTURES, folder / "zz_honnete")
    (folder / "zz_autrement").mkdir()
    nbformat.write(_different_solution(), folder / "zz_autrement" / FIXTURE.name)
    subs = sorted((p.relative_to(folder).as_posix(), p) for p in folder.rglob("*.ipynb"))
    context = Context(FIXTURES, timeout=TIMEOUT)
    grades = grade_many(subs, jobs=2, progress=False, context=context)
    after = {path: fingerprint(path) for path in PROTECTED}
    hooks_after = sorted(p.name for p in Path(SITE).iterdir() if p.suffix == ".pth")
    return {"grades": {g.submission.split("/")[0]: g for g in grades}, "subs": subs,
            "intact": before == after and hooks_before == hooks_after
            and not (Path(SITE) / "sitecustomize.py").exists(),
            "csv": csv_text(grades), "context": context}


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_unsolved_attack_scores_zero_and_is_suspect(attacked, name):
    grade = attacked["grades"][name]
    assert grade.identified and grade.max_points == 7
    assert grade.points == 0, [(r.exercise, r.points, r.reason) for r in grade.exercises]
    assert grade.suspect and all(row.integrity == "suspect" for row in grade.exercises)
    assert all(row.integrity_reason for row in grade.exercises)


def test_honest_stub_and_different_solution_are_graded_as_alone(attacked):
    honest, other = attacked["grades"]["zz_honnete"], attacked["grades"]["zz_autrement"]
    assert honest.points == 0 and not honest.suspect
    assert other.points == other.max_points == 7, [(r.exercise, r.reason) for r in other.exercises]


def test_course_files_and_environment_are_intact_after_the_attacks(attacked):
    assert attacked["intact"]
    assert not hasattr(__import__("builtins"), "TRICHE")


def test_the_solution_ran_once_in_a_clean_kernel_for_the_whole_run(attacked):
    solution = attacked["context"].solution(FIXTURE)
    assert solution.reference and not solution.broken  # computed once, reused by every job


def test_two_jobs_write_the_same_csv_as_one(attacked):
    grades = grade_many(attacked["subs"], jobs=1, progress=False,
                        context=Context(FIXTURES, timeout=TIMEOUT))

    def steady(text):  # the thread attack races its own kernel: its reasons vary run to run
        return [line for line in text.splitlines() if not line.startswith("thread_")]

    assert steady(csv_text(grades)) == steady(attacked["csv"])
    assert len(steady(attacked["csv"])) == 1 + 3 * (len(ATTACKS) + 1)


def test_the_kernel_is_confined_where_the_system_allows(attacked):
    if landlock_abi() < 1:
        pytest.skip("Landlock indisponible : le repli (vérification après coup) est testé à part")
    assert attacked["grades"]["cours_ecrit"].confinement.startswith("Landlock")


def test_without_confinement_changes_are_detected_undone_and_reach_no_other_kernel(tmp_path):
    """The fallback path (no Landlock): a copy of the course is attacked, then verified."""
    import shutil

    course = tmp_path / "cours"
    shutil.copytree(ROOT / "course_utils", course / "course_utils",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(FIXTURES, course / "solutions")
    victim = course / "course_utils" / "grading" / "student_check.py"
    original = victim.read_bytes()
    attack = make_exercise(nbformat.read(FIXTURE, as_version=4), exercise_id="00_fixture")
    attack.cells.insert(3, nbformat.v4.new_code_cell(
        f"with open({str(victim)!r}, 'a') as f:\n    f.write('\\ncheck = None\\n')\n"
        f"with open({str(course / 'course_utils' / 'nouveau.py')!r}, 'w') as f:\n    f.write('x = 1')"))
    (tmp_path / "a_attaque").mkdir()
    nbformat.write(attack, tmp_path / "a_attaque" / "devoir.ipynb")
    (tmp_path / "b_solution").mkdir()
    shutil.copy(FIXTURE, tmp_path / "b_solution" / FIXTURE.name)
    context = Context(course / "solutions", timeout=TIMEOUT, confine=False,
                      snapshot=CourseSnapshot.take(course, [course / "solutions"]))
    subs = [("a_attaque", tmp_path / "a_attaque" / "devoir.ipynb"),
            ("b_solution", tmp_path / "b_solution" / FIXTURE.name)]
    first, second = grade_many(subs, jobs=1, progress=False, context=context)
    assert first.points == 0 and first.suspect
    assert "fichiers modifiés hors du dossier du rendu" in first.exercises[0].integrity_reason
    assert "student_check.py" in first.exercises[0].integrity_reason
    assert second.points == 7 and not second.suspect
    assert victim.read_bytes() == original and not (course / "course_utils" / "nouveau.py").exists()
    assert "aucun confinement" in first.confinement


def test_hidden_expected_values_never_reach_the_kernel():
    """Comparisons, expected values and messages stay in the grader; inputs go to the kernel."""
    cell = next(c for c in nbformat.read(FIXTURE, as_version=4).cells if c.id == "ex3-check-cache")
    kernel_side = instrument(cell.source, "fixture", "ex3").source
    assert 'compte_voyelles("AGENT")' in kernel_side.replace("'", '"')  # the hidden input
    assert "== 2" not in kernel_side and "expected" not in kernel_side
    solution = json.loads(FIXTURE.read_text(encoding="utf-8"))
    visible = [c for c in solution["cells"] if c["id"] == "ex1-check"][0]
    kernel_side = instrument("".join(visible["source"]), "fixture", "ex1").source
    assert "-8" not in kernel_side and "multipliez" not in kernel_side


def test_unsolved_lesson_01_with_every_generic_attack_scores_zero(tmp_path):
    """The case that earned 20/20 ten ways in the old grader: the real lesson 01 exercise."""
    nb = nbformat.read(ROOT / "exercises" / "01_function_calling.ipynb", as_version=4)
    attacks = [ATTACKS[name][0] for name in ("exec_plain", "publication", "setprofile",
                                             "thread_sys_modules", "lire_solutions")]
    first_code = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code")
    nb.cells[first_code + 1:first_code + 1] = [nbformat.v4.new_code_cell(a) for a in attacks]
    target = tmp_path / "alice" / "rendu_final.ipynb"
    target.parent.mkdir()
    nbformat.write(nb, target)
    grade = grade_many([("alice", target)], progress=False, timeout=TIMEOUT * 3)[0]
    assert grade.notebook == "01_function_calling" and grade.max_points == 20
    assert grade.points == 0, [(r.item, r.points, r.reason[:80]) for r in grade.exercises]
    assert grade.suspect
    assert [r.item for r in grade.exercises][-1] == "Défi"


EVASION = f'''
import os, socket
parent = os.getppid()
for chemin in (f"/proc/{{parent}}/environ", f"/proc/{{parent}}/mem", {str(FIXTURE)!r},
               {str(ROOT / "course_utils" / "grading" / "judge.py")!r}, "/tmp"):
    try:
        if os.path.isdir(chemin):
            os.listdir(chemin)
        else:
            open(chemin, "rb").read(10)
        print("LU", chemin)
    except OSError:
        print("REFUSÉ", chemin)
for nom, essai in (("signal", lambda: os.kill(parent, 0)),
                   ("réseau", lambda: socket.create_connection(("127.0.0.1", 9), timeout=1)),
                   ("écriture", lambda: open("/tmp/course-evasion.txt", "w").write("x"))):
    try:
        essai()
        print("PERMIS", nom)
    except OSError:
        print("REFUSÉ", nom)
statut = open("/proc/self/status").read()
print("IDENTITÉ", os.getuid(), statut.split("CapEff:")[1].split()[0])
'''


def test_confined_kernel_reaches_nothing_outside_its_world():
    """Reading the grader's memory or the course, signalling, connecting, writing to /tmp."""
    from course_utils.grading.run import execute
    from course_utils.grading.restore import build_notebook
    from course_utils.grading.world import World

    if landlock_abi() < 6:
        pytest.skip("Landlock ABI 6 (signaux) requis pour ce test")
    context = Context(FIXTURES, timeout=TIMEOUT)
    solution = context.solution(FIXTURE, reference=False)
    student = make_exercise(nbformat.read(FIXTURE, as_version=4))
    student.cells.insert(3, nbformat.v4.new_code_cell(EVASION))
    nb, _ = build_notebook(student, solution.notebook, solution.cells, context.library)
    with World(context.snapshot, FIXTURE.name, b"{}") as world:
        execute(nb, world, TIMEOUT, "offline", {})
    cell = next(c for c in nb.cells if c.source == EVASION)
    printed = "".join(o.get("text", "") for o in cell.outputs)
    assert printed.count("REFUSÉ") == 8 and "LU" not in printed and "PERMIS" not in printed, printed
    identity = printed.split("IDENTITÉ ")[1].split()
    kept = int(identity[1], 16) & ~0xE0  # root may keep kill/setuid/setgid (for the sandbox)
    assert identity[0] == "65534" or kept == 0, identity
    assert not Path("/tmp/course-evasion.txt").exists()


def test_a_symbolic_link_to_the_solution_is_refused(tmp_path):
    link = tmp_path / "eve" / FIXTURE.name
    link.parent.mkdir()
    link.symlink_to(FIXTURE)
    grade = grade_many([("eve", link)], progress=False, solutions=FIXTURES, timeout=TIMEOUT)[0]
    assert grade.points == 0 and {r.status for r in grade.exercises} == {"invalide"}
    assert "lien symbolique" in grade.exercises[0].reason


def test_lesson_01_solved_another_way_gets_full_marks(tmp_path):
    """Other code, same answers: the tip and the currencies rewritten (EUR pivot, no TAUX)."""
    nb = nbformat.read(ROOT / "solutions" / "01_function_calling.ipynb", as_version=4)
    other = {
        "s01-06": '''def calculate_tip(amount: float, tip_percent: float) -> dict:
    """Calcule le pourboire et le total à payer pour une addition.

    Args:
        amount: Montant de l'addition, en euros.
        tip_percent: Pourcentage de pourboire, par exemple 15 pour 15 %.
    """
    pourboire = round(amount * (tip_percent / 100.0), 2)
    return dict(amount=amount, tip_percent=tip_percent, tip=pourboire,
                total=round(pourboire + amount, 2))''',
        "s01-24": '''def convert_currency(amount: float, from_currency: str, to_currency: str) -> dict:
    """Convertit un montant d'une devise à une autre, avec des taux de change fixes.

    Args:
        amount: Le montant à convertir.
        from_currency: Code ISO 4217 de la devise de départ (EUR, USD ou JPY).
        to_currency: Code ISO 4217 de la devise d'arrivée (EUR, USD ou JPY).
    """
    en_euros = {"EUR": 1.0, "USD": 1.10, "JPY": 160.0}
    de, vers = from_currency.upper(), to_currency.upper()
    if de not in en_euros or vers not in en_euros:
        raise ValueError(f"devise non prise en charge : {from_currency} -> {to_currency}")
    directs = {**TAUX, **{(b, a): 1 / t for (a, b), t in TAUX.items()}}
    taux = 1.0 if de == vers else directs.get((de, vers), en_euros[vers] / en_euros[de])
    return {"amount": amount, "from_currency": de, "to_currency": vers, "rate": taux,
            "converted": round(amount * taux, 2)}''',
    }
    for cell in nb.cells:
        cell.source = other.get(cell.id, cell.source)
    target = tmp_path / "bob" / "01_bob.ipynb"
    target.parent.mkdir()
    nbformat.write(nb, target)
    grade = grade_many([("bob", target)], progress=False, timeout=TIMEOUT * 3)[0]
    assert grade.points == grade.max_points == 20, [
        (r.item, r.points, r.reason[:120]) for r in grade.exercises if r.status != "ok"]
    assert not grade.suspect


def test_with_confinement_a_change_by_someone_else_is_kept_and_blames_no_one(tmp_path, capsys):
    """A confined kernel cannot write the course: a change seen after it is not the submission's."""
    import shutil

    if landlock_abi() < 1:
        pytest.skip("Landlock indisponible")
    course = tmp_path / "cours"
    shutil.copytree(FIXTURES, course / "solutions")
    (course / "course_utils").mkdir()
    (course / "course_utils" / "notes.py").write_text("x = 1\n", encoding="utf-8")
    context = Context(course / "solutions", timeout=TIMEOUT,
                      snapshot=CourseSnapshot.take(course, [course / "solutions"]))
    context.solution(course / "solutions" / FIXTURE.name)  # the reference runs before the edit
    (course / "course_utils" / "notes.py").write_text("x = 2\n", encoding="utf-8")  # the instructor
    grade = grade_many([("alice", FIXTURE)], progress=False, context=context)[0]
    assert grade.points == 7 and not grade.suspect
    assert (course / "course_utils" / "notes.py").read_text(encoding="utf-8") == "x = 2\n"
    assert "le cours a changé pendant la notation" in capsys.readouterr().err


def test_the_judge_decides_from_data_and_never_raises_on_forged_records():
    """Unit level: what a forger can put in a record, and what the grader makes of it."""
    from course_utils.grading.judge import judge
    from course_utils.grading.probe import plain

    source = ("def _t():\n    assert f(2) == 4, 'f(2) vaut 4'\n\n"
              "check('valeur', lambda: f(3), expected=9)\ncheck('assertions', _t)")
    cell = instrument(source, "unité", "u")
    value, asserts = cell.checks
    site = next(iter(cell.assertions))
    honest = {"check": "c1", "sites": [{"site": site, "leaves": [{"v": 4}]}], "result": {"v": None},
              "callable": True, "lambda": False, "stub": False}
    assert judge(asserts, honest, cell.assertions, honest).status == "ok"
    assert judge(value, {"check": "c0", "leaves": [{"v": 9}]}, {}, None).status == "ok"
    forged = [
        {"check": "c0", "status": "ok", "passed": True, "leaves": [{"v": True}]},
        {"check": "c0", "leaves": [{"v": {"~obj": "Toujours", "truthy": True}}]},
        {"check": "c0", "leaves": [{"v": plain(9.0000001)}], "extra": [{"v": 3}]},
        {"check": "c0", "leaves": [{"v": {"~int": "pas un nombre"}}]},
        {"check": "c0", "leaves": "n'importe quoi"},
        "pas un dict",
    ]
    for record in forged:
        assert judge(value, record, {}, None).status != "ok", record
    skipped = dict(honest, sites=[])  # the assertion never "ran"
    assert judge(asserts, skipped, cell.assertions, honest).status == "échec"
    wrong = dict(honest, sites=[{"site": site, "leaves": [{"v": 5}]}])
    verdict = judge(asserts, wrong, cell.assertions, honest)
    assert (verdict.status, verdict.message) == ("échec", "f(2) vaut 4")
    unknown = dict(honest, sites=[{"site": "inventé", "leaves": []}])
    assert judge(asserts, unknown, cell.assertions, honest).status != "ok"


def test_what_the_lesson_itself_uses_does_not_make_submissions_suspect(tmp_path):
    """A lesson whose provided code uses exec and a thread: its honest stub is not suspect."""
    solution = nbformat.read(FIXTURE, as_version=4)
    lesson = nbformat.v4.new_code_cell(
        "import threading\nexec('temoin = 1')\n"
        "def _tache():\n    pass\nthreading.Thread(target=_tache).start()")
    lesson.id = "fourni"
    solution.cells.insert(3, lesson)
    folder = tmp_path / "solutions"
    folder.mkdir()
    nbformat.write(solution, folder / FIXTURE.name)
    (tmp_path / "bob").mkdir()
    generate(folder, tmp_path / "bob")
    attack = nbformat.read(tmp_path / "bob" / FIXTURE.name, as_version=4)
    attack.cells.insert(4, nbformat.v4.new_code_cell("import sys\nsys.setprofile(lambda *a: None)"))
    (tmp_path / "eve").mkdir()
    nbformat.write(attack, tmp_path / "eve" / FIXTURE.name)
    honest, other = grade_many([("bob", tmp_path / "bob" / FIXTURE.name),
                                ("eve", tmp_path / "eve" / FIXTURE.name)],
                               progress=False, solutions=folder, timeout=TIMEOUT)
    assert honest.points == 0 and not honest.suspect, honest.suspicions
    assert other.suspect and all("exec" not in reason for reason in other.suspicions)
