"""Synthetic lessons for benchmarks and retrieval measurements: no download, deterministic.

Each lesson belongs to a *family* of problems sharing a pitfall (the families of the course's
problem bank: inclusive bounds, rule concatenation order, empty input, negative numbers and floor
division, case and accents, mutable default argument, float rounding). A lesson pairs a task text
(what a later query is compared with) with an instructive lesson (the failing test and the rule
to remember). Templates are varied so that two members of a family share the pitfall's words,
not the whole sentence.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

FAMILIES: dict[str, dict[str, list[str]]] = {
    "bornes_inclusives": {
        "tasks": [
            "Écris une fonction `{f}(a, b)` qui renvoie la somme des entiers de a à b, bornes comprises.",
            "Écris `{f}(debut, fin)` : la liste des multiples de {n} entre debut et fin inclus.",
            "Écris une fonction `{f}(n)` qui compte les nombres pairs de 1 à n (n compris).",
            "Écris `{f}(a, b)` qui renvoie le produit des entiers de l'intervalle [a, b].",
            "Écris `{f}(annee1, annee2)` qui compte les années bissextiles de annee1 à annee2 incluses.",
            "Écris `{f}(n)` qui renvoie la liste des carrés de 1 à n, n inclus.",
        ],
        "lessons": [
            "`{f}({x}, {y})` a renvoyé {bad} au lieu de {good} : range(a, b) exclut b ; pour une borne "
            "incluse, écrire range(a, b + 1).",
            "Échec sur `{f}({x}, {y})` : la borne haute était oubliée. Règle : « de a à b inclus » "
            "veut dire range(a, b + 1).",
            "Le test `{f}({y})` échoue d'une unité : erreur de borne (off-by-one). Vérifier la borne "
            "finale incluse.",
        ],
    },
    "ordre_concatenation": {
        "tasks": [
            "Écris `{f}(n)` : renvoie « Fizz » pour les multiples de 3, « Buzz » pour 5, « Bazz » "
            "pour 7, et la concaténation dans l'ordre 3, 5, 7 sinon le nombre.",
            "Écris une fonction `{f}(n)` qui renvoie une chaîne formée des mots de chaque règle "
            "vérifiée par n (diviseurs {n}, {m}), concaténés dans l'ordre des règles.",
            "Écris `{f}(n)` : FizzBuzz étendu, les étiquettes des diviseurs se mettent bout à bout.",
            "Écris `{f}(mots, n)` qui applique des règles successives et assemble les suffixes "
            "dans l'ordre où les règles sont données.",
        ],
        "lessons": [
            "`{f}({z})` a renvoyé « BuzzFizz » au lieu de « FizzBuzz » : les règles se concatènent "
            "dans l'ordre 3, 5, 7, pas dans l'ordre inverse.",
            "Échec sur `{f}({z})` : je testais 15 avant 3 et 5 et j'oubliais 21 et 35. Règle : "
            "concaténer les étiquettes dans l'ordre des règles au lieu de traiter les cas combinés.",
            "Les combinaisons de règles étaient dans le mauvais ordre : construire la chaîne en "
            "parcourant les règles dans l'ordre 3, 5, 7.",
        ],
    },
    "entree_vide": {
        "tasks": [
            "Écris `{f}(valeurs)` qui renvoie la moyenne d'une liste de nombres (0 pour une liste vide).",
            "Écris une fonction `{f}(liste)` qui renvoie le plus grand élément, ou None si la liste "
            "est vide.",
            "Écris `{f}(texte)` qui renvoie le mot le plus long d'une phrase (chaîne vide si la "
            "phrase est vide).",
            "Écris `{f}(notes)` qui renvoie l'écart entre la meilleure et la pire note d'une liste, "
            "0 si elle est vide.",
            "Écris `{f}(s)` qui renvoie le premier caractère répété d'une chaîne, ou '' s'il n'y en a pas.",
        ],
        "lessons": [
            "`{f}([])` a levé ZeroDivisionError au lieu de renvoyer 0 : traiter l'entrée vide avant "
            "de diviser par len(valeurs).",
            "Échec sur `{f}([])` : max() d'une séquence vide lève ValueError. Règle : tester le cas "
            "vide en premier.",
            "Le test avec une liste vide échoue (IndexError sur liste[0]) : toujours prévoir "
            "l'entrée vide.",
        ],
    },
    "negatifs_division": {
        "tasks": [
            "Écris `{f}(n)` qui renvoie le chiffre des unités d'un entier, y compris négatif.",
            "Écris une fonction `{f}(a, b)` qui renvoie le quotient entier de a par b tronqué vers zéro.",
            "Écris `{f}(n)` qui renvoie la somme des chiffres d'un entier (le signe est ignoré).",
            "Écris `{f}(minutes)` qui convertit un nombre de minutes, éventuellement négatif, en "
            "heures entières arrondies vers zéro.",
            "Écris `{f}(n)` qui dit si un entier relatif est impair.",
        ],
        "lessons": [
            "`{f}(-{x})` a renvoyé {bad} au lieu de {good} : en Python, // arrondit vers moins "
            "l'infini ; pour tronquer vers zéro, utiliser int(a / b) ou traiter le signe à part.",
            "Échec sur `{f}(-{x})` : -7 % 10 vaut 3 en Python. Règle : prendre abs(n) avant % et //.",
            "Les nombres négatifs cassent // et % : travailler sur la valeur absolue puis remettre "
            "le signe.",
        ],
    },
    "casse_accents": {
        "tasks": [
            "Écris `{f}(mot)` qui dit si un mot est un palindrome, sans tenir compte des majuscules "
            "ni des accents.",
            "Écris une fonction `{f}(texte)` qui compte les voyelles d'un texte français (é, è, à comptent).",
            "Écris `{f}(a, b)` qui dit si deux mots sont des anagrammes, casse et accents ignorés.",
            "Écris `{f}(noms)` qui trie une liste de prénoms dans l'ordre alphabétique français "
            "(Émile avant Zoé).",
            "Écris `{f}(phrase)` qui renvoie les mots d'une phrase sans doublons, « Été » et « été » "
            "étant le même mot.",
        ],
        "lessons": [
            "`{f}(\"Été\")` a renvoyé False au lieu de True : comparer après lower() et après avoir "
            "retiré les accents (unicodedata.normalize('NFD')).",
            "Échec sur `{f}(\"Émile\")` : « É » n'est pas « e ». Règle : normaliser la casse et les "
            "accents avant de comparer des chaînes.",
            "Le tri plaçait « Émile » après « Zoé » : trier sur une clé sans accents et en minuscules.",
        ],
    },
    "defaut_mutable": {
        "tasks": [
            "Écris `{f}(element, liste=None)` qui ajoute un élément à une liste et la renvoie "
            "(une nouvelle liste à chaque appel sans argument).",
            "Écris une fonction `{f}(cle, valeur, registre=None)` qui enregistre une paire dans un "
            "dictionnaire et le renvoie.",
            "Écris `{f}(mot, vus=None)` qui renvoie l'ensemble des mots déjà vus, en partant d'un "
            "ensemble vide à chaque nouvel appel.",
            "Écris `{f}(tache, file=None)` qui ajoute une tâche à une file d'attente indépendante "
            "pour chaque appel.",
        ],
        "lessons": [
            "Le deuxième appel `{f}({x})` a renvoyé [{y}, {x}] au lieu de [{x}] : un argument par "
            "défaut mutable (liste=[]) est partagé entre les appels ; écrire liste=None puis créer la liste.",
            "Échec au deuxième appel de `{f}` : la valeur par défaut {{}} est créée une seule fois. "
            "Règle : jamais de liste ou de dictionnaire comme valeur par défaut.",
            "Les appels successifs partageaient le même ensemble : utiliser None comme défaut et "
            "créer l'objet dans la fonction.",
        ],
    },
    "arrondi_flottants": {
        "tasks": [
            "Écris `{f}(prix, taux)` qui renvoie le prix TTC arrondi au centime.",
            "Écris une fonction `{f}(a, b)` qui dit si deux flottants sont égaux à 1e-9 près.",
            "Écris `{f}(montants)` qui renvoie la somme d'une liste de montants en euros, arrondie "
            "à deux décimales.",
            "Écris `{f}(x)` qui arrondit un nombre à l'entier le plus proche, les demis vers le haut "
            "(2,5 donne 3).",
            "Écris `{f}(notes)` qui renvoie la moyenne arrondie au dixième.",
        ],
        "lessons": [
            "`{f}(0.1, 0.2)` a renvoyé False : 0.1 + 0.2 != 0.3 en flottants ; comparer avec "
            "math.isclose ou une tolérance.",
            "Échec sur `{f}(2.5)` : round() arrondit au pair (arrondi bancaire), round(2.5) vaut 2. "
            "Règle : utiliser math.floor(x + 0.5) ou decimal pour les demis.",
            "Le test `{f}({x}.{y}5)` échoue au centime près : les flottants binaires ne représentent "
            "pas les centimes exactement ; arrondir avec decimal.Decimal et ROUND_HALF_UP.",
        ],
    },
}

_NAMES = ["somme", "compte", "liste", "calcule", "total", "valeur", "trouve", "produit", "filtre",
          "moyenne", "plus_grand", "nettoie", "compare", "ajoute", "convertit", "verifie", "range",
          "regroupe", "mesure", "extrait"]
_SUFFIXES = ["", "_entiers", "_mots", "_valeurs", "_notes", "_v2", "_rapide", "_liste", "_texte"]


@dataclass(frozen=True)
class SyntheticLesson:
    text: str
    lesson: str
    family: str


def _fill(template: str, rng: random.Random, function: str) -> str:
    x, y = rng.randint(2, 40), rng.randint(41, 99)
    good = rng.randint(100, 999)
    return template.format(f=function, n=rng.choice([3, 4, 5, 6, 7]), m=rng.choice([9, 11, 13]),
                           x=x, y=y, z=rng.choice([15, 21, 35, 105]), good=good,
                           bad=good - rng.choice([1, x, y]))


def synthetic_lessons(n: int, *, seed: int = 0, families: list[str] | None = None,
                      task_templates: slice = slice(None)) -> list[SyntheticLesson]:
    """``n`` lessons cycling over ``families`` (default: all), deterministic for a ``seed``.
    ``task_templates`` selects which task templates of each family are used (a slice), so that
    queries can be drawn from templates the stored lessons never used."""
    rng = random.Random(seed)
    names = families or sorted(FAMILIES)
    out = []
    for number in range(n):
        family = names[number % len(names)]
        spec = FAMILIES[family]
        function = rng.choice(_NAMES) + rng.choice(_SUFFIXES)
        task = _fill(rng.choice(spec["tasks"][task_templates]), rng, function)
        lesson = _fill(rng.choice(spec["lessons"]), rng, function)
        out.append(SyntheticLesson(task, lesson, family))
    return out
