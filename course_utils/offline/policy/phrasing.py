"""How the offline model words things, and where sampling lets it vary.

At temperature 0 (or absent) every text is the first template of its list: the wording the
lessons' committed outputs show. At temperature > 0 a ``Voice`` picks among the templates with
``ctx.rng`` (the server seeds it from the request and the sample index), so repeated identical
requests give a reproducible sequence of different samples. The first pick of a response turns
with the sample index, so that two successive samples of the same request never share it.
Only wording varies (and, in research, the choice among near-equal next reads): which tools are
called and with which arguments stays the same.
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import Sequence, TypeVar

T = TypeVar("T")


def _stable_hash(request: dict | None) -> int:
    try:
        text = json.dumps(request or {}, sort_keys=True, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        text = repr(request)
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:4], "big")


class Voice:
    """Template picker for one response (see the module docstring)."""

    def __init__(self, ctx=None, request: dict | None = None):
        temperature = float(getattr(ctx, "temperature", 0.0) or 0.0)
        self.varies = temperature > 0
        self.rng: random.Random = getattr(ctx, "rng", None) or random.Random(0)
        self._offset = (_stable_hash(request) + int(getattr(ctx, "sample_index", 0) or 0)
                        if self.varies else 0)
        self._first = True

    def index(self, count: int) -> int:
        if not self.varies or count <= 1:
            return 0
        if self._first:
            self._first = False
            return self._offset % count
        return self.rng.randrange(count)

    def say(self, templates: Sequence[str], **fields) -> str:
        """One of ``templates`` (the first at temperature 0), formatted with ``fields``."""
        return templates[self.index(len(templates))].format(**fields)

    def say_or_none(self, templates: Sequence[str | None], **fields) -> str | None:
        """Like ``say``, for lists whose first entry is ``None`` (nothing said at temperature 0)."""
        chosen = templates[self.index(len(templates))]
        return chosen.format(**fields) if chosen is not None else None

    def pick(self, options: Sequence[T]) -> T:
        """One of near-equal ``options`` (the first at temperature 0)."""
        return options[self.rng.randrange(len(options))] if self.varies and options else options[0]


STEADY = Voice()  # temperature 0: always the first template

# --------------------------------------------------------------------------- templates
# The first template of each list is the temperature-0 wording: do not change it lightly, the
# lessons' committed outputs show it.

CALLS_AFTER_FAILURE = (
    "L'appel précédent a échoué ; je le remplace par {calls}.",
    "Échec de l'appel précédent : j'essaie plutôt {calls}.",
    "L'outil a renvoyé une erreur ; je corrige avec {calls}.",
)
CALLS_NEXT = (
    "D'après les observations, l'étape suivante est {calls}.",
    "Les observations me donnent ce qu'il faut pour {calls}.",
    "Avec ces résultats, je peux maintenant appeler {calls}.",
    "Étape suivante, d'après ce que j'ai observé : {calls}.",
    "Je poursuis avec {calls}.",
)
CALLS_PARALLEL = (
    "Ces appels sont indépendants : j'appelle {calls} dans le même tour.",
    "Rien ne lie ces demandes : {calls}, en un seul tour.",
    "J'appelle en parallèle {calls}.",
    "Demandes indépendantes : {calls}, ensemble.",
    "Un seul tour suffit pour {calls}.",
)
CALLS_ONE = (
    "Pour répondre, j'appelle {calls}.",
    "J'ai besoin de {calls}.",
    "Je commence par {calls}.",
    "Premier appel : {calls}.",
    "Il me faut {calls} pour répondre.",
)
CALLS_DEFERRED = (
    "Il me faut d'abord {calls} ; la suite dépend de son résultat.",
    "Je commence par {calls}, dont le résultat me donnera la valeur manquante.",
    "Avant tout, {calls} : j'en ai besoin pour la suite.",
    "La valeur manquante viendra de {calls} : je commence par là.",
    "D'abord {calls}, puis l'appel qui en dépend.",
)
CALLS_SILENT = (  # tool use at temperature > 0: an optional one-line thought with the calls
    None,
    "Je vais chercher l'information avec {calls}.",
    "Appel d'outil : {calls}.",
    "Je consulte {calls}.",
)
FINISH_FAILED = (
    "Un appel a échoué : je termine en le signalant.",
    "Je n'ai pas pu tout obtenir : je termine en disant ce qui a échoué.",
    "Un outil a échoué ; je l'indique dans ma réponse finale.",
)
FINISH_QUESTION = (
    "Il me manque une information : je termine en la demandant.",
    "Je ne peux pas appeler l'outil sans une précision : je la demande.",
    "Une valeur me manque ; je termine en posant la question.",
)
FINISH_NOTHING = (
    "Aucun outil ne convient à cette demande : je termine.",
    "Aucun de mes outils ne sert ici : je termine.",
    "Je n'ai pas d'outil pour cela : je termine.",
)
FINISH_DONE = (
    "J'ai les observations nécessaires : je termine.",
    "Les observations suffisent pour répondre : je termine.",
    "J'ai tout ce qu'il faut : je donne la réponse finale.",
    "Les résultats répondent à la demande : je conclus.",
    "Plus besoin d'outil : je réponds.",
)
RESULTS_OPENING = (
    "Voici ce que j'ai obtenu :",
    "Voici les résultats :",
    "D'après les outils :",
    "Résultats obtenus :",
)
PARTIAL_OPENING = (
    "Réponse partielle (je n'ai pas pu terminer toutes les étapes) :",
    "Réponse incomplète, faute d'étapes :",
    "Je n'ai pas pu aller au bout ; voici ce que j'ai :",
)
SEARCH_FIRST = (
    "Je cherche des sources sur : {query}.",
    "Je commence par une recherche : {query}.",
    "Première étape, chercher : {query}.",
    "Je lance une recherche sur : {query}.",
    "Cherchons d'abord : {query}.",
)
READ_NEXT = (
    "Je lis {page} (« {title} »), le résultat pertinent suivant.",
    "{page} (« {title} ») semble pertinent : je le lis.",
    "Je vérifie {page} (« {title} »).",
    "Je consulte {page} (« {title} »).",
    "Lecture de {page} (« {title} ») pour vérifier.",
)
STOP_RULE = (
    "Règle d'arrêt atteinte ({reached}) : je termine.",
    "J'ai atteint la règle d'arrêt ({reached}) : je m'arrête.",
    "Règle d'arrêt ({reached}) : je donne ma réponse.",
)
PAGE_ANSWERS = (
    "La page lue répond à la question : je termine.",
    "Cette page répond à la question : je termine.",
    "J'ai trouvé la réponse dans la page lue : je termine.",
    "La réponse est dans la page lue : je conclus.",
    "Cette lecture suffit : je réponds.",
)
ALL_READ = (
    "J'ai lu toutes les pages pertinentes : je termine.",
    "Toutes les pages pertinentes sont lues : je termine.",
    "Plus de page pertinente à lire : je réponds.",
    "J'ai fait le tour des pages pertinentes : je conclus.",
    "Lecture terminée : je rédige la réponse.",
)
NOTHING_NEW = (
    "Plus rien de nouveau à lire : je termine avec ce que j'ai.",
    "Je n'ai plus rien de nouveau à lire : je termine.",
    "Aucune nouvelle piste : je termine avec ce que j'ai.",
)
REWORD = (
    "Je reformule la recherche : {query}.",
    "Je relance la recherche autrement : {query}.",
    "Nouvelle recherche, plus ciblée : {query}.",
)
PAGES_SAY = (
    "D'après les pages lues : ",
    "Selon les pages consultées : ",
    "Les pages lues indiquent : ",
)
