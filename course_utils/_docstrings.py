"""Read a function's docstring: its summary and one description per parameter.

Understood layouts (section names in English or French, any case, ``:`` with or without a space):

* Google::

      Args:                      (or Arguments :, Parameters:, Paramètres :, Params:)
          location (str): La ville.
          unit: L'unité,
              sur plusieurs lignes.

* NumPy::

      Parameters                 (or Paramètres)
      ----------
      location : str
          La ville.

* reST: ``:param location: La ville.``

The summary is the text before the first section, each paragraph joined into one line, paragraphs
separated by a blank line. Other sections (Returns, Raises, Exemples, ...) are ignored.
"""

from __future__ import annotations

import re

PARAM_SECTIONS = {
    "args", "arguments", "parameters", "params", "paramètres", "parametres",
    "keyword args", "keyword arguments", "other parameters", "autres paramètres",
}
OTHER_SECTIONS = {
    "returns", "return", "yields", "yield", "raises", "raise", "examples", "example", "notes",
    "note", "see also", "references", "warnings", "warning", "warns", "attributes", "todo",
    "retourne", "retour", "renvoie", "valeur de retour", "valeurs de retour", "exceptions",
    "lève", "leve", "exemple", "exemples", "remarque", "remarques", "voir aussi", "références",
    "attention", "avertissement",
}
_GOOGLE_HEADER = re.compile(r"^([^\W\d][\w ]*?)\s*:$")
_UNDERLINE = re.compile(r"^\s*-{3,}\s*$")
_GOOGLE_PARAM = re.compile(r"^\*{0,2}(\w+)\s*(?:\(([^)]*)\))?\s*:\s*(.*)$")
_NUMPY_PARAM = re.compile(r"^\*{0,2}\w+(?:\s*,\s*\*{0,2}\w+)*\s*(?::.*)?$")
_REST_PARAM = re.compile(r"^:param\s+(?:[^:]*\s)?\*{0,2}(\w+)\s*:\s*(.*)$")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _header(lines: list[str], i: int) -> tuple[str, str] | None:
    """(kind, style) when line ``i`` opens a section: kind "params"/"other", style google/numpy."""
    line = lines[i].strip()
    nxt = lines[i + 1] if i + 1 < len(lines) else ""
    if line and _UNDERLINE.match(nxt):
        name = line.lower()
        if name in PARAM_SECTIONS:
            return "params", "numpy"
        if name in OTHER_SECTIONS:
            return "other", "numpy"
    match = _GOOGLE_HEADER.match(line)
    if match:
        name = re.sub(r"\s+", " ", match.group(1).strip().lower())
        if name in PARAM_SECTIONS:
            return "params", "google"
        if name in OTHER_SECTIONS:
            return "other", "google"
    return None


def _join(parts: list[str]) -> str:
    return " ".join(p.strip() for p in parts if p.strip())


def _summary(lines: list[str]) -> str:
    paragraphs: list[list[str]] = [[]]
    for line in lines:
        if line.strip():
            paragraphs[-1].append(line)
        elif paragraphs[-1]:
            paragraphs.append([])
    return "\n\n".join(_join(p) for p in paragraphs if p)


def _google_declaration(text: str) -> tuple[list[str], str] | None:
    match = _GOOGLE_PARAM.match(text)
    return ([match.group(1)], match.group(3)) if match else None


def _numpy_declaration(text: str) -> tuple[list[str], str] | None:
    if not _NUMPY_PARAM.match(text):
        return None
    return [n.lstrip("*") for n in re.split(r"\s*,\s*", text.split(":")[0].strip())], ""


def _section_params(body: list[str], declaration) -> dict[str, str]:
    """Group a parameter section's lines under the names declared at its base indentation."""
    found: dict[str, list[str]] = {}
    base = min((_indent(line) for line in body if line.strip()), default=0)
    current: list[str] = []
    for line in body:
        if not line.strip():
            continue
        declared = declaration(line.strip()) if _indent(line) == base else None
        if declared is not None:
            current, first = declared
            for name in current:
                found[name] = [first]
        else:
            for name in current:
                found[name].append(line)
    return {name: _join(parts) for name, parts in found.items()}


def parse(doc: str) -> tuple[str, dict[str, str]]:
    """(summary, {parameter: description}) from a docstring already dedented (``inspect.getdoc``)."""
    lines = (doc or "").expandtabs().splitlines()
    params: dict[str, str] = {}
    summary_end = len(lines)
    i = 0
    while i < len(lines):
        line = lines[i]
        rest = _REST_PARAM.match(line.strip())
        if rest:
            summary_end = min(summary_end, i)
            parts = [rest.group(2)]
            i += 1
            while i < len(lines) and lines[i].strip() and _indent(lines[i]) > _indent(line):
                parts.append(lines[i])
                i += 1
            params[rest.group(1)] = _join(parts)
            continue
        if line.strip().startswith(":") and re.match(r"^:\w+", line.strip()):
            summary_end = min(summary_end, i)  # other reST fields (:returns:, :raises:)
        header = _header(lines, i)
        if header is None:
            i += 1
            continue
        summary_end = min(summary_end, i)
        kind, style = header
        start = i + (2 if style == "numpy" else 1)
        end = start
        while end < len(lines):
            if _header(lines, end) is not None:
                break
            if style == "google" and lines[end].strip() and _indent(lines[end]) <= _indent(line):
                break
            end += 1
        if kind == "params":
            body = lines[start:end]
            declaration = _numpy_declaration if style == "numpy" else _google_declaration
            params.update(_section_params(body, declaration))
        i = end
    return _summary(lines[:summary_end]), {k: v for k, v in params.items() if k}
