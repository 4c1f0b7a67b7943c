"""Word lists the offline model's language understanding relies on (data only, no logic).

Everything is written accent-folded and lower-case (see ``course_utils.text.fold``), except
display names.
The lists are small on purpose: the simulator must stay readable. They are bilingual (French
requests, tool schemas often written in English).
"""

from __future__ import annotations

from ...text import STOP_WORDS

# Concepts: a French or English word (or its ``text.prefix_key``) -> the concepts it evokes. Tool names,
# descriptions and user requests are all mapped through this table, so « météo » meets ``weather``.
CONCEPTS: dict[str, tuple[str, ...]] = {
    "weather": (
        "weather", "meteo", "temps", "temperature", "pluie", "pleut", "pleuvoir", "soleil",
        "ensoleille", "neige", "forecast", "prevision", "climat", "chaud", "froid", "nuageux",
        "vent",
    ),
    "time": ("time", "heure", "hour", "clock", "horloge", "timezone", "fuseau", "now"),
    "reminder": (
        "reminder", "remind", "rappel", "rappelle", "rappeler", "alarme", "todo", "memo",
    ),
    "create": ("create", "cree", "creer", "creation", "new", "nouveau", "nouvelle", "make"),
    "search": (
        "search", "cherche", "chercher", "recherche", "rechercher", "trouve", "trouver", "find",
        "lookup", "query", "requete", "explore",
    ),
    "course": ("course", "cours", "formation", "training", "class", "lesson", "lecon", "module"),
    "tip": ("tip", "pourboire", "gratuity", "service"),
    "news": (
        "news", "actualite", "actu", "nouvelles", "headline", "article", "presse", "journaux",
    ),
    "currency": (
        "currency", "devise", "monnaie", "euro", "dollar", "yen", "livre", "sterling", "franc",
        "exchange", "change", "yuan",
    ),
    "convert": ("convert", "convertir", "convertis", "conversion", "change", "exchange"),
    "route": (
        "route", "itineraire", "trajet", "chemin", "direction", "navigation", "travel", "trip",
        "parcours", "aller", "rendre", "distance",
    ),
    "log": ("log", "logs", "journal", "trace", "traces"),
    "analyze": ("analyze", "analyse", "analyser", "analysis", "examine", "inspect", "diagnostic"),
    "add": ("add", "addition", "additionne", "additionner", "sum", "somme", "plus", "ajoute"),
    "subtract": (
        "subtract", "soustraction", "soustrais", "soustraire", "minus", "moins", "difference",
        "retire", "retrancher",
    ),
    "multiply": (
        "multiply", "multiplie", "multiplier", "multiplication", "product", "produit", "fois",
        "times",
    ),
    "divide": ("divide", "division", "divise", "diviser", "quotient"),
    "power": ("power", "puissance", "exponent", "exposant", "pow", "carre", "square", "cube"),
    "calculate": ("calculate", "calcule", "calculer", "calcul", "compute", "evaluate", "math"),
    "buy": (
        "buy", "acheter", "achete", "achat", "purchase", "book", "booking", "reserve",
        "reserver", "reservation", "commande", "commander", "order", "billet", "ticket",
    ),
    "flight": ("vol", "avion", "flight", "plane", "aeroport", "airport"),
    "email": ("email", "mail", "courriel", "envoyer", "envoie", "send"),
    "price": ("price", "prix", "cout", "cost", "tarif", "cher", "budget"),
    "duration": ("duration", "duree", "hours", "heures", "longueur"),
    "stock": ("stock", "inventaire", "inventory", "disponible", "availability"),
    "event": (
        "event", "evenement", "agenda", "calendrier", "calendar", "rendez", "reunion", "meeting",
        "appointment", "appointments", "rdv", "schedule",
    ),
    "read": ("read", "lire", "lis", "page", "open", "ouvrir", "consulter", "fetch", "document"),
    "translate": ("translate", "traduis", "traduire", "traduction", "translation"),
    "restaurant": ("restaurant", "table", "diner", "dejeuner", "menu"),
    "finish": ("finish", "final", "answer", "reponse", "terminer", "termine", "done"),
}

