"""Text normalisation (course_utils.text): one place for folding, words, stems and stop words."""

from __future__ import annotations

from course_utils import corpus, text
from course_utils.offline import embeddings
from course_utils.offline.understanding import lexicon, nlu


def test_fold_lowers_removes_accents_and_keeps_the_length():
    source = "Été à l’Hôtel\u00a0Œuvre"
    folded = text.fold(source)
    assert folded == "ete a l'hotel œuvre"
    assert len(folded) == len(source)  # spans found in the folded text cut the original one


def test_words_and_content_words():
    assert text.words("L'IA : 42,5 € à Paris") == ["l", "ia", "42", "5", "a", "paris"]
    assert text.content_words("Quels concurrents ont ajouté un Kanban en 2025 ?") == [
        "concurrents", "ajoute", "kanban", "2025"]
    # words that carry meaning in a request are not stop words
    assert {"plus", "moins", "meteo"}.isdisjoint(text.STOP_WORDS)


def test_stem_conflates_inflections_and_keeps_distinct_words_apart():
    assert {text.stem(w) for w in ("ajouté", "ajoute", "ajoutent", "Ajoutées")} == {"ajout"}
    assert text.stem("tableaux") == text.stem("tableau")
    assert text.stem("entre") != text.stem("entreprise")
    assert text.stem("2025") == "2025" and text.stem("123456") == "123456"


def test_prefix_key_is_coarser_and_matches_across_derivations():
    assert text.prefix_key("réservation") == text.prefix_key("réserver") == "reser"
    assert text.prefix_key("transports") == text.prefix_key("transit")
    assert text.prefix_key("Prix") == "pri" and text.prefix_key("mai") == "mai"
    assert text.prefix_key("123456") == "123456"


def test_every_user_normalises_through_this_module():
    sample = "Les Élèves ont ajouté des Tableaux"
    # the corpus's search terms and the embeddings' features are the same stemmed content words
    assert corpus.tokenize(sample) == embeddings.normalise_words(sample) == [
        text.stem(w) for w in text.content_words(sample)]
    # the language understanding folds and splits with the same functions
    assert nlu.fold is text.fold and nlu.words is text.words
    # its stop list is the shared one plus the words of a request that name no tool
    assert text.STOP_WORDS <= lexicon.STOPWORDS
    assert lexicon.STOPWORDS - text.STOP_WORDS == lexicon.REQUEST_FILLER
