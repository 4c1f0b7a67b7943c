"""The *chat* skill: answers whatever the other skills left, in French, short and honest.

It knows three things and invents nothing:

* an instruction « Réponds uniquement par : X » (or « Réponds seulement avec X », « Reply only
  with: X ») → exactly ``X`` (the connectivity ping « Réponds uniquement par : OK » gives ``OK``);
* a greeting (« Bonjour », « Salut », « Hello »…) or thanks → a greeting / « Avec plaisir » reply;
* anything else → an honest sentence: it is an offline simulator without real knowledge, and a
  real model can be configured in ``.env``.

At temperature 0 the wording is fixed; at temperature > 0 it varies through ``ctx.rng`` only.
"""

from __future__ import annotations

import re

from ...text import fold
from . import SkillContext, content_text, last_user_text

_ONLY_REPLY = re.compile(
    r"(?:r[ée]ponds?|r[ée]pondez|[ée]cris|[ée]crivez|dis|dites|reply|respond|answer|say)"
    r"\s+(?:uniquement|seulement|only|simplement|juste)"
    r"(?P<by>\s+(?:par|avec|with|by))?(?P<colon>\s*[:：])?\s*(?P<answer>[^\n]+)",
    re.IGNORECASE,
)
_QUOTES = "«»\"'“”‘’`"
_GREETINGS = ("bonjour", "bonsoir", "salut", "coucou", "hello", "hi", "hey", "bonne journee")
_THANKS = ("merci", "thanks", "thank you")

_GREETING_REPLIES = (
    "Bonjour ! Je suis le modèle hors ligne du cours. Que puis-je faire pour vous ?",
    "Bonjour ! Ici le simulateur hors ligne du cours : posez votre question.",
    "Salut ! Je suis le modèle simulé du cours, prêt pour vos exercices.",
    "Bonjour à vous ! Le modèle hors ligne vous écoute.",
)
_THANKS_REPLIES = (
    "Avec plaisir !",
    "Je vous en prie !",
    "De rien, bon travail sur le cours !",
)
_HONEST_OPENINGS = (
    "Je suis un simulateur hors ligne ({model}) : je n'ai aucune vraie connaissance du monde.",
    "Je ne suis qu'un modèle simulé ({model}), sans connaissances réelles.",
    "Ici le modèle hors ligne du cours ({model}) : je n'ai pas accès à de vraies connaissances.",
    "Je fonctionne hors ligne ({model}) et ne sais rien du monde réel.",
)
_HONEST_BODIES = (
    "Je ne peux donc pas répondre sérieusement à cette question",
    "Je préfère ne pas inventer de réponse",
    "Toute réponse de ma part serait inventée",
)
_HONEST_CLOSINGS = (
    " ; pour une vraie réponse, configurez un vrai modèle dans le fichier .env "
    "(par exemple OPENAI_API_KEY ou OPENROUTER_API_KEY).",
    " : renseignez une clé d'API dans .env (OPENAI_API_KEY ou OPENROUTER_API_KEY) pour "
    "utiliser un vrai modèle.",
    " ; un vrai modèle peut me remplacer via le fichier .env (OPENAI_API_KEY, "
    "OPENROUTER_API_KEY ou COURSE_BACKEND).",
)


def _pick(options: tuple[str, ...], ctx: SkillContext) -> str:
    if ctx.temperature <= 0:
        return options[0]
    return ctx.rng.choice(options)


def only_reply(text: str) -> str | None:
    """The ``X`` of « Réponds uniquement par : X », cleaned of quotes and a final full stop."""
    match = _ONLY_REPLY.search(text)
    if not match:
        return None
    raw = match.group("answer").strip()
    quoted = raw[:1] in _QUOTES
    answer = raw.strip(_QUOTES).strip()
    if answer.endswith(".") and not answer.endswith(".."):
        answer = answer[:-1].rstrip().strip(_QUOTES).strip()
    # « Réponds uniquement par oui ou non » asks for a choice, not for an echo.
    if not answer or len(answer.split()) > 8 or re.search(r"\b(?:ou|or)\b", answer, re.I):
        return None
    # Without a colon or quotes only a single word is an answer to echo: « Réponds uniquement
    # en français » or « … par des phrases courtes » are style instructions.
    if not match.group("colon") and not quoted and len(answer.split()) > 1:
        return None
    if not (match.group("colon") or match.group("by") or quoted):
        return None
    return answer


def _starts_with(folded: str, words: tuple[str, ...]) -> bool:
    return any(re.match(rf"{re.escape(word)}\b", folded) for word in words)


def respond(request: dict, ctx: SkillContext) -> str:
    """Always answers (the last skill): see the module docstring."""
    text = last_user_text(request).strip()
    answer = only_reply(text)
    for message in request.get("messages") or []:
        if answer is None and message.get("role") in ("system", "developer"):
            answer = only_reply(content_text(message.get("content")))
    if answer is not None:
        return answer
    folded = fold(text)
    if _starts_with(folded, _THANKS):
        return _pick(_THANKS_REPLIES, ctx)
    if _starts_with(folded, _GREETINGS) and len(folded.split()) <= 6:
        return _pick(_GREETING_REPLIES, ctx)
    opening = _pick(_HONEST_OPENINGS, ctx).format(model=ctx.model)
    return f"{opening} {_pick(_HONEST_BODIES, ctx)}{_pick(_HONEST_CLOSINGS, ctx)}"