# Words of a request that name no tool and no value: generic verbs of request and politeness,
# tool-description filler (folded). Added to the grammatical ``text.STOP_WORDS``.
REQUEST_FILLER = frozenset(
    """
    donne donner dis dire fais faire fait peux peut pouvez veux voudrais voulez merci stp svp
    moi-meme reste restent please give return returns tool outil function get set
    renvoie retourne fournit obtenir obtient donnees given current actuel actuelle actuellement
    """.split()
)

# Words that carry no meaning for tool selection (folded).
STOPWORDS = STOP_WORDS | REQUEST_FILLER

# Imperative verbs that open a request; never part of a search query.
REQUEST_VERBS = frozenset(
    """
    trouve trouver cherche chercher recherche rechercher donne dis calcule calculer convertis
    convertir cree creer ajoute montre indique liste lis lire explique resume analyse analyser
    verifie quelles quels quel quelle find search show tell list
    """.split()
)

# Imperatives that start a new request after a colon (« … : réserve une table pour 4 »).
IMPERATIVES = REQUEST_VERBS | frozenset(
    """
    reserve achete commande envoie planifie programme note enregistre supprime annule ouvre
    lance consulte regarde prends mets fixe previens appelle ecris traduis convertis
    """.split()
)

# Tool-side words too generic to count as evidence (``get_`` prefixes and the like).
GENERIC_TOOL_WORDS = frozenset("get set do run tool api func call make list fetch".split())

# Enum values: the folded French (or English) phrases that designate them.
ENUM_SYNONYMS: dict[str, tuple[str, ...]] = {
    "celsius": ("celsius", "degres celsius", "°c"),
    "fahrenheit": ("fahrenheit", "°f"),
    "low": ("basse", "bas", "faible", "peu urgent", "peu importante", "pas urgent"),
    "medium": ("moyenne", "moyen", "normale", "normal"),
    "high": (
        "haute", "haut", "elevee", "eleve", "urgent", "urgente", "importante", "important",
        "prioritaire", "critique",
    ),
    "beginner": ("debutant", "debutante", "debutants", "novice", "initiation", "decouverte"),
    "intermediate": ("intermediaire", "intermediaires"),
    "advanced": ("avance", "avancee", "avances", "expert", "experts", "confirme"),
    "error": ("erreur", "erreurs", "error", "errors", "echec", "echecs"),
    "warning": ("avertissement", "avertissements", "warning", "warnings", "alerte", "alertes"),
    "info": ("info", "infos", "information", "informatif"),
    "debug": ("debug", "debogage"),
    "programming": ("programmation", "developpement", "coder", "code", "programmer"),
    "data": ("donnees", "data", "analyse de donnees"),
    "driving": ("voiture", "auto", "driving", "car", "en voiture"),
    "walking": ("a pied", "pied", "marche", "walking"),
    "transit": ("transports en commun", "transport en commun", "metro", "bus", "train", "transit"),
    "bicycling": ("velo", "bicyclette", "cycling"),
    "cycling": ("velo", "bicyclette", "bicycling"),
}

# Currencies: folded word -> ISO 4217 code.
CURRENCIES: dict[str, str] = {
    "euro": "EUR", "euros": "EUR", "eur": "EUR", "€": "EUR",
    "dollar": "USD", "dollars": "USD", "usd": "USD", "$": "USD", "dollars americains": "USD",
    "yen": "JPY", "yens": "JPY", "jpy": "JPY", "¥": "JPY",
    "livre": "GBP", "livres": "GBP", "livre sterling": "GBP", "livres sterling": "GBP",
    "gbp": "GBP", "£": "GBP",
    "franc suisse": "CHF", "francs suisses": "CHF", "chf": "CHF",
    "dollar canadien": "CAD", "dollars canadiens": "CAD", "cad": "CAD",
    "yuan": "CNY", "yuans": "CNY", "cny": "CNY", "renminbi": "CNY",
}

# Acronyms written in capitals that are words of the request, not codes to pass to a tool.
ACRONYMS = frozenset(
    """
    ia ai ok pdf api url html json csv xml sql faq tva ttc ht pme eti ue usa uk rdv svp stp cv
    rh it ceo cto pc tv gps sms id hh mm ss
    """.split()
)

