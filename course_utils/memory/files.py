"""What is this file? — the checks ``VectorMemory`` runs before it touches a path, and the JSON
formats it exports and imports.

A memory file is an SQLite database whose ``meta`` table says ``format = course_utils.memory``.
Anything else found at the path — random bytes, a truncated database, another program's SQLite
file, the original course's JSON memory — is refused with a French message, and the file is left
exactly as it was (it is only read, never opened for writing).

JSON: ``export_json`` writes ``{"format": "course_utils.memory", "version": 1, "embedder": ...,
"entries": [...]}`` (texts, lessons, domains, metadata and access counts; no vectors, so any
embedder can re-import it). ``import_json`` also reads the original course's JSON memory: a list
of records (or a dict holding one under ``memories``/``lessons``/``entries``/``items``) whose text
is under ``task``/``text``/``problem``/``query``/``question`` and whose lesson is under
``lesson``/``reflection``/``insight``/``lecon``; an ``embedding`` field is ignored (re-embedded).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FORMAT = "course_utils.memory"
SCHEMA_VERSION = 1
SQLITE_HEADER = b"SQLite format 3\x00"

TEXT_KEYS = ("text", "task", "problem", "probleme", "query", "question", "context")
LESSON_KEYS = ("lesson", "lecon", "leçon", "reflection", "reflexion", "insight", "memory")
LIST_KEYS = ("entries", "memories", "lessons", "items", "memory", "data")
SKIPPED_KEYS = {"embedding", "vector", "embeddings", "id"}


class MemoryFileError(RuntimeError):
    """A path that is not (or no longer) a usable memory file; the message (French) says why."""


def sniff(path: Path) -> str:
    """``missing``, ``empty``, ``sqlite``, ``json`` or ``unknown`` from the file's first bytes."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(64)
    except FileNotFoundError:
        return "missing"
    except IsADirectoryError:
        return "directory"
    if not head:
        return "empty"
    if head.startswith(SQLITE_HEADER):
        return "sqlite"
    if head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] in (b"{", b"["):
        return "json"
    return "unknown"


def refusal(path: Path, kind: str) -> MemoryFileError:
    """The French message for a path that cannot be opened as a memory (``kind`` from ``sniff``)."""
    untouched = "Le fichier n'a pas été modifié."
    if kind == "directory":
        return MemoryFileError(f"« {path} » est un dossier, pas un fichier de mémoire : donnez le "
                               "chemin d'un fichier, par exemple memoire.db.")
    if kind == "empty":
        return MemoryFileError(f"« {path} » est un fichier vide, pas une mémoire : supprimez-le ou "
                               f"choisissez un autre chemin. {untouched}")
    if kind == "json":
        return MemoryFileError(
            f"« {path} » est un fichier JSON (par exemple la mémoire du cours d'origine), pas une "
            "base VectorMemory : ouvrez une mémoire sur un nouveau fichier .db puis importez-le "
            f"avec memoire.import_json({str(path)!r}). {untouched}"
        )
    return MemoryFileError(
        f"« {path} » n'est pas un fichier de mémoire (ni une base SQLite, ni un JSON) : fichier "
        f"d'un autre programme ou corrompu. Choisissez un autre chemin. {untouched}"
    )


def corrupted(path: Path, detail: str) -> MemoryFileError:
    return MemoryFileError(
        f"« {path} » est une base SQLite endommagée ou tronquée ({detail}) : elle ne peut pas être "
        "lue. Restaurez une sauvegarde (export_json) ou choisissez un autre chemin. "
        "Le fichier n'a pas été modifié."
    )


def foreign(path: Path) -> MemoryFileError:
    return MemoryFileError(
        f"« {path} » est une base SQLite d'un autre programme, pas une mémoire VectorMemory : "
        "choisissez un autre chemin. Le fichier n'a pas été modifié."
    )


def embedder_mismatch(path: Path, stored: tuple[str, int], given: tuple[str, int]) -> MemoryFileError:
    return MemoryFileError(
        f"« {path} » a été créée avec l'embedder « {stored[0]} » (dimension {stored[1]}), pas avec "
        f"« {given[0]} » (dimension {given[1]}) : ses vecteurs ne se comparent pas. Rouvrez-la avec "
        "le même embedder, ou exportez-la (export_json) et réimportez-la dans une nouvelle mémoire "
        "(import_json réencode les textes). Le fichier n'a pas été modifié."
    )


# --------------------------------------------------------------------------- JSON


@dataclass(frozen=True)
class Record:
    text: str
    lesson: str
    domain: str | None = None
    metadata: dict | None = None
    access_count: int = 0


def _first(record: dict, keys: tuple[str, ...]) -> Any:
    for key in keys:
        value = record.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return None


def _records_list(data: Any) -> list | None:
    if isinstance(data, list):
        return data
    if isinstance(data, dict):
        for key in LIST_KEYS:
            if isinstance(data.get(key), list):
                return data[key]
    return None


def read_records(path: str | os.PathLike) -> list[Record]:
    """Records of an exported memory or of the original course's JSON memory (French errors)."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise MemoryFileError(f"« {path} » n'existe pas : rien à importer.") from None
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise MemoryFileError(
            f"« {path} » n'est pas un JSON lisible ({exc.__class__.__name__} : {exc}) : fichier "
            "tronqué ou d'un autre format. Rien n'a été importé."
        ) from None
    if isinstance(data, dict) and data.get("format") == FORMAT:
        version = data.get("version")
        if not isinstance(version, int) or version > SCHEMA_VERSION:
            raise MemoryFileError(f"« {path} » vient d'une version plus récente du format "
                                  f"({version!r}) : mettez course_utils à jour. Rien n'a été importé.")
    items = _records_list(data)
    if items is None:
        raise MemoryFileError(
            f"« {path} » est un JSON, mais pas une mémoire : on attend une liste de leçons (ou un "
            "objet avec « entries »/« memories »/« lessons »). Rien n'a été importé."
        )
    records = []
    for number, item in enumerate(items, 1):
        if not isinstance(item, dict):
            raise MemoryFileError(f"« {path} » : l'élément n° {number} n'est pas un objet JSON. "
                                  "Rien n'a été importé.")
        text, lesson = _first(item, TEXT_KEYS), _first(item, LESSON_KEYS)
        if text is None and lesson is None:
            raise MemoryFileError(
                f"« {path} » : l'élément n° {number} n'a ni texte (« text », « task »…) ni leçon "
                "(« lesson », « reflection »…). Rien n'a été importé."
            )
        metadata = item.get("metadata") if isinstance(item.get("metadata"), dict) else {}
        known = set(TEXT_KEYS) | set(LESSON_KEYS) | SKIPPED_KEYS | {"domain", "metadata",
                                                                    "access_count", "last_used",
                                                                    "created_at"}
        extra = {key: value for key, value in item.items() if key not in known}
        domain = item.get("domain")
        count = item.get("access_count")
        records.append(Record(
            text=text or lesson,
            lesson=lesson or "",
            domain=domain if isinstance(domain, str) else None,
            metadata={**extra, **metadata} or None,
            access_count=count if isinstance(count, int) and count >= 0 else 0,
        ))
    return records


def write_json_atomically(path: Path, payload: dict) -> None:
    """Write ``payload`` to ``path`` through a temporary file and an atomic rename."""
    temporary = path.with_name(path.name + ".tmp")
    with open(temporary, "w", encoding="utf-8") as handle:
        json.dump(payload, handle, ensure_ascii=False, indent=1)
        handle.write("\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)
