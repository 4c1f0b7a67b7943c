"""French multi-step arithmetic word problems (GSM8K-like), generated from templates.

:func:`word_problems` returns 64 :class:`WordProblem` s (2 to 5 steps, exact answers) built from
twelve templates with fixed parameters (no randomness: the bank is the same everywhere).

Each problem also has, in this module and never in its text, its **typical mistakes**
(:func:`typical_mistakes`: mistake name → the wrong answer it produces, e.g. a forgotten step, a
sign error, an order-of-operations slip; every problem has at least two, completed when needed by
a plain calculation slip ``erreur_de_calcul``). The offline model draws its wrong answers from them.

Seven templates are ordinary (family ``achats``, ``recette``, ``economies``, ``partage``,
``trajet``, ``cloture``, ``stock``). Five are **systematic-mistake** problems (family names start
with ``piege_``: the racket and the ball, fence posts, +x % then −x %, machines and parts, the
average speed of a round trip): one intuitive mistake is *more likely than the truth*, so a
majority vote converges on the mistake (:func:`systematic_mistake` names it). They are a
minority of the bank (15 of 64), so voting helps overall and hurts on them.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

__all__ = ["WordProblem", "systematic_mistake", "typical_mistakes", "word_problems",
           "format_number"]


@dataclass(frozen=True)
class WordProblem:
    """A word problem: French ``question``, exact ``answer``, number of ``steps``, ``family``."""

    id: str
    question: str
    answer: int | float
    steps: int
    family: str


@dataclass(frozen=True)
class _Hidden:
    mistakes: tuple[tuple[str, int | float], ...]
    systematic: str | None


def _exact(value) -> int | float:
    value = Fraction(value)
    return int(value) if value.denominator == 1 else float(value)


def format_number(value) -> str:
    """French display of an exact answer: 12 → "12", 2.5 → "2,5"."""
    value = _exact(value)
    if isinstance(value, int):
        return str(value)
    return f"{value:g}".replace(".", ",")


NAMES = ["Léa", "Hugo", "Inès", "Nathan", "Chloé", "Lucas", "Manon", "Yanis", "Jade", "Tom"]


def _achats(i, a, p, b, q, billet):
    nom = NAMES[i % len(NAMES)]
    question = (f"{nom} achète {a} cahiers à {p} € pièce et {b} stylos à {q} € pièce. "
                f"Elle paie avec un billet de {billet} €. Combien d'euros lui rend-on ?")
    answer = billet - (a * p + b * q)
    mistakes = [("oubli_etape", a * p + b * q), ("oubli_article", billet - a * p),
                ("signe", billet - a * p + b * q)]
    return question, answer, 4, mistakes


def _recette(i, n, g, m):
    question = (f"Une recette de gâteau pour {n} personnes demande {g} g de farine. "
                f"Combien de grammes de farine faut-il pour {m} personnes ?")
    answer = Fraction(g * m, n)
    mistakes = [("addition_au_lieu_de_proportion", g + (m - n)), ("par_personne", Fraction(g, n)),
                ("rapport_inverse", Fraction(g * n, m))]
    return question, answer, 2, mistakes


def _economies(i, a, b, c, w):
    nom = NAMES[(i + 3) % len(NAMES)]
    question = (f"{nom} a {a} € d'économies. Chaque semaine, il gagne {b} € et en dépense {c}. "
                f"Combien d'euros aura-t-il après {w} semaines ?")
    answer = a + w * (b - c)
    mistakes = [("oubli_depense", a + w * b), ("oubli_depart", w * (b - c)),
                ("signe", a + w * (b + c))]
    return question, answer, 3, mistakes


def _partage(i, t, e, k):
    nom = NAMES[(i + 5) % len(NAMES)]
    question = (f"{nom} a {t} bonbons. Il en mange {e}, puis partage le reste équitablement "
                f"entre ses {k} amis. Combien de bonbons chaque ami reçoit-il ?")
    answer = Fraction(t - e, k)
    mistakes = [("oubli_etape", Fraction(t, k)), ("ordre_des_operations", Fraction(t, k) - e),
                ("se_compte_aussi", Fraction(t - e, k + 1))]
    return question, answer, 2, mistakes


def _trajet(i, t1, v1, t2, v2):
    question = (f"Un cycliste roule {t1} heures à {v1} km/h, puis {t2} heures à {v2} km/h. "
                f"Quelle distance totale parcourt-il, en kilomètres ?")
    answer = t1 * v1 + t2 * v2
    mistakes = [("oubli_etape", t1 * v1), ("vitesses_additionnees", (v1 + v2) * (t1 + t2)),
                ("inversion", t1 * v2 + t2 * v1)]
    return question, answer, 3, mistakes


def _cloture(i, longueur, largeur, prix, porte):
    question = (f"Un jardin rectangulaire mesure {longueur} m sur {largeur} m. On l'entoure d'une "
                f"clôture à {prix} € le mètre, sauf une porte de {porte} m. "
                f"Combien coûte la clôture, en euros ?")
    answer = (2 * (longueur + largeur) - porte) * prix
    mistakes = [("demi_perimetre", (longueur + largeur - porte) * prix),
                ("oubli_porte", 2 * (longueur + largeur) * prix),
                ("aire_au_lieu_du_perimetre", (longueur * largeur - porte) * prix)]
    return question, answer, 4, mistakes


def _stock(i, s, a, c, k):
    question = (f"Une librairie a {s} livres. Lundi, elle en vend {a} ; mardi, elle en vend deux "
                f"fois plus que lundi ; mercredi, elle reçoit {c} cartons de {k} livres. "
                f"Combien de livres a-t-elle mercredi soir ?")
    answer = s - a - 2 * a + c * k
    mistakes = [("oubli_mardi", s - a + c * k), ("cartons_additionnes", s - 3 * a + c + k),
                ("signe", s - 3 * a - c * k), ("mardi_compte_une_fois", s - 2 * a + c * k)]
    return question, answer, 5, mistakes


# --- systematic-mistake templates: the named mistake is more tempting than the truth


def _raquette(i, total, ecart):
    question = (f"Une raquette et une balle coûtent ensemble {total} €. La raquette coûte "
                f"{ecart} € de plus que la balle. Combien coûte la balle, en euros ?")
    answer = Fraction(total - ecart, 2)
    mistakes = [("soustraction_directe", total - ecart), ("moitie_du_total", Fraction(total, 2))]
    return question, answer, 3, mistakes, "soustraction_directe"


def _poteaux(i, longueur, pas):
    question = (f"On installe une clôture droite de {longueur} m avec un poteau tous les {pas} m, "
                f"y compris un à chaque extrémité. Combien de poteaux faut-il ?")
    answer = longueur // pas + 1
    mistakes = [("intervalles_au_lieu_de_poteaux", longueur // pas),
                ("deux_de_trop", longueur // pas + 2)]
    return question, answer, 2, mistakes, "intervalles_au_lieu_de_poteaux"


def _pourcentage(i, prix, taux):
    question = (f"Un vélo coûte {prix} €. Son prix augmente de {taux} %, puis le nouveau prix "
                f"baisse de {taux} %. Quel est son prix final, en euros ?")
    answer = Fraction(prix) * (100 + taux) / 100 * (100 - taux) / 100
    mistakes = [("pourcentages_qui_s_annulent", prix),
                ("baisse_oubliee", Fraction(prix) * (100 + taux) / 100)]
    return question, answer, 3, mistakes, "pourcentages_qui_s_annulent"


def _machines(i, n, m):
    question = (f"{n} machines fabriquent {n} pièces en {n} minutes. Combien de minutes faut-il "
                f"à {m} machines pour fabriquer {m} pièces ?")
    answer = n
    mistakes = [("proportion_naive", m), ("division", Fraction(m, n))]
    return question, answer, 3, mistakes, "proportion_naive"


def _vitesse(i, d, v1, v2):
    question = (f"Une voiture fait un aller de {d} km à {v1} km/h, puis revient par la même route "
                f"à {v2} km/h. Quelle est sa vitesse moyenne sur l'aller-retour, en km/h ?")
    answer = Fraction(2 * d) / (Fraction(d, v1) + Fraction(d, v2))
    mistakes = [("moyenne_des_vitesses", Fraction(v1 + v2, 2)),
                ("oubli_du_retour", Fraction(d) / (Fraction(d, v1) + Fraction(d, v2)))]
    return question, answer, 4, mistakes, "moyenne_des_vitesses"


_TEMPLATES = [
    ("achats", _achats, [(2, 3, 3, 2, 20), (4, 2, 1, 5, 20), (3, 4, 2, 3, 50), (5, 2, 4, 1, 20),
                         (2, 6, 3, 2, 50), (6, 3, 2, 4, 50), (3, 5, 5, 2, 50)]),
    ("recette", _recette, [(4, 200, 6), (6, 300, 10), (4, 250, 10), (8, 400, 6), (3, 150, 9),
                           (5, 350, 15), (2, 120, 5)]),
    ("economies", _economies, [(50, 12, 5, 4), (20, 15, 9, 6), (100, 8, 3, 7), (35, 20, 12, 5),
                               (10, 25, 18, 8), (60, 9, 4, 10), (0, 30, 21, 6)]),
    ("partage", _partage, [(29, 5, 4), (50, 8, 6), (37, 7, 5), (64, 4, 12), (45, 9, 4),
                           (83, 3, 10), (100, 16, 7)]),
    ("trajet", _trajet, [(2, 15, 1, 20), (3, 12, 2, 18), (1, 25, 3, 14), (2, 18, 2, 11),
                         (4, 16, 1, 30), (3, 20, 2, 15), (2, 22, 3, 12)]),
    ("cloture", _cloture, [(10, 6, 5, 1), (12, 8, 4, 2), (15, 10, 3, 1), (20, 9, 6, 3),
                           (8, 7, 10, 1), (25, 14, 2, 4), (18, 12, 7, 2)]),
    ("stock", _stock, [(120, 10, 3, 12), (200, 25, 4, 20), (80, 6, 2, 15), (150, 20, 5, 10),
                       (300, 40, 6, 25), (95, 12, 3, 8), (60, 5, 2, 24)]),
    ("piege_raquette", _raquette, [(110, 100), (130, 110), (220, 200)]),
    ("piege_poteaux", _poteaux, [(30, 5), (100, 10), (48, 4)]),
    ("piege_pourcentage", _pourcentage, [(100, 10), (200, 20), (400, 50)]),
    ("piege_machines", _machines, [(5, 100), (3, 60), (7, 70)]),
    ("piege_vitesse_moyenne", _vitesse, [(60, 30, 60), (120, 40, 60), (120, 60, 120)]),
]


@lru_cache(maxsize=1)
def _bank() -> tuple[tuple[WordProblem, _Hidden], ...]:
    out = []
    for family, template, parameter_sets in _TEMPLATES:
        for i, params in enumerate(parameter_sets):
            question, answer, steps, raw_mistakes, *trap = template(i, *params)
            answer = _exact(answer)
            mistakes, seen = [], {answer}
            for name, value in raw_mistakes:
                value = Fraction(value)
                if value.denominator != 1 and value * 100 % 1:
                    continue  # a model would not write that number: drop the mistake
                value = _exact(value)
                if value in seen:
                    continue  # coincides with the truth or another mistake
                seen.add(value)
                mistakes.append((name, value))
            for slip in (answer + 1, answer - 1, answer + 10):  # a plain slip in one operation
                if len(mistakes) >= 2:
                    break
                if slip not in seen:
                    seen.add(slip)
                    name = "erreur_de_calcul" if "erreur_de_calcul" not in dict(mistakes) \
                        else "erreur_de_calcul_2"
                    mistakes.append((name, _exact(slip)))
            problem = WordProblem(id=f"{family}_{i + 1}", question=question, answer=answer,
                                  steps=steps, family=family)
            out.append((problem, _Hidden(tuple(mistakes), trap[0] if trap else None)))
    return tuple(out)


def word_problems() -> list[WordProblem]:
    """The 64 problems (49 ordinary, 15 systematic-mistake ``piege_*``), in template order."""
    return [problem for problem, _hidden in _bank()]


def _hidden(problem: WordProblem | str) -> _Hidden:
    key = problem if isinstance(problem, str) else problem.id
    for candidate, hidden in _bank():
        if candidate.id == key:
            return hidden
    raise KeyError(f"problème inconnu : {key!r}")


def typical_mistakes(problem: WordProblem | str) -> dict[str, int | float]:
    """Mistake name → wrong answer it produces (never equal to the answer)."""
    return dict(_hidden(problem).mistakes)


def systematic_mistake(problem: WordProblem | str) -> str | None:
    """Name of the mistake more tempting than the truth (``piege_*`` families), else ``None``."""
    return _hidden(problem).systematic
