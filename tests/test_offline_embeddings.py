"""Offline embeddings through the SDK: deterministic, unit norm, lexical similarity."""

from __future__ import annotations

import math

import openai
import pytest

from course_utils.offline import OFFLINE_EMBEDDING_MODEL, OfflineModel
from course_utils.offline.embeddings import DIMENSIONS, embed, normalise_words


def vectors(texts, seed=0, **kwargs):
    client = OfflineModel(seed=seed).client()
    response = client.embeddings.create(model=OFFLINE_EMBEDDING_MODEL, input=texts, **kwargs)
    return response, [item.embedding for item in response.data]


def cosine(a, b):
    return sum(x * y for x, y in zip(a, b))


def test_vectors_are_deterministic_unit_norm_in_both_encodings():
    texts = ["chat noir", "Le chat dort.", "bourse de Paris"]
    response, first = vectors(texts)  # the SDK asks for base64 by default
    _, again = vectors(texts, seed=5)  # the seed does not change embeddings
    _, floats = vectors(texts, encoding_format="float")
    assert first == again
    assert [len(v) for v in first] == [DIMENSIONS] * 3
    for a, b in zip(first, floats):
        assert math.isclose(math.sqrt(sum(x * x for x in a)), 1.0, rel_tol=1e-5)
        assert max(abs(x - y) for x, y in zip(a, b)) < 1e-6  # float32 round trip
    assert [item.index for item in response.data] == [0, 1, 2]
    assert response.model == OFFLINE_EMBEDDING_MODEL
    assert response.usage.prompt_tokens == response.usage.total_tokens > 0


def test_shared_words_make_texts_closer():
    _, (black_cat, sleeping_cat, stock_exchange) = vectors(
        ["chat noir", "le chat dort", "bourse de Paris"])
    assert cosine(black_cat, sleeping_cat) > cosine(black_cat, stock_exchange) + 0.2


def test_accents_case_and_plurals_are_folded():
    assert normalise_words("Les Élèves étudient") == normalise_words("les eleves etudient")
    assert cosine(embed("les chats noirs"), embed("chat noir")) > 0.99


def test_dimensions_shrinks_the_vector():
    _, (vector,) = vectors(["agent"], dimensions=64, encoding_format="float")
    assert len(vector) == 64
    assert math.isclose(sum(x * x for x in vector), 1.0, rel_tol=1e-6)


@pytest.mark.parametrize("model", ["offline-fast", "text-embedding-3-small"])
def test_a_non_embedding_model_is_rejected(model):
    client = OfflineModel(seed=0).client()
    with pytest.raises(openai.BadRequestError) as info:
        client.embeddings.create(model=model, input="x")
    assert info.value.code == "model_not_found"
    assert model in info.value.message and OFFLINE_EMBEDDING_MODEL in info.value.message


def test_any_offline_embed_name_is_accepted():
    client = OfflineModel(seed=0).client()
    response = client.embeddings.create(model="offline-embed-small", input="x")
    assert response.model == "offline-embed-small"


@pytest.mark.parametrize("bad_input", [[], "", [1, 2, 3]])
def test_invalid_inputs_are_rejected(bad_input):
    client = OfflineModel(seed=0).client()
    with pytest.raises(openai.BadRequestError):
        client.embeddings.create(model=OFFLINE_EMBEDDING_MODEL, input=bad_input)
