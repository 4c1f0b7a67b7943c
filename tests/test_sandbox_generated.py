"""The shape check of the source ``dataclasses`` generates (``sandbox._generated``).

Every method the real ``dataclasses`` writes, for every option, has the accepted shape; text
that carries anything else (what a field name can inject) is refused before it runs.
"""

from __future__ import annotations

import builtins
import dataclasses
from dataclasses import KW_ONLY, InitVar, dataclass, field
from typing import ClassVar

import pytest

from course_utils.sandbox._generated import problem


@pytest.fixture
def generated(monkeypatch):
    """The source texts dataclasses executes while the test body decorates classes."""
    sources: list[str] = []

    def recording_exec(source, globals=None, locals=None, /):
        sources.append(source)
        return builtins.exec(source, globals, locals)

    monkeypatch.setattr(dataclasses, "exec", recording_exec, raising=False)
    return sources


def test_every_method_dataclasses_writes_has_the_accepted_shape(generated):
    @dataclass(order=True, unsafe_hash=True)
    class Plain:
        x: int
        y: int = 0
        tags: list = field(default_factory=list)
        hidden: int = field(default=3, repr=False, compare=False)
        late: int = field(init=False, default=7)
        made: list = field(init=False, default_factory=list)
        n: ClassVar[int] = 9

    @dataclass(frozen=True)
    class Frozen:
        self: int = 1  # a field called self: dataclasses renames its own parameter
        b: str = "z"

    @dataclass
    class Post:
        a: int
        scale: InitVar[int] = 2
        total: int = field(init=False, default=0)

        def __post_init__(self, scale):
            self.total = self.a * scale

    @dataclass(slots=True, kw_only=True)
    class Slots:
        a: int
        b: int = 5

    @dataclass
    class Keywords:
        a: int
        _: KW_ONLY
        b: int = 1

    @dataclass
    class Empty:
        pass

    @dataclass
    class Child(Plain):
        z: int = 0

    # one text per method up to Python 3.12, one per class (all its methods) in 3.13
    assert sum(line.startswith(" def ") for source in generated
               for line in source.splitlines()) >= 15
    assert [problem(source) for source in generated] == [None] * len(generated)
    assert Post(3).total == 6 and Child(1).z == 0 and repr(Frozen(2)).endswith("Frozen(self=2, b='z')")


GENERATOR = ("def __create_fn__(_type_x, MISSING):\n def __init__(self, x:_type_x):\n  {body}\n"
             " return __init__")


@pytest.mark.parametrize("text, reason", [
    # what a field name pasted into the generator's own parameters injects
    ("def __create_fn__(_type_a=exec('import sys'), *, MISSING):\n"
     " def __init__(self):\n  pass\n return __init__", "forme inattendue"),
    (GENERATOR.format(body="self.x=__import__('os').system('id')"), "appel inattendu"),
    (GENERATOR.format(body="self.x=x.__class__.__subclasses__()"), "appel inattendu"),
    (GENERATOR.format(body="self.x=[c for c in ()]"), "construction inattendue"),
    (GENERATOR.format(body="self.x=(lambda: 1)"), "construction inattendue"),
    (GENERATOR.format(body="self.x=x[0]"), "construction inattendue"),
    (GENERATOR.format(body="self.x=type(x, (), {})"), "appel inattendu"),
    (GENERATOR.format(body="__dataclass_builtins_object__.__setattr__(x, 'a', 1)"),
     "appel inattendu"),
    (GENERATOR.format(body="import os"), "instruction inattendue"),
    (GENERATOR.format(body="x.y=1"), "affectation inattendue"),
    (GENERATOR.format(body="self.x=f'{x!s}'"), "conversion inattendue"),
    ("def __create_fn__(_type_x):\n def __init__(self, x=exec('1')):\n  pass\n return __init__",
     "paramètres inattendus"),
    ("def __create_fn__(_type_x):\n @exec\n def __init__(self):\n  pass\n return __init__",
     "paramètres inattendus"),
    ("import os\ndef __create_fn__():\n pass", "forme inattendue"),
    ("def __create_fn__(:", "le code généré ne se lit pas"),
])
def test_anything_else_is_refused(text, reason):
    assert problem(text) == reason or reason in (problem(text) or "")


def test_only_exact_text_is_read():
    class Text(str):
        pass

    assert problem(Text(GENERATOR.format(body="pass"))) == "le code généré n'est pas du texte"
    assert problem(GENERATOR.format(body="pass")) is None