# Places: folded name -> IANA time zone (the display name is taken from the user's own text).
PLACES: dict[str, str] = {
    "paris": "Europe/Paris", "lyon": "Europe/Paris", "marseille": "Europe/Paris",
    "toulouse": "Europe/Paris", "nice": "Europe/Paris", "nantes": "Europe/Paris",
    "strasbourg": "Europe/Paris", "montpellier": "Europe/Paris", "bordeaux": "Europe/Paris",
    "lille": "Europe/Paris", "rennes": "Europe/Paris", "reims": "Europe/Paris",
    "le havre": "Europe/Paris", "saint-etienne": "Europe/Paris", "toulon": "Europe/Paris",
    "grenoble": "Europe/Paris", "dijon": "Europe/Paris", "angers": "Europe/Paris",
    "nimes": "Europe/Paris", "brest": "Europe/Paris", "tours": "Europe/Paris",
    "limoges": "Europe/Paris", "clermont-ferrand": "Europe/Paris", "annecy": "Europe/Paris",
    "rouen": "Europe/Paris", "metz": "Europe/Paris", "nancy": "Europe/Paris",
    "avignon": "Europe/Paris", "biarritz": "Europe/Paris", "france": "Europe/Paris",
    "bruxelles": "Europe/Brussels", "belgique": "Europe/Brussels",
    "geneve": "Europe/Zurich", "lausanne": "Europe/Zurich", "zurich": "Europe/Zurich",
    "suisse": "Europe/Zurich", "londres": "Europe/London", "london": "Europe/London",
    "royaume-uni": "Europe/London", "dublin": "Europe/Dublin", "berlin": "Europe/Berlin",
    "munich": "Europe/Berlin", "allemagne": "Europe/Berlin", "madrid": "Europe/Madrid",
    "barcelone": "Europe/Madrid", "espagne": "Europe/Madrid", "rome": "Europe/Rome",
    "milan": "Europe/Rome", "italie": "Europe/Rome", "lisbonne": "Europe/Lisbon",
    "amsterdam": "Europe/Amsterdam", "vienne": "Europe/Vienna", "prague": "Europe/Prague",
    "varsovie": "Europe/Warsaw", "athenes": "Europe/Athens", "moscou": "Europe/Moscow",
    "istanbul": "Europe/Istanbul", "stockholm": "Europe/Stockholm", "oslo": "Europe/Oslo",
    "copenhague": "Europe/Copenhagen", "helsinki": "Europe/Helsinki",
    "new york": "America/New_York", "washington": "America/New_York",
    "boston": "America/New_York", "chicago": "America/Chicago",
    "los angeles": "America/Los_Angeles", "san francisco": "America/Los_Angeles",
    "montreal": "America/Toronto", "quebec": "America/Toronto", "toronto": "America/Toronto",
    "vancouver": "America/Vancouver", "mexico": "America/Mexico_City",
    "sao paulo": "America/Sao_Paulo", "rio de janeiro": "America/Sao_Paulo",
    "buenos aires": "America/Argentina/Buenos_Aires", "tokyo": "Asia/Tokyo",
    "japon": "Asia/Tokyo", "osaka": "Asia/Tokyo", "pekin": "Asia/Shanghai",
    "beijing": "Asia/Shanghai", "shanghai": "Asia/Shanghai", "hong kong": "Asia/Hong_Kong",
    "singapour": "Asia/Singapore", "seoul": "Asia/Seoul", "bangkok": "Asia/Bangkok",
    "mumbai": "Asia/Kolkata", "new delhi": "Asia/Kolkata", "delhi": "Asia/Kolkata",
    "dubai": "Asia/Dubai", "sydney": "Australia/Sydney", "melbourne": "Australia/Melbourne",
    "le caire": "Africa/Cairo", "casablanca": "Africa/Casablanca", "dakar": "Africa/Dakar",
    "alger": "Africa/Algiers", "tunis": "Africa/Tunis", "abidjan": "Africa/Abidjan",
    "johannesburg": "Africa/Johannesburg", "nairobi": "Africa/Nairobi",
}

# Capitalised words that are never places (sentence starts, days, months, acronyms of topics).
NOT_PLACES = frozenset(
    """
    quel quelle quels quelles combien comment donne dis cree trouve cherche ajoute calcule
    convertis lundi mardi mercredi jeudi vendredi samedi dimanche janvier fevrier mars avril
    mai juin juillet aout septembre octobre novembre decembre ia ai api je tu il elle nous vous
    le la les un une des machine learning python
    """.split()
)

DAY_WORDS = (
    "apres-demain", "aujourd'hui", "demain", "ce soir", "ce matin", "cet apres-midi",
    "lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche",
)

# French number words (single words only; « un »/« une » are articles far more often).
NUMBER_WORDS: dict[str, int] = {
    "deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "six": 6, "sept": 7, "huit": 8, "neuf": 9,
    "dix": 10, "onze": 11, "douze": 12, "treize": 13, "quatorze": 14, "quinze": 15,
    "seize": 16, "vingt": 20, "trente": 30, "quarante": 40, "cinquante": 50, "soixante": 60,
    "cent": 100, "mille": 1000,
}

# Cues around a number (folded), and the category each one signals.
NUMBER_CUES_AFTER: dict[str, str] = {
    "%": "percent", "pour cent": "percent", "pourcent": "percent", "percent": "percent",
    "€": "money", "euro": "money", "euros": "money", "eur": "money", "$": "money",
    "dollar": "money", "dollars": "money", "usd": "money", "£": "money", "livres": "money",
    "yen": "money", "yens": "money", "chf": "money", "francs": "money",
    "h": "duration", "heure": "duration", "heures": "duration", "hours": "duration",
    "min": "duration", "minute": "duration", "minutes": "duration", "jours": "days",
    "jour": "days", "km": "distance", "kilometres": "distance", "ans": "age",
    "personnes": "people", "personne": "people", "pers": "people", "couverts": "people",
    "°": "temperature", "degres": "temperature",
}
NUMBER_CUES_BEFORE: dict[str, str] = {
    "plus de": "min", "au moins": "min", "minimum": "min", "a partir de": "min",
    "superieur a": "min", "superieure a": "min", "more than": "min", "at least": "min",
    "over": "min", "moins de": "max", "au plus": "max", "maximum": "max",
    "jusqu'a": "max", "sous": "max", "inferieur a": "max", "inferieure a": "max",
    "pas plus de": "max", "less than": "max", "at most": "max", "under": "max", "max": "max",
    "budget de": "max", "€": "money", "$": "money", "£": "money",
    "table pour": "people", "table de": "people",
}

# Parameter-side words (folded, in names or descriptions) -> the number categories they accept.
PARAM_CUES: dict[str, str] = {
    "percent": "percent", "percentage": "percent", "pourcentage": "percent", "pct": "percent",
    "taux": "percent", "rate": "percent", "%": "percent",
    "amount": "money", "montant": "money", "price": "money", "prix": "money", "cost": "money",
    "cout": "money", "bill": "money", "facture": "money", "addition": "money", "total": "money",
    "budget": "money", "somme": "money", "euros": "money",
    "duration": "duration", "duree": "duration", "hours": "duration", "heures": "duration",
    "minutes": "duration", "days": "days", "jours": "days", "distance": "distance",
    "km": "distance", "age": "age", "people": "people", "personnes": "people",
    "guests": "people", "convives": "people", "couverts": "people", "party": "people",
    "temperature": "temperature",
    "min": "min", "minimum": "min", "minimal": "min", "minimale": "min", "least": "min",
    "max": "max", "maximum": "max", "maximal": "max", "maximale": "max", "most": "max",
}

# French key names for rendering tool results in answers.
KEY_LABELS: dict[str, str] = {
    "temperature": "température", "temp": "température", "humidity": "humidité",
    "wind": "vent", "wind_speed": "vent", "time": "heure", "datetime": "date et heure",
    "date": "date", "timezone": "fuseau", "title": "titre", "status": "statut",
    "priority": "priorité", "price": "prix", "duration": "durée", "result": "résultat",
    "total": "total", "tip": "pourboire", "tip_amount": "pourboire", "amount": "montant",
    "converted": "montant converti", "converted_amount": "montant converti", "rate": "taux",
    "distance": "distance", "quantite": "quantité", "quantity": "quantité", "stock": "stock",
    "count": "nombre", "level": "niveau", "message": "message", "summary": "résumé",
    "location": "lieu", "city": "ville", "origin": "départ", "destination": "arrivée",
    "mode": "mode", "name": "nom", "category": "catégorie", "source": "source",
}
