"""Hostile payloads by class (issue 15): each class has several variants of our own.

As in ``test_sandbox_hostile.py``, every payload *passes its tests if the attack works* (it reads
a secret, creates a file, forges a comparison, patches a module the tests use...). A contained
payload passes nothing, gives a reason, leaks nothing, and the same sandbox then answers an
honest run correctly. The held-back corpora of the security reviews are not in this repository.
"""

from __future__ import annotations

import os
import sys

import pytest

from sandbox_trap import assert_contained, plant

LEAK = ["leak() == 'SECRET-4242'"]
HONEST_CODE = "def double(x):\n    return 2 * x\n"
HONEST_TESTS = ["double(21) == 42", "double(0) == 0"]

LIAR = ("class M(type):\n    def __eq__(cls, other):\n        return True\n"
        "    __hash__ = type.__hash__\n"
        "class Liar(metaclass=M):\n    def __eq__(self, other):\n        return True\n"
        "    def __ne__(self, other):\n        return False\n    __hash__ = object.__hash__\n")
Z = ("class Z:\n    def __sub__(self, other):\n        return 0.0\n"
     "    def __rsub__(self, other):\n        return 0.0\n    def __abs__(self):\n"
     "        return 0.0\n    def __round__(self, n=None):\n        return 12.57\n"
     "    def __len__(self):\n        return 2\n    def __eq__(self, other):\n        return True\n"
     "    __hash__ = object.__hash__\n")
CATCHER = "box = []\nclass W:\n    def __setattr__(self, name, value):\n        box.append(value)\n"

# copy.copy(MethodType(f, obj)) with f renamed: getattr(obj, name) by copy's reduction.
REDUCE = ("import copy\nclass C:\n    def m(self):\n        pass\ndef by_name(obj, name):\n"
          "    def f():\n        pass\n    f.__name__ = name\n"
          "    return copy.copy(type(C().m)(f, obj))\n")
# A class that says every object is an instance, and lists the attribute to read.
MATCH_ANY = ("class Meta(type):\n    def __instancecheck__(cls, obj):\n        return True\n"
             "class Any(metaclass=Meta):\n    __match_args__ = ('__glo' + 'bals__',)\n")
# Forged unless the injected code runs: no function f is defined, and f(3) is not 99 anyway.
FORGED = "def check(candidate):\n    assert candidate(3) == 99\ncheck(f)\n"
# Run inside the trusted window with the real builtins, it would make the tests' failure
# helper a no-op and define f: the program above would pass.
_FORGER = ("import sys\nfr = sys._getframe()\nwhile fr is not None:\n"
           "    if fr.f_code.co_name == '_run' and 'test_builtins' in fr.f_locals:\n"
           "        fr.f_locals['test_builtins']['__sandbox_fail__'] = lambda *a, **k: None\n"
           "        fr.f_locals['test_builtins']['f'] = lambda *a, **k: 99\n"
           "        break\n    fr = fr.f_back\n")
# As a field name: a default value in the parameters of the generator dataclasses executes.
INJECT = repr("a=exec(" + repr(_FORGER) + "),*")
# As the repr of a field name (frozen classes paste it into __setattr__): a call in a tuple.
CALL = repr("'k', exec(" + repr(_FORGER) + ")")


# A replacement the tests compute with re.I | re.M, and wrong code for it.
_T_CHIEN = ("import re\ndef check(candidate):\n    t = 'Chat chat CHAT'\n"
            "    assert candidate(t) == re.sub('chat', 'chien', t, flags=re.I | re.M)\n"
            "check(remplacer)\n")
_W_CHIEN = "def remplacer(t):\n    return t.replace('chat', 'chien')\n"
# A subclass of a stdlib ABC whose hook says every class is one.
_EVIL_HOOK = ("import numbers\nclass Evil(numbers.Integral):\n    @classmethod\n"
              "    def __subclasshook__(cls, C):\n        return True\n")
# A key for re's cache that says it equals any flags, and tests it would fool.
_Z_KEY = ("import re\nclass Z(int):\n    def __hash__(self):\n        return 0\n"
          "    def __eq__(self, other):\n        return True\n")
_T_LOWER = ("import re\ndef check(candidate):\n    word = candidate(1)\n"
            "    assert re.fullmatch('[a-z]+', word) is not None\ncheck(f)\n")


# Run with the real builtins, it finds the runner's sender and reports every test passed.
_FORGER_WINDOW = ("import sys, os\nfr = sys._getframe()\n"
                  "while fr is not None and not ('send' in fr.f_locals and 'world' in fr.f_locals):\n"
                  "    fr = fr.f_back\nsend = fr.f_locals['send']\n"
                  "send({'k': 'test', 'i': 0, 'ok': True})\n"
                  "send({'k': 'done', 'output': '', 'violation': None})\nsend.flush()\nos._exit(0)\n")
_FORWARD = ("import typing\nP = " + repr(_FORGER_WINDOW) + "\ndef run():\n"
            "    typing.ForwardRef('exec(' + repr(P) + ')')._evaluate({}, {}, frozenset())\n")
_T_FORGED_RAISE = "assert f(2) == 3\nassert f(5) == 7\n"


# The code's decimal context, released by the runner, fills re's cache when it dies.
_DCTX = (_Z_KEY + "import decimal\nclass C(decimal.Context):\n    def __del__(self):\n"
         "        re.compile('[a-z]+', Z(re.IGNORECASE))\ndecimal.setcontext(C())\n"
         "def f(x):\n    decimal.setcontext(decimal.Context())\n    return 'HELLO'\n")
_T_LOWER_F = "import re\nassert re.fullmatch('[a-z]+', f(1)) is not None\n"


# The real builtins by a copy of a typing alias renamed __builtins__, then the runner's sender.
_GRAB = ("import typing, copy\ndef grab(name):\n    L = typing.Literal[name]\n"
         "    L._name = '__buil' + 'tins__'\n    return copy.copy(L)\n")
# With a frame getter (sys._getframe) and the real getattr (ga): the runner's sender.
_SEND_FROM_SYS = ("fr = ga(sys, '_get' + 'frame')()\n"
                  "while fr is not None and not ('send' in ga(fr, 'f_' + 'locals') and "
                  "'world' in ga(fr, 'f_' + 'locals')):\n    fr = ga(fr, 'f_' + 'back')\n"
                  "loc = ga(fr, 'f_' + 'locals')\nsend = loc['send']\n"
                  "probes = loc['job'].get('probes')\n"
                  "for i, test in enumerate(probes or [None]):\n"
                  "    send({'k': 'test', 'i': i, 'ok': True} if test is None else\n"
                  "         {'k': 'test', 'i': i, 'p': [['v', 0] for _ in test]})\n"
                  "send({'k': 'done', 'output': '', 'violation': None})\nsend.flush()\n"
                  "hard_exit(0)\n")
_SEND_PASS = ("imp = grab('__import__')\nga = grab('getattr')\nsys = imp('sys')\n"
              "hard_exit = imp('os')._exit\n" + _SEND_FROM_SYS)


# A class whose metaclass says it belongs to {module} and has {members}: enum.global_enum
# copies the members into that module's globals.
_META_MODULE = ("import enum\nclass M(type):\n    @property\n    def __module__(cls):\n"
                "        return '{module}'\n    @property\n    def __members__(cls):\n"
                "        return {members}\nclass X(metaclass=M):\n    pass\nenum.global_enum(X)\n")
# Enum._convert_ hands over any global of a module as the value of a member.
_CONVERT = ("import enum\nG = enum.Enum._convert_('G', 'sys', lambda n: n == '_getframe')\n"
            "getframe = G['_getframe'].value\n"
            "R = enum.Enum._convert_('R', 'course_utils.sandbox._child_builtins',"
            " lambda n: n == '_real_getattr')\nga = R['_real_getattr'].value\n"
            "sys = type('S', (), {'_getframe': staticmethod(getframe)})\n"
            "E = enum.Enum._convert_('E', 'os', lambda n: n == '_exit')\n"
            "hard_exit = E['_exit'].value\n")



# dataclasses ran its generated code with a stand-in's namespace as globals, where exec put
# the real builtins; Enum._convert_ copied that namespace into a class, update_wrapper copied
# the class's namespace into the code's object, copy handed it over: the tests' helpers
# rewritten from the runner's frame.
_STAND_IN_LEAK = ("import dataclasses, enum, copy, functools\n@dataclasses.dataclass\nclass D:\n"
                  "    'doc'\n    __module__ = '{module}'\n    x: int = 0\n"
                  "E = enum.Enum._convert_('E', '{module}', lambda n: True)\nclass Holder:\n"
                  "    def __setstate__(self, st):\n        global leaked\n        leaked = st\n"
                  "h = Holder()\nfunctools.update_wrapper(h, E)\ncopy.copy(h)\n"
                  "B = leaked['__builtins__']\nG = B['getattr']\nsysm = B['__import__']('sys')\n"
                  "fr = G(sysm, '_getframe')()\nwhile fr is not None:\n"
                  "    loc = G(fr, 'f_locals')\n"
                  "    if 'test_builtins' in loc and 'send' in loc:\n"
                  "        loc['test_builtins']['__sandbox_compare__'] = lambda *a, **k: True\n"
                  "        loc['test_builtins']['__sandbox_truth__'] = lambda *a, **k: True\n"
                  "        break\n    fr = G(fr, 'f_back')\ndef f(x=0):\n    return 1\n")


# An eighth review: get_type_hints follows __wrapped__ to any function and hands its
# __globals__ to the _evaluate of a ForwardRef subclass of the code's.
_HINTS_LEAK = ("import functools, typing, json\nLEAK = []\n"
               "class F(typing.ForwardRef, _root=True):\n    def __init__(self):\n        pass\n"
               "    def _evaluate(self, g, l, guard):\n        LEAK.append(g)\n        return int\n"
               "{wrap}typing.get_type_hints({target})\nb = LEAK[0]['__builtins__']\nga = b['getattr']\n"
               "fr = ga(b['__import__']('sys'), '_get' + 'frame')(0)\n"
               "while 'test_builtins' not in ga(fr, 'f_locals'):\n    fr = ga(fr, 'f_back')\n"
               "ga(fr, 'f_locals')['test_builtins']['solve'] = lambda n: 42\n")


# A ninth review: a __wrapped__ chain of 103 links ending on a runner's closure (print) went
# past a check that walked 100, and an object posing as a ForwardRef through __class__ got
# that closure's globals from get_type_hints.
_WRAPPED_CHAIN = ('import typing, functools\n'
                  'loot = {}\n'
                  'def ev(self, g, l, r):\n'
                  '    loot["g"] = g\n'
                  '    return int\n'
                  'Fake = type("Fake", (), {"__class__": property(lambda self: typing.ForwardRef),'
                  ' "_evaluate": ev})\n'
                  'def mk():\n'
                  '    def f(x: Fake()): pass\n'
                  '    return f\n'
                  'chain = [mk() for _ in range(103)]\n'
                  'for a, b in zip(chain, chain[1:]):\n'
                  '    functools.update_wrapper(a, b, assigned=(), updated=())\n'
                  'functools.update_wrapper(chain[-1], print, assigned=(), updated=())\n'
                  'typing.get_type_hints(chain[0])\n'
                  'g = loot["g"]\n'
                  'B = g["__builtins__"]\n'
                  'rget = B["getattr"]\n'
                  'fr = rget(g["sys"], "_getframe")()\n'
                  'while fr is not None:\n'
                  '    loc = rget(fr, "f_locals")\n'
                  '    if "world" in loc and "send" in loc:\n'
                  '        tb = loc["world"].test_builtins\n'
                  '        tb["__sandbox_compare__"] = lambda *a: True\n'
                  '        tb["__sandbox_truth__"] = lambda *a: True\n'
                  '        print("patched test builtins")\n'
                  '        break\n'
                  '    fr = rget(fr, "f_back")\n'
                  'def solve(x):\n'
                  '    return 0\n')


# An eleventh review: Enum._convert_(source=obj) read obj.__dict__ and compared its values
# with the code's (a runner function's attributes: the real get_type_hints it wrapped).
_CONVERT_SOURCE = ('import enum, typing\n'
                   'got = []\n'
                   'class Spy:\n'
                   '    def __eq__(self, other):\n'
                   '        got.append(other)\n'
                   '        return False\n'
                   '    def __lt__(self, other):\n'
                   '        return False\n'
                   '    def __gt__(self, other):\n'
                   '        got.append(other)\n'
                   '        return False\n'
                   '    __hash__ = object.__hash__\n'
                   "gth = typing.get_type_hints            # the sandbox's wrapper (a runner function)\n"
                   'gth.zz = Spy()\n'
                   'enum.Enum._convert_("Leak", "typing",\n'
                   '                    lambda n: n in ("zz", "__wrapped_by_sandbox__"), source=gth)\n'
                   'real_hints = [o for o in got if o is not gth.zz and callable(o)][0]\n'
                   'print("leaked:", real_hints, real_hints is gth)\n'
                   '\n'
                   '# real get_type_hints: walks __wrapped__ to a runner function, takes its __globals__,\n'
                   '# and hands them to any object claiming (via __class__) to be a ForwardRef\n'
                   'stash = []\n'
                   'Liar = type("Liar", (), {"__class__": property(lambda s: typing.ForwardRef),\n'
                   '                         "_evaluate": lambda s, g, l, rg: stash.append(g) or int})\n'
                   'Holder = type("Holder", (), {"__wrapped__": getattr, "__annotations__": {"a": Liar()}})\n'
                   'real_hints(Holder())\n'
                   'G = stash[0]\n'
                   'print("runner globals of", G["__name__"])\n'
                   'sysm = G["sys"]\n'
                   'RG = G["_real_getattr"]\n'
                   'frame = RG(sysm, "_getframe")(0)\n'
                   'while frame is not None and "send" not in RG(frame, "f_locals"):\n'
                   '    frame = RG(frame, "f_back")\n'
                   'send = RG(frame, "f_locals")["send"]\n'
                   'send({"k": "loaded"})\n'
                   'send({"k": "test", "i": 0, "ok": True})\n'
                   'send({"k": "done", "output": "", "violation": None})\n'
                   'RG(send, "flush")()\n'
                   'G["_MODULES"]["os"]._exit(0)\n'
                   'def f(x): return 0\n')


# A twelfth review: dataclasses.replace read __dataclass_fields__ again after the check (a
# property answered differently) and read a renamed Field with the real getattr.
_REPLACE_TWICE = ('import dataclasses\n'
                  '@dataclasses.dataclass\n'
                  'class D:\n'
                  '    x: int = 0\n'
                  'real = dataclasses.fields(D)[0]\n'
                  'calls = [0]\n'
                  'class E(Exception):\n'
                  '    def fget(self):\n'
                  '        calls[0] += 1\n'
                  '        if calls[0] == 1:\n'
                  '            return {}\n'
                  '        real.name = "__traceback__"\n'
                  '        return {"__traceback__": real}\n'
                  '    __dataclass_fields__ = property(fget)\n'
                  '    def __init__(self, **kw):\n'
                  '        self.kw = kw\n'
                  'def f(n):\n'
                  '    try:\n'
                  '        raise E()\n'
                  '    except E as e:\n'
                  '        out = dataclasses.replace(e)\n'
                  '    tb = out.kw["__traceback__"]\n'
                  '    return type(tb).__name__\n')


def _base_field(tamper: str, frozen: bool = False, extra: str = "", parent: str = "B",
                after: str = "") -> str:
    """A dataclass B whose field ``k`` is left out of ``__init__``, ``__repr__`` and ``__eq__``
    (its name is then pasted only where the injected text stays valid Python) and tampered
    with (``tamper``); then a subclass A of ``parent`` is decorated (``extra`` in its body: a
    hook dataclasses triggers while it processes A), then ``after`` runs."""
    return (f"import dataclasses\n@dataclasses.dataclass(frozen={frozen})\nclass B:\n"
            "    k: int = 0\nfld = dataclasses.fields(B)[0]\n"
            "fld.init = fld.repr = fld.compare = False\n"
            + tamper.replace("INJECT", INJECT).replace("CALL", CALL) + "\n"
            f"try:\n    @dataclasses.dataclass(frozen={frozen})\n    class A({parent}):\n"
            f"        y: int = 0\n        {extra}\nexcept Exception:\n    pass\n" + after)


# Seeds the code's generator and notes the five normal draws that follow: tests that drew
# their inputs from it would pass a function that knows only those (deterministic: the tests'
# own generator never gives them).
_STEER = ("import random\nfrom statistics import NormalDist as _N\nrandom.seed(7)\n"
          "KNOWN = set(_N(0, 1).samples(5))\nrandom.seed(7)\n")
_STEER_BY_DRAWS = ("import random\nfrom statistics import NormalDist as _N\n"
                   "state = random.getstate()\nKNOWN = set(_N(0, 1).samples(5))\n"
                   "random.setstate(state)\n")
_KNOWS = "def absolute(x):\n    return abs(x) if x in KNOWN else -1\n"
_SAMPLES = ("from statistics import NormalDist\ndef check(candidate):\n"
            "    for x in NormalDist(0, 1).samples(5):\n        assert candidate(x) == abs(x)\n"
            "check(absolute)\n")
# A metaclass whose mro() leaves BaseException out: `except BaseException` does not match
# the class, `except ValueError` does.
_NO_BASE = ("class M(type):\n    def mro(cls):\n        return [cls, ValueError, Exception, object]\n"
            "class E(ValueError, metaclass=M):\n    pass\n")
_KEEP_CONTEXT = ("import decimal\nmine = decimal.getcontext()\ndef racine(x):\n"
                 "    if x < 0:\n        raise E('négatif')\n"
                 "    decimal.setcontext(decimal.Context())\n    mine.prec = 3\n"
                 "    return str(decimal.Decimal(x).sqrt(context=mine))\n")
_T_RACINE = ("import decimal\ntry:\n    racine(-1)\nexcept ValueError:\n    pass\n"
             "else:\n    assert False\nassert racine(2) == str(decimal.Decimal(2).sqrt())\n")
_T_EXPECTS_RAISE = ("try:\n    racine(-1)\nexcept Exception:\n    pass\nelse:\n"
                    "    assert False, 'racine(-1) doit lever une exception'\n")


# A class of the code in a stdlib ABC's cache (it asked issubclass once), its metaclass
# choosing its hash: the tests' own checks on that ABC would ask its __eq__, on their turn.
_ABC_CACHED = ("import {module}, decimal\nclass M(type({module}.{abc})):\n"
               "    def __eq__(cls, other):\n        decimal.getcontext().prec = 2\n"
               "        return {answer}\n    def __hash__(cls):\n        return hash({collides})\n"
               "class Evil({module}.{abc}, metaclass=M):\n    pass\n"
               "issubclass(Evil, {module}.{abc})\n")
_T_THIRD = ("from decimal import Decimal\n{trigger}\n"
            "assert tiers(1) == str(Decimal(1) / Decimal(3))\n")
_TIERS = "def tiers(x):\n    return '0.33'\n"
_T_FRACTIONS = ("from fractions import Fraction\ndef check(candidate):\n"
                "    for a, b, c, d in [(1, 2, 1, 3), (2, 4, 1, 4)]:\n"
                "        q = Fraction(a, b) + Fraction(c, d)\n"
                "        assert candidate(a, b, c, d) == (q.numerator, q.denominator)\n"
                "check(add_fractions)\n")
_WRONG_FRACTIONS = "def add_fractions(a, b, c, d):\n    return (0, 1)\n"
_REDUCED_BY_NAME = ("import copy\nclass C:\n    def m(self):\n        pass\n"
                    "def by_name(obj, name):\n    def f():\n        pass\n    f.__name__ = name\n"
                    "    return copy.copy(type(C().m)(f, obj))\n")
_LEAK_TEMPLATE = "'{0.__glo' + 'bals__[_MODULES]}'"

# The builtins eval writes into a dictionary of the code hold the runner's helpers: one that
# read any attribute would open __globals__ of every runner function. Run-time forges of the
# runner's judging functions, reached that way.
_HELPER = ("g = {}\neval('0', g)\nB = g['__buil' + 'tins__']\nsf = B['__sandbox_' + 'format__']\n"
           "G = sf(ENTRY, '__glo' + 'bals__')\n"
           "child = sf(G['_MODULES']['course_utils.sandbox._child'], '__dict__')\n")
_FORGE_PROGRAM = "child['_run_program'] = lambda code, namespace, failed: {'ok': True}\n"
_FORGE_PROBE = "child['_run_probe'] = lambda code, source, namespace, *rest: ['v', 99]\n"

# A collection timed (by a canary's finaliser) to run while a function of the tests called
# by the code returns, between the collector's switch and the decimal context's: a finaliser
# of the code then set the tests' precision.
_GC_IN_THE_SWITCH = ('import decimal\n'
                     'MINE = decimal.getcontext()\n'
                     'hit = [False]\n'
                     'seen = [False]\n'
                     '\n'
                     'class Canary:\n'
                     '    def __del__(self):\n'
                     '        seen[0] = True\n'
                     '\n'
                     'class Bomb:\n'
                     '    def __del__(self):\n'
                     '        ctx = decimal.getcontext()\n'
                     '        if ctx is not MINE:\n'
                     '            ctx.prec = 1\n'
                     '            hit[0] = True\n'
                     '\n'
                     'def appliquer(f, xs):\n'
                     '    out = [f(x) for x in xs]\n'
                     '    for m in range(0, 900):\n'
                     '        if hit[0]:\n'
                     '            break\n'
                     '        junk = []\n'
                     '        seen[0] = False\n'
                     '        c = Canary(); c.me = c; c = None\n'
                     '        while not seen[0]:\n'
                     '            junk.append([])\n'
                     '        for _ in range(m):\n'
                     '            junk.append([])\n'
                     '        b = Bomb(); b.me = b; b = None\n'
                     '        try:\n'
                     '            f([])\n'
                     '        except Exception:\n'
                     '            pass\n'
                     '    return out\n'
                     '\n'
                     'def tiers():\n'
                     "    return '0.3'\n")
# Memory exhausted by the code so that switching back to the tests fails halfway (emptying
# re's cache allocated): the tests would go on in the code's decimal context.
_MEMORY_IN_THE_SWITCH = ('import decimal, re\n'
                         'MINE = decimal.getcontext()\n'
                         'fill = []\n'
                         '\n'
                         'def racine(x):\n'
                         '    for i in range(500):\n'
                         "        re.compile('a%d' % i)\n"
                         '    small = [None] * 300000\n'
                         '    for size in (1 << 20, 1 << 16, 1 << 12, 1 << 10, 600):\n'
                         '        while True:\n'
                         '            try:\n'
                         '                fill.append(bytes(size))\n'
                         '            except MemoryError:\n'
                         '                break\n'
                         '    n = 0\n'
                         '    try:\n'
                         '        while n < 300000:\n'
                         '            small[n] = []\n'
                         '            n += 1\n'
                         '    except MemoryError:\n'
                         '        pass\n'
                         '    for i in range(max(0, n - 3000), n):\n'
                         '        small[i] = None\n'
                         '    fill.append(small)\n'
                         '    return -1.0\n'
                         '\n'
                         'def tiers():\n'
                         '    fill.clear()\n'
                         '    MINE.prec = 1\n'
                         '    decimal.setcontext(decimal.Context())\n'
                         "    return '0.3'\n")
_T_TIERS = "tiers() == str(decimal.Decimal(1) / decimal.Decimal(3))"

# A wrapper of the runner that checked one value and used another: update_wrapper accepted
# __dict__ as an assignment (the real one then read any object's namespace), attrgetter and
# methodcaller checked a str subclass's text and looked up what its __hash__/__eq__ said.
_CATCH_DICT = "import functools\nbox = []\nclass W:\n    def __setattr__(self, name, value):\n" \
              "        box.append(value)\n"
_WALK_TO_CHILD = ("subclasses = box[0]['__subcl' + 'asses__']\n"
                  "AG = [c for c in subclasses(object) if c.__name__ == 'attrgetter'][0]\n"
                  "G = AG('__glo' + 'bals__')(print)\n"
                  "child = AG('__di' + 'ct__')(G['_MODULES']['course_utils.sandbox._child'])\n")
_LYING_NAME = ("import operator\nclass S(str):\n    def __eq__(self, other):\n        return True\n"
               "    def __hash__(self):\n        return hash(self.target)\n"
               "def lying(target):\n    s = S('real')\n    s.target = target\n    return s\n")

# A finaliser of the code (its old decimal context, released while switching back to the
# tests) calls a function of the tests it kept: that call turned the collector back on for the
# tests' turn, and a cycle of the code, armed to be collected, then set their precision.
_REENTRY_BASE = ('import decimal, re\n'
                 'hit = [False]\n'
                 'armed = [False]\n'
                 'MINE = [None]\n'
                 'KEEP = []\n'
                 'saved = []\n'
                 '\n'
                 'class Bomb:\n'
                 '    def __del__(self):\n'
                 '        if hit[0]:\n'
                 '            return\n'
                 '        ctx = decimal.getcontext()\n'
                 '        if ctx is not MINE[0]:\n'
                 '            ctx.prec = 1\n'
                 '            hit[0] = True\n'
                 '            return\n'
                 '        KEEP.append([[] for _ in range(800)])\n'
                 '        b = Bomb()\n'
                 '        b.me = b\n'
                 '        armed[0] = True\n'
                 '\n'
                 'class C(decimal.Context):\n'
                 '    def __del__(self):\n'
                 '        if saved and not hit[0]:\n'
                 '            try:\n'
                 '                saved[0](0)\n'
                 '            except Exception:\n'
                 '                pass\n'
                 "            re.compile('zz')\n"
                 '            b = Bomb()\n'
                 '            b.me = b\n'
                 '            b = None\n'
                 '            while not armed[0]:\n'
                 '                KEEP.append([])\n'
                 '\n'
                 'decimal.setcontext(C())\n'
                 '\n')
_REENTRY_CALLBACK = _REENTRY_BASE + ('def appliquer(f, xs):\n'
                                    '    out = [f(x) for x in xs]\n'
                                    '    saved.append(f)\n'
                                    '    new = decimal.Context()\n'
                                    '    MINE[0] = new\n'
                                    '    decimal.setcontext(new)\n'
                                    '    return out\n'
                                    '\n'
                                    'def tiers():\n'
                                    "    return '0.3'\n")
_REENTRY_ITERATOR = _REENTRY_BASE + ('def somme(it):\n'
                                     '    total = next(it)\n'
                                     '    saved.append(lambda _: next(it, 0))\n'
                                     '    new = decimal.Context()\n'
                                     '    MINE[0] = new\n'
                                     '    decimal.setcontext(new)\n'
                                     '    return 30\n'
                                     '\n'
                                     'def tiers():\n'
                                     "    return '0.3'\n")
# A callable of the code held only by the tests (an entry they overwrite): its __del__ ran on
# their turn, in their decimal context.
_DIES_WITH_THE_TESTS = ('import decimal\n'
                        'class K:\n'
                        '    def __call__(self):\n'
                        '        return 0\n'
                        '    def __del__(self):\n'
                        '        decimal.getcontext().prec = 1\n'
                        'def remplir(noter):\n'
                        "    noter('a', K())\n"
                        "    noter('a', 1)\n"
                        "    noter('b', 2)\n"
                        '    return 2\n'
                        'def tiers():\n'
                        "    return '0.3'\n")

# Text pasted by dataclasses into the methods it generates, then run with the real builtins
# (exec fills an empty globals dict): a field name that is no identifier, a Field renamed or
# inherited through a base's __dataclass_fields__, a metaclass whose __dict__ lies.
_INJECTED_NAME = "N = '\" and 0 or __buil' + 'tins__\\n  return \"'\n"
_WALK_FROM_BUILTINS = ("ga = B['getattr']\nfr = ga(B['__imp' + 'ort__']('sys'), '_getfr' + 'ame')(0)\n"
                       "while 'test_builtins' not in ga(fr, 'f_loc' + 'als'):\n"
                       "    fr = ga(fr, 'f_ba' + 'ck')\n"
                       "ga(fr, 'f_loc' + 'als')['test_builtins'][ga(fr, 'f_glob' + 'als')"
                       "['COMPARE_HELPER']] = lambda *a: True\ndef f(x):\n    return 0\n")
_INHERITED_FIELD = ("import dataclasses\n" + _INJECTED_NAME
                    + "@dataclasses.dataclass\nclass A:\n    x: int\nfl = dataclasses.field()\n"
                    "fl.name = N\nfl.type = int\n"
                    "fl._field_type = dataclasses.fields(A)[0]._field_type\n"
                    "class P:\n    frozen = False\n"
                    "Base = type('Base', (), {'__dataclass_fi' + 'elds__': {N: fl}, "
                    "'__dataclass_pa' + 'rams__': P()})\n"
                    "@dataclasses.dataclass(init=False, eq=False)\nclass D(Base):\n    'doc'\n"
                    "B = D().__repr__()\n")
_LYING_NAMESPACE = ("from dataclasses import dataclass\n" + _INJECTED_NAME
                    + "fake = {'__annotations__': {N: int}}\n"
                    "M = type('M', (type,), {'__di' + 'ct__': property(lambda c: fake)})\n"
                    "C = M('C', (), {'__doc__': 'x'})\nC = dataclass(init=False, eq=False)(C)\n"
                    "B = C().__repr__()\n")

# The code's old decimal context, released while switching back to the tests, installs another
# one in its __del__; setcontext then released that one with the tests' context current.
_RELEASED_IN_THE_SWITCH = ("import decimal\nclass Y(decimal.Context):\n    def __del__(self):\n"
                           "        decimal.getcontext().prec = 1\n"
                           "class C(decimal.Context):\n    def __del__(self):\n"
                           "        decimal.setcontext(Y())\ndecimal.setcontext(C())\n"
                           "def f(x):\n    decimal.setcontext(decimal.Context())\n    return 2 * x\n"
                           "def appliquer(g, xs):\n    decimal.setcontext(decimal.Context())\n"
                           "    return [g(x) for x in xs]\ndef tiers():\n    return '0.3'\n")
# A StopIteration whose class's mro() leaves StopIteration out: converted, it ended the tests'
# loop (all(map(f, ...))) as if all were done.
_HIDDEN_STOP = ("class M(type):\n    def mro(cls):\n        return [cls, Exception, BaseException, object]\n"
                "class Fin(StopIteration, metaclass=M):\n    pass\ndef est_premier(n):\n    raise Fin()\n")

# Fields dataclasses inherits through reads a metaclass answers (__getattr__ for
# __dataclass_fields__, a __mro__ property naming a base outside the real one): a Field posing
# as one, named "a.__globals__", made the generated __eq__ read __globals__ of the sandbox's
# getattr, compared with an object of the code's.
_FAKE_FIELD = ("import dataclasses\n@dataclasses.dataclass\nclass Real:\n    x: int = 0\n"
               "class FakeField:\n    pass\nfl = FakeField()\nfl.name = 'a.__glob' + 'als__'\n"
               "fl.type = int\nfl.default = fl.default_factory = dataclasses.MISSING\n"
               "fl.init = fl.repr = False\nfl.hash = None\nfl.compare = True\nfl.metadata = {}\n"
               "fl.kw_only = False\nfl._field_type = dataclasses.fields(Real)[0]._field_type\n"
               "class Params:\n    frozen = False\n")
_BY_GETATTR = ("class M(type):\n    def __getattr__(cls, name):\n"
               "        if name == '__dataclass_fi' + 'elds__':\n            return {'k': fl}\n"
               "        if name == '__dataclass_pa' + 'rams__':\n            return Params()\n"
               "        raise AttributeError(name)\nclass B(metaclass=M):\n    pass\n"
               "@dataclasses.dataclass(init=False, repr=False)\nclass D(B):\n    'doc'\n")
_BY_MRO = ("Other = type('Other', (), {'__dataclass_fi' + 'elds__': {'k': fl}, "
           "'__dataclass_pa' + 'rams__': Params()})\n"
           "M = type('M', (type,), {'__m' + 'ro__': property(lambda c: (c, Other, object))})\n"
           "D = dataclasses.dataclass(init=False, repr=False)(M('D', (), {'__doc__': 'doc'}))\n")
_EQ_LEAK = ("CAUGHT = []\nclass Catch:\n    def __getattr__(self, name):\n        return self\n"
            "    def __eq__(self, other):\n        CAUGHT.append(other)\n        return True\n"
            "d1 = D()\nd1.a = getattr\nd2 = D()\nd2.a = Catch()\nd1 == d2\nG = CAUGHT[0]\n"
            "ga = G['_builtins'].getattr\nfr = ga(G['_MODULES']['sys'], '_getfr' + 'ame')(0)\n"
            "while 'test_builtins' not in ga(fr, 'f_loc' + 'als'):\n    fr = ga(fr, 'f_ba' + 'ck')\n"
            "ga(fr, 'f_loc' + 'als')['test_builtins']['__sandbox_' + 'compare__'] = lambda *a: True\n"
            "ga(fr, 'f_glob' + 'als')['_run_probe'] = lambda *a: ['v', 99]\n"
            "def f(x):\n    return 0\n")
# UserString.format called str.format from the standard library, where nothing checks the
# template: it walked __globals__ to the runner and read the tests' source.
_USER_FORMAT = ("from collections import UserString\n_CHILD = 'course_utils.sandbox._child'\n"
                "P = ('{0.__glob' + 'als__[__builtins__][getattr].__glob' + 'als__[_MODULES]"
                "[course_utils.sandbox._child]._run_program.__glob' + 'als__[__name__]}')\n")
# A datetime (or time, timezone) holds the tests' tzinfo (or name) where the collector shows
# no reference: the walk missed it, and the code got the tests' class, then patched it.
_TZ_TESTS = ("import datetime\nclass Paris(datetime.tzinfo):\n    def utcoffset(self, dt):\n"
             "        return datetime.timedelta(hours=1)\n    def dst(self, dt):\n"
             "        return datetime.timedelta(0)\n")
_TZ_PATCH = ("import datetime\ndef decalage(d):\n"
             "    type(d.tzinfo).utcoffset = lambda self, dt: datetime.timedelta(hours=5)\n"
             "    return 5.0\n")

_MOYENNE = "def moyenne(notes):\n    if not notes:\n        return 0\n    return sum(notes) / len(notes)\n"
# The code catches what the tests' function raises, with the clause given.
_ATTRAPE = ("def attrape(action):\n    try:\n        action()\n    except {}:\n"
            "        return 'pris'\n    return 'rien'\n")
_FLUX = ("def ferme(flux):\n    flux.close()\ndef envoie(flux):\n    next(flux)\n"
         "    return flux.send(10)\ndef jette(flux):\n    next(flux)\n    try:\n"
         "        return flux.throw(ValueError('v'))\n    except ValueError:\n"
         "        return 'remontee'\n")
_NAN_SUB = ("class Y(float):\n    pass\ny = Y('nan')\nclass Z(complex):\n    pass\n"
            "z = Z(float('nan'), 1)\ndef f():\n    return [y]\ndef g():\n    return [z]\n")
_PARSE = ("class ParseError(ValueError):\n    def __str__(self):\n        return 'erreur'\n"
          "def parse(s):\n    raise ParseError('ligne 3')\n")
_LOGGED = ("def logged(fn):\n    def wrapper(*a):\n        return fn(*a)\n    return wrapper\n"
           "@logged\ndef add(a, b):\n    return a + b\n")
_LIGNE = "class Ligne(list):\n    pass\ndef grille(h, w):\n    return [Ligne([0] * w)] * h\n"
_INDEX = ("import collections\ndef index_par_ligne(n):\n"
          "    return [collections.defaultdict(list)] * n\n")
_ORDERED_COUNTER = ("import collections\nclass OrderedCounter(collections.Counter, "
                    "collections.OrderedDict):\n    pass\ndef premiers(mot):\n"
                    "    return OrderedCounter(mot)\n")
_COUNTING_OD = ("import collections\nclass CompteurOrdonne(collections.OrderedDict, "
                "collections.Counter):\n    pass\ndef compter(mot):\n    c = CompteurOrdonne()\n"
                "    for ch in mot:\n        c[ch] += 1\n    c['z'] = 0\n    return c\n")
_NAMED_BY_THE_CODE = (
    "import decimal\nclass N(str):\n    def __str__(self):\n        decimal.getcontext().prec = 3\n"
    "        return 'ParseError'\n    def __format__(self, spec):\n"
    "        decimal.getcontext().prec = 3\n        return 'ParseError'\n"
    "    def endswith(self, *a):\n        decimal.getcontext().prec = 3\n        return True\n"
    "    def upper(self):\n        decimal.getcontext().prec = 3\n        return 'P'\n"
    "    def __hash__(self):\n        decimal.getcontext().prec = 3\n        return 1\n"
    "E = type(N('ParseError'), (ValueError,), {})\ndef parse(s):\n    raise E(s)\n"
    "def tiers():\n    return 0.333\n")
_JSON_PARSE = ("import json\nclass ParseError(json.JSONDecodeError):\n    def __str__(self):\n"
               "        return 'erreur'\ndef parse(s):\n    raise ParseError('ligne 3', s, 0)\n")
_COMPTER = ("import collections\ndef compter(mot):\n    return {c: mot.count(c) for c in 'abc'}\n"
            "def compteur(mot):\n    return collections.Counter(compter(mot))\n")


# CPython's eval and exec put the builtins of their caller's frame into a globals dict that has
# none, before they look at their source or raise an audit event. Called by typing (an object
# posing as a ForwardRef, its code not even code), they were the real ones: then the runner's
# modules, patched so that any assertion program passes (round 25).
_FAKE_FORWARD = ("import typing\nd = {}\nF = type('F', (), {'__forward_arg__': 'x', "
                 "'__forward_evaluated__': False, '__forward_module__': None, "
                 "'__forward_code__': CODE, '__forward_is_argument__': True, "
                 "'__forward_is_class__': False})\n")
_PATCH_RUNNER = ("B = d.get('__builtins__') or {}\n"
                 "child = B['__import__']('course_utils.sandbox._child', None, None, ['x'], 0)\n"
                 "B['vars'](child)['_run_program'] = lambda code, ns, failed: {'ok': True}\n"
                 "B['vars'](child)['_run_probe'] = lambda *a: ['v', True]\n")


def _filled(code: str, call: str) -> str:
    return (_FAKE_FORWARD.replace("CODE", code) + "try:\n    " + call + "\nexcept Exception:\n"
            "    pass\n" + _PATCH_RUNNER)


# Wrong code (it removes no NaN; it returns the same NaN objects): a test false in Python.
_KEEP = ("import math\nN = float('nan')\nC = complex(N, 1)\ndef nettoyer(xs):\n    return xs\n"
         "def g():\n    return [N]\ndef h():\n    return {N: 1}\ndef k():\n    return [C]\n")

# An alias the code makes, named after one of typing's private globals: its __reduce__ looks
# the name up there, and the memo the code hands deepcopy keeps what it found (typing's module
# loader, whose exec_module then filled a dict of the code's with the real builtins).
_ALIAS_READ = ("import copy, typing\ndef read(name, wanted):\n"
               "    a = type(typing.List[int])(int, (int,), name=name)\n    memo = {}\n"
               "    try:\n        copy.deepcopy(a, memo)\n    except Exception:\n        pass\n"
               "    for v in memo.values():\n        if type(v) is list:\n            for x in v:\n"
               "                if wanted(x):\n"
               "                    return x\n")
_LOADER_ESCAPE = ("class Fake:\n    def get_code(self, name):\n        return 0\n"
                  "class Mod:\n    __slots__ = ()\n    def __getattr__(self, name):\n"
                  "        if name == 'name' or name.startswith('__n'):\n            return 'x'\n"
                  "        return NS\nNS = {}\n"
                  "L = type(read('__' + 'loader__', lambda x: type(x).__name__ == 'SourceFileLoader'))\n"
                  "try:\n"
                  "    L.exec_module(Fake(), Mod())\nexcept TypeError:\n    pass\n"
                  "rg = [v for k, v in NS.items()][0]['getattr']\n"
                  "child = rg(rg(getattr, '__glo' + 'bals__')['_MODULES']"
                  "['course_utils.sandbox._child'], '__di' + 'ct__')\n")

_SOLDE = ("class SoldeInsuffisant(Exception):\n    pass\ndef retirer(solde, montant):\n"
          "    if montant > solde:\n        raise SoldeInsuffisant('solde insuffisant')\n"
          "    return solde - montant\n")
_PAIR = "def f():\n    return chr(0xD83D) + chr(0xDE00)\n"


_MRO_STOP = ("class D(StopIteration):\n    pass\nclass M(type):\n    def mro(cls):\n"
             "        if cls.__name__ == 'C':\n"
             "            return (cls, D, ValueError, Exception, BaseException, object)\n"
             "        return type.mro(cls)\nclass C(StopIteration, metaclass=M):\n    pass\n"
             "def is_prime(n):\n    raise C(n)\n")
_MRO_KEY = ("class D(KeyError):\n    pass\nclass M(type):\n    def mro(cls):\n"
            "        if cls.__name__ == 'C':\n"
            "            return (cls, D, ValueError, Exception, BaseException, object)\n"
            "        return super().mro()\nclass C(ValueError, metaclass=M):\n    pass\n"
            "def lookup(d, k):\n    raise C(k)\n")
_FROZEN = ("import re\nfrom dataclasses import dataclass\n@dataclass(frozen=True)\nclass B:\n"
           "    _value_: int\n")
_IGNORECASE_TEST = "assert f('ABC') == (re.match('abc', 'ABC', re.IGNORECASE) is not None)\n"
_SAME_KEYS = ("class S(str):\n    def __hash__(self):\n        return 12345\n"
              "    def __eq__(self, other):\n        return self is other\n")

_USER_COPY = ("import collections, copy, re, typing\nclass E(collections.{base}):\n"
              "    target = None\n    def __new__(cls, *args, **kwargs):\n"
              "        if E.target is not None:\n            return E.target\n"
              "        return super().__new__(cls)\ndef lying(params):\n"
              "    return typing.Tuple[params]\ne = E()\ne.{attr} = {value}\nE.target = {target}\n"
              "try:\n    copy.copy(e)\nexcept Exception:\n    pass\nE.target = None\n")

CLASSES = {
    # Values compared by exact type: a class whose metaclass says it equals int, str... never
    # passes for plain data, at any depth, in expressions or programs.
    "exact_types": [
        ("metaclass_eq", LIAR + "def f():\n    return Liar()\n", ["f() == 3"]),
        ("metaclass_eq_program", LIAR + "def f():\n    return Liar()\n", "assert f() == 3\n"),
        ("metaclass_in_list", LIAR + "def f():\n    return [Liar()]\n", ["f() == [3]"]),
        ("metaclass_dict_key", LIAR + "def f():\n    return {Liar(): 1}\n", ["f() == {3: 1}"]),
        ("metaclass_membership", LIAR + "def f():\n    return Liar()\n", ["f() in [3, 4]"]),
        ("metaclass_hash_of_int", LIAR.replace("__hash__ = type.__hash__",
                                               "def __hash__(cls):\n        return hash(int)")
         + "def f():\n    return Liar()\n", ["f() == 'abc'"]),
        ("class_as_value", LIAR + "def f():\n    return Liar\n", ["f() == 3"]),
        ("metaclass_not_equal", LIAR + "def f():\n    return Liar()\n", ["not (f() != 5)"]),
    ],
    # A class where a function is expected (``__new__`` returning a liar), or an object of the
    # code used by the tests: never reaches the tests' arithmetic, builtins or comparisons.
    "class_as_function": [
        ("new_liar_program", Z + "class area:\n    def __new__(cls, r):\n        return Z()\n",
         "def check(candidate):\n    assert abs(candidate(2) - 12.56) < 0.01\ncheck(area)\n"),
        ("new_liar_expression", Z + "class area:\n    def __new__(cls, r):\n        return Z()\n",
         ["abs(area(2) - 12.56) < 0.01"]),
        ("new_liar_round", Z + "class area:\n    def __new__(cls, r):\n        return Z()\n",
         ["round(area(2), 2) == 12.57"]),
        ("new_liar_len", Z + "class count:\n    def __new__(cls, s):\n        return Z()\n",
         "assert len(count('ab')) == 2\n"),
        ("instance_method", Z + "class Solver:\n    def solve(self, x):\n        return Z()\n"
         "solver = Solver()\n", ["abs(solver.solve(1) - 3) < 1e-9"]),
        ("bound_method", Z + "class S:\n    def run(self, x):\n        return Z()\nf = S().run\n",
         ["abs(f(1) - 3) < 1e-9"]),
        ("self_instance", "class area:\n    def __init__(self, r):\n        self.r = r\n"
         "    def __sub__(self, other):\n        return 0.0\n",
         "assert abs(area(2) - 12.56) < 0.01\n"),
    ],
    # The allowed modules' functions and classes cannot be patched (the tests use them too).
    "patch_allowed_modules": [
        ("view_class", "import math\ntype(math).isclose = lambda *a, **k: True\n"
         "def f():\n    return 0\n", "import math\nassert math.isclose(f(), 1)\n"),
        ("view_class_setattr", "import math\nsetattr(type(math), 'sqrt', lambda x: 5.0)\n"
         "def f():\n    return 5.0\n", "import math\nassert math.sqrt(4) == f()\n"),
        ("view_class_alias", "import math\nm = type(math)\nm.floor = lambda x: 7\n"
         "def f():\n    return 7\n", "import math\nassert math.floor(1.5) == f()\n"),
        ("random_class", "import random\nrandom.Random.randrange = lambda self, *a, **k: 4\n"
         "def f():\n    return 4\n", "import random\nassert f() == random.Random(7).randrange(1000)\n"),
        ("random_class_method", "import random\nrandom.Random.random = lambda self: 0.5\n"
         "def f():\n    return 0.5\n", "import random\nassert f() == random.Random(1).random()\n"),
        ("counter_class", "import collections\n"
         "collections.Counter.most_common = lambda self, n=None: [('z', 9)]\n"
         "def f():\n    return [('z', 9)]\n",
         "import collections\nassert f() == collections.Counter('aab').most_common(1)\n"),
        ("json_encoder", "import json\njson.JSONEncoder.encode = lambda self, o: '\"ok\"'\n"
         "def f():\n    return 1\n", "import json\nassert json.dumps(f()) == '\"ok\"'\n"),
        ("fraction_class", "from fractions import Fraction\n"
         "Fraction.limit_denominator = lambda self, *a: 7\ndef f():\n    return 7\n",
         "from fractions import Fraction\nassert int(Fraction(22, 7).limit_denominator(1)) == f()\n"),
        ("template_class", "import string\nstring.Template.substitute = lambda self, *a, **k: 'ok'\n"
         "def f():\n    return 'ok'\n", "import string\nassert string.Template('$x').substitute(x=1) == f()\n"),  # noqa: E501
        ("delete_method", "import random\ndelattr(random.Random, 'randrange')\n"
         "def f():\n    return 1\n", ["f() == 1"]),
        ("stdlib_function_metadata", "import functools, statistics\n"
         "def hacked(xs):\n    return 0\nfunctools.update_wrapper(statistics.mean, hacked)\n",
         "import statistics\nassert statistics.mean.__name__ == 'hacked'\n"),
    ],
    # A function gets copies of the tests' arguments: it cannot mutate what the test compares.
    "argument_mutation": [
        ("list_replaced", "def smallest(xs):\n    xs[:] = [99]\n    return 99\n",
         "data = [3, 1, 2]\nassert smallest(data) == min(data)\n"),
        ("dict_cleared", "def total(d):\n    d.clear()\n    d['a'] = 0\n    return 0\n",
         "d = {'a': 5}\nassert total(d) == sum(d.values())\n"),
        ("nested_list", "def first(rows):\n    rows[0][0] = -1\n    return -1\n",
         "rows = [[4, 5]]\nassert first(rows) == rows[0][0]\n"),
        ("keyword_argument", "def f(*, xs):\n    xs.append(7)\n    return len(xs)\n",
         "xs = [1]\nassert f(xs=xs) == len(xs)\n"),
        ("set_grown", "def g(s):\n    s.add(9)\n    return 9\n", "s = {1}\nassert g(s) == max(s)\n"),
        ("in_place_only", "def sort_it(xs):\n    xs.sort()\n", "xs = [3, 1, 2]\nsort_it(xs)\n"
         "assert xs == [1, 2, 3]\nassert sort_it(xs) is None\n"),
    ],
    # stdlib functions that read attributes by name on the attacker's behalf.
    "wrapper_attribute_copy": [
        ("update_wrapper_globals", CATCHER + "import functools, json\n"
         "functools.update_wrapper(W(), json.dumps, assigned=('__globals__',), updated=())\n"
         "def leak():\n    return box[0]['__builtins__']['open']('SECRET').read()\n", LEAK),
        ("wraps_globals", CATCHER + "import functools, json\n"
         "functools.wraps(json.dumps, assigned=('__globals__',), updated=())(W())\n"
         "def leak():\n    return box[0]['__builtins__']['open']('SECRET').read()\n", LEAK),
        ("updated_globals", "import functools, json\nbox = []\nclass Catch(dict):\n"
         "    def update(self, other):\n        box.append(other)\nclass W:\n"
         "    def __getattr__(self, name):\n        return Catch()\n"
         "functools.update_wrapper(W(), json.dumps, assigned=(), updated=('__globals__',))\n"
         "def leak():\n    return box[0]['__builtins__']['open']('SECRET').read()\n", LEAK),
        ("str_subclass_name", CATCHER + "import functools, json\nclass S(str):\n"
         "    def __eq__(self, other):\n        return False\n    __hash__ = str.__hash__\n"
         "functools.update_wrapper(W(), json.dumps, assigned=(S('__glo' + 'bals__'),), updated=())\n"
         "def leak():\n    return box[0]['__builtins__']['open']('SECRET').read()\n", LEAK),
        ("generator_frame", CATCHER + "import functools\ndef g():\n    yield 1\n"
         "functools.update_wrapper(W(), g(), assigned=('gi_frame',), updated=())\n"
         "functools.update_wrapper(W(), box[0], assigned=('f_back',), updated=())\n"
         "def leak():\n    return box[1]\n", LEAK),
        ("reduce_getattr", "import functools, json\ndef leak():\n"
         "    g = functools.reduce(getattr, ['__glo' + 'bals__'], json.dumps)\n"
         "    return g['__builtins__']['open']('SECRET').read()\n", LEAK),
    ],
    # C callables invoked from trusted stdlib frames gain nothing: decisions never depend on
    # the frame that raised an audit event; checked wrappers never hand out the raw constructor.
    "trusted_frame_inheritance": [
        ("singledispatch_setattr", "import functools, random\n"
         "sd = functools.singledispatch(lambda *a: None)\nsd.register(type, setattr)\n"
         "sd(random.Random, 'randrange', lambda self, *a, **k: 4)\ndef f():\n    return 4\n",
         "import random\nassert f() == random.Random(7).randrange(1000)\n"),
        ("namedtuple_defaults_map", "import collections, random\n"
         "collections.namedtuple('P', 'x', defaults=map(setattr, [random.Random], ['randrange'],"
         " [lambda self, *a, **k: 4]))\ndef f():\n    return 4\n",
         "import random\nassert f() == random.Random(7).randrange(1000)\n"),
        ("partial_in_sorted", "import functools, random\n"
         "p = functools.partial(setattr, random.Random, 'randrange')\n"
         "sorted([lambda self, *a, **k: 4], key=p)\ndef f():\n    return 4\n",
         "import random\nassert f() == random.Random(7).randrange(1000)\n"),
        ("chainmap_missing_hints", "import collections, typing\n"
         "def g(x: 'open(\"SECRET\").read()'):\n    pass\nclass D(dict):\n"
         "    def __missing__(self, key):\n        return typing.get_type_hints(g)['x']\n"
         "def leak():\n    return collections.ChainMap(D())['x']\n", LEAK),
        ("attrgetter_type", "import operator, json\ndef leak():\n"
         "    make = type(operator.attrgetter('real'))\n"
         "    g = make('__glo' + 'bals__')(json.dumps)\n"
         "    return g['__builtins__']['open']('SECRET').read()\n", LEAK),
        ("methodcaller_type", "import operator\ndef leak():\n"
         "    make = type(operator.methodcaller('real'))\n"
         "    base = type(()).mro()[-1]\n"
         "    for c in make('__subcl' + 'asses__')(base):\n"
         "        if c.__name__ == 'FileIO':\n"
         "            return c('SECRET').read().decode()\n", LEAK),
        ("heapq_key_frame", "import heapq, operator\ndef g():\n    yield 1\ndef leak():\n"
         "    f = heapq.nsmallest(1, [g()], key=operator.attrgetter('gi_' + 'frame'))\n"
         "    return f\n", LEAK),
    ],
    # Frames, tracebacks and closures stay out of reach, whatever the path.
    "frame_walks": [
        ("traceback_format", "def leak():\n    try:\n        1 / 0\n    except Exception as e:\n"
         "        t = '{0.__trace' + 'back__.tb_frame.f_back.f_locals}'\n"
         "        return t.format(e)\n", ["'guard' in leak() or 'send' in leak()"]),
        ("generator_throw", "def g():\n    yield 1\ndef leak():\n    x = g()\n    next(x)\n"
         "    try:\n        x.throw(ValueError)\n    except ValueError as e:\n"
         "        return getattr(e, '__trace' + 'back__')\n", LEAK),
        ("context_chain", "def leak():\n    try:\n        try:\n            1 / 0\n"
         "        except Exception:\n            raise ValueError()\n    except ValueError as e:\n"
         "        return getattr(e, '__con' + 'text__')\n", LEAK),
        ("closure_getattr", "def outer():\n    secret = 1\n    def inner():\n        return secret\n"
         "    return inner\ndef leak():\n    return getattr(outer(), '__clo' + 'sure__')\n", LEAK),
        ("coroutine_frame_attrgetter", "import operator\nasync def c():\n    pass\ndef leak():\n"
         "    return operator.attrgetter('cr_' + 'frame')(c())\n", LEAK),
        ("format_map_frame", "def g():\n    yield 1\ndef leak():\n"
         "    return ('{x.gi_' + 'frame.f_back}').format_map({'x': g()})\n",
         ["'frame' in leak()"]),
    ],
    # Names pasted into generated source (dataclasses, namedtuple) are exact identifiers.
    "dataclass_field_injection": [
        ("annotations_dict", "import dataclasses\nclass D:\n"
         "    __annotations__ = {'x=__import__(\"os\").system(\"touch SENTINEL\") or 1': int}\n"
         "dataclasses.dataclass(D)\ndef f():\n    return 1\n", ["f() == 1"]),
        ("annotations_decorator", "import dataclasses\n@dataclasses.dataclass\nclass D:\n"
         "    __annotations__ = {'x=open(\"SECRET\").read()': int}\n"
         "def leak():\n    return D().x\n", LEAK),
        ("str_subclass_key", "import dataclasses\nclass S(str):\n"
         "    def isidentifier(self):\n        return True\n    __hash__ = str.__hash__\n"
         "class D:\n    __annotations__ = {S('x=open(\"SECRET\").read()'): int}\n"
         "D = dataclasses.dataclass(D)\ndef leak():\n    return D().x\n", LEAK),
        ("make_dataclass_name", "import dataclasses\nclass S(str):\n"
         "    def isidentifier(self):\n        return True\n    __hash__ = str.__hash__\n"
         "D = dataclasses.make_dataclass('D', [S('x=open(\"SECRET\").read()')])\n"
         "def leak():\n    return D().x\n", LEAK),
        ("namedtuple_class_annotations", "import typing\nclass N(typing.NamedTuple):\n"
         "    __annotations__ = {'x=open(\"SECRET\").read()': int}\n"
         "def leak():\n    return N()[0]\n", LEAK),
        ("dunder_field", "import dataclasses\nclass D:\n    __annotations__ = {'__globals__': dict}\n"
         "dataclasses.dataclass(D)\ndef f():\n    return 1\n", ["f() == 1"]),
        ("descriptor_during_decoration", "import dataclasses, typing\n"
         "def g(x: 'open(\"SECRET\").read()'):\n    pass\nclass Desc:\n"
         "    def __get__(self, obj, owner):\n        return typing.get_type_hints(g)['x']\n"
         "@dataclasses.dataclass\nclass D:\n    y: str = Desc()\n"
         "def leak():\n    return D().y\n", LEAK),
        ("namedtuple_str_subclass", "import collections\nclass S(str):\n"
         "    def isidentifier(self):\n        return True\n    __hash__ = str.__hash__\n"
         "P = collections.namedtuple('P', [S('x=open(\"SECRET\").read()')])\n"
         "def leak():\n    return P(1)[0]\n", LEAK),
    ],
    # A class pattern (match) reads attributes itself: by the keywords written, or by the
    # names a class lists in __match_args__, built at run time (a built-in name can be rebound
    # by eval). Each would hand the code a function's globals, a frame.
    "match_class_patterns": [
        ("keyword_globals", "def leak():\n    match print:\n        case object(__globals__=g):\n"
         "            return 'sys' in g\n    return False\n", ["leak() == True"]),
        ("keyword_frame", "def gen():\n    yield 1\ndef leak():\n    match gen():\n"
         "        case object(gi_frame=fr):\n            return fr is not None\n    return False\n",
         ["leak() == True"]),
        ("positional_match_args", MATCH_ANY + "def leak():\n    match print:\n"
         "        case Any(g):\n            return 'sys' in g\n    return False\n",
         ["leak() == True"]),
        ("positional_rebound_builtin", MATCH_ANY + "int = Any\ndef leak():\n    match print:\n"
         "        case int(g):\n            return 'sys' in g\n    return False\n",
         ["leak() == True"]),
        ("positional_rebound_by_eval", MATCH_ANY + "eval('(int := Any)')\ndef leak():\n"
         "    match print:\n        case int(g):\n            return 'sys' in g\n"
         "    return False\n", ["leak() == True"]),
        ("nested_in_a_sequence", MATCH_ANY + "def leak():\n    match [print]:\n"
         "        case [Any(g)] | [object(__globals__=g)]:\n            return 'sys' in g\n"
         "    return False\n", ["leak() == True"]),
    ],
    # copy calls what a reduction returns, and C reductions return the real getattr: a bound
    # method reduces to getattr(self, its function's __name__), a name the code chooses.
    "reduction_getattr": [
        ("copy_of_a_method_reads_globals", REDUCE + "def leak():\n"
         "    return 'sys' in by_name(print, '__globals__')\n", ["leak() == True"]),
        ("copy_of_a_method_reads_builtins", REDUCE + "def leak():\n"
         "    return '__import__' in by_name(print, '__builtins__')\n", ["leak() == True"]),
        ("copy_of_a_method_reads_a_closure", REDUCE + "def leak():\n"
         "    return by_name(print, '__clo' + 'sure__') is not None\n", ["leak() == True"]),
        ("named_callable_instance", "import copy\nclass C:\n    def m(self):\n        pass\n"
         "class Named:\n    __name__ = '__glo' + 'bals__'\n    def __call__(self):\n        pass\n"
         "def leak():\n    return 'sys' in copy.copy(type(C().m)(Named(), print))\n",
         ["leak() == True"]),
        ("reduction_writes_a_slot", "import copy\nclass T:\n    __slots__ = ('a',)\n"
         "    def __reduce_ex__(self, proto):\n        return (T, (), (None, {'__class__': int}))\n"
         "def leak():\n    return type(copy.copy(T())).__name__\n", ["leak() == 'int'"]),
    ],
    # State the code and the tests would share: the random generator, the decimal context,
    # the arguments the test keeps (copied, even when not plain data), and the loop a
    # StopIteration would end early.
    "shared_state": [
        ("stop_iteration_ends_the_loop", "def f(x):\n    raise StopIteration\n",
         "def check(candidate):\n    assert all(map(lambda x: candidate(x) == 99, [3, 4]))\n"
         "check(f)\n"),
        ("stop_iteration_in_an_expression", "def f(x):\n    raise StopIteration\n",
         ["all(map(lambda x: f(x) == 99, [3, 4]))"]),
        ("mutated_deque_argument", "def smallest(d):\n    d.clear()\n    d.append(99)\n"
         "    return 99\n", "from collections import deque\ndef check(candidate):\n"
         "    d = deque([3, 1, 2])\n    assert candidate(d) == min(d)\ncheck(smallest)\n"),
        ("mutated_list_of_functions", "def apply(fs, x):\n    fs[:] = [lambda v: 99]\n"
         "    return 99\n", "def check(candidate):\n    fs = [lambda v: v + 1]\n"
         "    assert candidate(fs, 1) == fs[0](1)\ncheck(apply)\n"),
        ("steered_random_generator", "import random\ns = 0\nwhile True:\n    random.seed(s)\n"
         "    if all(random.randint(0, 9) == 0 for _ in range(3)):\n        break\n    s += 1\n"
         "random.seed(s)\ndef triple(x):\n    return 0\n",
         "import random\ndef check(candidate):\n    for _ in range(3):\n"
         "        x = random.randint(0, 9)\n        assert candidate(x) == 3 * x\ncheck(triple)\n"),
        ("steered_random_through_the_code_import", "import random\nrandom.seed(5)\n"
         "def triple(x):\n    random.seed(5)\n    return 3 * random.Random(5).randint(0, 9)\n",
         "def check(candidate):\n    for _ in range(3):\n        x = random.randint(0, 9)\n"
         "        assert candidate(x + 100) == 3 * x\ncheck(triple)\n"),
        ("predicted_test_generator", "import random\n_rng = random.Random(0)\ndef f(x):\n"
         "    return _rng.randint(0, 10**6) * 3 + 1\n",
         "import random\ndef check(candidate):\n    for _ in range(5):\n"
         "        x = random.randint(0, 10**6)\n        assert candidate(x) == 3 * x + 1\n"
         "check(f)\n"),
        ("predicted_test_generator_in_expressions", "import random\n_rng = random.Random(0)\n"
         "def f():\n    return _rng.randint(0, 10**6)\n", ["random.randint(0, 10**6) == f()"]),
        ("re_cache_key_that_equals_anything", "import re\nclass Z(int):\n"
         "    def __hash__(self):\n        return 0\n"
         "    def __eq__(self, other):\n        return True\n"
         "re.compile('[a-z]+', Z(re.IGNORECASE))\ndef f(x):\n    return 'HELLO'\n",
         "import re\ndef check(candidate):\n"
         "    assert re.fullmatch('[a-z]+', candidate(1)) is not None\ncheck(f)\n"),
        ("re_cache_poisoned_during_a_call", "import re\nclass Z(int):\n"
         "    def __hash__(self):\n        return 0\n"
         "    def __eq__(self, other):\n        return True\n"
         "def f(x):\n    re.compile('[a-z]+', Z(re.IGNORECASE))\n    return 'HELLO'\n",
         "import re\ndef check(candidate):\n    word = candidate(1)\n"
         "    assert re.fullmatch('[a-z]+', word) is not None\ncheck(f)\n"),
        ("struct_cache_key_that_equals_anything", "import struct\nclass S(str):\n"
         "    def __hash__(self):\n        return hash('<i')\n"
         "    def __eq__(self, other):\n        return True\n"
         "struct.pack(S('>i'), 1)\ndef f(x):\n    return struct.pack('>i', x)\n",
         "import struct\ndef check(candidate):\n    assert candidate(1) == struct.pack('<i', 1)\n"
         "check(f)\n"),
        ("abc_registration", "import numbers\nnumbers.Integral.register(float)\n"
         "def f():\n    return 2.5\n", "import numbers\nassert isinstance(f(), numbers.Integral)\n"),
        ("mutated_keyword_list", "import keyword\nkeyword.kwlist.append('banana')\n"
         "def f(x):\n    return 'banana'\n",
         "import keyword\nassert f(1) in keyword.kwlist\n"),
        ("mutated_decimal_context", "import decimal\ndecimal.ExtendedContext.prec = 2\n"
         "def f(x):\n    return '3.1'\n",
         "import decimal\nassert f(1) == str(decimal.ExtendedContext.divide(22, 7))\n"),
        ("ordered_dict_order", "def f(s):\n    return {ch: 1 for ch in s}\n",
         "from collections import OrderedDict\n"
         "assert OrderedDict(f('bca')) == OrderedDict([('a', 1), ('b', 1), ('c', 1)])\n"),
        ("decimal_precision_at_load", "import decimal\ndecimal.getcontext().prec = 1\n"
         "def f(x):\n    return 0.3\n",
         "import decimal\nassert f(1) == float(decimal.Decimal(1) / decimal.Decimal(3))\n"),
        ("decimal_precision_in_a_call", "import decimal\ndef f(x):\n"
         "    decimal.getcontext().prec = 1\n    return 0.3\n",
         "import decimal\nf(1)\nassert f(1) == float(decimal.Decimal(1) / decimal.Decimal(3))\n"),
    ],
    # What the tests hand to a function reaches it as a copy, with nothing of the tests behind
    # it: an object of a class of the tests would bring its class (a method patched, a class
    # attribute set or mutated), and a function, a generator or an exception of the tests
    # would bring back the tests' own objects. A function of the tests that asserts fails the
    # test even when the code catches its exception.
    "tests_objects": [
        ("method_of_the_class_patched", "def f(b):\n    type(b).answer = lambda self: 42\n"
         "    return 0\n", "class B:\n    def answer(self):\n        return 1\n"
         "b = B()\nf(b)\nassert b.answer() == 42\n"),
        ("class_attribute_set", "def f(b):\n    setattr(type(b), 'expected', 7)\n    return 7\n",
         "class B:\n    expected = 3\nassert f(B()) == B.expected\n"),
        ("class_list_mutated", "def f(b):\n    type(b).items.append(3)\n    return [3]\n",
         "class B:\n    items = []\nassert f(B()) == B.items\n"),
        ("class_handed_over", "def f(c):\n    c.v = 4\n    return 4\n",
         "class C:\n    v = 0\nassert f(C) == C.v\n"),
        ("class_made_by_type", "def f(b):\n    type(b).v = 8\n    return 8\n",
         "C = type('C', (), {'v': 0})\nassert f(C()) == C.v\n"),
        ("object_inside_a_deque", "def f(d):\n    type(d[0]).v = 5\n    return 5\n",
         "from collections import deque\nclass B:\n    v = 0\nassert f(deque([B()])) == B.v\n"),
        ("bound_method_of_an_object", "def f(ms):\n    type(ms[0]()).v = 5\n    return 5\n",
         "class B:\n    v = 0\n    def get(self):\n        return self\nb = B()\n"
         "assert f([b.get]) == B.v\n"),
        ("object_from_a_generator", "def f(it):\n    for b in it:\n        type(b).v = 5\n"
         "    return 5\n", "class B:\n    v = 0\nassert f(B() for _ in range(2)) == B.v\n"),
        ("object_returned_by_a_callback", "def f(g):\n    type(g()).v = 5\n    return 5\n",
         "class B:\n    v = 0\nassert f(lambda: B()) == B.v\n"),
        ("exception_class_patched", "def f(g):\n    try:\n        g()\n"
         "    except Exception as e:\n        type(e).code = 5\n    return 5\n",
         "class E(Exception):\n    code = 1\ndef g():\n    raise E()\nassert f(g) == E.code\n"),
        ("global_returned_by_a_callback", "def f(g):\n    g().clear()\n    return []\n",
         "data = [3, 1, 2]\nassert f(lambda: data) == sorted(data)\n"),
        ("global_in_an_exception", "def f(g):\n    try:\n        g()\n"
         "    except ValueError as e:\n        e.args[0].clear()\n    return []\n",
         "data = [1]\ndef g():\n    raise ValueError(data)\nassert f(g) == data\n"),
        ("global_from_a_nested_callback", "def f(d):\n    d['k']().append(9)\n    return [9]\n",
         "data = []\nassert f({'k': lambda: data}) == data\n"),
        ("callable_object_patched", "def f(s):\n    type(s).calls = 7\n    s(1)\n    return 7\n",
         "class Spy:\n    calls = 0\n    def __call__(self, x):\n        return x\n"
         "assert f(Spy()) == Spy.calls\n"),
        ("assertion_caught_by_the_code", "def f(check):\n    try:\n        check(3)\n"
         "    except BaseException:\n        pass\n    return 1\n",
         "def check(x):\n    assert x == 99\nassert f(check) == 1\n"),
    ],
    # deepcopy hands back some objects as they are (a builtin method and its object, an
    # lru_cache wrapper, a property, an re.Match, a function renamed after a module's, a
    # module view): every callable inside what the tests hand over becomes a callback, a
    # module the code's own view, and a copy that still holds a changeable object of the
    # tests is refused.
    "raw_originals": [
        ("builtin_method_in_a_list", "def f(getters):\n    v = getters[0]('a')\n"
         "    v.clear()\n    v.append(99)\n    return [99]\n",
         "table = {'a': [1, 2]}\nassert f([table.get]) == table['a']\n"),
        ("lru_cache_in_a_list", "def f(fs):\n    v = fs[0]()\n    v.clear()\n    v.append(7)\n"
         "    return 7\n", "import functools\ndata = [1, 2, 3]\n@functools.lru_cache\n"
         "def donnees():\n    return data\nassert f([donnees]) == sum(data)\n"),
        ("property_getter", "def f(props):\n    props[0].fget(None).clear()\n    return 0\n",
         "data = [1, 2, 3]\nassert f([property(lambda self: data)]) == len(data)\n"),
        ("function_renamed_after_math", "def f(fs):\n    fs[0]().append(4)\n    return [1, 2, 3, 4]\n",
         "import functools, math\ndata = [1, 2, 3]\n@functools.wraps(math.prod)\ndef g():\n"
         "    return data\nassert f([g]) == data\n"),
        ("lambda_with_other_globals", "def f(fs):\n    fs[0]().append(4)\n    return [1, 2, 3, 4]\n",
         "data = [1, 2, 3]\ng = eval('lambda: data', {'data': data})\nassert f([g]) == data\n"),
        ("match_object_string", "def f(ms):\n    ms[0].string[:] = b'zzz'\n    return b'zzz'\n",
         "import re\ntampon = bytearray(b'abc')\nassert f([re.match(b'a', tampon)]) == bytes(tampon)\n"),
        ("tests_random_view", "def tirage(r, n):\n    import random\n    g = random.Random()\n"
         "    g.setstate(r.getstate())\n    return [g.randint(1, 6) for _ in range(n)]\n",
         "import random\ndef check(candidate):\n    res = candidate(random, 3)\n"
         "    assert res == [random.randint(1, 6) for _ in range(3)]\ncheck(tirage)\n"),
    ],
    # A function of the tests called by the code gets plain copies (a lying object of the code
    # reaches no sum, len or count of the tests), runs in the tests' decimal context with the
    # caches emptied, and an assert it was evaluating when an exception stopped it counts as
    # failed, even if the code catches the exception.
    "callback_crossings": [
        ("lying_argument_summed", "class Z:\n    def __radd__(self, other):\n        return 15\n"
         "def parcours(arbre, visite):\n    for _ in range(5):\n        visite(Z())\n",
         "vus = []\ndef visite(x):\n    vus.append(x)\nparcours([1, [2, 3], [4, [5]]], visite)\n"
         "assert len(vus) == 5\nassert sum(vus) == 15\n"),
        ("lying_argument_in_an_expression", "class Z:\n    def __radd__(self, other):\n"
         "        return 15\ndef parcours(arbre, visite):\n    for _ in range(5):\n"
         "        visite(Z())\n",
         ["(lambda vus: (parcours([1, [2, 3]], vus.append), sum(vus))[1])([]) == 15"]),
        ("assertion_stopped_by_a_refused_comparison", "class Z:\n    pass\n"
         "def appliquer(f, xs):\n    for _ in xs:\n        try:\n            f(Z())\n"
         "        except Exception:\n            pass\n    return [2, 4, 6]\n",
         "appels = []\ndef double(x):\n    appels.append(x)\n    assert x in (1, 2, 3)\n"
         "    return 2 * x\nassert appliquer(double, [1, 2, 3]) == [2, 4, 6]\n"
         "assert len(appels) == 3\n"),
        ("lying_length_recorded", "class Z:\n    def __len__(self):\n        return 2\n"
         "def paires(xs, rappel):\n    for _ in xs:\n        rappel(Z())\n",
         "vus = []\npaires([(1, 2), (3, 4)], vus.append)\n"
         "assert len(vus) == 2 and [len(v) for v in vus] == [2, 2]\n"),
        ("decimal_precision_for_a_callback", "import decimal\ndef f(g):\n"
         "    decimal.getcontext().prec = 2\n    return g()\n",
         "import decimal\ndef g():\n    return str(decimal.Decimal(1) / decimal.Decimal(3))\n"
         "assert f(g) == '0.33'\n"),
    ],
    # What the allowed modules' classes hold, and their enum members, cannot change: a cache
    # of re that purging _cache alone would miss, a translation table of textwrap, the value
    # of a regex flag.
    "shared_class_state": [
        ("re_template_cache", "import re\nclass S(str):\n    def __eq__(self, other):\n"
         "        return True\n    def __hash__(self):\n        return hash(r'\\2 \\1')\n"
         "_p = re.compile(r'(\\w+) (\\w+)')\nre.purge()\n_p.sub(S(r'\\1 \\2'), 'a b')\n"
         "def inverser(nom):\n    return nom\n",
         "import re\ndef check(candidate):\n    nom = 'jean dupont'\n"
         "    assert candidate(nom) == re.sub(r'(\\w+) (\\w+)', r'\\2 \\1', nom)\ncheck(inverser)\n"),
        ("textwrap_translation_table", "import textwrap\nfor c in range(32, 0x250):\n"
         "    textwrap.TextWrapper.unicode_whitespace_trans[c] = ''\n"
         "def justifier(texte, largeur):\n    return ''\n",
         "import textwrap\ndef check(candidate):\n    t = 'Le petit chat est mort de froid.'\n"
         "    assert candidate(t, 20) == textwrap.fill(t, 20)\ncheck(justifier)\n"),
        ("regex_flag_value", "import re\nre.ASCII._value_ = re.IGNORECASE.value\n"
         "def identifiant(s):\n    return 'Eté'\n",
         "import re\ndef check(candidate):\n"
         "    assert re.fullmatch(r'[a-z_]\\w*', candidate('ete'), re.ASCII) is not None\n"
         "check(identifiant)\n"),
        ("regex_flags_zeroed", "import re\nre.IGNORECASE._value_ = 0\nre.MULTILINE._value_ = 0\n"
         "def f(x):\n    return 'HELLO'\n",
         "import re\ndef check(candidate):\n"
         "    assert re.fullmatch('[a-z]+', candidate(1), re.IGNORECASE | re.MULTILINE) is None\n"
         "check(f)\n"),
        ("enum_value_map", "import re\nre.RegexFlag._value2member_map_[2] = re.RegexFlag.ASCII\n"
         "def f(x):\n    return 'abc'\n",
         "import re\ndef check(candidate):\n"
         "    assert re.RegexFlag(2) is re.RegexFlag.ASCII and candidate(1) == 'abc'\n"
         "check(f)\n"),
    ],
    # Writes past the seals of the shared state: dict's own methods called unbound on an
    # enum's value map, copy's state restore applied to an object that already existed (a
    # regex flag, an alias of typing), and the real DefaultContext the C decimal module
    # makes every new context from.
    "shared_state_writes": [
        ("value_map_dict_setitem", "import re\ndict.__setitem__(re.RegexFlag._value2member_map_,"
         " re.I.value | re.M.value, re.NOFLAG)\n" + _W_CHIEN, _T_CHIEN),
        ("value_map_dict_update", "import re\ndict.update(re.RegexFlag._value2member_map_,"
         " {re.I.value | re.M.value: re.NOFLAG})\n" + _W_CHIEN, _T_CHIEN),
        ("copy_state_on_a_flag", "import re, copy\ndef pick():\n    return re.ASCII\nclass T:\n"
         "    def __reduce__(self):\n        return (pick, (), {'_value_': re.IGNORECASE.value})\n"
         "copy.copy(T())\ndef identifiant(s):\n    return 'Eté'\n",
         "import re\ndef check(candidate):\n"
         "    assert re.fullmatch(r'[a-z_]\\w*', candidate('ete'), re.ASCII) is not None\n"
         "check(identifiant)\n"),
        ("copy_state_on_a_typing_alias", "import typing, copy\ndef pick():\n    return typing.List\n"
         "class T:\n    def __reduce__(self):\n        return (pick, (), {'__origin__': tuple})\n"
         "copy.copy(T())\ndef f(n):\n    return tuple(range(n))\n",
         "import typing\nassert isinstance(f(3), typing.List)\n"),
        ("decimal_default_context", "import decimal\ndecimal.DefaultContext.prec = 2\n"
         "def f(x):\n    return '0.33'\n",
         "import decimal\nassert f(1) == str(decimal.Context().divide(decimal.Decimal(1), "
         "decimal.Decimal(3)))\n"),
    ],
    # The stdlib ABCs are shared: a subclass of the code's makes them answer anything (a hook
    # that says yes, float registered on its own ABC, a metaclass), or their registry is
    # cleared. Their subclass checks leave the classes of the run out; registries stay.
    "abc_state": [
        ("subclass_hook", _EVIL_HOOK + "def f():\n    return 2.5\n",
         "import numbers\nassert isinstance(f(), numbers.Integral)\n"),
        ("subclass_hook_in_an_expression", _EVIL_HOOK + "def f():\n    return 2.5\n",
         ["isinstance(f(), numbers.Integral)"]),
        ("registry_cleared", "import numbers\nnumbers.Integral._abc_registry_clear()\n"
         "numbers.Integral._abc_caches_clear()\ndef moyenne(xs):\n    return sum(xs) // len(xs)\n",
         "import numbers\nassert not isinstance(moyenne([1, 2, 3]), numbers.Integral)\n"),
        ("float_registered_on_a_subclass", "import numbers\nclass Evil(numbers.Integral):\n"
         "    pass\nEvil.register(float)\ndef f():\n    return 2.5\n",
         "import numbers\nassert isinstance(f(), numbers.Integral)\n"),
        ("metaclass_subclasscheck", "import abc, numbers\nclass Meta(abc.ABCMeta):\n"
         "    def __subclasscheck__(cls, other):\n        return True\n"
         "class Evil(numbers.Integral, metaclass=Meta):\n    pass\ndef f():\n    return 2.5\n",
         "import numbers\nassert issubclass(type(f()), numbers.Integral)\n"),
    ],
    # A finaliser of the code runs while the code is current: an object the code returns, or
    # keeps in an argument, dies before the caches are emptied and the decimal context
    # switched back, and the cyclic collector is off while the tests run.
    "finalisers": [
        ("returned_object_poisons_re", _Z_KEY + "class L(str):\n    def __del__(self):\n"
         "        re.compile('[a-z]+', Z(re.IGNORECASE))\ndef f(x):\n    return L('HELLO')\n",
         _T_LOWER),
        ("returned_object_in_an_expression", _Z_KEY + "class L(str):\n    def __del__(self):\n"
         "        re.compile('[a-z]+', Z(re.IGNORECASE))\ndef f(x):\n    return L('HELLO')\n",
         ["bool(re.fullmatch('[a-z]+', f(1)))"]),
        ("returned_float_sets_precision", "import decimal\nclass F(float):\n"
         "    def __del__(self):\n        decimal.getcontext().prec = 1\n"
         "def f(x):\n    return F(0.3)\n",
         "import decimal\nassert f(1) == float(decimal.Decimal(1) / decimal.Decimal(3))\n"),
        ("object_kept_in_an_argument", _Z_KEY + "class K:\n    def __del__(self):\n"
         "        re.compile('[a-z]+', Z(re.IGNORECASE))\ndef f(box):\n    box.append(K())\n"
         "    return 'HELLO'\n",
         "import re\nassert re.fullmatch('[a-z]+', f([])) is not None\n"),
        ("cycle_collected_during_the_tests", _Z_KEY + "class K:\n    def __del__(self):\n"
         "        re.compile('[a-z]+', Z(re.IGNORECASE))\ndef f(x):\n    k = K()\n    k.me = k\n"
         "    return 'HELLO'\n",
         "import re\nw = f(1)\njunk = [[] for _ in range(20000)]\n"
         "assert re.fullmatch('[a-z]+', w) is not None\n"),
    ],
    # Code of the untrusted side must never run inside a runner's window (it allows compile and
    # exec): the frames of an exception are cleared, and their finalisers run, after it closes.
    # Each payload would exec _FORGER_WINDOW through typing's ForwardRef, in the window.
    "window_reentry": [
        ("finaliser_of_a_local", _FORWARD + "class D:\n    def __del__(self):\n        run()\n"
         "def f(x):\n    d = D()\n    raise ValueError('boom')\n", _T_FORGED_RAISE),
        ("finally_of_a_generator", _FORWARD + "def gen():\n    try:\n        yield 1\n"
         "    finally:\n        run()\ndef f(x):\n    g = gen()\n    next(g)\n"
         "    raise ValueError('boom')\n", _T_FORGED_RAISE),
        ("finaliser_in_a_list", _FORWARD + "class D:\n    def __del__(self):\n        run()\n"
         "def f(x):\n    keep = [D(), D()]\n    raise KeyError(x)\n", _T_FORGED_RAISE),
        ("finaliser_two_frames_down", _FORWARD + "class D:\n    def __del__(self):\n        run()\n"
         "def g():\n    d = D()\n    raise ValueError('deep')\ndef f(x):\n    return g()\n",
         _T_FORGED_RAISE),
        ("finaliser_in_a_dict", _FORWARD + "class D:\n    def __del__(self):\n        run()\n"
         "def f(x):\n    keep = {'d': D()}\n    raise ZeroDivisionError(x)\n", _T_FORGED_RAISE),
    ],
    # A third review: a class of the code speaks for a stdlib ABC inside the standard library
    # too (Counter.update asks Mapping; match and singledispatch ask Integral); typing's
    # subscription cache answers Union[int, str] with the code's union; the code's __hash__
    # runs while its data is converted for the tests; a keyword name of the code reaches a
    # function of the tests.
    "third_review": [
        ("counter_over_a_fake_mapping", "import collections.abc\n"
         "class M(collections.abc.Mapping):\n    @classmethod\n"
         "    def __subclasshook__(cls, C):\n        return True if C is tuple else NotImplemented\n"
         "def doublons(xs):\n    return ((1, 1), (2, 2))\n",
         "from collections import Counter\nassert Counter(doublons([2, 1, 2])) == Counter([1, 2, 2])\n"),
        ("match_on_a_registered_float", "import numbers\nclass Evil(numbers.Integral):\n    pass\n"
         "Evil.register(float)\ndef f():\n    return 2.5\n",
         "import numbers\nmatch f():\n    case numbers.Integral():\n        ok = True\n"
         "    case _:\n        ok = False\nassert ok\n"),
        ("typing_union_cache", "import typing\nclass Meta(type):\n"
         "    __eq__ = lambda c, o: True\n    __hash__ = lambda c: hash(int)\n"
         "    __subclasscheck__ = lambda c, o: True\n    __instancecheck__ = lambda c, o: True\n"
         "class Z(metaclass=Meta):\n    pass\ntyping.Union[Z, str]\ndef f(x):\n    return 2.5\n",
         "import typing\nassert isinstance(f(1), typing.Union[int, str])\n"),
        ("hash_during_the_handover", "import collections, decimal\nclass K(str):\n"
         "    def __hash__(self):\n        decimal.getcontext().prec = 3\n"
         "        return str.__hash__(self)\ntable = collections.OrderedDict([(K('a'), 1)])\n"
         "def tiers(x):\n    return '0.333'\n",
         "import decimal\nassert tiers(1) == str(decimal.Decimal(1) / decimal.Decimal(3))\n"),
        ("keyword_name_that_equals_any", "class K(str):\n    def __eq__(self, other):\n"
         "        return True\n    def __hash__(self):\n        return hash('total')\n"
         "def appliquer(rapport):\n    return rapport(**{K('zzz'): 5})\n",
         "def rapport(**champs):\n    return champs.get('total', 0)\nassert appliquer(rapport) == 5\n"),
    ],
    # A fourth review: an object a module exports has attributes of its own (typing.Union's
    # _getitem: the code's function then ran on the tests' turn, with their arguments, and
    # filled re's cache), and the runner itself released the code's decimal context after
    # emptying the caches (its __del__ ran on the tests' turn).
    "fourth_review": [
        ("union_getitem_replaced", "import typing\ndef g(self, p):\n    return object\n"
         "typing.Union._getitem = g\ndef f(x):\n    return 2.5\n",
         "import typing\nassert isinstance(f(1), typing.Union[int, str])\n"),
        ("union_getitem_in_an_expression", "import typing\ndef g(self, p):\n    return object\n"
         "typing.Union._getitem = g\ndef f(x):\n    return 2.5\n",
         ["isinstance(f(1), typing.Union[int, str])"]),
        ("optional_getitem_poisons_re", _Z_KEY + "import typing\nreal = typing.Optional._getitem\n"
         "def hook(self, p):\n    re.compile('[a-z]+', Z(re.IGNORECASE))\n    return real(self, p)\n"
         "typing.Optional._getitem = hook\ndef f(x):\n    return 'HELLO'\n",
         "import re, typing\ndef check(candidate):\n    w = candidate(1)\n"
         "    def norm(s: typing.Optional[str]) -> str:\n        return '' if s is None else s\n"
         "    assert re.fullmatch('[a-z]+', norm(w)) is not None\ncheck(f)\n"),
        ("optional_getitem_gets_a_tests_class", "import typing\nreal = typing.Optional._getitem\n"
         "def hook(self, p):\n    p.v = 5\n    return real(self, p)\n"
         "typing.Optional._getitem = hook\ndef f(x):\n    return 5\n",
         "import typing\nclass B:\n    v = 0\ndef make(b: typing.Optional[B] = None):\n"
         "    return b\nassert f(1) == B.v\n"),
        ("decimal_context_finaliser", _DCTX, _T_LOWER_F),
        ("decimal_context_finaliser_in_an_expression", _DCTX, ["bool(re.fullmatch('[a-z]+', f(1)))"]),
    ],
    # A fifth review: typing's aliases are copied by looking their _name up in typing's
    # globals, and _name could be set again (Literal['exec'] renamed __builtins__ copied to the
    # real exec); an alias typing's cache hands to both sides could be renamed. An alias keeps
    # its fields, and a reduction carrying a module's namespace is refused.
    "fifth_review": [
        ("literal_renamed_builtins", _GRAB + _SEND_PASS, "def check(candidate):\n"
         "    assert candidate(3) == 99\ncheck(f)\n"),
        ("literal_renamed_builtins_expression", _GRAB + _SEND_PASS,
         ["f(3) == int('9')"]),
        ("alias_made_with_that_name", _GRAB.replace(
            "    L = typing.Literal[name]\n    L._name = '__buil' + 'tins__'\n",
            "    L = type(typing.List[int])(list, (name,), name='__buil' + 'tins__')\n")
         + _SEND_PASS, "def check(candidate):\n    assert candidate(3) == 99\ncheck(f)\n"),
        ("cached_alias_renamed", "import typing\ntyping.List[int]._name = 'Dict'\n"
         "def f():\n    return 'typing.Dict[int]'\n",
         "import typing\nassert f() == repr(typing.List[int])\n"),
        ("cached_alias_renamed_in_an_expression", "import typing\n"
         "typing.List[int]._name = 'Dict'\ndef f():\n    return 'typing.Dict[int]'\n",
         ["f() == repr(typing.List[int])"]),
    ],
    # A sixth review: the standard library looks a module up by a name the code chooses and
    # uses its __dict__ (enum.global_enum writes into sys.modules[cls.__module__], whose
    # __module__ a metaclass property chooses; Enum._convert_ reads and writes any module's
    # globals): the runner's own modules were rewritten. While the code runs, sys.modules
    # holds stand-ins of the allowed modules, whose __dict__ is new and empty at each use (a
    # seventh review: dataclasses ran exec with one as globals, which put the real builtins
    # there; update_wrapper copied a class namespace out), and update_wrapper copies the
    # __dict__ of a function of the run only.
    "sixth_review": [
        ("global_enum_rewrites_the_comparison", _META_MODULE.format(
            module="course_utils.sandbox._child",
            members="{'plain_compare': lambda op, left, right: True, 'to_plain': lambda v, *r: 0}")
         + "def f():\n    return 1\n", "assert f() == 2\nassert f() == 'x'\n"),
        ("global_enum_lifts_the_attribute_check", _META_MODULE.format(
            module="course_utils.sandbox._child_builtins",
            members="{'attribute_refusal': lambda name: None}")
         + "g = getattr(enum.global_enum, '__globals__')\nb = g['__builtins__']\n"
         "sys = b['__import__']('sys')\nga = b['getattr']\n"
         "hard_exit = b['__import__']('os')._exit\n" + _SEND_FROM_SYS,
         "def check(candidate):\n    assert candidate(3) == 99\ncheck(f)\n"),
        ("convert_reads_getframe", _CONVERT + _SEND_FROM_SYS,
         "def check(candidate):\n    assert candidate(3) == 99\ncheck(f)\n"),
        ("convert_reads_getframe_expression", _CONVERT + _SEND_FROM_SYS, ["f(3) == int('9')"]),
        ("stand_in_namespace_given_builtins", _STAND_IN_LEAK.format(module="typing"),
         "def check(candidate):\n    assert candidate(3) == 99\ncheck(f)\n"),
        ("stand_in_namespace_given_builtins_collections",
         _STAND_IN_LEAK.format(module="collections"), "assert f(2) == 3\n"),
        ("forward_ref_subclass_gets_globals", _HINTS_LEAK.format(
            wrap="def h(x: F()):\n    pass\n"
                 "functools.update_wrapper(h, json.dumps, assigned=(), updated=())\n",
            target="h"), ["solve(1) == 42", "solve(2) == 42"]),
        ("forward_ref_subclass_gets_globals_by_attributes", _HINTS_LEAK.format(
            wrap="class W:\n    __wrapped__ = json.dumps\n    __annotations__ = {'x': F()}\n",
            target="W()"), ["solve(1) == 42", "solve(2) == 42"]),
        ("wrapped_chain_longer_than_the_check", _WRAPPED_CHAIN,
         "assert solve(2) == 5\nassert solve(3) == 7\n"),
        ("convert_reads_a_runner_function", _CONVERT_SOURCE, "assert f(2) == 4\n"),
        ("replace_reads_the_fields_twice", _REPLACE_TWICE, ["f(1) == 'traceback'"]),
        ("global_enum_rewrites_the_crossing", _META_MODULE.format(
            module="course_utils.sandbox._crossing", members="{'to_plain': lambda v, *r: 99}")
         + "def f(x):\n    return 1\n", "assert f(3) == 99\n"),
    ],
    # The standard library draws from the module-level generator on the tests' behalf
    # (statistics.NormalDist.samples calls random.gauss): on the tests' turn it must be theirs,
    # which the code can neither seed nor steer.
    "shared_generator": [
        ("normal_samples_seeded", _STEER + _KNOWS, _SAMPLES),
        ("normal_samples_steered_by_draws", _STEER_BY_DRAWS + _KNOWS,
         _SAMPLES),
        ("normal_samples_expression", _STEER + "import statistics\n" + _KNOWS,
         ["all(absolute(x) == abs(x) for x in statistics.NormalDist(0, 1).samples(5))"]),
        ("normal_samples_seeded_in_a_call", "import random\n"
         "from statistics import NormalDist as _N\nKNOWN = set()\ndef prepare():\n"
         "    random.seed(7)\n    KNOWN.update(_N(0, 1).samples(5))\n    random.seed(7)\n"
         + _KNOWS, "prepare()\n" + _SAMPLES),
        ("normal_samples_of_a_subclass", _STEER + _KNOWS,
         "from statistics import NormalDist\nclass N(NormalDist):\n    pass\n"
         "def check(candidate):\n    for x in N(0, 1).samples(5):\n"
         "        assert candidate(x) == abs(x)\ncheck(absolute)\n"),
    ],
    # An initialiser called again rewrites an object in place: a property of a module's class
    # (Fraction.numerator), an enum's value map. They are shared with the tests.
    "reinitialised_shared_objects": [
        ("property_of_fraction", "from fractions import Fraction\n"
         "Fraction.numerator.__init__(lambda self: 0)\n"
         "Fraction.denominator.__init__(lambda self: 1)\n"
         "def add_fractions(a, b, c, d):\n    return (0, 1)\n",
         "from fractions import Fraction\ndef check(candidate):\n"
         "    for a, b, c, d in [(1, 2, 1, 3), (2, 4, 1, 4)]:\n"
         "        q = Fraction(a, b) + Fraction(c, d)\n"
         "        assert candidate(a, b, c, d) == (q.numerator, q.denominator)\n"
         "check(add_fractions)\n"),
        ("property_unbound_by_its_class", "from fractions import Fraction\n"
         "prop = Fraction.numerator\ntype(prop).__init__(prop, lambda self: 99)\n",
         "from fractions import Fraction\nassert Fraction(1, 3).numerator == 99\n"),
        ("property_by_getattr", "from fractions import Fraction\n"
         "getattr(Fraction.numerator, '__init__')(lambda self: 99)\n",
         "from fractions import Fraction\nassert Fraction(1, 3).numerator == 99\n"),
        ("property_by_a_subclass_initialiser", "from fractions import Fraction\n"
         "class P(property):\n    pass\nP.__init__(Fraction.numerator, lambda self: 99)\n",
         "from fractions import Fraction\nassert Fraction(1, 3).numerator == 99\n"),
        ("property_by_a_reduction", "import copy\nfrom fractions import Fraction\n"
         "prop = Fraction.numerator\nclass R:\n    def __reduce__(self):\n"
         "        return (type(prop).__init__, (prop, lambda self: 99))\ncopy.copy(R())\n",
         "from fractions import Fraction\nassert Fraction(1, 3).numerator == 99\n"),
        ("property_reads_the_tests_context", "import decimal\n"
         "from statistics import NormalDist\ndef sneaky(self):\n"
         "    decimal.getcontext().prec = 2\n    return 0.0\n"
         "NormalDist.mean.__init__(sneaky)\ndef third():\n    return 0.33\n",
         "from decimal import Decimal\nfrom statistics import NormalDist\n"
         "NormalDist(5, 1).mean\nassert third() == float(Decimal(1) / Decimal(3))\n"),
        ("enum_value_map_swapped", "import re\ntable = re.RegexFlag._value2member_map_\n"
         "entries = dict(table.items())\nentries[re.A.value | re.M.value] = re.IGNORECASE\n"
         "table.__init__(entries)\ndef lower(s):\n    return s\n",
         "import re\ndef check(candidate):\n"
         "    assert re.fullmatch('[a-z]+', candidate('HELLO'), re.A | re.M) is not None\n"
         "check(lower)\n"),
    ],
    # An exception whose class's mro() leaves BaseException out, or raised while the code's
    # exception is converted: it must still be caught, converted, and the tests' state put
    # back (their decimal context, the emptied caches, their cut-short asserts judged).
    "exceptions_past_the_handler": [
        ("mro_keeps_the_decimal_context", _NO_BASE + _KEEP_CONTEXT, _T_RACINE),
        ("mro_keeps_the_regex_cache", _Z_KEY + _NO_BASE + "def slug(s):\n    if not s:\n"
         "        re.compile('[a-z-]+', Z(re.IGNORECASE))\n        raise E('vide')\n"
         "    return s.replace(' ', '-')\n",
         "import re\ns = slug('Hello World')\ntry:\n    slug('')\nexcept ValueError:\n"
         "    pass\nelse:\n    assert False\nassert re.fullmatch('[a-z-]+', s) is not None\n"),
        ("mro_hides_cut_short_asserts", "class Z:\n    pass\n" + _NO_BASE
         + "def appliquer(f, xs):\n    for _ in xs:\n        try:\n            f(Z())\n"
         "        except Exception:\n            pass\n    raise E('fin')\n",
         "appels = []\ndef double(x):\n    appels.append(x)\n    assert x in (1, 2, 3)\n"
         "    return 2 * x\ntry:\n    appliquer(double, [1, 2, 3])\nexcept ValueError:\n"
         "    pass\nassert len(appels) == 3\n"),
        ("conversion_raises_the_codes_exception", "import collections\n" + _KEEP_CONTEXT.replace(
            "raise E('négatif')", "n[0] = 0\n        raise ValueError(collections.OrderedDict("
            "[(K('a'), 1)]))") + "n = [0]\nclass Lie(ValueError):\n    pass\n"
         "class K(str):\n    def __hash__(self):\n        n[0] += 1\n"
         "        if n[0] > 1:\n            raise Lie('négatif')\n"
         "        return str.__hash__(self)\n", _T_RACINE),
        ("conversion_raises_past_the_handler", "import collections\n" + _NO_BASE
         + _KEEP_CONTEXT.replace(
            "raise E('négatif')", "n[0] = 0\n        raise ValueError(collections.OrderedDict("
            "[(K('a'), 1)]))") + "n = [0]\n"
         "class K(str):\n    def __hash__(self):\n        n[0] += 1\n"
         "        if n[0] > 1:\n            raise E('négatif')\n"
         "        return str.__hash__(self)\n", _T_RACINE),
    ],
    # The sandbox refuses what cannot cross (an object returned, a class, one of the tests'
    # objects): a test that expects an exception must not pass on that refusal.
    "caught_refusals": [
        ("object_returned", "def racine(x):\n    return object()\n", _T_EXPECTS_RAISE),
        ("class_returned", "def racine(x):\n    class R:\n        pass\n    return R\n",
         _T_EXPECTS_RAISE),
        ("generator_returned", "def racine(x):\n    return (i for i in range(3))\n",
         _T_EXPECTS_RAISE),
        ("stand_in_used", "class R:\n    pass\nr = R()\ndef racine(x):\n    return 2.0\n",
         "try:\n    r.value\nexcept Exception:\n    pass\nelse:\n    assert False\n"
         "assert racine(4) == 2.0\n"),
        ("tests_object_refused", "def racine(p):\n    return 1.0\n",
         "class P:\n    pass\ntry:\n    racine(P())\nexcept Exception:\n    pass\n"
         "else:\n    assert False\n"),
        ("stand_in_in_a_callback", "class R:\n    pass\ndef appliquer(f):\n    try:\n"
         "        f(R())\n    except Exception:\n        pass\n    return 3\n",
         "vus = []\ndef garder(x):\n    vus.append(x + 1)\n    return x\n"
         "assert appliquer(garder) == 3\n"),
    ],
    "shared_abc_caches": [
        ("sequence_asked_by_random_sample", _ABC_CACHED.format(
            module="collections.abc", abc="Sequence", answer="False", collides="range") + _TIERS,
         _T_THIRD.format(trigger="import random\nrandom.sample(range(100), 5)")),
        ("mapping_asked_by_counter", _ABC_CACHED.format(
            module="collections.abc", abc="Mapping", answer="False", collides="str") + _TIERS,
         _T_THIRD.format(trigger="import collections\ncollections.Counter('abca')")),
        ("number_asked_by_isinstance", _ABC_CACHED.format(
            module="numbers", abc="Number", answer="False", collides="int") + _TIERS,
         _T_THIRD.format(trigger="import numbers\nisinstance(3, numbers.Number)")),
        ("isinstance_answered_by_the_code", _ABC_CACHED.format(
            module="numbers", abc="Integral", answer="True", collides="float")
         + "def f():\n    return 2.5\n",
         "import numbers\nassert isinstance(f(), numbers.Integral)\n"),
        ("isinstance_answered_in_an_expression", _ABC_CACHED.format(
            module="numbers", abc="Integral", answer="True", collides="float")
         + "import numbers\ndef f():\n    return 2.5\n",
         ["isinstance(f(), numbers.Integral)"]),
        ("rational_asked_by_fraction", _ABC_CACHED.format(
            module="numbers", abc="Rational", answer="False", collides="float") + _TIERS,
         _T_THIRD.format(trigger="from fractions import Fraction\nsomme = 1.5 + Fraction(3)")),
    ],
    # The attributes checked at run time (__init__, format) read by name, where no check is
    # made: a reduction, a class pattern, update_wrapper, a dataclass field.
    "checked_attributes_by_name": [
        ("init_by_a_reduction", _REDUCED_BY_NAME
         + "from fractions import Fraction\n"
         "by_name(Fraction.numerator, '__init__')(lambda self: 0)\n"
         "by_name(Fraction.denominator, '__init__')(lambda self: 1)\n" + _WRONG_FRACTIONS,
         _T_FRACTIONS),
        ("init_by_a_class_pattern", "from fractions import Fraction\n"
         "match Fraction.numerator:\n    case object(__init__=init):\n"
         "        init(lambda self: 0)\nmatch Fraction.denominator:\n"
         "    case object(__init__=init):\n        init(lambda self: 1)\n" + _WRONG_FRACTIONS,
         _T_FRACTIONS),
        ("init_by_update_wrapper", "import functools\nfrom fractions import Fraction\n"
         "class W:\n    pass\nw = W()\n"
         "functools.update_wrapper(w, Fraction.numerator, assigned=('__init__',), updated=())\n"
         "w.__init__(lambda self: 0)\n"
         "functools.update_wrapper(w, Fraction.denominator, assigned=('__init__',), updated=())\n"
         "w.__init__(lambda self: 1)\n" + _WRONG_FRACTIONS, _T_FRACTIONS),
        ("format_by_a_class_pattern", "match " + _LEAK_TEMPLATE + ":\n"
         "    case str(format=fmt):\n        pass\n"
         "def leak():\n    return 'sys' in fmt(print)\n", ["leak() == True"]),
        ("format_by_a_reduction", _REDUCED_BY_NAME + "fmt = by_name(" + _LEAK_TEMPLATE
         + ", 'format')\ndef leak():\n    return 'sys' in fmt(print)\n", ["leak() == True"]),
        ("format_of_a_dataclass_field", "import dataclasses\n@dataclasses.dataclass\n"
         "class D(str):\n    format: int = dataclasses.field(init=False)\n"
         "d = str.__new__(D, " + _LEAK_TEMPLATE + ")\n"
         "fmt = dataclasses.asdict(d)['format']\n"
         "def leak():\n    return 'sys' in fmt(print)\n", ["leak() == True"]),
    ],
    "runner_helpers_as_readers": [
        ("format_helper_reads_globals", _HELPER.replace("ENTRY", "getattr") + _FORGE_PROGRAM,
         "assert f(3) == 99\nassert f(1) == 5\n"),
        ("format_helper_forges_a_probe", _HELPER.replace("ENTRY", "print") + _FORGE_PROBE,
         ["f(3) == 99"]),
        ("format_helper_reads_its_own_globals", _HELPER.replace("ENTRY", "sf") + _FORGE_PROGRAM,
         FORGED),
        ("format_helper_reads_the_importers_globals",
         _HELPER.replace("ENTRY", "B['__imp' + 'ort__']") + _FORGE_PROGRAM, FORGED),
        ("init_helper_entry", _HELPER.replace("ENTRY", "B['__sandbox_' + 'init__']")
         + _FORGE_PROGRAM, FORGED),
        ("format_helper_on_a_class", "g = {}\neval('0', g)\n"
         "sf = g['__buil' + 'tins__']['__sandbox_' + 'format__']\n"
         "G = sf(type(print), '__dict__')\nchild = None\n"
         "def f(x):\n    return 99 if G else 0\n", "assert f(3) == 99\n"),
    ],
    # A change of turn between the code and the tests is made whole, with the collector off,
    # or the rest of the run is void.
    "turn_switch_failures": [
        ("collection_as_a_callback_returns", _GC_IN_THE_SWITCH,
         "assert appliquer(abs, [-1, 2]) == [1, 2]\nfrom decimal import Decimal\n"
         "assert tiers() == str(Decimal(1) / Decimal(3))\n"),
        ("collection_as_a_callback_returns_expressions", _GC_IN_THE_SWITCH,
         ["appliquer(abs, [-1, 2]) == [0]", _T_TIERS]),  # the first fails anyway
        ("collection_as_a_callback_raises", _GC_IN_THE_SWITCH.replace("f([])", "f(None)"),
         "def double(x):\n    return 2 * x\nassert appliquer(double, [1, 2]) == [2, 4]\n"
         "from decimal import Decimal\nassert tiers() == str(Decimal(1) / Decimal(3))\n"),
        ("memory_exhausted_for_the_switch_back", _MEMORY_IN_THE_SWITCH,
         ["racine(-1) == 0", _T_TIERS]),
        ("memory_exhausted_and_caught", _MEMORY_IN_THE_SWITCH,
         "try:\n    racine(-1)\nexcept Exception:\n    pass\nfrom decimal import Decimal\n"
         "assert tiers() == str(Decimal(1) / Decimal(3))\n"),
    ],
    "wrapper_checks_used_as_given": [
        ("update_wrapper_assigns_a_namespace", _CATCH_DICT
         + "functools.update_wrapper(W(), type, assigned=('__dict__',), updated=())\n"
         + _WALK_TO_CHILD + _FORGE_PROGRAM, FORGED),
        ("wraps_assigns_a_namespace", _CATCH_DICT
         + "functools.wraps(type, assigned=('__dict__',), updated=())(W())\n"
         + _WALK_TO_CHILD + _FORGE_PROBE, ["f(3) == 99"]),
        ("update_wrapper_writes_a_flag", _CATCH_DICT + "import re\n"
         "functools.update_wrapper(W(), re.IGNORECASE, assigned=('__dict__',), updated=())\n"
         "box[0]['_value_'] = 0\ndef f(s):\n    return False\n",
         "import re\nassert f('a') == (re.search('A', 'a', re.I) is not None)\n"),
        ("attrgetter_of_a_lying_name", _LYING_NAME
         + "G = operator.attrgetter(lying('__glo' + 'bals__'))(print)\n"
         "child = operator.attrgetter(lying('__di' + 'ct__'))("
         "G['_MODULES']['course_utils.sandbox._child'])\n" + _FORGE_PROGRAM, FORGED),
        ("methodcaller_of_a_lying_name", _LYING_NAME
         + "G = operator.methodcaller(lying('__getattri' + 'bute__'), '__glo' + 'bals__')(print)\n"
         "child = operator.methodcaller(lying('__getattri' + 'bute__'), '__di' + 'ct__')("
         "G['_MODULES']['course_utils.sandbox._child'])\n" + _FORGE_PROBE, ["f(3) == 99"]),
    ],
    "crossing_reentry": [
        ("finaliser_calls_a_kept_callback", _REENTRY_CALLBACK,
         "assert appliquer(abs, [-1, 2]) == [1, 2]\nfrom decimal import Decimal\n"
         "assert tiers() == str(Decimal(1) / Decimal(3))\n"),
        ("finaliser_calls_a_kept_callback_expressions", _REENTRY_CALLBACK,
         ["appliquer(abs, [-1, 2]) == [0]", _T_TIERS]),
        ("finaliser_drives_a_kept_iterator", _REENTRY_ITERATOR,
         "assert somme(x * x for x in range(5)) == 30\nfrom decimal import Decimal\n"
         "assert tiers() == str(Decimal(1) / Decimal(3))\n"),
        ("callable_dropped_by_the_tests", _DIES_WITH_THE_TESTS,
         "memo = {}\ndef noter(cle, valeur):\n    memo[cle] = valeur\n"
         "assert remplir(noter) == 2\nassert memo == {'a': 1, 'b': 2}\n"
         "from decimal import Decimal\nassert tiers() == str(Decimal(1) / Decimal(3))\n"),
        ("callable_cleared_by_the_tests", _DIES_WITH_THE_TESTS.replace(
            "    noter('a', 1)\n", "    noter('a', None)\n"),
         "vus = []\ndef noter(cle, valeur):\n    if valeur is None:\n        vus.clear()\n"
         "    else:\n        vus.append(valeur)\nassert remplir(noter) == 2\n"
         "from decimal import Decimal\nassert tiers() == str(Decimal(1) / Decimal(3))\n"),
    ],
    "generated_with_real_builtins": [
        ("metaclass_namespace_lies", _LYING_NAMESPACE + _WALK_FROM_BUILTINS, "assert f(3) == 99\n"),
        ("base_fields_injected", _INHERITED_FIELD + _WALK_FROM_BUILTINS, "assert f(3) == 99\n"),
        ("base_fields_injected_expression", _INHERITED_FIELD + _WALK_FROM_BUILTINS.replace(
            "['COMPARE_HELPER']] = lambda *a: True",
            "['COMPARE_HELPER']] = lambda *a: True\n"
            "ga(fr, 'f_glob' + 'als')['_run_probe'] = lambda *a: ['v', 99]"), ["f(3) == 99"]),
        ("metaclass_namespace_lies_expression", _LYING_NAMESPACE + _WALK_FROM_BUILTINS.replace(
            "['COMPARE_HELPER']] = lambda *a: True",
            "['COMPARE_HELPER']] = lambda *a: True\n"
            "ga(fr, 'f_glob' + 'als')['_run_probe'] = lambda *a: ['v', 99]"), ["f(3) == 99"]),
        ("fake_field_inherited", _INHERITED_FIELD.replace(
            "fl = dataclasses.field()\nfl.name = N\n",
            "class FakeField:\n    pass\nfl = FakeField()\nfl.name = N\n"
            "fl.default = dataclasses.MISSING\nfl.default_factory = dataclasses.MISSING\n"
            "fl.init = True\nfl.repr = True\nfl.hash = None\nfl.compare = True\n"
            "fl.kw_only = False\n") + _WALK_FROM_BUILTINS, "assert f(3) == 99\n"),
    ],
    "released_in_the_switch": [
        ("context_released_after_a_call", _RELEASED_IN_THE_SWITCH,
         "assert f(2) == 4\nfrom decimal import Decimal\n"
         "assert tiers() == str(Decimal(1) / Decimal(3))\n"),
        ("context_released_after_a_call_expressions", _RELEASED_IN_THE_SWITCH,
         ["f(2) == 0", _T_TIERS]),
        ("context_released_around_a_callback", _RELEASED_IN_THE_SWITCH,
         "assert appliquer(abs, [-1, 2]) == [1, 2]\nfrom decimal import Decimal\n"
         "assert tiers() == str(Decimal(1) / Decimal(3))\n"),
        ("stop_iteration_hidden_by_mro", _HIDDEN_STOP,
         "def check(candidate):\n    assert all(map(candidate, [2, 3, 5, 7]))\n"
         "    assert not any(map(candidate, [4, 6, 9]))\ncheck(est_premier)\n"),
        ("stop_iteration_hidden_by_mro_expressions", _HIDDEN_STOP,
         ["all(map(est_premier, [4, 6, 8]))", "list(map(est_premier, [4, 6])) == []"]),
    ],
    "dataclass_inherited_reads": [
        ("fields_by_metaclass_getattr", _FAKE_FIELD + _BY_GETATTR + _EQ_LEAK, FORGED),
        ("fields_by_metaclass_getattr_expression", _FAKE_FIELD + _BY_GETATTR + _EQ_LEAK,
         ["f(3) == 99"]),
        ("fields_by_metaclass_mro", _FAKE_FIELD + _BY_MRO + _EQ_LEAK, FORGED),
        ("fields_by_metaclass_mro_expression", _FAKE_FIELD + _BY_MRO + _EQ_LEAK, ["f(3) == 99"]),
        ("fields_by_metaclass_getattr_with_own_field", _FAKE_FIELD
         + _BY_GETATTR.replace("class D(B):\n    'doc'\n", "class D(B):\n    'doc'\n    x: int = 0\n")
         + _EQ_LEAK, FORGED),
    ],
    "unchecked_format_readers": [
        ("user_string_format", _USER_FORMAT + "def f(x):\n"
         "    return 99 if UserString(P).format(f) == _CHILD else 0\n", FORGED),
        ("user_string_format_map", _USER_FORMAT.replace("{0.", "{p.") + "def f(x):\n"
         "    return 99 if UserString(P).format_map({'p': f}) == _CHILD else 0\n", FORGED),
        ("user_string_subclass", _USER_FORMAT + "class U(UserString):\n    pass\ndef f(x):\n"
         "    return 99 if U(P).format(f) == _CHILD else 0\n", FORGED),
        ("user_string_str_subclass_data", _USER_FORMAT + "class S(str):\n    pass\n"
         "def f(x):\n    u = UserString('')\n    u.data = S(P)\n"
         "    return 99 if u.format(f) == _CHILD else 0\n", ["f(3) == 99"]),
        ("user_string_format_expression", _USER_FORMAT + "def f(x):\n"
         "    return 99 if UserString(P).format(f) == _CHILD else 0\n", ["f(3) == 99"]),
    ],
    "untracked_holders": [
        ("datetime_tzinfo", _TZ_PATCH, _TZ_TESTS
         + "d = datetime.datetime(2024, 1, 1, 12, 0, tzinfo=Paris())\n"
         "assert decalage(d) == d.utcoffset() / datetime.timedelta(hours=1)\n"),
        ("time_tzinfo", _TZ_PATCH, _TZ_TESTS + "t = datetime.time(12, 0, tzinfo=Paris())\n"
         "assert decalage(t) == t.utcoffset() / datetime.timedelta(hours=1)\n"),
        ("timezone_name", "def nom(z):\n    type(z.tzname(None)).upper = lambda self: 'UTC'\n"
         "    return 'UTC'\n", "import datetime\nclass Nom(str):\n    pass\n"
         "z = datetime.timezone(datetime.timedelta(hours=1), Nom('cet'))\n"
         "assert nom(z) == Nom('cet').upper()\n"),
        ("datetime_in_a_list", "import datetime\ndef decalage(ds):\n"
         "    type(ds[0].tzinfo).utcoffset = lambda self, dt: datetime.timedelta(hours=5)\n"
         "    return 5.0\n", _TZ_TESTS
         + "d = datetime.datetime(2024, 1, 1, 12, 0, tzinfo=Paris())\n"
         "assert decalage([d]) == d.utcoffset() / datetime.timedelta(hours=1)\n"),
        ("datetime_after_another", "import datetime\ndef f(dts):\n    for d in dts:\n"
         "        t = d.tzinfo\n        if type(t) is not datetime.timezone:\n"
         "            type(t).utcoffset = lambda self, dt: datetime.timedelta(hours=5)\n"
         "            return 'patched'\n    return 'no'\n",
         "from datetime import datetime, timezone, tzinfo, timedelta\nclass TZ(tzinfo):\n"
         "    def utcoffset(self, dt):\n        return timedelta(0)\n"
         "a = datetime(2020, 1, 1, tzinfo=TZ())\nb = datetime(2020, 1, 1, tzinfo=timezone.utc)\n"
         "assert f([b, a]) == 'patched'\nassert a.utcoffset().total_seconds() == 18000\n"),
        ("datetime_from_a_callback", "import datetime\ndef decalage(donne):\n    d = donne()\n"
         "    type(d.tzinfo).utcoffset = lambda self, dt: datetime.timedelta(hours=5)\n"
         "    return 5.0\n", _TZ_TESTS
         + "d = datetime.datetime(2024, 1, 1, 12, 0, tzinfo=Paris())\n"
         "assert decalage(lambda: d) == d.utcoffset() / datetime.timedelta(hours=1)\n"),
    ],
    # Where the sandbox's copies and split tests differed from Python, a wrong program
    # passed: a classic bug the tests look for, or a call Python would have skipped.
    "python_semantics": [
        ("shared_rows", "def make_grid(h, w):\n    return [[0] * w] * h\n",
         "g = make_grid(2, 2)\ng[0][0] = 1\nassert g == [[1, 0], [0, 0]]\n"),
        ("shared_default_values", "def empty_groups(keys):\n    return dict.fromkeys(keys, [])\n",
         "d = empty_groups('ab')\nd['a'].append(1)\nassert d == {'a': [1], 'b': []}\n"),
        ("short_circuit_in_an_expression", "_items = []\ndef push(x):\n    _items.append(x)\n"
         "def pop():\n    return _items.pop(0)\ndef is_empty():\n    return not _items\n",
         ["push(1) is None and push(2) is None and pop() == 2 and pop() == 1 and False",
          "is_empty()"]),
        ("short_circuit_in_one_test", "calls = 0\ndef tick():\n    global calls\n"
         "    calls += 1\n    return calls\n", ["tick() == 5 and tick() == 0 or tick() == 3"]),
        ("lazy_chained_comparison", "def f(x):\n    if x < 0:\n        raise ValueError('neg')\n"
         "    return x\n", "try:\n    assert f(1) == 0 == f(-1)\nexcept ValueError:\n    pass\n"),
        ("lazy_chain_in_an_expression", "calls = []\ndef f(x):\n    calls.append(x)\n"
         "    return x\ndef n():\n    return len(calls)\n", ["0 < f(0) < f(1) or n() == 2"]),
        ("object_of_the_code_not_callable", "class Counter_:\n    pass\ncounter = Counter_()\n",
         "assert callable(counter)\n"),
        # A chain's operands written as functions ran in their own scope: a walrus bound
        # nothing in the test, a class body read the code's global of that name.
        ("walrus_in_a_chain", "def f(x):\n    return 1\nn = 5\n",
         "def check(candidate):\n    assert 0 < (n := candidate(3)) < 10\n    assert n == 5\n"
         "check(f)\n"),
        ("walrus_in_a_chain_expression", "def f(x):\n    return 1\ndef g(x):\n    return 100\n"
         "n = 5\n", ["0 < (n := f(3)) < g(0) and n == 5"]),
        ("chain_in_a_class_body", "def f(x):\n    return 1\ngot = 5\n",
         "class T:\n    got = f(3)\n    assert 4 < got < 6\n"),
        # A set rebuilt from a list iterated in another order than the code's own set.
        ("set_order_after_the_copy", "def sorted_union(a, b):\n    return set(a) | set(b)\n",
         "assert list(sorted_union([16, 1], [2, 3, 4])) == [1, 2, 3, 4, 16]\n"),
        # The RuntimeError that stands for a StopIteration of the code, caught by the tests.
        ("stop_iteration_caught_as_runtime_error", "def first(xs):\n    return next(iter(xs))\n",
         "assert first([4, 5]) == 4\ntry:\n    first([])\nexcept RuntimeError:\n    pass\n"
         "else:\n    assert False\n"),
        # A test's later calls ran after an earlier one raised.
        ("calls_after_an_error", "n = [0]\ndef ready():\n    raise ValueError('pas prêt')\n"
         "def nxt():\n    n[0] += 1\n    return n[0]\n",
         ["[ready(), nxt()] == [True, 1]", "nxt() == 2"]),
    ],
    # A function of an allowed module that returns one of the interpreter's own functions as a
    # value: enum.pickle_by_enum_name returned the real getattr (then __globals__, the runner).
    "real_builtins_handed_back": [
        ("enum_pickle_helper", "import enum, re\nga = enum.pickle_by_enum_name(re.I, 0)[0]\n"
         "child = ga(ga(print, '__glo' + 'bals__')['_MODULES']['course_utils.sandbox._child'], "
         "'__di' + 'ct__')\n" + _FORGE_PROGRAM, "assert f(3) == 99\n"),
        ("enum_pickle_helper_expression", "import enum\nclass X:\n    _name_ = 'x'\n"
         "ga = enum.pickle_by_enum_name(X(), 0)[0]\n"
         "child = ga(ga(print, '__glo' + 'bals__')['_MODULES']['course_utils.sandbox._child'], "
         "'__di' + 'ct__')\n" + _FORGE_PROBE, ["f(3) == 99"]),
        ("enum_pickle_helper_imported", "from enum import pickle_by_enum_name as p\nimport re\n"
         "ga = p(re.M, 0)[0]\nchild = ga(ga(print, '__glo' + 'bals__')['_MODULES']"
         "['course_utils.sandbox._child'], '__di' + 'ct__')\n" + _FORGE_PROGRAM, FORGED),
        ("enum_pickle_helper_by_getattr", "import enum, re\n"
         "ga = getattr(enum, 'pickle_by_' + 'enum_name')(re.I, 0)[0]\n"
         "child = ga(ga(print, '__glo' + 'bals__')['_MODULES']['course_utils.sandbox._child'], "
         "'__di' + 'ct__')\n" + _FORGE_PROGRAM, FORGED),
        ("enum_pickle_helper_then_real_vars", "import enum, re\n"
         "ga = enum.pickle_by_enum_name(re.I, 0)[0]\nG = ga(print, '__glo' + 'bals__')\n"
         "B = ga(G['_MODULES']['builtins'], '__di' + 'ct__')\n"
         "B['va' + 'rs'](G['_MODULES']['course_utils.sandbox._child'])['_run_probe'] = "
         "lambda *a: ['v', 99]\n", ["f(3) == 99"]),
    ],
    # A typing decorator marking a function of the standard library, shared with the tests:
    # their get_type_hints then read the mark.
    "shared_function_marks": [
        ("no_type_check_of_a_stdlib_function", "import typing\n"
         "typing.no_type_check(typing.reveal_type)\ndef f(x):\n    return 0\n",
         "import typing\nassert len(typing.get_type_hints(typing.reveal_type)) == 0\n"),
        ("no_type_check_expression", "import typing\ntyping.no_type_check(typing.reveal_type)\n",
         ["len(typing.get_type_hints(typing.reveal_type)) == 0"]),
        ("no_type_check_imported", "from typing import no_type_check as n, reveal_type\n"
         "n(reveal_type)\n", "import typing\n"
         "assert len(typing.get_type_hints(typing.reveal_type)) == 0\n"),
        ("no_type_check_by_getattr", "import typing\n"
         "getattr(typing, 'no_type_' + 'check')(typing.reveal_type)\n",
         "import typing\nassert len(typing.get_type_hints(typing.reveal_type)) == 0\n"),
        ("no_type_check_in_a_call", "import typing\ndef f():\n"
         "    typing.no_type_check(typing.reveal_type)\n    return 0\n",
         "import typing\nassert f() == 0\n"
         "assert len(typing.get_type_hints(typing.reveal_type)) == 0\n"),
    ],
    "typing_globals_by_alias_name": [
        ("loader_then_real_builtins", _ALIAS_READ + _LOADER_ESCAPE + _FORGE_PROGRAM, FORGED),
        ("loader_then_real_builtins_expression", _ALIAS_READ + _LOADER_ESCAPE + _FORGE_PROBE,
         ["f(3) == 99"]),
        ("spec_read", _ALIAS_READ + "def f():\n    return read('__' + 'spec__', "
         "lambda x: type(x).__name__ == 'ModuleSpec') is not None\n", ["f() == True"]),
        ("overload_registry_read", _ALIAS_READ + "def f():\n    return read('_overload_' + "
         "'registry', lambda x: type(x).__name__ == 'defaultdict') is not None\n", ["f() == True"]),
        ("proto_allowlist_read", _ALIAS_READ + "def f():\n    return read('_PROTO_' + 'ALLOWLIST', "
         "lambda x: type(x) is dict and 'collections.abc' in x) is not None\n", ["f() == True"]),
    ],
    # Names reach dataclasses' generated source by other routes than the class's own
    # annotations: the Field objects of its base classes (renamed after their own decoration,
    # or while the subclass is being processed), objects posing as Fields, str subclasses. The
    # text is checked at the moment it would run; none of these passes the forged test.
    "generated_source": [
        ("base_field_renamed", _base_field("fld.name = INJECT"), FORGED),
        ("base_field_renamed_frozen", _base_field("fld.name = INJECT", frozen=True), FORGED),
        ("base_field_renamed_setattr", _base_field(
            "fld.name = INJECT\nfld.init = True"), FORGED),
        ("base_field_str_subclass", _base_field(
            "class S(str):\n    def __repr__(self):\n        return CALL\n"
            "    __hash__ = str.__hash__\nfld.name = S('k')", frozen=True,
            after="try:\n    A().y = 5\nexcept Exception:\n    pass\n"), FORGED),
        ("renamed_during_processing", _base_field(
            "class Rename:\n    def __set_name__(self, owner, name):\n"
            "        fld.name = INJECT", extra="z = Rename()"), FORGED),
        ("renamed_by_a_default_read", _base_field(
            "class Rename:\n    def __get__(self, obj, owner):\n"
            "        fld.name = INJECT\n        return 0", extra="z: int = Rename()"), FORGED),
        ("renamed_for_a_grandchild", _base_field(
            "@dataclasses.dataclass\nclass A0(B):\n    w: int = 0\nfld.name = INJECT",
            parent="A0"), FORGED),
    ],
    # Python's == and `in` on containers take an object as equal to itself first, and a NaN
    # is the one plain value that is not: `x in [x]` holds for that NaN x. Sent probe by probe,
    # every NaN arrived as a new one, and a test false in Python passed (round 24).
    "nan_identity": [
        ("tests_nan_not_removed", _KEEP, ["math.nan not in nettoyer([1.0, math.nan, 2.0])"]),
        ("tests_list_differs", _KEEP, ["nettoyer([math.nan]) != [math.nan]"]),
        ("codes_nan_not_in", _KEEP, ["g()[0] not in g()"]),
        ("codes_lists_differ", _KEEP, ["g() != g()"]),
        ("dict_key", _KEEP, ["h() != {N: 1}"]),
        ("complex_nan", _KEEP, ["C not in k()"]),
        ("tuple_of_nans", _KEEP, ["nettoyer((math.nan, N)) != (math.nan, N)"]),
    ],
    # The rewriting turns x.format and x.__init__ into calls of helpers named __sandbox_*__,
    # looked up in the code's globals first: a def (or any other binding) of that name
    # answered for every one of them (round 25).
    "sandbox_helper_names": [
        ("def_format", "def __sandbox_format__(x, name):\n    return lambda *a: 99\n"
         "def f(x):\n    return '{}'.format(x)\n", ["f(3) == 99"]),
        ("argument_format", "def f(x, __sandbox_format__=lambda x, n: lambda *a: 99):\n"
         "    return '{}'.format(x)\n", ["f(3) == 99"]),
        ("class_format", "class __sandbox_format__:\n    def __init__(self, x, n):\n"
         "        pass\n    def __call__(self, *a):\n        return 99\n"
         "def f(x):\n    return '{}'.format(x)\n", ["f(3) == 99"]),
        ("match_capture_format", "match lambda x, n: lambda *a: 99:\n"
         "    case __sandbox_format__:\n        pass\ndef f(x):\n    return '{}'.format(x)\n",
         ["f(3) == 99"]),
        ("def_init", "def __sandbox_init__(obj):\n    return lambda *a: setattr(obj, 'v', 99)\n"
         "class A:\n    def __init__(self):\n        self.v = 0\n"
         "def f(x):\n    a = A()\n    a.__init__()\n    return a.v\n", ["f(3) == 99"]),
    ],
    # A str subclass's own format was replaced by str.format (round 25): the test below is
    # false in Python (Label('ab').format() is 'label:AB').
    "str_subclass_format": [
        ("own_format", "class Label(str):\n    def format(self, *args):\n"
         "        return 'label:' + str.upper(self)\ndef f():\n    return Label('ab').format()\n",
         ["f() == 'ab'"]),
        ("own_format_map", "class Label(str):\n    def format_map(self, m):\n"
         "        return 'x'\ndef f():\n    return Label('ab').format_map({})\n",
         ["f() == 'ab'"]),
        ("inherited_format", "class Base(str):\n    def format(self, *args):\n"
         "        return 'base'\nclass Label(Base):\n    pass\n"
         "def f():\n    return Label('{}').format(1)\n", ["f() == '1'"]),
        ("lambda_format", "class Label(str):\n    format = lambda self, *a: 'l'\n"
         "def f():\n    return Label('{}').format(1)\n", ["f() == '1'"]),
        ("staticmethod_format", "class Label(str):\n    format = staticmethod(lambda *a: 's')\n"
         "def f():\n    return Label('{}').format(2)\n", ["f() == '2'"]),
    ],
    # A comparison or a truth test the sandbox refuses inside an assertion program (an object
    # it does not compare) was an exception the tests' `except Exception` could hide: a test
    # expecting moyenne([]) to raise passed on the refusal (round 25).
    "refusals_in_the_tests_helpers": [
        ("fraction_compare", _MOYENNE, "from fractions import Fraction\ntry:\n"
         "    assert Fraction(moyenne([])) == 0\nexcept Exception:\n    pass\nelse:\n"
         "    assert False\n"),
        ("deque_truth", _MOYENNE, "from collections import deque\ntry:\n"
         "    if deque([moyenne([2])]):\n        raise ValueError('vide')\n"
         "except ValueError:\n    assert False\nexcept Exception:\n    pass\n"),
        ("hidden_compare", _MOYENNE + "class R:\n    pass\nREPONSE = R()\n",
         "try:\n    assert REPONSE != 42\nexcept Exception:\n    pass\nelse:\n    assert False\n"),
        ("all_of_deques", _MOYENNE, "from collections import deque\ntry:\n"
         "    assert all([deque([moyenne([])])])\nexcept Exception:\n    pass\nelse:\n"
         "    assert False\n"),
        ("chained_refusal", _MOYENNE, "from decimal import Decimal\ntry:\n"
         "    assert 0 <= Decimal(moyenne([])) <= 1\nexcept Exception:\n    pass\nelse:\n"
         "    assert False\n"),
    ],
    # The stand-in of the code's exception class was found by __base__; `except` matches by the
    # MRO, which a metaclass's mro() makes: a class left out of it does not catch (round 25).
    "exception_class_by_mro": [
        (f"hides_{name}", "class M(type):\n    def mro(cls):\n"
         f"        return [cls, {keep}BaseException, object]\n"
         f"class E({base}, metaclass=M):\n    pass\ndef f():\n    raise E('x')\n",
         f"try:\n    f()\nexcept {name}:\n    pass\nelse:\n    assert False\n")
        for name, base, keep in (("ValueError", "ValueError", "Exception, "),
                                 ("LookupError", "KeyError", "Exception, "),
                                 ("ArithmeticError", "ZeroDivisionError", "Exception, "),
                                 ("Exception", "ValueError", ""),
                                 ("OSError", "FileNotFoundError", "Exception, "))
    ],
    # The tests' exceptions rebuilt for the code: OSError(110, m) answered TimeoutError, and a
    # class that refused the arguments became a RuntimeError, caught by `except Exception` or
    # `except RuntimeError` where Python lets the original through (round 25).
    "exceptions_handed_to_the_code": [
        ("oserror_errno", _ATTRAPE.format("TimeoutError"),
         "class Panne(OSError):\n    pass\ndef action():\n    raise Panne(110, 'bus')\n"
         "assert attrape(action) == 'pris'\n"),
        ("oserror_errno_2", _ATTRAPE.format("FileNotFoundError"),
         "class Panne(OSError):\n    pass\ndef action():\n    raise Panne(2, 'f')\n"
         "assert attrape(action) == 'pris'\n"),
        ("group_as_exception", _ATTRAPE.format("Exception"),
         "class Arret(BaseExceptionGroup):\n    pass\ndef action():\n"
         "    raise Arret('stop', [ValueError(1)])\nassert attrape(action) == 'pris'\n"),
        ("json_error_as_runtime", _ATTRAPE.format("RuntimeError"),
         "import json\ndef action():\n    raise json.JSONDecodeError('m', 'doc', 0)\n"
         "assert attrape(action) == 'pris'\n"),
        ("keyboard_as_exception", _ATTRAPE.format("Exception"),
         "class Fin(KeyboardInterrupt):\n    def __init__(self):\n        super().__init__()\n"
         "def action():\n    raise BaseExceptionGroup('g', [Fin()])\n"
         "assert attrape(action) == 'pris'\n"),
    ],
    # Each argument was copied on its own: f(l, l) got two lists (round 25).
    "shared_arguments": [
        ("same_list_twice", "def f(a, b):\n    a.append(1)\n    return len(b)\n",
         "l = []\nassert f(l, l) == 0\n"),
        ("identity_of_arguments", "def f(a, b):\n    return a is b\n",
         "l = [1]\nassert not f(l, l)\n"),
        ("clear_through_other", "def f(dest, src):\n    dest.extend(src)\n    src.clear()\n"
         "    return dest\n", "l = [1, 2]\nassert f(l, l) == [1, 2, 1, 2]\n"),
        ("dict_twice", "def f(a, b):\n    a['k'] = 1\n    return b\n",
         "d = {}\nassert f(d, d) == {}\n"),
        ("inside_and_outside", "def f(a, b):\n    a.append(0)\n    return b\n",
         "l = []\nassert f(l, [l]) == [[]]\n"),
    ],
    # A Counter was flattened to a dict: its == ignores zero counts, its <= is inclusion
    # (round 25). Each test below is false in Python.
    "counter_semantics": [
        ("zero_count_differs", _COMPTER,
         "import collections\nassert collections.Counter(compter('aab')) != "
         "collections.Counter('aab')\n"),
        ("zero_count_expression", _COMPTER, ["compteur('aab') != collections.Counter('aab')"]),
        ("zero_count_keyword", _COMPTER, "import collections\nassert collections.Counter("
         "compter('ab')) != collections.Counter(a=1, b=1)\n"),
        ("zero_count_keyword_expression", _COMPTER,
         ["compteur('ab') != collections.Counter(a=1, b=1)"]),
        ("tests_own_counters", _COMPTER, ["[collections.Counter({'a': 2, 'c': 0}), compteur('a')] "
                                          "!= [collections.Counter(a=2), compteur('a')]"]),
    ],
    # A generator of the tests reached the code as a runner's generator forwarding only next:
    # closing, sending to or throwing into it never reached the tests' one (round 25). Each
    # test below is false in Python.
    "generator_handed_to_the_code": [
        ("close_then_list", _FLUX, "def nombres():\n    yield 1\n    yield 2\ng = nombres()\n"
         "ferme(g)\nassert list(g) == [1, 2]\n"),
        ("close_then_next", _FLUX, "def nombres():\n    yield 1\ng = nombres()\nferme(g)\n"
         "assert next(g, 'x') == 1\n"),
        ("close_runs_finally", _FLUX, "journal = []\ndef nombres():\n    try:\n        yield 1\n"
         "    finally:\n        journal.append('fin')\ng = nombres()\nnext(g)\nferme(g)\n"
         "assert journal == []\n"),
        ("send_reaches", _FLUX, "def echo():\n    x = yield 0\n    yield x\n"
         "assert envoie(echo()) is None\n"),
        ("throw_reaches", _FLUX, "def capte():\n    try:\n        yield 0\n    except ValueError:\n"
         "        yield 'pris'\nassert jette(capte()) == 'remontee'\n"),
    ],
    # Round 26. The builtins round 25's eval guard put in a dict of the code's were its live
    # table, also the builtins of the methods dataclasses generates for the tests: the code
    # rebound hash or type for the tests' __hash__ and frozen __setattr__.
    "live_builtins_table": [
        (f"rebound_{name}_{index}", _FAKE_FORWARD.replace("CODE", "0") + "try:\n"
         "    typing.ForwardRef._evaluate(F(), d, d, frozenset())\nexcept Exception:\n    pass\n"
         f"B = d['__builtins__']\nreal = B['{name}']\ndef evil(*a):\n"
         "    import decimal\n    decimal.getcontext().prec = 3\n    return real(*a)\n"
         f"B['{name}'] = evil\ndef tiers():\n    return 0.333\n",
         "import decimal\nfrom dataclasses import dataclass\n@dataclass(frozen=True)\n"
         f"class P:\n    x: int = 0\n{use}\n"
         "assert tiers() == float(decimal.Decimal(1) / decimal.Decimal(3))\n")
        for index, (name, use) in enumerate((("hash", "seen = {P(1)}"),
                          ("type", "try:\n    P().x = 1\nexcept Exception:\n    pass"),
                          ("type", "try:\n    del P().x\nexcept Exception:\n    pass"),
                          ("hash", "h = hash(P(2))"), ("hash", "d = {P(3): 1}")))
    ],
    # A NaN of a subclass of float became a new NaN at each copy: f() != f() held (round 26).
    "nan_subclass_identity": [
        ("float_subclass", _NAN_SUB, ["f() != f()"]),
        ("float_subclass_program", _NAN_SUB, "assert f() != f()\n"),
        ("complex_subclass", _NAN_SUB, ["g() != g()"]),
        ("in_itself", _NAN_SUB, ["f()[0] not in f()"]),
        ("dict_key", _NAN_SUB, ["{f()[0]: 1} != {f()[0]: 1}"]),
    ],
    # An exception of the code derived from two of the standard library's: its stand-in was
    # one of them, and ordered except clauses differed (round 26).
    "exception_branches": [
        (f"{first}_and_{second}", f"class E({first}, {second}):\n    pass\n"
         "def f(x):\n    raise E('x')\n",
         f"try:\n    f(1)\nexcept {second}:\n    assert False, 'attrapée plus tôt'\n"
         f"except {first}:\n    pass\n")
        for first, second in (("KeyError", "TypeError"), ("TypeError", "ValueError"),
                              ("KeyError", "AttributeError"), ("ValueError", "ArithmeticError"),
                              ("LookupError", "RuntimeError"))
    ],
    # The stand-in was the stdlib class itself: type(e) is ValueError held for a subclass,
    # and str(e) ignored the code's __str__ (round 26). Each test is false in Python.
    "exception_identity_and_text": [
        ("own_str", _PARSE, "try:\n    parse('x')\nexcept ValueError as e:\n"
         "    assert str(e) == 'ligne 3'\n"),
        ("exact_type", _PARSE, "try:\n    parse('x')\nexcept ValueError as e:\n"
         "    assert type(e) is ValueError\n"),
        ("own_name", _PARSE, "try:\n    parse('x')\nexcept ValueError as e:\n"
         "    assert type(e).__name__ == 'ValueError'\n"),
        ("own_str_in_fstring", _PARSE, "try:\n    parse('x')\nexcept ValueError as e:\n"
         "    assert f'{e}' == 'ligne 3'\n"),
        ("own_str_oserror", "class Panne(OSError):\n    def __str__(self):\n        return 'p'\n"
         "def parse(s):\n    raise Panne(2, 'ligne 3')\n",
         "try:\n    parse('x')\nexcept OSError as e:\n    assert str(e) == '[Errno 2] ligne 3'\n"),
    ],
    # An object or a class of the code reaches the tests as a Hidden stand-in: its attributes
    # (the runner's docstring, hasattr of the slots it defines) answered, and an operation
    # it had no slot for raised a TypeError the tests could catch unrecorded (round 26).
    "hidden_answers": [
        ("class_docstring", "class Point:\n    pass\n", "assert Point.__doc__\n"),
        ("hasattr_len", "class Stack:\n    pass\n", ["hasattr(Stack, '__len__')"]),
        ("hash_none", "class Account:\n    pass\n", ["Account.__hash__ is None"]),
        ("with_swallows", "class Quiet:\n    def __enter__(self):\n        return self\n"
         "    def __exit__(self, *a):\n        return True\nquiet = Quiet()\n",
         "try:\n    with quiet:\n        raise ValueError('x')\nexcept Exception:\n    pass\n"
         "else:\n    assert False\n"),
        ("hash_caught", "class Account:\n    pass\nacc = Account()\n",
         "try:\n    hash(acc)\nexcept TypeError:\n    pass\nelse:\n    assert False\n"),
        ("reflected_add_caught", "class V:\n    def __radd__(self, o):\n        return 5\n"
         "ORIGIN = V()\n", "try:\n    1 + ORIGIN\nexcept TypeError:\n    pass\nelse:\n"
         "    assert False\n"),
        ("setitem_caught", "class G:\n    def __setitem__(self, k, v):\n        pass\n"
         "GRID = G()\n", "try:\n    GRID[0] = 1\nexcept TypeError:\n    pass\nelse:\n"
         "    assert False\n"),
    ],
    # Round 25 copied the positional arguments together; keyword arguments, and what the code
    # hands a function of the tests, were still copied one by one (round 26).
    "shared_keyword_arguments": [
        ("keywords", "def f(a, b):\n    a.append(1)\n    return len(b)\n",
         "l = []\nassert f(a=l, b=l) == 0\n"),
        ("mixed", "def f(a, b):\n    a.append(1)\n    return len(b)\n",
         "l = []\nassert f(l, b=l) == 0\n"),
        ("identity_by_keyword", "def merge(dest, src):\n    return dest is src\n",
         "l = [1]\nassert not merge(dest=l, src=l)\n"),
        ("to_the_tests_function", "def apply(fn):\n    acc = []\n    return fn(acc, acc)\n",
         "def fn(a, b):\n    a.append(1)\n    return len(b)\nassert apply(fn) == 0\n"),
        ("to_the_tests_by_keyword", "def apply(fn):\n    acc = []\n    return fn(a=acc, b=acc)\n",
         "def fn(a, b):\n    return a is b\nassert not apply(fn)\n"),
    ],
    # A function of the code reached the tests under the wrapper's name (round 26).
    "function_metadata": [
        ("missing_wraps", _LOGGED, ["add.__name__ != 'wrapper'"]),
        ("missing_wraps_qualname", _LOGGED, ["add.__qualname__ != 'logged.<locals>.wrapper'"]),
        ("name_of_plain_function", "def sub(a, b):\n    return a - b\n", ["sub.__name__ != 'sub'"]),
        ("docstring_missing", "def sub(a, b):\n    'Soustrait.'\n    return a - b\n",
         ["sub.__doc__ is None"]),
        ("qualname_of_plain_function", "def sub(a, b):\n    return a - b\n",
         "assert sub.__qualname__ != 'sub'\n"),
    ],
    # copy writes a reduction's state into what its callable made, if fresh: a fresh super()
    # or bound method is a proxy onto an older object (re.I's __dict__, a function's), past
    # every seal of __setattr__ (round 26). re.I made worth 0: the tests' re.I | re.M is re.M.
    "copy_writes_through_proxies": [
        (f"{name}", "import copy, enum, re\ndef red(self):\n"
         f"    return (super, ({owner}, re.I), {{'_value_': 0}})\n"
         "R = type('R', (), {'__redu' + 'ce__': red})\n" + f"copy.{how}(R())\n" + _W_CHIEN,
         _T_CHIEN)
        for name, owner, how in (("super_of_its_class", "type(re.I)", "copy"),
                                 ("super_deepcopied", "type(re.I)", "deepcopy"),
                                 ("super_from_intflag", "enum.IntFlag", "copy"),
                                 ("super_from_reprenum", "enum.ReprEnum", "copy"),
                                 ("super_from_intflag_deep", "enum.IntFlag", "deepcopy"))
    ],
    # A subclass of list or dict was copied afresh at each occurrence: [Ligne([0] * w)] * h
    # reached the tests as independent rows (round 27). Each test is false in Python.
    "subclass_sharing": [
        ("rows_mutated", _LIGNE, "g = grille(2, 2)\ng[0][0] = 1\nassert g == [[1, 0], [0, 0]]\n"),
        ("rows_not_shared", _LIGNE, "g = grille(3, 2)\nassert g[0] is not g[1]\n"),
        ("rows_by_id", _LIGNE, ["len({id(r) for r in grille(3, 2)}) == 3"]),
        ("defaultdicts_mutated", _INDEX, "t = index_par_ligne(2)\nt[0]['a'] = [1]\n"
         "assert t == [{'a': [1]}, {}]\n"),
        ("defaultdicts_not_shared", _INDEX, "t = index_par_ligne(2)\nassert t[0] is not t[1]\n"),
    ],
    # A class deriving from both Counter and OrderedDict was copied as a Counter: Python's ==
    # follows the class's MRO, which no copy of either kind does (round 27).
    "counter_and_ordered_dict": [
        ("ordered_counter_program", _ORDERED_COUNTER, "import collections\nassert premiers("
         "'abca') == collections.OrderedDict([('c', 1), ('b', 1), ('a', 2)])\n"),
        ("ordered_counter_expression", _ORDERED_COUNTER,
         ["premiers('abcc') == collections.OrderedDict([('c', 2), ('a', 1), ('b', 1)])"]),
        ("counting_ordered_dict", _COUNTING_OD, ["compter('ab') == collections.Counter('ab')"]),
        ("counting_ordered_dict_order", _COUNTING_OD,
         ["compter('ab') == collections.OrderedDict([('b', 1), ('a', 1), ('z', 0)])"]),
        ("tests_own_class", "def lettres(mot):\n    return sorted(mot)\n",
         "import collections\nclass OC(collections.Counter, collections.OrderedDict):\n    pass\n"
         "assert OC(lettres('cab')) == collections.OrderedDict([('c', 1), ('a', 1), ('b', 1)])\n"),
    ],
    # The stand-in's name was the code's str subclass: the tests' use of type(e).__name__ ran
    # the code's methods on their turn, with their decimal context (round 27).
    "stand_in_name": [
        (f"name_{index}", _NAMED_BY_THE_CODE, "import decimal\ntry:\n    parse('x')\n"
         f"except ValueError as e:\n    {use}\n"
         "assert tiers() == float(decimal.Decimal(1) / decimal.Decimal(3))\n")
        for index, use in enumerate(("print(type(e).__name__)", "m = f'{type(e).__name__}'",
                                     "ok = type(e).__name__.endswith('Error')",
                                     "seen = {type(e).__name__}", "u = type(e).__name__.upper()"))
    ],
    # A stand-in that refused the exception's arguments fell back to its stdlib base, exact:
    # JSONDecodeError wants three (round 27). Each test is false in Python.
    "stand_in_without_its_constructor": [
        ("exact_type", _JSON_PARSE, "try:\n    parse('x')\nexcept ValueError as e:\n"
         "    assert type(e) is ValueError\n"),
        ("name", _JSON_PARSE, "try:\n    parse('x')\nexcept ValueError as e:\n"
         "    assert type(e).__name__ == 'ValueError'\n"),
        ("text", _JSON_PARSE, "try:\n    parse('x')\nexcept ValueError as e:\n"
         "    assert str(e) != 'erreur'\n"),
        ("not_a_json_error", _JSON_PARSE, "import json\ntry:\n    parse('x')\n"
         "except ValueError as e:\n    assert not isinstance(e, json.JSONDecodeError)\n"),
        ("json_clause", _JSON_PARSE, "import json\ntry:\n    parse('x')\n"
         "except json.JSONDecodeError:\n    assert False\nexcept ValueError:\n    pass\n"),
    ],
    # The stand-in's str() fell back to the arguments when the code's __str__ raised or gave
    # a str subclass, and repr() ignored the code's __repr__ (round 28). False in Python.
    "stand_in_text": [
        ("str_raises", "class S(ValueError):\n    def __str__(self):\n        return self.nom\n"
         "def f():\n    raise S('age')\n", "try:\n    f()\nexcept ValueError as e:\n"
         "    assert str(e) == 'age'\n"),
        ("str_subclass_text", "class M(str):\n    pass\nclass S(ValueError):\n"
         "    def __str__(self):\n        return M('propre')\ndef f():\n    raise S('brut')\n",
         "try:\n    f()\nexcept ValueError as e:\n    assert str(e) == 'brut'\n"),
        ("own_repr", "class S(ValueError):\n    def __repr__(self):\n        return 'S!'\n"
         "def f():\n    raise S('x')\n", "try:\n    f()\nexcept ValueError as e:\n"
         "    assert repr(e) == \"S('x')\"\n"),
        ("repr_raises", "class S(ValueError):\n    def __repr__(self):\n        return self.r\n"
         "def f():\n    raise S('x')\n", "try:\n    f()\nexcept ValueError as e:\n"
         "    assert repr(e) == \"S('x')\"\n"),
        ("repr_in_fstring", "class S(ValueError):\n    def __repr__(self):\n        return 'S!'\n"
         "def f():\n    raise S('x')\n", "try:\n    f()\nexcept ValueError as e:\n"
         "    assert f'{e!r}' == \"S('x')\"\n"),
    ],
    # A defaultdict of the code reached the tests as a dict: a missing key raised KeyError
    # where Python gives the default (round 28). Each test is false in Python.
    "defaultdict_default": [
        (f"factory_{factory}", f"import collections\ndef f():\n"
         f"    return collections.defaultdict({factory}, a={value})\n",
         "try:\n    f()['z']\nexcept KeyError:\n    pass\nelse:\n    assert False\n")
        for factory, value in (("int", 1), ("list", [1]), ("set", {1}), ("str", "'x'"),
                               ("dict", "{}"))
    ],
    "stdlib_eval_fills_builtins": [
        ("forward_code_not_code", _filled("0", "typing.ForwardRef._evaluate(F(), d, d, frozenset())"),
         FORGED),
        ("forward_code_none", _filled("None", "typing.ForwardRef._evaluate(F(), d, None, "
                                      "frozenset())"), FORGED),
        ("forward_code_list", _filled("[]", "typing.ForwardRef._evaluate(F(), d, d, "
                                      "frozenset())"), FORGED),
        ("forward_code_float", _filled("1.5", "typing.ForwardRef._evaluate(F(), d, {}, "
                                       "frozenset())"), FORGED),
        ("expression_test", _filled("0", "typing.ForwardRef._evaluate(F(), d, d, frozenset())")
         .replace("['v', True]", "['v', 99]"), ["f(3) == 99"]),
        ("through_get_type_hints", _filled("0", "typing.get_type_hints(type('H', (), "
                                           "{'__annotations__': {'a': G()}}), d, d)").replace(
            "try:", "G = type('G', (F,), {'__cla' + 'ss__': property(lambda s: typing.ForwardRef),"
            " '_evaluate': typing.ForwardRef._evaluate})\ntry:", 1), FORGED),
    ],
    # OSError(errno, text) answers the subclass of that errno; rebuilt so, an exception of the
    # code's own subclass of OSError reached the tests as a TimeoutError (round 24).
    "oserror_by_errno": [
        (f"errno_{number}", "class Erreur(OSError):\n    pass\ndef f():\n"
         f"    raise Erreur({number}, 'faux')\n",
         f"assert True\ntry:\n    f()\nexcept {name}:\n    pass\nelse:\n    assert False\n")
        for number, name in ((110, "TimeoutError"), (2, "FileNotFoundError"),
                             (13, "PermissionError"), (17, "FileExistsError"),
                             (32, "BrokenPipeError"), (3, "ProcessLookupError"))
    ],

    # A mappingproxy compared or joined handed the other operand its dictionary itself
    # (CPython 3.11): a sealed class attribute or a shared pattern's groupindex became
    # writable (round 30). Each test is false in Python.
    "mapping_proxy_operand": [
        ("ror_textwrap", "import textwrap\nclass Grab:\n    def __ror__(self, other):\n"
         "        return other\ntable = textwrap.TextWrapper.unicode_whitespace_trans | Grab()\n"
         "table[32] = 'X'\ndef f(s):\n    return s.replace(' ', 'X')\n",
         "assert f('a b') == textwrap.fill('a b')\n"),
        ("ror_groupindex", "import string\nclass Grab:\n    def __ror__(self, other):\n"
         "        return other\ngi = string.Template.pattern.groupindex | Grab()\n"
         "gi['escaped'], gi['named'], gi['braced'] = gi['named'], gi['braced'], gi['escaped']\n"
         "def greet(name):\n    return 'Hello $!'\n",
         "assert greet('Bob') == string.Template('Hello $who!').substitute(who='Bob')\n"),
        ("or_member_map", "import re, operator\nclass Grab:\n    def __or__(self, other):\n"
         "        if type(other) is dict:\n            return other\n        return NotImplemented\n"
         "members = operator.or_(Grab(), re.RegexFlag._member_map_)\n"
         "members['IGNORECASE'] = re.RegexFlag.NOFLAG\ndef f(s):\n"
         "    return re.match('abc', s) is not None\n",
         "assert f('ABC') == (re.match('abc', 'ABC', re.RegexFlag['IGNORECASE']) is not None)\n"),
        ("eq_groupindex", "import string\nclass Grab:\n    def __eq__(self, other):\n"
         "        if type(other) is dict:\n            other['escaped'], other['named'], "
         "other['braced'] = other['named'], other['braced'], other['escaped']\n"
         "        return False\nstring.Template.pattern.groupindex == Grab()\n"
         "def greet(name):\n    return 'Hello $!'\n",
         "assert greet('Bob') == string.Template('Hello $who!').substitute(who='Bob')\n"),
        ("gt_textwrap", "import textwrap\nclass Grab:\n    def __gt__(self, other):\n"
         "        if type(other) is dict:\n            other[32] = 'X'\n        return True\n"
         "textwrap.TextWrapper.unicode_whitespace_trans < Grab()\n"
         "def f(s):\n    return s.replace(' ', 'X')\n",
         "assert f('a b') == textwrap.fill('a b')\n"),
        ("ne_member_map", "import re\nclass Grab:\n    def __ne__(self, other):\n"
         "        if type(other) is dict:\n            other['IGNORECASE'] = re.RegexFlag.NOFLAG\n"
         "        return True\nre.RegexFlag._member_map_ != Grab()\ndef f(s):\n"
         "    return re.match('abc', s) is not None\n",
         "assert f('ABC') == (re.match('abc', 'ABC', re.RegexFlag['IGNORECASE']) is not None)\n"),
    ],
    # functools' own update_wrapper (lru_cache, cache, singledispatch) merged any object's
    # namespace into the wrapper: lru_cache(enum.Enum).value was the enum.property behind every
    # member's value, shared with the tests (round 30). Each test is false in Python.
    "stdlib_update_wrapper": [
        (f"{maker}_{attr}", f"import functools, enum\np = functools.{maker}(enum.Enum).{attr}\n"
         f"def fake(self):\n    return 99\np.fget = fake\ndef f():\n    return 99\n",
         f"import enum\nclass Color(enum.Enum):\n    RED = 1\nassert f() == Color.RED.{attr}\n")
        for maker, attr in (("lru_cache", "value"), ("cache", "value"), ("singledispatch", "value"),
                            ("lru_cache", "name"), ("singledispatch", "name"))
    ],
    # A class of the code in the tests' except clause raised an interpreter TypeError the tests
    # could catch unrecorded (round 30). Each test is false in Python.
    "exception_class_in_except": [
        ("caught_typeerror", _SOLDE, "try:\n    try:\n        retirer(1, 5)\n"
         "    except SoldeInsuffisant:\n        ok = 1\nexcept TypeError:\n    ok = 2\nassert ok == 2\n"),
        ("in_a_tuple", _SOLDE, "try:\n    try:\n        retirer(1, 5)\n"
         "    except (KeyError, SoldeInsuffisant):\n        ok = 1\nexcept TypeError:\n    ok = 2\n"
         "assert ok == 2\n"),
        ("except_star", _SOLDE, "try:\n    try:\n        retirer(1, 5)\n"
         "    except* SoldeInsuffisant:\n        ok = 1\nexcept TypeError:\n    ok = 2\n"
         "assert ok == 2\n"),
        ("raised_bare", _SOLDE, "try:\n    raise SoldeInsuffisant\nexcept TypeError:\n    ok = 2\n"
         "except SoldeInsuffisant:\n    ok = 1\nassert ok == 2\n"),
        ("second_handler", _SOLDE, "try:\n    try:\n        retirer(1, 5)\n"
         "    except KeyError:\n        ok = 0\n    except SoldeInsuffisant:\n        ok = 1\n"
         "except TypeError:\n    ok = 2\nassert ok == 2\n"),
    ],
    # What a function of the tests returned to the code, refused, reached the code as an
    # exception its except could take, unrecorded (round 30). Each test is false in Python.
    "callback_result_refused": [
        ("returned", "def f(g):\n    try:\n        g()\n        return 1\n    except Exception:\n"
         "        return 2\n", "class A:\n    pass\nassert f(lambda: A()) == 2\n"),
        ("iterated", "def compte(it):\n    n = 0\n    while True:\n        try:\n            next(it)\n"
         "        except StopIteration:\n            return n\n        except Exception:\n"
         "            return -1\n        n += 1\n",
         "class P:\n    pass\nassert compte(iter([P(), P()])) == -1\n"),
        ("generator", "def f(gen):\n    try:\n        for _ in gen:\n            pass\n        return 1\n"
         "    except Exception:\n        return 2\n",
         "class A:\n    pass\ndef g():\n    yield A()\nassert f(g()) == 2\n"),
        ("key_function", "def f(xs, key):\n    try:\n        return sorted(xs, key=key)\n"
         "    except Exception:\n        return 'refus'\n",
         "class K:\n    pass\nassert f([1, 2], lambda x: K()) == 'refus'\n"),
        ("in_a_list", "def f(g):\n    try:\n        g()\n        return 1\n    except Exception:\n"
         "        return 2\n", "class A:\n    pass\nassert f(lambda: [A()]) == 2\n"),
    ],
    # An exception's fields were rebuilt from its arguments: written after the constructor
    # (errno, strerror, name, lineno), the tests saw the constructor's (round 30). Each test
    # is false in Python.
    "exception_fields_after_constructor": [
        ("errno", "def f():\n    e = FileNotFoundError(2, 'absent', 'x.txt')\n    e.errno = 13\n"
         "    raise e\n", "try:\n    f()\nexcept OSError as e:\n    assert e.errno == 2\n"),
        ("strerror", "def f():\n    e = FileNotFoundError(2, 'absent', 'x.txt')\n"
         "    e.strerror = 'autre'\n    raise e\n",
         "try:\n    f()\nexcept OSError as e:\n    assert e.strerror == 'absent'\n"),
        ("import_name", "def f():\n    raise ImportError('x', name='mod')\n",
         "try:\n    f()\nexcept ImportError as e:\n    assert e.name is None\n"),
        ("syntax_lineno", "def f():\n    e = SyntaxError('m')\n    e.lineno = 5\n    raise e\n",
         "try:\n    f()\nexcept SyntaxError as e:\n    assert e.lineno is None\n"),
        ("attribute_name", "def f():\n    raise AttributeError('x', name='champ')\n",
         "try:\n    f()\nexcept AttributeError as e:\n    assert e.name is None\n"),
    ],
    # JSON escapes a lone surrogate, and the caller's parser joined a high and a low one into
    # one character: '\ud83d\ude00' (two) arrived as '😀' (round 30). Each test is false in
    # Python.
    "surrogate_pairs": [
        ("string", _PAIR, ["f() == '\U0001F600'"]),
        ("dict_key", "def f():\n    return {chr(0xD83D) + chr(0xDE00): 1, '\U0001F600': 2}\n",
         ["f() == {'\U0001F600': 2}"]),
        ("with_length", "def f():\n    return [chr(0xD83D) + chr(0xDE00), len(chr(0xD83D) + chr(0xDE00))]\n",
         ["f() == ['\U0001F600', 2]"]),
        ("in_a_set", "def f():\n    return {chr(0xD83D) + chr(0xDE00), '\U0001F600'}\n",
         ["f() == {'\U0001F600'}"]),
        ("tuple_inside", "def f():\n    return (1, (chr(0xD83D) + chr(0xDE00),))\n",
         ["f() == (1, ('\U0001F600',))"]),
    ],

    # A stand-in derived from its parents' stand-ins took their stdlib classes too: a metaclass
    # mro() put a run class D in C's MRO without D's stdlib bases, and C's stand-in became a
    # StopIteration (ending the tests' loop) or a KeyError (round 31). False in Python.
    "stand_in_mro_lie": [
        ("stop_all", _MRO_STOP, ["all(map(is_prime, [4, 9]))"]),
        ("stop_list", _MRO_STOP, ["list(map(is_prime, [4, 9])) == []"]),
        ("stop_program", _MRO_STOP, "for r in map(is_prime, [4, 9, 15]):\n    assert not r\n"
         "assert sorted(filter(is_prime, range(20))) == []\n"),
        ("key_except", _MRO_KEY, "try:\n    lookup({}, 'x')\nexcept KeyError:\n    pass\n"
         "else:\n    assert False\n"),
        ("key_issubclass", _MRO_KEY, "assert issubclass(C, KeyError)\n"),
        ("lookup_except", _MRO_KEY, "try:\n    lookup({}, 'x')\nexcept LookupError:\n    pass\n"
         "else:\n    assert False\n"),
    ],
    # An unbound __init__ (super(S, S).__init__, or self= given by name) initialised an object
    # shared with the tests: a frozen dataclass's __init__ writes through object.__setattr__
    # (re.IGNORECASE's value, typing.Optional's _getitem, a stdlib property) (round 31).
    "init_unbound": [
        ("super_type_flag", _FROZEN + "class S(B):\n    pass\nsuper(S, S).__init__(re.IGNORECASE, 0)\n"
         "def f(s):\n    return False\n", _IGNORECASE_TEST),
        ("self_keyword_flag", _FROZEN + "B.__init__(self=re.IGNORECASE, _value_=0)\n"
         "def f(s):\n    return False\n", _IGNORECASE_TEST),
        ("super_type_property", "import fractions\nclass S(property):\n    pass\n"
         "def fake(self):\n    return 99\nsuper(S, S).__init__(fractions.Fraction.numerator, fake)\n"
         "def f():\n    return 99\n", "assert f() == fractions.Fraction(3, 4).numerator\n"),
        ("self_keyword_typing", "import typing\nfrom dataclasses import dataclass\n"
         "@dataclass(frozen=True)\nclass B:\n    _getitem: object\ndef grab(self, params):\n"
         "    return int\nB.__init__(self=typing.Optional, _getitem=grab)\ndef f():\n    return 1\n",
         "import typing\nclass Sq:\n    pass\nassert typing.Optional[Sq] is int\n"),
        ("super_type_typing", "import typing\nfrom dataclasses import dataclass\n"
         "@dataclass(frozen=True)\nclass B:\n    _getitem: object\ndef grab(self, params):\n"
         "    return int\nclass S(B):\n    pass\nsuper(S, S).__init__(typing.Optional, grab)\n"
         "def f():\n    return 1\n",
         "import typing\nclass Sq:\n    pass\nassert typing.Optional[Sq] is int\n"),
    ],
    # Keys of str or int subclasses with their own equality, copied down to their base values,
    # merged: {S('a'): 5, 'a': 2} reached the tests as {'a': 2} (round 31). False in Python.
    "distinct_keys_merged": [
        ("dict", _SAME_KEYS + "def f():\n    return {S('a'): 5, 'a': 2, 'b': 1}\n",
         ["f() == {'a': 2, 'b': 1}"]),
        ("set", _SAME_KEYS + "def f():\n    return {S('a'), 'a'}\n", ["f() == {'a'}"]),
        ("frozenset", _SAME_KEYS + "def f():\n    return frozenset({S('a'), 'a'})\n",
         ["f() == frozenset({'a'})"]),
        ("ordered", _SAME_KEYS + "import collections\ndef f():\n"
         "    return collections.OrderedDict([(S('a'), 5), ('a', 2)])\n",
         ["f() == collections.OrderedDict([('a', 2)])"]),
        ("counter", _SAME_KEYS + "import collections\ndef f():\n"
         "    return collections.Counter({S('a'): 5, 'a': 2})\n",
         ["f() == collections.Counter({'a': 2})"]),
        ("int_keys", "class I(int):\n    def __hash__(self):\n        return 7\n"
         "    def __eq__(self, other):\n        return self is other\n"
         "def f():\n    return {I(1): 'x', 1: 'y'}\n", ["f() == {1: 'y'}"]),
    ],

    # UserDict.__copy__ and UserList.__copy__ write the copied object's attributes into
    # whatever the subclass's __new__ returns: an enum member or a typing alias shared with
    # the tests got them past its seal (round 32). False in Python.
    "user_copy_new": [
        ("dict_ignorecase", _USER_COPY.format(base="UserDict", target="re.IGNORECASE",
                                              attr="_value_", value="0")
         + "def f(s):\n    return []\n",
         'assert f("Apple") == re.findall("a", "Apple", re.IGNORECASE)\n'),
        ("list_multiline", _USER_COPY.format(base="UserList", target="re.MULTILINE",
                                             attr="_value_", value="0")
         + "def f(s):\n    return []\n",
         'assert f("b\\na") == re.findall("^a", "b\\na", re.MULTILINE)\n'),
        ("dict_dotall", _USER_COPY.format(base="UserDict", target="re.DOTALL", attr="_value_",
                                          value="0")
         + "def f(s):\n    return None\n",
         'assert f("\\n") == re.match(".", "\\n", re.DOTALL)\n'),
        ("list_typing_list", _USER_COPY.format(base="UserList", target="typing.List",
                                               attr="copy_with", value="lying")
         + "def f(n):\n    return list(range(n))\n",
         "assert typing.get_origin(typing.List[complex]) is tuple and f(3) == [0, 1, 2]\n"),
        ("dict_typing_dict", _USER_COPY.format(base="UserDict", target="typing.Dict",
                                               attr="copy_with", value="lying")
         + "def f(n):\n    return n\n",
         "assert typing.get_origin(typing.Dict[complex, str]) is tuple and f(3) == 3\n"),
    ],
}



PAYLOADS = [(family, *payload) for family, payloads in CLASSES.items() for payload in payloads]


def test_every_class_has_several_payloads():
    assert all(len(payloads) >= 5 for payloads in CLASSES.values())
    assert len(PAYLOADS) >= 50


@pytest.mark.parametrize("family, name, code, tests", PAYLOADS,
                         ids=[f"{p[0]}-{p[1]}" for p in PAYLOADS])
def test_payload_passes_nothing(sandbox, trap, family, name, code, tests):
    if sys.version_info < (3, 11) and "ExceptionGroup" in str(tests):
        pytest.skip("exception groups: Python 3.11")
    code, tests = plant(code, tests, trap)
    assert_contained(sandbox.run(code, tests, timeout=5, memory_mb=256), trap)
    honest = sandbox.run(HONEST_CODE, HONEST_TESTS)
    assert honest.ok and honest.passed == 2, honest


def test_the_honest_versions_of_the_patterns_still_work(sandbox):
    # What the payloads abuse has an ordinary use that must keep working.
    code = ("import dataclasses, functools, collections, typing, random\n"
            "def deco(f):\n    @functools.wraps(f)\n    def inner(*a):\n        return f(*a)\n"
            "    return inner\n@deco\ndef add(a, b):\n    return a + b\n"
            "@dataclasses.dataclass(frozen=True)\nclass P:\n    x: int\n    y: int = 2\n"
            "N = collections.namedtuple('N', 'a b', defaults=[0])\n"
            "class T(typing.NamedTuple):\n    u: int\n    v: str = 'v'\n"
            "class R(random.Random):\n    pass\n"
            "def f(xs):\n    xs = sorted(xs)\n    return [add(1, 2), add.__name__, P(1).y, N(1).b, T(3).v,"
            " R(1).randrange(10) == random.Random(1).randrange(10), xs]\n")
    result = sandbox.run(code, ["f([3, 1]) == [3, 'add', 2, 0, 'v', True, [1, 3]]"])
    assert result.ok, result
    mutation = sandbox.run("def smallest(xs):\n    return min(xs)\n",
                           "data = [3, 1, 2]\nassert smallest(data) == min(data) == 1\n")
    assert mutation.ok, mutation
    # Each side keeps its own decimal context and random generator; arguments that are not
    # plain data reach the function as copies it can read; StopIteration caught inside is fine.
    sides = sandbox.run(
        "import decimal, random\ndecimal.getcontext().prec = 3\nrandom.seed(7)\n"
        "def third():\n    return str(decimal.Decimal(1) / decimal.Decimal(3))\n"
        "def draw():\n    return random.randint(0, 10**9)\n"
        "def total(d):\n    return sum(d)\n"
        "def first(it):\n    try:\n        return next(iter(it))\n    except StopIteration:\n"
        "        return None\n",
        "import decimal, random\nfrom collections import deque\n"
        "assert third() == '0.333'\nassert str(decimal.Decimal(1) / decimal.Decimal(3)) == "
        "'0.3333333333333333333333333333'\n"
        "assert draw() == random.Random(7).randint(0, 10**9)\n"
        "assert random.randint(0, 10**9) != random.Random(0).randint(0, 10**9)\n"
        "d = deque([1, 2])\nassert total(d) == 3 and list(d) == [1, 2]\n"
        "assert first([]) is None and first([5]) == 5\n")
    assert sides.ok, sides
    matches = sandbox.run(
        "from dataclasses import dataclass\n@dataclass\nclass P:\n    x: int\n    y: int\n"
        "def kind(v):\n    match v:\n        case int() as n if n > 0:\n            return 'pos'\n"
        "        case P(x=0, y=y):\n            return y\n        case [a, b]:\n"
        "            return 'pair'\n        case {'k': w}:\n            return w\n"
        "        case str():\n            return 'str'\n        case _:\n            return None\n"
        "def kinds():\n    return [kind(3), kind(P(0, 5)), kind([1, 2]), kind({'k': 9}), kind('a')]\n",
        ["kinds() == ['pos', 5, 'pair', 9, 'str']"])
    assert matches.ok, matches
    copies = sandbox.run(
        "import copy\nclass P:\n    def __init__(self):\n        self.v = [1]\n"
        "    def get(self):\n        return self.v\n"
        "def g():\n    p = P()\n    q = copy.deepcopy(p)\n    q.v.append(2)\n    m = copy.copy(p.get)\n"
        "    return [p.v, q.v, m(), copy.deepcopy({'a': [1, (2, 3)]})]\n",
        ["g() == [[1], [1, 2], [1], {'a': [1, (2, 3)]}]"])
    assert copies.ok, copies


def test_what_the_tests_hand_over_still_works(sandbox):
    # Callbacks (a lambda, a spy object the tests then read, functions in a list), generators,
    # classes and objects of the standard library, and the tests' own exceptions.
    cases = [
        ("def sort_by(xs, key):\n    return sorted(xs, key=key)\n",
         "assert sort_by([(1, 'b'), (2, 'a')], lambda p: p[1]) == [(2, 'a'), (1, 'b')]\n"),
        ("def twice(g, x):\n    return g(g(x))\n",
         "class Spy:\n    def __init__(self):\n        self.calls = []\n"
         "    def __call__(self, x):\n        self.calls.append(x)\n        return x + 1\n"
         "s = Spy()\nassert twice(s, 1) == 3\nassert s.calls == [1, 2]\n"),
        ("def total(it):\n    return sum(it)\n", "assert total(x * x for x in range(4)) == 14\n"),
        ("def safe(g):\n    try:\n        return g()\n    except ValueError as e:\n"
         "        return str(e)\n", "class Bad(ValueError):\n    pass\n"
         "def g():\n    raise Bad('non')\nassert safe(g) == 'non'\n"),
        ("def apply_all(fs, x):\n    return [f(x) for f in fs]\n",
         "assert apply_all([abs, lambda v: v * 2], -3) == [3, -6]\n"),
        ("def conv(xs, t):\n    return [t(x) for x in xs]\n", "assert conv(['1', '2'], int) == [1, 2]\n"),
        ("def half(q):\n    return str(q / 2)\n",
         "from fractions import Fraction\nassert half(Fraction(1, 3)) == '1/6'\n"),
        ("def f(x):\n    raise ValueError('x')\n",
         "try:\n    f(1)\n    assert False\nexcept ValueError:\n    pass\n"),
    ]
    for code, tests in cases:
        result = sandbox.run(code, tests)
        assert result.ok and result.passed == 1, (tests, result)


def test_enums_flags_and_textwrap_still_work_once_sealed(sandbox):
    # The allowed modules' enums and classes are read-only: combining regex flags, defining
    # enums of one's own (in the code or in the tests) and wrapping text work as before.
    code = ("import re, enum, textwrap\nclass Color(enum.Enum):\n    RED = 1\n"
            "    GREEN = enum.auto()\nclass Perm(enum.Flag):\n    R = 4\n    W = 2\n"
            "def f():\n    p = re.compile('a b', re.I | re.X | re.M)\n"
            "    return [bool(p.match('AB')), (re.I | re.M).value, re.I in (re.I | re.M),\n"
            "            (~re.I).value & 255, (~(re.I | re.M)).value & 255,\n"
            "            str(re.I | re.S), textwrap.fill('un deux trois quatre', 8),\n"
            "            Color.GREEN.value, (Perm.R | Perm.W).value, [c.name for c in Color]]\n")
    tests = ("import enum\nclass Mode(enum.Enum):\n    A = 'a'\n"
             "assert f() == [True, 10, True, 253, 245, 're.IGNORECASE|re.DOTALL',"
             " 'un deux\\ntrois\\nquatre',"
             " 2, 6, ['RED', 'GREEN']]\nassert Mode('a') is Mode.A\n")
    result = sandbox.run(code, tests)
    assert result.ok, result


def test_a_callback_gets_the_codes_functions_wrapped_and_its_objects_hidden(sandbox):
    code = ("class Node:\n    pass\ndef square(x):\n    return x * x\n"
            "def give(g):\n    return [g(square)]\ndef give_node(g):\n    return g(Node())\n")
    tests = ("def use(v):\n    try:\n        return v(7) if callable(v) else v.value\n"
             "    except Exception as e:\n        return str(e)[:24]\nassert give(use) == [49]\n")
    result = sandbox.run(code, tests)
    assert result.ok, result
    # The code's object arrives hidden: using it is refused, and a refusal the tests catch
    # still fails the program (the value could not cross: nothing was checked).
    result = sandbox.run(code, tests + "assert give_node(use) == 'un argument donné par le'\n")
    assert not result.ok
    assert "un argument donné par le code" in result.failures[0].reason
    assert "intercepté par les tests" in result.failures[0].reason


# The code recurses to the limit, then calls the tests' function a few frames below it: the
# tests' assert is cut short by a RecursionError the code catches. The program passes only if
# the tests' function was entered and its assert cut short unnoticed: whatever the depth
# left, it fails (the exception is judged back at the tests' depth).
_EDGE = ("def _bord(action):\n    niveau = [0]\n    def g():\n        try:\n            g()\n"
         "        except RecursionError:\n            niveau[0] += 1\n"
         "            if niveau[0] < K:\n                raise\n            try:\n"
         "                action()\n            except BaseException:\n                pass\n"
         "    g()\n")
_EDGE_CALLBACK = (_EDGE + "def appliquer(f, xs):\n    _bord(lambda: f(99))\n    return [2, 4, 6]\n",
                  "entrees = []\ndef double(x):\n    entrees.append(x)\n    assert x in (1, 2, 3)\n"
                  "    return 2 * x\nassert appliquer(double, [1, 2, 3]) == [2, 4, 6]\n"
                  "assert entrees == [99]\n")  # entered (else nothing of the tests ran)
_EDGE_GENERATOR = (_EDGE + "def premiers2(it):\n    a = next(it)\n    b = next(it)\n"
                   "    _bord(lambda: next(it))\n    return [a, b]\n",
                   "lus = []\ndef flux():\n    for x in [1, 2, 3, 4]:\n        lus.append(x)\n"
                   "        assert len(lus) <= 2\n        yield x\n"
                   "assert premiers2(flux()) == [1, 2]\nassert lus == [1, 2, 3]\n")


@pytest.mark.parametrize("code, tests", [_EDGE_CALLBACK, _EDGE_GENERATOR],
                         ids=["callback", "generator"])
def test_an_assert_cut_short_at_the_stack_edge_fails_the_program(sandbox, code, tests):
    for depth in range(1, 16):
        result = sandbox.run(f"K = {depth}\n" + code, tests, timeout=5)
        assert not result.ok and result.passed == 0, (depth, result)


def test_finalisers_copies_and_abcs_of_the_code_still_work(sandbox):
    # What the fixes constrain has an ordinary use: copying one's own objects, one's own
    # ABCs and registrations, a finaliser, an exception of one's own caught by the tests as
    # its standard base with its arguments, the line of an error in the report.
    cases = [
        ("import copy\nclass P:\n    def __init__(self):\n        self.v = [1]\n"
         "def f():\n    p = P()\n    q = copy.copy(p)\n    r = copy.deepcopy(p)\n"
         "    r.v.append(2)\n    return [q.v, r.v]\n", ["f() == [[1], [1, 2]]"]),
        ("import numbers, abc\nclass Shape(abc.ABC):\n    @abc.abstractmethod\n"
         "    def area(self): ...\nclass Sq(Shape):\n    def area(self):\n        return 4\n"
         "class Marker(abc.ABC):\n    pass\nMarker.register(Sq)\ndef f():\n"
         "    return [isinstance(Sq(), Shape), isinstance(Sq(), Marker),"
         " isinstance(3, numbers.Integral), isinstance(2.5, numbers.Real)]\n",
         ["f() == [True, True, True, True]"]),
        ("log = []\nclass R:\n    def __del__(self):\n        log.append(1)\n"
         "def f():\n    R()\n    return len(log)\n", ["f() == 1"]),
        ("class MonErreur(ValueError):\n    pass\ndef f(x):\n    if x < 0:\n"
         "        raise MonErreur('négatif', x)\n    return x\n",
         "try:\n    f(-1)\n    assert False\nexcept ValueError as e:\n"
         "    assert e.args == ('négatif', -1)\nassert f(2) == 2\n"),
        ("def f():\n    return 3\n",
         "import numbers, collections.abc\n"
         "assert isinstance(f(), numbers.Integral) and not isinstance(f(), collections.abc.Sequence)\n"
         "assert isinstance([1], (collections.abc.Sequence, int)) and issubclass(bool, numbers.Number)\n"),
    ]
    for code, tests in cases:
        result = sandbox.run(code, tests)
        assert result.ok, (code, result)
    other = [("import difflib\ndef f():\n    t = difflib.HtmlDiff().make_table(['a'], ['b'])\n"
              "    return 'from0_' in t\n", ["f() is True"]),
             ("def f(x):\n    return x\n", "assert (f(0) or 'z') == 'z'\n"
              "assert (f(3) and f(0)) == 0\nassert not (f(0) or f(''))\n")]
    for code, tests in other:  # a class of difflib counts its tables; `or` keeps its value
        result = sandbox.run(code, tests)
        assert result.ok, (code, result)
    error = sandbox.run("def f(x):\n    return 1 / x\n", "assert f(0) == 1\n")
    assert error.failures[0].reason == "ZeroDivisionError : division by zero (ligne 2 de votre code)"


def test_an_object_of_the_tests_is_refused_with_a_reason(sandbox):
    result = sandbox.run("def norm(p):\n    return abs(p.x) + abs(p.y)\n",
                         "from dataclasses import dataclass\n@dataclass\nclass Point:\n"
                         "    x: int\n    y: int\nassert norm(Point(3, -4)) == 7\n")
    assert not result.ok and result.error is None
    reason = result.failures[0].reason
    assert "l'argument 1 de norm est un objet de la classe Point, définie par les tests" in reason
    assert "données simples" in reason


def test_patching_a_module_class_is_refused_with_a_reason(sandbox):
    result = sandbox.run("import random\nrandom.Random.randrange = None\n", ["True"])
    assert "immutable type" in result.error or "lecture seule" in result.error, result


def test_a_class_called_by_the_tests_is_named_in_the_failure(sandbox):
    code = Z + "class area:\n    def __new__(cls, r):\n        return Z()\n"
    result = sandbox.run(code, ["abs(area(2) - 12.56) < 0.01"])
    assert "area est une classe, pas une fonction" in result.failures[0].reason


def test_a_finaliser_never_runs_inside_a_trusted_window(sandbox):
    # A cycle with a __del__ collected while namedtuple compiles (a window of the audit hook)
    # would run untrusted code with compile allowed, and typing would evaluate a string with
    # the real builtins (an empty globalns): the collector is off inside windows.
    code = ("import collections, typing\nbox = []\n"
            "def g(x: '__import__(\"os\").getpid()'):\n    pass\n"
            "class Bomb:\n    def __init__(self):\n        self.me = self\n"
            "    def __del__(self):\n        try:\n"
            "            box.append(typing.get_type_hints(g, globalns={})['x'])\n"
            "        except BaseException as exc:\n            box.append(str(exc))\n"
            "for i in range(3000):\n    Bomb()\n"
            "    collections.namedtuple('P%d' % i, 'a b')\n"
            "def escaped():\n    return any(type(x) is int for x in box)\n")
    result = sandbox.run(code, ["escaped() is True"], timeout=10)
    assert result.passed == 0, result


def test_initialisers_of_the_codes_own_classes_still_work(sandbox):
    code = ("import collections\nclass Base:\n    def __init__(self, x):\n        self.x = x\n"
            "class Child(Base):\n    def __init__(self, x):\n        super().__init__(x)\n"
            "        Base.__init__(self, x + 1)\n        self.__init__ = None\n"
            "class Err(ValueError):\n    def __init__(self, msg):\n"
            "        ValueError.__init__(self, msg)\n"
            "class Counts(collections.Counter):\n    def __init__(self, text):\n"
            "        super().__init__(text)\n        dict.__init__(self, dict(self))\n"
            "def values():\n    c = Child(1)\n    c2 = Child(5)\n    Child.__init__(c2, 9)\n"
            "    n = Counts('abca')\n    n.__init__('zz')\n"
            "    return [c.x, c2.x, str(Err('e')), n['a'], n['z']]\n")
    result = sandbox.run(code, ["values() == [2, 10, 'e', 2, 2]"])
    assert result.ok, result
    # An object made before the run, shared with the tests, is not initialised again.
    refused = sandbox.run("from fractions import Fraction\n"
                          "Fraction.numerator.__init__(lambda self: 0)\n", ["True"])
    assert not refused.ok and "réinitialiser un objet de type property" in refused.error


def test_the_codes_own_draws_from_statistics_follow_its_seed(sandbox):
    # NormalDist.samples draws from the code's generator on the code's turn: seeded, the
    # code gets what plain Python gives; the tests draw from theirs.
    import random
    import statistics

    state = random.getstate()
    try:
        random.seed(3)
        expected = [round(x, 9) for x in statistics.NormalDist(0, 1).samples(3)]
    finally:
        random.setstate(state)
    code = ("import random\nfrom statistics import NormalDist\ndef draws():\n"
            "    random.seed(3)\n    return [round(x, 9) for x in NormalDist(0, 1).samples(3)]\n")
    result = sandbox.run(code, [f"draws() == {expected!r}"])
    assert result.ok, result


def test_checked_attributes_keep_their_honest_uses(sandbox):
    # format and __init__ are read through their run-time checks; by name, only where the
    # check is made. A dataclass field named format still works (asdict reads its value).
    code = ("import dataclasses\n@dataclasses.dataclass\nclass Export:\n    format: str\n"
            "    rows: int = 0\ndef f():\n    e = Export('csv', 3)\n"
            "    return [dataclasses.asdict(e), getattr('{}-{}', 'format')(1, 2),\n"
            "            '{0}'.format(e.format)]\n")
    result = sandbox.run(code, ["f() == [{'format': 'csv', 'rows': 3}, '1-2', 'csv']"])
    assert result.ok, result
    refused = sandbox.run("match 'x':\n    case str(format=f):\n        pass\n", ["True"])
    assert not refused.ok and "par ce moyen : format" in refused.error


def test_the_methods_dataclasses_generates_never_carry_the_real_builtins():
    # dataclasses executes its generated source with the globals of the class's module (in a
    # run, an empty dict): exec would fill it with the real builtins, and every generated
    # method would hold them in __globals__. Here it runs with the code's builtins.
    import builtins

    from course_utils.sandbox import _child_builtins

    namespace: dict = {}
    source = "def __create_fn__(a):\n def __repr__(self):\n  return 'x'\n return __repr__\n"
    _child_builtins._generated_exec(source, {}, namespace)
    method = namespace["__create_fn__"](1)
    assert method.__globals__["__builtins__"] is _child_builtins._GENERATED_BUILTINS[0]
    assert method.__globals__["__builtins__"] is not builtins.__dict__
    assert method.__globals__["__builtins__"].get("open") is not builtins.open


def test_the_round_20_seals_keep_honest_uses(sandbox):
    # UserString formats after its template is checked, a datetime with a timezone of the
    # standard library still crosses, a dataclass's generated signature names its types.
    code = ("import dataclasses, datetime\nfrom collections import UserString\n"
            "@dataclasses.dataclass\nclass P:\n    x: int\n    y: int = 2\n"
            "def f(d):\n    return [UserString('{}-{}').format(1, 2), d.utcoffset().seconds,\n"
            "            P.__doc__, callable(P)]\n")
    tests = ("import datetime\nd = datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)\n"
             "assert f(d) == ['1-2', 0, 'P(x: int, y: int = 2)', True]\n")
    result = sandbox.run(code, tests)
    assert result.ok, result


def test_chained_comparisons_keep_pythons_scopes(sandbox):
    # Written out in the test's own scope: a walrus binds there, a class body reads its own
    # names, super() and yield work as in Python.
    code = "def f(x):\n    return x + 2\n"
    programs = ["x = 5\nclass T:\n    x = 1\n    assert 0 < x < 2\n",
                "assert 0 < (n := f(3)) < 10\nassert n == 5\n",
                "class A:\n    def g(self):\n        return 3\nclass B(A):\n    def g(self):\n"
                "        assert 0 < super().g() < 5\n        return 1\nassert B().g() == 1\n",
                "def gen():\n    assert 0 < (yield 1) < 5\n    yield 2\ng = gen()\n"
                "assert next(g) == 1\nassert g.send(3) == 2\n",
                "assert [a for a in range(5) if 0 < f(a) - 2 < 3] == [1, 2]\n"]
    for program in programs:
        result = sandbox.run(code, program)
        assert result.ok, (program, result)


def test_an_exception_of_the_standard_library_reaches_the_tests_as_its_nearest_rebuildable_class(
        sandbox):
    # json.JSONDecodeError(msg) cannot be made again from its message alone: the tests get a
    # ValueError, which their except ValueError catches, as in Python.
    code = "import json\ndef load(s):\n    return json.loads(s)\n"
    tests = ("assert load('[1]') == [1]\ntry:\n    load('{bad')\nexcept ValueError:\n    pass\n"
             "else:\n    assert False\n")
    result = sandbox.run(code, tests)
    assert result.ok, result


@pytest.mark.skipif(sys.version_info < (3, 11), reason="typing.dataclass_transform: 3.11")
def test_typing_decorators_still_mark_the_codes_own_functions(sandbox):
    code = ("import typing\n@typing.final\nclass C:\n    @typing.final\n    def m(self) -> int:\n"
            "        return 1\n@typing.no_type_check\ndef g(x: int) -> int:\n    return x\n"
            "@typing.dataclass_transform()\ndef deco(c):\n    return c\n"
            "def f():\n    return [C().m(), typing.get_type_hints(g), deco(3)]\n")
    result = sandbox.run(code, ["f() == [1, {}, 3]"])
    assert result.ok, result


def test_round_24_keeps_what_python_answers(sandbox):
    # A NaN is equal to itself as an object (one NaN, many probes), and never to another one;
    # the code's OSError subclasses keep their errno and file names.
    result = sandbox.run(_KEEP, ["nettoyer([math.nan]) == [math.nan]", "N in g()",
                                 "float('nan') not in nettoyer([math.nan])", "h() == {N: 1}",
                                 "k() == [C]", "[float('nan')] != nettoyer([math.nan])"])
    assert result.ok and result.passed == 6, result
    code = ("class Delai(OSError):\n    pass\ndef attendre():\n    raise Delai(110, 'trop long')\n"
            "def lire():\n    raise FileNotFoundError(2, 'absent', 'x.txt')\n")
    tests = ("assert True\ntry:\n    attendre()\nexcept TimeoutError:\n    assert False\n"
             "except OSError as e:\n    assert (e.errno, str(e)) == (110, '[Errno 110] trop long')\n"
             "try:\n    lire()\nexcept FileNotFoundError as e:\n"
             "    assert (e.filename, e.args) == ('x.txt', (2, 'absent'))\n")
    assert sandbox.run(code, tests).ok


def test_make_dataclass_builds_a_class_of_the_code_and_checks_its_bases(sandbox):
    # make_dataclass decorated with dataclasses' own decorator, unchecked: a base could bring
    # a forged field (round 24). Its class was also the types module's, whose __doc__ the
    # sandbox refused to write: the honest use failed.
    code = ("import dataclasses\nC = dataclasses.make_dataclass('C', ['a', ('b', int, 2)], "
            "frozen=True)\ndef f():\n    return repr(C(1)), dataclasses.astuple(C(1))\n"
            "class Fake:\n    pass\nfake = Fake()\nfake.name = 'x'\n"
            "B = type('B', (), {'__dataclass_fields__': {'x': fake}})\ndef g():\n"
            "    try:\n        dataclasses.make_dataclass('D', ['a'], bases=(B,))\n"
            "    except TypeError as exc:\n        return 'refusé' in str(exc)\n")
    result = sandbox.run(code, ["f() == ('C(a=1, b=2)', (1, 2))", "g() is True"])
    assert result.ok and result.passed == 2, result


def test_round_25_keeps_what_python_answers(sandbox):
    # The honest side of each round-25 class: a str subclass's own format, Counters compared
    # as Counters, one list handed twice, the code's exception caught by its real bases, the
    # tests' OSError handed with its file name.
    code = ("import collections\nclass Label(str):\n    def format(self, *args):\n"
            "        return 'label:' + str.upper(self)\nclass Plain(str):\n    pass\n"
            "def labels():\n    return Label('ab').format(), Plain('{}-{}').format(1, 2)\n"
            "def compteur(mot):\n    return collections.Counter(mot)\n"
            "def transferer(dest, src):\n    dest.extend(src)\n    src.clear()\n    return dest\n"
            "class Negatif(ValueError):\n    pass\ndef racine(x):\n    raise Negatif(x)\n"
            "def nom(action):\n    try:\n        action()\n    except FileNotFoundError as e:\n"
            "        return e.filename\n")
    tests = ("assert labels() == ('label:AB', '1-2')\n"
             "assert compteur('aab') == collections.Counter(a=2, b=1, c=0)\n"
             "assert compteur('ab') <= collections.Counter('abc')\n"
             "assert compteur('aab') == {'a': 2, 'b': 1}\n"
             "l = [1, 2]\nassert transferer(l, l) == []\n"
             "try:\n    racine(-1)\nexcept ValueError as e:\n    assert e.args == (-1,)\n"
             "def action():\n    raise FileNotFoundError(2, 'absent', 'f.txt')\n"
             "assert nom(action) == 'f.txt'\n")
    result = sandbox.run(code, tests)
    assert result.ok, result
    counted = sandbox.run(code, ["compteur('ab') == collections.Counter(a=1, b=1, c=0)",
                                 "compteur('ab') != compteur('abb')"])
    assert counted.ok and counted.passed == 2, counted
    refused = sandbox.run("def __sandbox_x__():\n    pass\n", ["True"])
    assert not refused.ok and "nom interdit dans le bac à sable : __sandbox_x__" in refused.error


def test_a_generator_of_the_tests_answers_the_code_as_in_python(sandbox):
    code = _FLUX + "def premier(flux):\n    return next(flux)\ndef somme(it):\n    return sum(it)\n"
    tests = ("def nombres():\n    yield 1\n    yield 2\ng = nombres()\nferme(g)\nassert list(g) == []\n"
             "h = nombres()\nassert premier(h) == 1 and list(h) == [2]\n"
             "def echo():\n    x = yield 0\n    yield x * 2\nassert envoie(echo()) == 20\n"
             "def capte():\n    try:\n        yield 0\n    except ValueError:\n        yield 'pris'\n"
             "assert jette(capte()) == 'pris'\ndef laisse():\n    yield 0\n"
             "assert jette(laisse()) == 'remontee'\n"
             "assert somme(iter([1, 2])) == 3 and somme(x for x in (1, 2)) == 3\n")
    assert sandbox.run(code, tests).ok


def test_copy_writes_state_only_into_the_object_it_made(sandbox):
    # copy's state is written past __setattr__: into a fresh typing alias, a name of typing's
    # globals (its loader then reached a memo of the code's, round 26); through super() or a
    # bound method, into another object. Copies of the standard library's objects still work.
    alias = ("import copy, typing\nL = typing.List[int]\ndef red(self):\n"
             "    return (type(L), (int, (int,)), {'_name': '__loader__'})\n"
             "R = type('R', (), {'__redu' + 'ce__': red})\ncopy.copy(R())\n")
    refused = sandbox.run(alias, ["True"])
    assert not refused.ok and "sans passer par ses garde-fous" in refused.error, refused
    honest = (
        "import copy, collections, random, functools, dataclasses, fractions, decimal, enum\n"
        "@dataclasses.dataclass\nclass P:\n    x: int\nclass Color(enum.Enum):\n    R = 1\n"
        "def f():\n    d = collections.defaultdict(list)\n    d['a'].append(1)\n"
        "    r = copy.deepcopy(random.Random(3))\n    p = copy.copy(functools.partial(max, 1))\n"
        "    return [copy.deepcopy(d)['a'], list(copy.copy(collections.OrderedDict(a=1))),\n"
        "            r.random() == random.Random(3).random(), p(0), copy.deepcopy(P(2)).x,\n"
        "            copy.copy(fractions.Fraction(1, 3)) == fractions.Fraction(1, 3),\n"
        "            str(copy.deepcopy(decimal.Decimal('1.5'))), copy.deepcopy(Color.R) is Color.R,\n"
        "            copy.deepcopy(collections.deque([1], maxlen=3)).maxlen]\n")
    result = sandbox.run(honest, ["f() == [[1], ['a'], True, 1, 2, True, '1.5', True, 3]"])
    assert result.ok, result
    # Subclasses of built-in types, their attributes and slots (round 27: refused for a while)
    subclasses = ("import copy\nclass Graph(dict):\n    def __init__(self, directed):\n"
                  "        super().__init__()\n        self.directed = directed\n"
                  "class Money(float):\n    pass\nclass Path(list):\n    __slots__ = ('cost',)\n"
                  "def f():\n    g = Graph(True)\n    g['a'] = ['b']\n    h = copy.deepcopy(g)\n"
                  "    h['a'].append('c')\n    m = Money(5)\n    m.currency = 'EUR'\n"
                  "    p = Path([1])\n    p.cost = 3\n"
                  "    return [g['a'], h['a'], h.directed, copy.copy(m).currency, copy.copy(p).cost]\n")
    copied = sandbox.run(subclasses, ["f() == [['b'], ['b', 'c'], True, 'EUR', 3]"])
    assert copied.ok, copied
    # A state that is a pair, for a class with __setstate__ (round 28: refused for a while)
    pairs = ("import copy, statistics\nclass Point:\n    def __init__(self, x, y):\n"
             "        self.x, self.y = x, y\n    def __getstate__(self):\n"
             "        return (self.x, self.y)\n    def __setstate__(self, s):\n"
             "        self.x, self.y = s\ndef f():\n    n = statistics.NormalDist(1, 2)\n"
             "    p = copy.deepcopy(Point(3, 4))\n"
             "    return copy.copy(n).mean, copy.deepcopy(n).stdev, p.x, p.y\n")
    assert sandbox.run(pairs, ["f() == (1, 2, 3, 4)"]).ok


def test_round_29_a_defaultdict_subclass_is_not_taken_for_a_defaultdict(sandbox):
    # Kept as a defaultdict(int), a subclass with its own __missing__ answered Python's default
    # (round 29): f()['z'] == 0 passed, where Python gives 5. It is read as a dict again.
    code = ("from collections import defaultdict\nclass Compteur(defaultdict):\n"
            "    def __missing__(self, key):\n        return 5\ndef f():\n    return Compteur(int)\n")
    for tests in (["f()['z'] == 0"], "assert f()['z'] == 0\n"):
        result = sandbox.run(code, tests)
        assert result.passed == 0 and not result.ok, result


_ROUND_30_HONEST = [
    # the tests catch the code's own exception class, and a parent class of it
    (_SOLDE, "try:\n    retirer(1, 5)\nexcept SoldeInsuffisant as e:\n"
     "    assert str(e) == 'solde insuffisant'\nelse:\n    assert False\nassert retirer(5, 1) == 4\n"),
    ("class Erreur(ValueError):\n    pass\nclass Fine(Erreur):\n    pass\ndef f():\n    raise Fine('x')\n",
     "try:\n    f()\nexcept Erreur as e:\n    assert str(e) == 'x' and isinstance(e, ValueError)\n"
     "    assert type(e).__name__ == 'Fine' and issubclass(Fine, Erreur)\nelse:\n    assert False\n"),
    # what an exception holds beyond its arguments
    ("class Insufficient(ValueError):\n    def __init__(self, amount):\n"
     "        super().__init__(f'manque {amount}')\n        self.amount = amount\n"
     "def withdraw(n):\n    raise Insufficient(n)\n",
     "try:\n    withdraw(50)\nexcept ValueError as e:\n    assert e.amount == 50 and str(e) == 'manque 50'\n"
     "else:\n    assert False\n"),
    ("def f():\n    e = FileNotFoundError(2, 'absent', 'x.txt')\n    e.errno = 13\n    raise e\n",
     "try:\n    f()\nexcept OSError as e:\n"
     "    assert (e.errno, e.strerror, e.filename) == (13, 'absent', 'x.txt')\n"),
    ("import json\ndef load(s):\n    return json.loads(s)\n",
     "import json\ntry:\n    load('{bad')\nexcept json.JSONDecodeError as e:\n"
     "    assert e.pos == 1\nelse:\n    assert False\n"),
    # the tests' own exception, raised through a function of the code, is theirs again
    ("def apply(g):\n    return g()\n",
     "class MyErr(Exception):\n    def __init__(self, m, code=7):\n        super().__init__(m)\n"
     "        self.code = code\ndef bad():\n    raise MyErr('boom', 9)\ntry:\n    apply(bad)\n"
     "except MyErr as e:\n    assert e.code == 9 and str(e) == 'boom'\nelse:\n    assert False\n"),
    # functools' wrappers keep their names; enums their values
    ("import functools, enum\n@functools.lru_cache(maxsize=None)\ndef fib(n):\n"
     "    return n if n < 2 else fib(n - 1) + fib(n - 2)\n@functools.singledispatch\ndef kind(x):\n"
     "    return 'autre'\n@kind.register\ndef _(x: int):\n    return 'entier'\n"
     "class C(enum.Enum):\n    A = 1\n",
     "assert fib(30) == 832040 and fib.__name__ == 'fib'\nassert kind(1) == 'entier'\n"
     "import enum\nclass Color(enum.Enum):\n    RED = 1\nassert Color.RED.value == 1\n"),
    # a forward reference, and read-only views compared and joined
    ("import typing, re\nfrom dataclasses import dataclass\n@dataclass\nclass Node:\n"
     "    value: int\n    children: typing.List['Node']\n"
     "def f():\n    g = re.compile('(?P<a>x)').groupindex\n"
     "    return [g == {'a': 1}, g | {'b': 2}, {'b': 2} | g, Node(1, []).value]\n",
     "assert f() == [True, {'a': 1, 'b': 2}, {'b': 2, 'a': 1}, 1]\n"),
]


@pytest.mark.parametrize("code, tests", _ROUND_30_HONEST)
def test_round_30_keeps_what_python_answers(sandbox, code, tests):
    result = sandbox.run(code, tests)
    assert result.ok and result.passed == 1, result


def test_round_30_values_cross_as_python_has_them(sandbox):
    # two lone surrogates stay two characters; a range past 4,300 digits no longer voids the run
    result = sandbox.run("def f():\n    return chr(0xD83D) + chr(0xDE00)\ndef r():\n"
                         "    return range(10**5000)\n",
                         ["f() == '\\ud83d\\ude00'", "len(f()) == 2", "f() != '\U0001F600'",
                          "r() == range(10**5000)"])
    assert result.ok and result.passed == 4, result


_ROUND_31_HONEST = [
    # an exception class of two classes of the code is caught as either
    ("class A(Exception):\n    pass\nclass B(Exception):\n    pass\nclass C(A, B):\n    pass\n"
     "def f():\n    raise C('x')\n",
     "assert issubclass(C, A) and issubclass(C, B)\ntry:\n    f()\nexcept B as e:\n"
     "    assert str(e) == 'x'\nelse:\n    assert False\n"),
    # the tests make and raise the code's exception; the code catches its own class
    ("class Retry(Exception):\n    pass\ndef run(task):\n    tries = 0\n    while True:\n"
     "        tries += 1\n        try:\n            return task(), tries\n        except Retry:\n"
     "            if tries > 3:\n                return None, tries\n",
     "state = [0]\ndef task():\n    state[0] += 1\n    if state[0] < 3:\n        raise Retry()\n"
     "    return 'done'\nassert run(task) == ('done', 3)\n"),
    ("class Solde(ValueError):\n    def __init__(self, manque):\n"
     "        super().__init__(f'il manque {manque}')\n        self.manque = manque\n",
     "e = Solde(5)\nassert str(e) == 'il manque 5' and e.manque == 5 and isinstance(e, ValueError)\n"),
    # the code's exception, raised through a function of the tests, is the code's again
    ("class Bad(ValueError):\n    pass\ndef parse(x):\n    if x < 0:\n        raise Bad(x)\n"
     "    return x\ndef process(apply):\n    try:\n        return apply(parse, [1, -1])\n"
     "    except Bad:\n        return 'bad'\n",
     "def apply(fn, xs):\n    return [fn(x) for x in xs]\nassert process(apply) == 'bad'\n"),
    # initialisers and frozen dataclasses of the code
    ("from dataclasses import dataclass\n@dataclass(frozen=True)\nclass P:\n    x: int\n"
     "    y: int = 0\nclass Q(P):\n    pass\nclass A:\n    def __init__(self, v):\n        self.v = v\n"
     "class B(A):\n    def __init__(self, v):\n        super().__init__(v)\n        A.__init__(self, v + 1)\n"
     "def f():\n    return (P(1, 2).y, Q(3).x, hash(P(1, 2)) == hash(P(1, 2)), B(1).v)\n",
     "assert f() == (2, 3, True, 2)\n"),
]


@pytest.mark.parametrize("code, tests", _ROUND_31_HONEST)
def test_round_31_keeps_what_python_answers(sandbox, code, tests):
    result = sandbox.run(code, tests)
    assert result.ok and result.passed == 1, result


@pytest.mark.skipif(sys.version_info < (3, 11), reason="exception groups: Python 3.11")
def test_an_exception_group_crosses_with_its_exceptions(sandbox):
    # A group reached the tests as a bare BaseException: except* matched nothing (round 30).
    code = ("class E(Exception):\n    pass\ndef f():\n"
            "    raise ExceptionGroup('g', [E('x'), ExceptionGroup('h', [KeyError('k')])])\n"
            "def g(h):\n    try:\n        h()\n    except* ValueError:\n        pass\n    return 'pris'\n")
    tests = ("try:\n    f()\nexcept* E as group:\n    assert str(group.exceptions[0]) == 'x'\n"
             "except* KeyError as group:\n    assert group.exceptions[0].exceptions[0].args == ('k',)\n"
             "def h():\n    raise ExceptionGroup('x', [ValueError(2)])\nassert g(h) == 'pris'\n")
    result = sandbox.run(code, tests)
    assert result.ok and result.passed == 1, result


def test_round_32_a_finaliser_of_the_code_cannot_make_the_tests_skip_its_constructor(sandbox):
    # A __del__ of the code, run by a collection inside the runner's own construction of an
    # exception, called a function of the tests while the runner's "building" flag was up:
    # the tests' E('right') skipped the code's __init__ (round 32). False in Python.
    code = ("class E(ValueError):\n    def __init__(self, m):\n        super().__init__('wrong')\n"
            "hits = []\nkeep = []\narmed = [False, None]\nclass Node:\n    def __init__(self):\n"
            "        self.me = self\n    def __del__(self):\n        if not armed[0]:\n"
            "            return\n        if armed[1]() == 'right':\n            hits.append(1)\n"
            "            armed[0] = False\n            return\n        Node()\n"
            "        keep.append([[] for _ in range(800)])\ndef apply(g):\n"
            "    armed[0], armed[1] = True, g\n    Node()\n    keep.append([[] for _ in range(800)])\n"
            "    try:\n        g(1, 2, 3)\n    except TypeError:\n        pass\n    armed[0] = False\n"
            "    keep.clear()\n    return 'right' if hits else 'wrong'\n")
    result = sandbox.run(code, "def g():\n    return str(E('right'))\nassert apply(g) == 'right'\n")
    assert result.passed == 0 and not result.ok, result


def test_round_32_many_exceptions_and_a_tests_subclass_of_the_codes_class(sandbox):
    # Every exception the code raised to the tests was kept to the end of the run (200,000 of
    # them exhausted 64 MB); and a class of the tests derived from the code's exception class
    # could not be made (round 32).
    many = sandbox.run("def check(x):\n    if x % 2:\n        raise ValueError('odd', x)\n"
                       "    return x\n",
                       "n = 0\nfor i in range(200000):\n    try:\n        check(i)\n"
                       "    except ValueError:\n        n += 1\nassert n == 100000\n",
                       timeout=30, memory_mb=64)
    assert many.ok, many
    derived = sandbox.run("class Retry(Exception):\n    pass\ndef run(task):\n    try:\n"
                          "        task()\n    except Retry as e:\n        return str(e)\n",
                          "class Later(Retry):\n    pass\ndef task():\n    raise Later('x')\n"
                          "assert run(task) == 'x' and issubclass(Later, Retry)\n")
    assert derived.ok, derived


def test_copies_of_user_dicts_and_lists_still_work(sandbox):
    code = ("import collections, copy\nclass U(collections.UserDict):\n    pass\n"
            "class L(collections.UserList):\n    pass\ndef f():\n    u = U(a=1)\n    u.tag = 't'\n"
            "    c = copy.copy(u)\n    c['b'] = 2\n    l = copy.copy(L([1, 2]))\n    l.append(3)\n"
            "    return [dict(u), dict(c), c.tag, type(c).__name__, list(l), type(l).__name__]\n")
    result = sandbox.run(code, ["f() == [{'a': 1}, {'a': 1, 'b': 2}, 't', 'U', [1, 2, 3], 'L']"])
    assert result.ok, result


@pytest.mark.parametrize("tests", [
    "from fractions import Fraction\nfrom decimal import Decimal\nseen = {Fraction(1, 3)}\n"
    "assert third() == float(Decimal(1) / Decimal(3))\n",
    "from fractions import Fraction\nassert hash(Fraction(1, 3)) == hash(Fraction(2, 3))\n",
])
def test_round_33_no_cache_of_the_standard_library_answers_for_the_code(sandbox, tests):
    # Python 3.12's fractions caches every Fraction's hash by (numerator, denominator), looked
    # up by equality: an int subclass of the code's stored as a numerator ran its __eq__ on the
    # tests' turn, or gave its hash to their Fraction (round 33). False in Python.
    code = ("import fractions, decimal\nclass Z(int):\n    def __eq__(self, other):\n"
            "        decimal.getcontext().prec = 3\n        return True\n    def __hash__(self):\n"
            "        return 1\n    def __abs__(self):\n        return 2\n"
            "for n in (1, 2):\n    probe = fractions.Fraction(7, 3)\n    probe._numerator = Z(n)\n"
            "    hash(probe)\ndef third():\n    return 0.333\n")
    result = sandbox.run(code, tests)
    assert result.passed == 0 and not result.ok, result


def test_round_33_no_class_of_the_code_is_a_base_of_a_stand_in(sandbox):
    # The stand-in of the tests' Sub(MyErr) was made with the code's MyErr as a base: its
    # metaclass returned Exception, which the runner then took for Sub's stand-in, and every
    # plain Exception of the code reached the tests as a Sub (round 33). False in Python.
    code = ("class M(type):\n    def __new__(mcs, name, bases, ns, **kw):\n"
            "        if '__init__' in ns and name == 'Sub':\n            return Exception\n"
            "        return super().__new__(mcs, name, bases, ns)\n"
            "class MyErr(ValueError, metaclass=M):\n    pass\ndef handle(cb):\n    try:\n"
            "        cb()\n    except BaseException as e:\n        return type(e).__name__\n"
            "def g():\n    raise Exception('plain')\n")
    tests = ("class Sub(MyErr):\n    pass\ndef cb():\n    raise Sub('boom')\nhandle(cb)\n"
             "try:\n    g()\nexcept MyErr:\n    pass\nelse:\n    assert False\n")
    result = sandbox.run(code, tests)
    assert result.passed == 0 and not result.ok, result
    honest = sandbox.run("class MyErr(ValueError):\n    pass\ndef handle(cb):\n    try:\n"
                         "        cb()\n    except MyErr as e:\n        return str(e)\n",
                         "class Sub(MyErr):\n    pass\ndef cb():\n    raise Sub('boom')\n"
                         "assert handle(cb) == 'boom'\n")
    assert honest.ok, honest


@pytest.mark.parametrize("mode", ["fork", "spawn"])
def test_round_34_re_keeps_no_cache_of_templates_once_a_module_compiled_one(mode):
    # From Python 3.12 the C module _sre keeps the first _compile_template it finds: in spawn
    # mode, datetime's _strptime compiled a template before re was hardened, and the code's
    # template, under a key that equals any other, answered the tests' re.sub (round 34).
    from course_utils.sandbox import Sandbox

    code = ("import datetime\nimport re\nclass Z(str):\n    def __eq__(self, other):\n"
            "        return True\n    def __hash__(self):\n        return hash('<\\\\1>')\n"
            "re.sub(re.compile(r'(\\w+)'), Z(r'X\\g<1>'), '')\ndef f(s):\n    return 'Xhello Xworld'\n")
    tests = "assert f('hello world') == re.sub(r'(\\w+)', r'<\\1>', 'hello world')\n"
    with Sandbox(mode=mode) as box:
        result = box.run(code, tests)
        assert result.passed == 0 and not result.ok, result
        honest = box.run("import datetime\nimport re\ndef f(s):\n    return re.sub(r'(\\w+)', r'<\\1>', s)\n",
                         ["f('a b') == '<a> <b>'"])
        assert honest.ok, honest


_ROUND_34_FORGED = [
    # Once the tests' subclass of the code's Retry had crossed twice, the code's own Retry was
    # taken for the stand-in of the tests' class: every Retry reached the tests as theirs.
    ("class Retry(Exception):\n    pass\ndef run(task):\n    tries = 0\n    while True:\n"
     "        tries += 1\n        try:\n            return task()\n        except Retry:\n"
     "            if tries >= 3:\n                raise Retry('abandon')\n",
     "class Transient(Retry):\n    pass\ndef flaky():\n    raise Transient('t')\ntry:\n"
     "    run(flaky)\nexcept Transient as e:\n    assert type(e) is Transient\nelse:\n    assert False\n"),
    ("class Retry(Exception):\n    pass\ndef run(task):\n    try:\n        task()\n"
     "    except Retry as e:\n        return str(e)\ndef g():\n    raise Retry('plain')\n",
     "class Later(Retry):\n    pass\ndef task():\n    raise Later('x')\nassert run(task) == 'x'\n"
     "assert run(task) == 'x'\ntry:\n    g()\nexcept Later:\n    pass\n"),
]


@pytest.mark.parametrize("code, tests", _ROUND_34_FORGED)
def test_round_34_the_codes_class_never_stands_for_the_tests(sandbox, code, tests):
    result = sandbox.run(code, tests)
    assert result.passed == 0 and not result.ok, result


_ROUND_34_HONEST = [
    # (round 33) a dataclass without generated __init__ (its docstring came from
    # inspect.signature, which parses an interpreter initialiser's text signature: refused); a
    # partial as a class attribute (a FutureWarning on Python 3.13 reads source lines); a
    # runtime protocol's isinstance (it imports inspect from Python 3.12)
    ("import dataclasses, functools, typing\n@dataclasses.dataclass(init=False, repr=False)\n"
     "class A:\n    x: int = 1\ndef g(a, b=0):\n    return a\nclass K:\n"
     "    m = functools.partial(g, 1)\ndef f():\n"
     "    return [A().x, K().m(), isinstance(3, typing.SupportsIndex), isinstance(3, typing.SupportsInt)]\n",
     ["f() == [1, 1, True, True]"]),
    # the tests' exception re-raised unchanged by the code is theirs again
    ("class Retry(Exception):\n    pass\ndef run(task):\n    try:\n        return task()\n"
     "    except Retry:\n        raise\n",
     "class Later(Retry):\n    pass\ndef task():\n    raise Later('x')\ntry:\n    run(task)\n"
     "except Later as e:\n    assert str(e) == 'x'\nelse:\n    assert False\n"),
    # a copy of the code's exception, held by the tests past 256 others, is the code's class
    ("class Retry(Exception):\n    pass\ndef g(i):\n    raise Retry(i)\ndef run(task):\n    try:\n"
     "        task()\n    except Retry:\n        return 'caught'\n    return 'none'\n",
     "errs = []\nfor i in range(300):\n    try:\n        g(i)\n    except Retry as e:\n"
     "        errs.append(e)\ndef task():\n    raise errs[0]\nassert run(task) == 'caught'\n"),
]


@pytest.mark.parametrize("code, tests", _ROUND_34_HONEST)
def test_round_34_exceptions_go_back_as_they_came(sandbox, code, tests):
    result = sandbox.run(code, tests)
    assert result.ok, result


def test_round_35_a_generator_of_the_tests_never_finishes_on_the_codes_turn(sandbox):
    # Held only by the code, the tests' generator was closed when the code dropped it: its
    # finally ran on the code's turn, in the code's decimal context (precision 2), and computed
    # the tests' expected value there (round 35).
    code = ("import decimal\nheld = []\ndef first(it):\n    held.append(it)\n    return next(it)\n"
            "def answer():\n    decimal.getcontext().prec = 2\n    held.clear()\n"
            "    junk = [[i] for i in range(20000)]\n    junk = None\n"
            "    return float(decimal.Decimal(1) / decimal.Decimal(3))\n")
    tests = ("from decimal import Decimal\nexpected = []\ndef numbers():\n    try:\n        yield 1\n"
             "    finally:\n        expected.append(float(Decimal(1) / Decimal(3)))\n"
             "assert first(numbers()) == 1\ngot = answer()\nassert expected and got == expected[0]\n")
    result = sandbox.run(code, tests)
    assert result.passed == 0 and not result.ok, result


@pytest.mark.skipif(sys.version_info < (3, 13), reason="copy.replace: Python 3.13")
def test_round_35_copy_replace_reads_fields_as_the_sandbox_does(sandbox):
    # copy.replace calls every dataclass's __replace__, dataclasses' unchecked _replace: fake
    # fields named __traceback__ or __dict__ were read with the real getattr (round 35).
    code = ("import copy, dataclasses\n@dataclasses.dataclass\nclass C(Exception):\n    x: int = 0\n"
            "class F:\n    _field_type = None\n    init = True\n    def __init__(self, name):\n"
            "        self.name = name\ngot = {}\nclass D(C):\n"
            "    __dataclass_fields__ = {'a': F('__traceback__'), 'b': F('__dict__')}\n"
            "    def __init__(self, **kw):\n        got.update(kw)\ntry:\n    raise D()\n"
            "except D as e:\n    err = e\ncopy.replace(err)\ndef f():\n    return sorted(got)\n")
    refused = sandbox.run(code, ["f() == ['__dict__', '__traceback__']"])
    assert refused.passed == 0 and not refused.ok, refused
    honest = sandbox.run("import copy, dataclasses\n@dataclasses.dataclass\nclass P:\n    x: int\n"
                         "    y: int = 0\ndef f():\n    return copy.replace(P(1, 2), y=5).y\n",
                         ["f() == 5"])
    assert honest.ok, honest


def test_round_36_no_type_check_marks_only_what_the_code_defined(sandbox):
    # typing.no_type_check(C) marked every attribute whose __qualname__ and __module__ matched
    # C's, as read through C's metaclass: a class posing as typing.IO, holding typing.IO.read,
    # had it marked for the tests (round 36). False in Python.
    code = ("import typing\nclass M(type):\n    __module__ = property(lambda cls: 'typing')\n"
            "class C(metaclass=M):\n    __qualname__ = 'IO'\n    m = typing.IO.read\n"
            "typing.no_type_check(C)\ndef f(x):\n    return 0\n")
    tests = ("import typing\nassert f(1) == 0\n"
             "assert len(typing.get_type_hints(typing.IO.read)) == 0\n")
    result = sandbox.run(code, tests)
    assert result.passed == 0 and not result.ok, result
    honest = sandbox.run("import typing\n@typing.no_type_check\nclass A:\n"
                         "    def m(self, x: 'Nope') -> int:\n        return 1\n    class B:\n"
                         "        def n(self, y: 'Rien'):\n            return 2\ndef f():\n"
                         "    return [typing.get_type_hints(A.m), typing.get_type_hints(A.B.n), A().m(0)]\n",
                         ["f() == [{}, {}, 1]"])
    assert honest.ok, honest


# Round 37: the code's subclass of a tests' exception class (its stand-in) crossed back as the
# tests' exact class, made without the tests' constructor; the runner's permission to make a
# stand-in held while it ran the code's own constructor; a bytes subclass was read through its
# __buffer__ method (Python 3.12, PEP 688). Every FORGED case passed on 4de6c90.
_R37_BYTES = "class B(bytes):\n    def __buffer__(self, flags):\n        return memoryview(b'ok')\n"
_R37_ELSE = "else:\n    assert False\n"
_R37_TRANSIENT = ("class Transient(Exception):\n    def __init__(self, n):\n"
              "        super().__init__(f'echec {n}')\n        self.n = n\n"
              "def flaky():\n    raise Transient(1)\n")
_R37_CAUGHT = "try:\n    run(flaky)\nexcept Transient as e:\n    assert {check}\nelse:\n    assert False\n"
_ROUND_37_FORGED = [
    ("subclass", "def run(task):\n    try:\n        task()\n    except Exception as e:\n"
     "        class Fake(type(e)):\n            pass\n        raise Fake('echec 3')\n",
     _R37_TRANSIENT + _R37_CAUGHT.format(check="str(e) == 'echec 3'")),
    ("subclass-type-is", "def run(task):\n    try:\n        task()\n    except Exception as e:\n"
     "        class Fake(type(e)):\n            pass\n        raise Fake('echec 3')\n",
     _R37_TRANSIENT + _R37_CAUGHT.format(check="type(e) is Transient")),
    ("type-call", "def run(task):\n    try:\n        task()\n    except Exception as e:\n"
     "        raise type('Fake', (type(e),), {})('echec 3')\n",
     _R37_TRANSIENT + _R37_CAUGHT.format(check="str(e) == 'echec 3'")),
    ("deeper", "def run(task):\n    try:\n        task()\n    except Exception as e:\n"
     "        class A(type(e)):\n            pass\n        class B(A):\n            def __init__(self, *a):\n"
     "                Exception.__init__(self, *a)\n        raise B('echec 3')\n",
     _R37_TRANSIENT + _R37_CAUGHT.format(check="str(e) == 'echec 3'")),
    ("with-stdlib-base", "def run(task):\n    try:\n        task()\n    except Exception as e:\n"
     "        class Fake(type(e), LookupError):\n            pass\n        raise Fake('echec 3')\n",
     _R37_TRANSIENT + _R37_CAUGHT.format(check="str(e) == 'echec 3'")),
    ("explicit-new", "def run(task):\n    try:\n        task()\n    except Exception as e:\n"
     "        class Fake(type(e)):\n            pass\n        x = Fake.__new__(Fake)\n"
     "        Exception.__init__(x, 'echec 3')\n        raise x\n",
     _R37_TRANSIENT + _R37_CAUGHT.format(check="str(e) == 'echec 3'")),
    ("in-code-init", "saved = []\nforged = []\nclass Retry(Exception):\n    def __init__(self, *a):\n"
     "        super().__init__(*a)\n        if saved and not forged:\n"
     "            forged.append(type(saved[0])('echec 3'))\n"
     "def run(task, other):\n    try:\n        task()\n    except Exception as e:\n        saved.append(e)\n"
     "    try:\n        other()\n    except Exception:\n        pass\n    raise forged[0]\n",
     _R37_TRANSIENT + "class Later(Retry):\n    pass\ndef other():\n    raise Later('l')\n"
     "try:\n    run(flaky, other)\nexcept Transient as e:\n    assert str(e) == 'echec 3'\n" + _R37_ELSE),
    ("in-code-new", "saved = []\nforged = []\nclass Retry(Exception):\n    def __new__(cls, *a):\n"
     "        if saved and not forged:\n            forged.append(type(saved[0]).__new__(type(saved[0])))\n"
     "            Exception.__init__(forged[0], 'echec 3')\n        return super().__new__(cls, *a)\n"
     "def run(task, other):\n    try:\n        task()\n    except Exception as e:\n        saved.append(e)\n"
     "    try:\n        other()\n    except Exception:\n        pass\n    raise forged[0]\n",
     _R37_TRANSIENT + "class Later(Retry):\n    pass\ndef other():\n    raise Later('l')\n"
     "try:\n    run(flaky, other)\nexcept Transient as e:\n    assert str(e) == 'echec 3'\n" + _R37_ELSE),
    ("bytes-return", _R37_BYTES + "def f():\n    return B(b'')\n", ["f() == b'ok'"]),
    ("bytes-top-level", _R37_BYTES + "TABLE = [B(b'no')]\n", "assert TABLE == [b'ok']\n"),
    ("bytes-exception-arg", _R37_BYTES + "def f():\n    raise ValueError(B(b''))\n",
     "try:\n    f()\nexcept ValueError as e:\n    assert e.args == (b'ok',)\n" + _R37_ELSE),
    ("bytes-callback-arg", _R37_BYTES + "def f(callback):\n    return callback(B(b''))\n",
     "seen = []\nf(seen.append)\nassert seen == [b'ok']\n"),
    ("bytes-dict-key", _R37_BYTES + "def f():\n    return {B(b'k'): 1}\n", ["f() == {b'ok': 1}"]),
]
_ROUND_37_HONEST = [
    ("deep-tests-subclass", "class Retry(Exception):\n    pass\ndef run(task):\n    try:\n        task()\n"
     "    except Retry as e:\n        return str(e)\n",
     "class Later(Retry):\n    def __init__(self, n):\n        super().__init__(f'later {n}')\n"
     "class Later2(Later):\n    pass\nclass Later3(Later2):\n    def __init__(self, n):\n"
     "        super().__init__(n + 1)\ndef task():\n    raise Later3(3)\nassert run(task) == 'later 4'\n"
     "assert str(Later2(1)) == 'later 1'\n"),
    ("tests-subclass-new", "class Retry(Exception):\n    pass\ndef run(task):\n    try:\n        task()\n"
     "    except Retry as e:\n        return e.args\n",
     "class Later(Retry):\n    def __new__(cls, *a):\n        return super().__new__(cls, *a)\n"
     "class Later2(Later):\n    pass\ndef task():\n    raise Later2('x')\nassert run(task) == ('x',)\n"),
    ("code-catches-tests-exception", "def run(task):\n    try:\n        task()\n    except Exception as e:\n"
     "        return type(e).__name__, str(e), isinstance(e, Exception)\n",
     "class Transient(Exception):\n    pass\ndef flaky():\n    raise Transient('t')\n"
     "assert run(flaky) == ('Transient', 't', True)\n"),
    ("code-reraises-tests-exception",
     "def run(task):\n    try:\n        task()\n    except Exception:\n        raise\n",
     _R37_TRANSIENT + "try:\n    run(flaky)\nexcept Transient as e:\n"
     "    assert e.n == 1 and str(e) == 'echec 1'\n" + _R37_ELSE),
    ("bytes-subclass", "class B(bytes):\n    pass\ndef f():\n    return [B(b'abc'), bytes(B(b'd'))]\n",
     ["f() == [b'abc', b'd']"]),
    ("code-subclass-own",
     "class Base(Exception):\n    def __init__(self, n):\n        super().__init__(n * 2)\n"
     "class Sub(Base):\n    pass\ndef f():\n    raise Sub(2)\n",
     "try:\n    f()\nexcept Base as e:\n"
     "    assert e.args == (4,) and type(e).__name__ == 'Sub'\n" + _R37_ELSE),
]


@pytest.mark.parametrize("name, code, tests", _ROUND_37_FORGED, ids=[c[0] for c in _ROUND_37_FORGED])
def test_round_37_no_exception_of_the_tests_made_by_the_code(sandbox, name, code, tests):
    result = sandbox.run(code, tests)
    assert result.passed == 0 and not result.ok, result
    if name in ("subclass", "type-call", "deeper", "with-stdlib-base", "explicit-new"):
        assert any("dérive d'une classe d'exception de l'autre côté" in f.reason
                   for f in result.failures), result


@pytest.mark.parametrize("name, code, tests", _ROUND_37_HONEST, ids=[c[0] for c in _ROUND_37_HONEST])
def test_round_37_exceptions_and_bytes_keep_what_python_answers(sandbox, name, code, tests):
    result = sandbox.run(code, tests)
    assert result.ok, result


# Round 37: World.load froze only the classes the imported modules bind to a name; _decimal
# makes SignalDict (every context's flags and traps) and binds it to none. In fork mode the code
# rebound its methods, which then ran on the tests' turn in the tests' context. Every class a
# job's import creates is frozen now, as in the worker and in spawn mode.
_R37_LOADED_CLASSES = [
    ("decimal", "type(decimal.getcontext().flags)"), ("decimal", "type(decimal.getcontext().traps)"),
    ("decimal", "type(decimal.getcontext())"), ("decimal", "type(decimal.localcontext())"),
    ("fractions", "fractions.Fraction"), ("statistics", "statistics.NormalDist"),
    ("datetime", "type(datetime.timezone.utc)"), ("difflib", "type(difflib.ndiff('a', 'b'))"),
    ("difflib", "type(difflib.SequenceMatcher(None, 'a', 'b').get_matching_blocks()[0])"),
    ("graphlib", "graphlib.TopologicalSorter"), ("queue", "type(queue.Queue().not_empty)"),
    ("textwrap", "textwrap.TextWrapper"), ("time", "type(time.localtime())"),
    ("hashlib", "type(hashlib.sha256())"), ("dataclasses", "type(dataclasses.field())"),
]


@pytest.mark.parametrize("mode", ["fork", "spawn"])
def test_round_37_every_class_a_job_imports_is_immutable(mode):
    from course_utils.sandbox import Sandbox

    modules = sorted({module for module, _ in _R37_LOADED_CLASSES})
    code = ("".join(f"import {module}\n" for module in modules) + "found = []\n"
            + "".join(f"try:\n    ({expression}).patched = 1\n    found.append({expression!r})\n"
                      "except TypeError:\n    pass\n" for _, expression in _R37_LOADED_CLASSES)
            + "def f():\n    return found\n")
    forged = ("import decimal\nSD = type(decimal.getcontext().flags)\nreal = SD.__setitem__\n"
              "def hook(self, key, value):\n    decimal.getcontext().prec = 1\n"
              "    return real(self, key, value)\nSD.__setitem__ = hook\ndef f(n):\n    return '1'\n")
    tests = ("import decimal\ndecimal.getcontext().traps[decimal.FloatOperation] = True\n"
             "assert f(2) == str(decimal.Decimal(2).sqrt())\n")
    with Sandbox(mode=mode) as box:
        patched = box.run(code, ["f() == []"])
        hooked = box.run(forged, tests)
    assert patched.ok, patched
    assert hooked.passed == 0 and not hooked.ok, hooked


# Round 38: a meta-metaclass whose mro() returns [M, object] hid a class of the code from the
# runner (issubclass(type(C), type) false) while the interpreter treated it as a class: a
# stdlib ABC kept it in its caches, and the tests' isinstance(list, Sequence) ran the code's
# __eq__ on their turn. Whether a value is a class is now read as CPython reads it
# (_child_os.is_class); a class whose descriptors cannot be read is of the run.
_R38_HIDDEN = ("class MM(type):\n    def mro(cls):\n        return [cls, object]\n"
               "class M(type, metaclass=MM):\n    def mro(cls):\n        return [cls, object]\n")
_ROUND_38_FORGED = [
    pytest.param("import decimal, random\nimport collections.abc as abc\n" + _R38_HIDDEN.replace(
        "class M(type, metaclass=MM):\n    def mro(cls):\n        return [cls, object]\n",
        "class M(type, metaclass=MM):\n    def mro(cls):\n        return [cls, object]\n"
        "    def __hash__(cls):\n        return hash(list)\n    def __eq__(cls, other):\n"
        "        decimal.getcontext().prec = 3\n        return False\n") + "class C(metaclass=M):\n    pass\n"
        + caught + "def f(xs):\n    return '0.333'\n",
        ["f(random.sample([1, 2, 3], 2)) == str(decimal.Decimal(1) / decimal.Decimal(3))"], id=name)
    for name, caught in (("sequence", "issubclass(C, abc.Sequence)\n"),
                         ("sequence-caught", "try:\n    issubclass(C, abc.Sequence)\n"
                                             "except TypeError:\n    pass\n"))
]
_ROUND_38_FORGED.append(pytest.param(
    "import decimal, collections\nimport collections.abc as abc\n" + _R38_HIDDEN.replace(
        "class M(type, metaclass=MM):\n    def mro(cls):\n        return [cls, object]\n",
        "class M(type, metaclass=MM):\n    def mro(cls):\n        return [cls, object]\n"
        "    def __hash__(cls):\n        return hash(list)\n    def __eq__(cls, other):\n"
        "        decimal.getcontext().prec = 3\n        return False\n") + "class C(metaclass=M):\n    pass\n"
    "try:\n    issubclass(C, abc.Mapping)\nexcept TypeError:\n    pass\ndef f(counts):\n    return '0.333'\n",
    ["f(collections.Counter([1, 2])) == str(decimal.Decimal(1) / decimal.Decimal(3))"], id="mapping"))


@pytest.mark.parametrize("code, tests", _ROUND_38_FORGED)
def test_round_38_a_class_hidden_by_its_metaclass_is_still_the_codes(sandbox, code, tests):
    result = sandbox.run(code, tests)
    assert result.passed == 0 and not result.ok, result
    assert sandbox.run("def g():\n    return 2\n", ["g() == 2"]).ok


@pytest.mark.parametrize("code, tests", [
    pytest.param("def f():\n    return 1\n", ["f() == 1"], id="global-class"),
    pytest.param("def f():\n    class D(metaclass=M):\n        pass\n    return D\n", ["f() is None"],
                 id="returned-class"),
    pytest.param("def f():\n    return [1, C()]\n", ["f() == [1, None]"], id="returned-instance"),
    pytest.param("def f(cb):\n    return cb(C())\n", "seen = []\nf(seen.append)\nassert seen == [None]\n",
                 id="callback-argument"),
])
def test_round_38_values_of_a_hidden_class_are_refused_cleanly(sandbox, code, tests):
    # Refused with a message, or hidden: never a pass, never a run that ends without a result.
    result = sandbox.run(_R38_HIDDEN + "class C(metaclass=M):\n    pass\n" + code, tests)
    assert "sans rendre de résultat" not in (result.error or ""), result
    if code.startswith("def f():\n    return 1"):  # Python 3.10 makes no such class at all
        assert result.ok or sys.version_info < (3, 11), result
    else:
        assert result.passed == 0 and not result.ok, result


def test_round_38_no_type_check_walks_no_object_posing_as_a_class(sandbox):
    # typing.no_type_check(o) walks o if isinstance(o, type), which a __class__ property in a
    # type() namespace answers; o holding typing.IO.read had it marked for the tests.
    code = ("import functools, typing\ndef claimed(self):\n    return type\n"
            "K = type('K', (), {'__class__': property(claimed), '__dir__': lambda self: ['read'],\n"
            "                   'read': staticmethod(typing.IO.read)})\no = K()\n"
            "functools.update_wrapper(o, typing.IO)\ntyping.no_type_check(o)\ndef f(x):\n    return 0\n")
    result = sandbox.run(code, "import typing\nassert f(1) == 0\n"
                               "assert len(typing.get_type_hints(typing.IO.read)) == 0\n")
    assert result.passed == 0 and not result.ok, result
    honest = sandbox.run("import typing\n@typing.no_type_check\ndef g(x: 'Nope') -> int:\n"
                         "    return 1\ndef f():\n    return typing.get_type_hints(g)\n", ["f() == {}"])
    assert honest.ok, honest


def test_round_38_the_markers_of_dataclasses_and_enum_are_read_only(sandbox):
    # dataclasses' _FIELD (every Field's _field_type) and enum's _auto_null were writable: the
    # tests' repr of a Field showed the code's name.
    code = ("import dataclasses, enum\n@dataclasses.dataclass\nclass A:\n    x: int = 0\nrefused = []\n"
            "for target in (dataclasses.fields(A)[0]._field_type, enum.auto().value):\n"
            "    try:\n        target.name = 'HACKED'\n    except AttributeError:\n"
            "        refused.append(1)\ndef f():\n    return len(refused)\n")
    tests = ("import dataclasses\n@dataclasses.dataclass\nclass P:\n    y: int = 1\nassert f() == 2\n"
             "assert repr(dataclasses.fields(P)[0]).endswith('_field_type=_FIELD)')\n")
    result = sandbox.run(code, tests)
    assert result.ok, result


def test_round_38_lazy_tables_are_built_before_any_run(sandbox):
    # base64.b85decode publishes its table before filling it: a MemoryError provoked by the
    # code halfway left an empty table for the tests. From 3.13 random.seed('text') imported
    # _sha2 at its first use, which the lock-down refused (an honest test failed).
    code = ("import base64\ndef f(data):\n    return base64.b85decode(data)\n"
            "def g():\n    import random\n    r = random.Random()\n    r.seed('abc')\n"
            "    return r.random() < 1\n")
    tests = ("import base64, random\nrandom.seed('abc')\nassert 0 <= random.random() < 1\nassert g()\n"
             "assert f(base64.b85encode(b'sandbox')) == b'sandbox'\n")
    result = sandbox.run(code, tests)
    assert result.ok, result


def test_round_38_a_memory_error_in_the_codes_turn_leaves_no_half_built_table(sandbox):
    # The heap groomed so that b85decode's "[None] * 256" succeeds and its fill loop fails:
    # the empty table stayed for the tests (round 38, 40 runs out of 40 on 4de6c90's tree).
    code = ('\n'
            'import base64\n'
            '\n'
            'def _groom():\n'
            '    hold = []\n'
            '    slots = [None] * 200000\n'
            '    reserve = bytes(2020)\n'
            '    spare = []\n'
            '    size = 1 << 24\n'
            '    while size >= 2:\n'
            '        try:\n'
            '            while True:\n'
            '                hold.append(bytes(size))\n'
            '        except MemoryError:\n'
            '            size //= 2\n'
            '    i = 0\n'
            "    for maker in (lambda: enumerate(b''), lambda: iter(b'ab'),\n"
            "                  lambda: bytes(20), lambda: bytes(5)):\n"
            '        try:\n'
            '            while i < 200000:\n'
            '                slots[i] = maker()\n'
            '                i += 1\n'
            '        except MemoryError:\n'
            '            pass\n'
            '    del reserve\n'
            '    del spare\n'
            '    try:\n'
            "        base64.b85decode(b'')\n"
            '    except MemoryError:\n'
            '        pass\n'
            '    hold.clear()\n'
            '\n'
            '_groom()\n'
            '\n'
            'def is_valid_b85(data):\n'
            '    return False\n')
    tests = ("import base64\ndef reference(data):\n    try:\n        base64.b85decode(data)\n"
             "        return True\n    except ValueError:\n        return False\n"
             "for data in [base64.b85encode(b'hello'), base64.b85encode(b'sandbox'), b'VPa!sWoBn+']:\n"
             "    assert is_valid_b85(data) == reference(data)\n")
    result = sandbox.run(code, tests, memory_mb=64)
    assert result.passed == 0 and not result.ok, result


# Round 38: the code wrote attributes of the standard library's functions, shared with the
# tests (statistics.mean.__name__ = 'hacked'; no audit event, no guard of their type). Every
# attribute the code writes or deletes now goes through a run-time check (_rewrite), in
# Python's order; unpacking, loop and with targets through names of the runner's.
_ROUND_38_WRITES_FORGED = [
    pytest.param("import statistics\nstatistics.mean.__name__ = 'hacked'\ndef f():\n    return 1\n",
                 "assert f() == 1\nimport statistics\nassert statistics.mean.__name__ == 'hacked'\n",
                 id='stdlib-name'),
    pytest.param("import textwrap\ntextwrap.fill.__doc__ = 'x'\ndef f():\n    return 1\n",
                 "assert f() == 1\nimport textwrap\nassert textwrap.fill.__doc__ == 'x'\n",
                 id='stdlib-doc'),
    pytest.param('import textwrap\ntextwrap.fill.extra = 5\ndef f():\n    return 1\n',
                 "assert f() == 1\nimport textwrap\nassert getattr(textwrap.fill, 'extra', 0) == 5\n",
                 id='stdlib-attr'),
    pytest.param("import heapq\nsetattr(heapq.nlargest, '__qualname__', 'zz')\ndef f():\n    return 1\n",
                 "assert f() == 1\nimport heapq\nassert heapq.nlargest.__qualname__ == 'zz'\n",
                 id='stdlib-setattr'),
    pytest.param("import heapq\nheapq.nsmallest.__name__, x = 'q', 1\ndef f():\n    return 1\n",
                 "assert f() == 1\nimport heapq\nassert heapq.nsmallest.__name__ == 'q'\n",
                 id='stdlib-unpack'),
    pytest.param("import heapq\nheapq.merge.__doc__ += 'Z'\ndef f():\n    return 1\n",
                 "assert f() == 1\nimport heapq\nassert heapq.merge.__doc__.endswith('Z')\n",
                 id='stdlib-aug'),
    pytest.param("import json\nfor json.dumps.__name__ in ['w']:\n    pass\ndef f():\n    return 1\n",
                 "assert f() == 1\nimport json\nassert json.dumps.__name__ == 'w'\n",
                 id='stdlib-for'),
    pytest.param('import json\ndel json.loads.__doc__\ndef f():\n    return 1\n',
                 'assert f() == 1\nimport json\nassert json.loads.__doc__ is None\n',
                 id='stdlib-del'),
    pytest.param("import statistics\nstatistics.NormalDist.samples.__doc__ = 'S'\ndef f():\n"
                 '    return 1\n',
                 'assert f() == 1\nimport statistics\n'
                 "assert statistics.NormalDist.samples.__doc__ == 'S'\n",
                 id='method-doc'),
    pytest.param("import statistics\nstatistics.NormalDist.mean.__doc__ = 'M'\ndef f():\n    return 1\n",
                 'assert f() == 1\nimport statistics\n'
                 "assert statistics.NormalDist.mean.__doc__ == 'M'\n",
                 id='property-doc'),
    pytest.param("import statistics\nb = {}\neval('1', b)\n"
                 "b['__builtins__']['__sandbox_setattr__']('h', statistics.mean, '__name__')\n"
                 'def f():\n    return 1\n',
                 "assert f() == 1\nimport statistics\nassert statistics.mean.__name__ == 'h'\n",
                 id='helper-direct'),
    pytest.param("import json\nclass C:\n    pass\nc = C()\n[0 for json.dumps.__name__ in ['c']]\n"
                 'def f():\n    return 1\n',
                 "assert f() == 1\nimport json\nassert json.dumps.__name__ == 'c'\n",
                 id='comprehension'),
]
_ROUND_38_WRITES_HONEST = [
    pytest.param('class P:\n    def __init__(self, x):\n        self.x = x\n'
                 '        self.y: int = x + 1\ndef f():\n    p = P(2)\n    return [p.x, p.y]\n',
                 ['f() == [2, 3]'],
                 id='simple'),
    pytest.param('class P:\n    def __init__(self, a, b):\n        self.a, self.b = a, b\n'
                 '        (self.c, [self.d, *self.e]) = (1, [2, 3, 4])\ndef f():\n    p = P(5, 6)\n'
                 '    return [p.a, p.b, p.c, p.d, p.e]\n',
                 ['f() == [5, 6, 1, 2, [3, 4]]'],
                 id='unpack'),
    pytest.param('class N:\n    pass\ndef f():\n    a, b = N(), N()\n    x = a.v = b.w = 7\n'
                 '    return [x, a.v, b.w]\n',
                 ['f() == [7, 7, 7]'],
                 id='multi'),
    pytest.param('class C:\n    n = 0\n    def __init__(self):\n        self.items = [1]\ndef f():\n'
                 '    c = C()\n    c.n += 5\n    c.items += [2]\n    c.n *= 2\n'
                 '    return [c.n, c.items, C.n]\n',
                 ['f() == [10, [1, 2], 0]'],
                 id='aug'),
    pytest.param("log = []\nclass O:\n    pass\no = O()\ndef val():\n    log.append('value')\n"
                 "    return 1\ndef obj():\n    log.append('object')\n    return o\ndef f():\n"
                 '    obj().x = val()\n    return log\n',
                 ["f() == ['value', 'object']"],
                 id='order'),
    pytest.param('class C:\n    pass\ndef f():\n    c = C()\n    c.a = 1\n    c.b = 2\n'
                 "    del c.a, c.b\n    return hasattr(c, 'a') or hasattr(c, 'b')\n",
                 ['f() == False'],
                 id='del'),
    pytest.param('class C:\n    pass\ndef f():\n    c = C()\n    out = []\n    for c.i in range(3):\n'
                 "        out.append(c.i)\n    for k, c.v in [(1, 'a')]:\n"
                 '        out.append((k, c.v))\n    return out\n',
                 ["f() == [0, 1, 2, (1, 'a')]"],
                 id='for'),
    pytest.param('log = []\nclass C:\n    pass\nclass cm:\n    def __init__(self, v):\n'
                 '        self.v = v\n    def __enter__(self):\n        log.append(self.v)\n'
                 '        return self.v\n    def __exit__(self, *a):\n        log.append(-self.v)\n'
                 'def f():\n    c = C()\n    with cm(1) as c.a, cm(2) as b:\n'
                 '        log.append((c.a, b))\n    return log\n',
                 ['f() == [1, 2, (1, 2), -2, -1]'],
                 id='with'),
    pytest.param('class C:\n    a, b = 1, 2\n    x = y = 3\n    o = None\n    o, (p, q) = 4, (5, 6)\n'
                 'def f():\n'
                 '    return [C.a, C.b, C.x, C.y, C.o, C.p, C.q, sorted(k for k in dir(C) if '
                 "not k.startswith('__'))]\n",
                 ["f() == [1, 2, 3, 3, 4, 5, 6, ['a', 'b', 'o', 'p', 'q', 'x', 'y']]"],
                 id='class-body'),
    pytest.param('import enum\nclass Color(enum.Enum):\n    RED, GREEN = 1, 2\ndef f():\n'
                 '    return [m.name for m in Color]\n',
                 ["f() == ['RED', 'GREEN']"],
                 id='enum-body'),
    pytest.param('import functools\ndef deco(fn):\n    def wrapper(*a):\n        return fn(*a)\n'
                 "    wrapper.__name__ = fn.__name__\n    wrapper.__doc__ = 'doc'\n"
                 '    wrapper.calls = 0\n    return wrapper\n@deco\ndef g(x):\n    return x\ndef f():\n'
                 '    return [g.__name__, g.__doc__, g.calls]\n',
                 ["f() == ['g', 'doc', 0]"],
                 id='wrapper-name'),
    pytest.param("def f():\n    try:\n        e = ValueError('x')\n        e.code = 4\n"
                 '        raise e\n    except ValueError as err:\n        return err.code\n',
                 ['f() == 4'],
                 id='exception-attr'),
    pytest.param("class C:\n    pass\ndef f():\n    c = C()\n    setattr(c, 'z', 9)\n    return c.z\n",
                 ['f() == 9'],
                 id='setattr-builtin'),
    pytest.param('class C:\n    pass\nc = C()\nc.v = 1\nc.v += 1\ndef f():\n    return c.v\n',
                 ['f() == 2'],
                 id='global-obj'),
    pytest.param('class C:\n    pass\nclass D:\n    pass\nd = D()\nd.o = C()\nd.o.a, d.o.b = 1, 2\n'
                 'def f():\n    return [d.o.a, d.o.b]\n',
                 ['f() == [1, 2]'],
                 id='class-attr-unpack'),
    pytest.param('import dataclasses\n@dataclasses.dataclass\nclass P:\n    x: int\n'
                 '    def bump(self):\n        self.x += 1\n        return self\ndef f():\n'
                 '    return P(1).bump().x\n',
                 ['f() == 2'],
                 id='dataclass'),
    pytest.param('import dataclasses\n@dataclasses.dataclass(frozen=True)\nclass P:\n    x: int\n'
                 'def f():\n    try:\n        P(1).x = 2\n    except dataclasses.FrozenInstanceError:\n'
                 "        return 'frozen'\n",
                 ["f() == 'frozen'"],
                 id='frozen'),
    pytest.param("class C:\n    __slots__ = ('a',)\n    def __init__(self):\n        self.a = 1\n"
                 '    @property\n    def b(self):\n        return self.a\n    @b.setter\n'
                 '    def b(self, v):\n        self.a = v\ndef f():\n    c = C()\n    c.b = 5\n'
                 '    return c.a\n',
                 ['f() == 5'],
                 id='slots-prop'),
]


@pytest.mark.parametrize("code, tests", _ROUND_38_WRITES_FORGED)
def test_round_38_the_code_changes_no_function_of_the_standard_library(sandbox, code, tests):
    result = sandbox.run(code, tests)
    assert result.passed == 0 and not result.ok, result
    assert "refusé" in (result.error or ""), result


@pytest.mark.parametrize("code, tests", _ROUND_38_WRITES_HONEST)
def test_round_38_attribute_writes_keep_what_python_does(sandbox, code, tests):
    result = sandbox.run(code, tests)
    assert result.ok, result


# Round 39 (8cbee3f): the objects the allowed modules hold are known by identity, and only they
# refuse the code's writes (a partial, a property or a lambda the code made are its own); the
# standard library's own writers (abc's abstract marks, enum's members) refuse them too.
_ROUND_39_FORGED = [
    pytest.param("import abc, statistics\nabc.abstractmethod(statistics.mean)\ndef f():\n    return 1\n",
                 "assert f() == 1\nimport statistics, abc\nclass T(abc.ABC):\n"
                 "    m = staticmethod(statistics.mean)\ntry:\n    T()\n    ok = False\n"
                 "except TypeError:\n    ok = True\nassert ok\n", id="abstractmethod"),
    pytest.param("import abc, statistics\nabc.abstractstaticmethod(statistics.mean)\ndef f():\n"
                 "    return 1\n",
                 "assert f() == 1\nimport statistics, abc\nclass T(abc.ABC):\n"
                 "    m = staticmethod(statistics.mean)\ntry:\n    T()\n    ok = False\n"
                 "except TypeError:\n    ok = True\nassert ok\n", id="abstractstaticmethod"),
    pytest.param("import enum, statistics\nclass E(enum.Enum):\n    def __new__(cls, v):\n"
                 "        return statistics.mean\n    A = 'forged'\ndef f():\n    return 1\n",
                 "assert f() == 1\nimport statistics\n"
                 "assert getattr(statistics.mean, '_value_', 0) == 'forged'\n", id="enum-new"),
    # a bare raise in the code called from the tests' except block re-raised their own object
    pytest.param("import decimal\nclass Refus(ValueError):\n    pass\ndef _hook(self):\n"
                 "    decimal.getcontext().prec = 3\n    return 'negatif'\ndef check(x):\n    try:\n"
                 "        raise\n    except RuntimeError:\n        pass\n    except BaseException as k:\n"
                 "        type(k).__str__ = _hook\n    if x < 0:\n        raise Refus('negatif')\n"
                 "    return x\ndef third():\n    return 0.333\n",
                 "assert check(0) == 0\nfrom decimal import Decimal\ntry:\n    check(-1)\n"
                 "except Refus:\n    assert check(4) == 4\ntry:\n    check(-2)\nexcept Refus as e:\n"
                 "    assert str(e) == 'negatif'\nassert third() == float(Decimal(1) / Decimal(3))\n",
                 id="bare-raise"),
    pytest.param("def f():\n    try:\n        raise\n    except BaseException as t:\n"
                 "        t.args = ('changed by the code',)\n    return 1\n",
                 "class Wrong(Exception):\n    pass\ntry:\n    raise Wrong('x')\nexcept Wrong as w:\n"
                 "    f()\n    assert w.args == ('changed by the code',)\n", id="bare-raise-args"),
    # a tests' subclass of the code's class skipped the code's constructor and __str__
    pytest.param("class Retry(Exception):\n    def __init__(self, msg):\n        super().__init__('wrong')\n",
                 "class Later(Retry):\n    pass\nassert str(Later('x')) == 'x'\n", id="subclass-init"),
    pytest.param("class Retry(Exception):\n    def __str__(self):\n        return 'wrong'\n",
                 "class Later(Retry):\n    pass\nassert str(Later('x')) == 'x'\n", id="subclass-str"),
]


@pytest.mark.parametrize("code, tests", _ROUND_39_FORGED)
def test_round_39_no_shared_object_written_and_no_verdict_python_would_not_give(sandbox, code,
                                                                               tests):
    result = sandbox.run(code, tests)
    assert result.passed == 0 and not result.ok, result


_ROUND_39_HONEST = [
    pytest.param("class Account:\n    def __init__(self, balance):\n        self.__balance = balance\n"
                 "        self.__count = 0\n    def add(self, n):\n        self.__balance += n\n"
                 "        self.__count += 1\n        return self.__balance, self.__count\n"
                 "    def drop(self):\n        del self.__count\n"
                 "        return hasattr(self, '_Account__count')\n"
                 "def f():\n    a = Account(10)\n    return [a.add(5), a.drop()]\n",
                 ["f() == [(15, 1), False]"], id="private-names"),
    pytest.param("class O:\n    pass\no = O()\nfor o.i in range(3):\n    pass\nfor o.j in []:\n    pass\n"
                 "class C:\n    for o.v in range(2):\n        pass\n    a, o.w = 1, 2\n"
                 "names = [n for n in dir() if 'sandbox' in n]\ndef f():\n"
                 "    return [names, o.i, o.v, o.w, [k for k in dir(C) if not k.startswith('__')]]\n",
                 ["f() == [[], 2, 1, 2, ['a']]"], id="no-temporary-left"),
    pytest.param("log = []\nclass O:\n    pass\no = O()\ndef ann():\n    log.append('ann')\n    return int\n"
                 "o.x: ann() = 1\ndef g():\n    o.y: ann() = 2\ndef f():\n    g()\n"
                 "    return log + [o.x, o.y]\n",
                 ["f() == ['ann', 1, 2]"], id="annotation-evaluated"),
    pytest.param("import functools\ndef add(a, b):\n    return a + b\ninc = functools.partial(add, 1)\n"
                 "inc.__name__ = 'inc'\nclass P:\n    def _get(self):\n        return 1\n"
                 "    x = property(_get)\n    x.__doc__ = 'the x'\ng = eval('lambda v: v + 1', {})\n"
                 "g.tag = 'ok'\ndef f():\n    return [inc(2), inc.__name__, P().x, g(1), g.tag]\n",
                 ["f() == [3, 'inc', 1, 2, 'ok']"], id="own-objects"),
    pytest.param("import abc, enum\nclass Base(abc.ABC):\n    @abc.abstractmethod\n    def area(self):\n"
                 "        ...\nclass Sq(Base):\n    def area(self):\n        return 4\n"
                 "class Color(int, enum.Enum):\n    def __new__(cls, v, label):\n"
                 "        obj = int.__new__(cls, v)\n        obj._value_ = v\n        obj.label = label\n"
                 "        return obj\n    RED = (1, 'rouge')\ndef f():\n"
                 "    return [Sq().area(), Color.RED.label, int(Color.RED)]\n",
                 ["f() == [4, 'rouge', 1]"], id="abc-and-enum"),
    pytest.param("def f():\n    try:\n        raise\n    except RuntimeError:\n        return 'no active'\n",
                 "try:\n    raise KeyError(1)\nexcept KeyError:\n    assert f() == 'no active'\n"
                 "assert f() == 'no active'\n", id="bare-raise-without-exception"),
    pytest.param("class Retry(Exception):\n    def __init__(self, n):\n"
                 "        super().__init__(f'retry {n}')\n"
                 "        self.n = n\n    def __str__(self):\n        return 'R' + self.args[0]\n"
                 "def run(task):\n    try:\n        task()\n    except Retry as e:\n"
                 "        return e.n, e.args\n",
                 "class Later(Retry):\n    pass\nclass Later2(Retry):\n    def __init__(self, n):\n"
                 "        super().__init__(n * 2)\n        self.extra = 1\ne = Later(3)\n"
                 "assert str(e) == 'Rretry 3' and e.n == 3 and isinstance(e, Retry)\n"
                 "assert Later2(2).n == 4 and Later2(2).extra == 1\ndef task():\n    raise Later(4)\n"
                 "assert run(task) == (4, ('retry 4',))\n", id="tests-subclass-of-the-codes-class"),
]


@pytest.mark.parametrize("code, tests", _ROUND_39_HONEST)
def test_round_39_keeps_what_python_answers(sandbox, code, tests):
    result = sandbox.run(code, tests)
    assert result.ok, result


@pytest.mark.parametrize("code, tests", [
    ('def primes(n):\n    return b"\\x02\\x03\\x05"\n', ["997 in primes(1000)"]),
    ("def f(x):\n    return 300\n", ['f(1) in b"abc"']),
])
def test_round_39_a_comparison_python_refuses_fails_its_test_only(sandbox, code, tests):
    # ValueError from `300 in b"abc"`, judged in the caller, made Sandbox.run raise and threw
    # the worker away (round 39).
    result = sandbox.run(code, tests)
    assert not result.ok and "comparaison impossible" in result.failures[0].reason, result
    assert sandbox.run("def g():\n    return 1\n", ["g() == 1"]).ok


def test_round_39_fork_mode_works_with_descriptors_above_1024():
    # select() refuses descriptors from 1024: a notebook holding many files open failed every
    # run in fork mode (round 39).
    import resource

    from course_utils.sandbox import Sandbox

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 1200:
        pytest.skip("the system allows fewer than 1,200 descriptors")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 1200), hard))
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1050)]
    try:
        with Sandbox(mode="fork") as box:
            assert box.run("def g():\n    return 1\n", ["g() == 1"]).ok
    finally:
        for fd in held:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


@pytest.mark.parametrize("options", [{"timeout": float("inf")}, {"timeout": float("nan")},
                                     {"memory_mb": 1 << 40}])
def test_round_39_unbounded_limits_get_a_french_refusal(sandbox, options):
    result = sandbox.run("def f():\n    return 1\n", ["f() == 1"], **options)
    assert not result.ok and ("timeout" in result.error or "memory_mb" in result.error), result


# Round 40 (b606b69): the originals table dropped an entry on the tests' turn (the code's
# exception died there, its __del__ in the tests' decimal context); the code's __str__, read
# while the tests built its class, saw the tests' handled exception (a bare raise).
@pytest.mark.parametrize("code, tests", [
    pytest.param("import decimal\nclass Retry(Exception):\n    def __del__(self):\n"
                 "        decimal.getcontext().prec = 3\ndef third():\n    return 0.333\n",
                 "class Later(Retry):\n    pass\nerrors = [Later(i) for i in range(200)]\n"
                 "assert len(errors) == 200\nfrom decimal import Decimal\n"
                 "assert third() == float(Decimal(1) / Decimal(3))\n", id="evicted-on-the-tests-turn"),
    pytest.param("import decimal\nclass Retry(Exception):\n    def __str__(self):\n        try:\n"
                 "            raise\n        except RuntimeError:\n            pass\n"
                 "        except BaseException as k:\n            type(k).__str__ = _hook\n"
                 "        return 'retry'\ndef _hook(self):\n    decimal.getcontext().prec = 3\n"
                 "    return 'x'\ndef third():\n    return 0.333\n",
                 "class Wrong(Exception):\n    pass\ntry:\n    raise Wrong('x')\nexcept Wrong as w:\n"
                 "    r = Retry('y')\n    assert str(w) == 'x'\nfrom decimal import Decimal\n"
                 "assert third() == float(Decimal(1) / Decimal(3))\n", id="str-read-while-handling"),
])
def test_round_40_nothing_of_the_code_runs_on_the_tests_turn(sandbox, code, tests):
    result = sandbox.run(code, tests)
    assert result.passed == 0 and not result.ok, result


def test_round_40_many_exceptions_of_both_sides_keep_their_values(sandbox):
    code = ("class Retry(Exception):\n    def __init__(self, n):\n        super().__init__(n)\n"
            "        self.n = n\ndef f(x):\n    if x < 0:\n        raise Retry(x)\n    return x\n")
    tests = ("class Later(Retry):\n    pass\nerrors = [Later(i) for i in range(600)]\n"
             "assert [e.n for e in errors] == list(range(600))\nfor i in range(600):\n    try:\n"
             "        f(-i - 1)\n    except Retry as e:\n        assert e.n == -i - 1\n")
    result = sandbox.run(code, tests)
    assert result.ok, result


# Round 40 (b606b69), shared state: typing's overload registry (the code registered an object
# posing as statistics.mean, which the tests' get_overloads handed back uncopied), dunders set
# on an alias typing's cache shares (List[int].__doc__), a ForwardRef's cached value in such an
# alias, the views' own wrappers (struct.pack), and two rewrite gaps (the read of `a.x += v`,
# 3.13's type parameter defaults) that left x.__init__ and x.format unchecked.
_ROUND_40_FORGED = [
    pytest.param("import typing, statistics\nclass C:\n    def __getattr__(self, name):\n        return 7\n"
                 "class X:\n    __module__ = 'statistics'\n    def __getattr__(self, name):\n"
                 "        if name == '__qualname__':\n            return 'mean'\n"
                 "        if name == '__code__':\n            return C()\n"
                 "        raise AttributeError(name)\n"
                 "typing.overload(X())\n",
                 ["len(typing.get_overloads(statistics.mean)) == 1"], id="overload-registry"),
    pytest.param("import typing\ntyping.List[int].__doc__ = 'FORGED'\n",
                 "import typing\nassert typing.List[int].__doc__ == 'FORGED'\n", id="alias-dunder"),
    pytest.param("import typing\ndef h(x: typing.List['X']):\n    pass\nns = {'X': int}\n"
                 "typing.get_type_hints(h, ns, ns)\n",
                 "import typing\ndef g(x: typing.List['X']):\n    pass\nns = {}\n"
                 "assert repr(typing.get_type_hints(g, ns, ns)['x']) == 'typing.List[int]'\n",
                 id="forward-ref-cache"),
    pytest.param("import struct\nstruct.pack.marker = 99\n",
                 "import struct\nassert struct.pack.marker == 99\n", id="view-wrapper"),
    pytest.param("from fractions import Fraction\nclass Grab:\n    def __radd__(self, other):\n"
                 "        global raw\n        raw = other\n        return 0\ntry:\n"
                 "    Fraction.denominator.__init__ += Grab()\nexcept Exception:\n    pass\n"
                 "raw(lambda a: 1)\ndef f(data):\n    return sum(data) // len(data)\n",
                 "import statistics\nassert f([1, 2]) == statistics.mean([1, 2])\n", id="augmented-read"),
]
if sys.version_info >= (3, 13):
    _ROUND_40_FORGED.append(pytest.param(
        "import typing\nfrom fractions import Fraction\nclass C[A, B = Fraction.denominator.__init__]:\n"
        "    pass\nreinit = typing.get_args(C[int])[1]\nreinit(lambda a: 1)\n"
        "def f(data):\n    return sum(data) // len(data)\n",
        "import statistics\nassert f([1, 2]) == statistics.mean([1, 2])\n", id="type-parameter-default"))


@pytest.mark.parametrize("code, tests", _ROUND_40_FORGED)
def test_round_40_no_state_of_the_tests_changed_and_no_unchecked_attribute(sandbox, code, tests):
    result = sandbox.run(code, tests)
    assert result.passed == 0 and not result.ok, result


@pytest.mark.parametrize("code, tests", [
    pytest.param("import typing\n@typing.overload\ndef g(x: int) -> int: ...\n@typing.overload\n"
                 "def g(x: str) -> str: ...\ndef g(x):\n    return x\n"
                 "def f():\n    return [len(typing.get_overloads(g)), g(3)]\n", ["f() == [2, 3]"],
                 id="overload", marks=pytest.mark.skipif(sys.version_info < (3, 11),
                                                         reason="typing.get_overloads: 3.11")),
    pytest.param("import typing\nclass X:\n    pass\ndef h(x: 'X') -> 'int':\n    pass\n"
                 "ns = {'X': X, 'int': int}\n"
                 "def f():\n    hints = typing.get_type_hints(h, ns, ns)\n"
                 "    return [hints['x'] is X, hints['return'] is int]\n", ["f() == [True, True]"],
                 id="type-hints-in-one-namespace"),
    pytest.param("class C:\n    def __init__(self):\n        self.s = 'a'\n        self.s += 'b'\n"
                 "        self.n = [1]\n        self.n += [2]\ndef f():\n    c = C()\n"
                 "    return [c.s, c.n]\n",
                 ["f() == ['ab', [1, 2]]"], id="augmented-attributes"),
])
def test_round_40_keeps_what_python_answers(sandbox, code, tests):
    result = sandbox.run(code, tests)
    assert result.ok, result


# Round 41 (533a45a): the code's subclass of a tests' exception class with its own __new__
# never met refuse_new, and crossed back as the tests' exact class with the state the code chose;
# typing.overload of a staticmethod was not registered.
def test_round_41_no_exception_of_a_class_derived_from_the_tests_crosses(sandbox):
    code = ("def solve(check):\n    try:\n        check(0)\n    except Exception as e:\n"
            "        S = type(e)\n    class Mine(S):\n        def __new__(cls, *args):\n"
            "            return Exception.__new__(cls)\n"
            "    m = Mine(42)\n    m.ok = True\n    raise m\n")
    tests = ("class Checked(Exception):\n    def __init__(self, value):\n        super().__init__(value)\n"
             "        self.ok = value == 42\ndef check(v):\n    raise Checked(v)\ntry:\n    solve(check)\n"
             "except Checked as c:\n    assert type(c) is Checked and c.ok and c.args == (42,)\n"
             "else:\n    assert False\n")
    result = sandbox.run(code, tests)
    assert result.passed == 0 and not result.ok, result
    assert "dérive d'une classe d'exception des tests" in result.failures[0].reason, result


@pytest.mark.skipif(sys.version_info < (3, 11), reason="typing.get_overloads: 3.11")
def test_round_41_overloads_of_a_staticmethod_are_registered(sandbox):
    code = ("from typing import overload, get_overloads\nclass A:\n    @overload\n    @staticmethod\n"
            "    def f(x: int) -> int: ...\n    @overload\n    @staticmethod\n    def f(x: str) -> str: ...\n"
            "    @staticmethod\n    def f(x):\n        return x\ndef count():\n"
            "    return len(get_overloads(A.f))\n")
    result = sandbox.run(code, ["count() == 2"])
    assert result.ok, result


# Round 41: the rewritten code calls the runner's helpers by name; a namespace the code hands
# over (an eval's, a metaclass's __prepare__, get_type_hints') answered for them, and the
# code's '{}'.format(x) meant what its stand-in chose.
@pytest.mark.parametrize("code", [
    pytest.param("def f(x):\n    return eval(\"'{}'.format(x)\", {'x': x, '__sandbox_format__': "
                 "lambda o, n: lambda *a: 99})\n", id="eval"),
    pytest.param("class NS(dict):\n    def __missing__(self, key):\n        if key == '__sandbox_format__':\n"
                 "            return lambda o, n: lambda *a: 99\n        raise KeyError(key)\n"
                 "class M(type):\n    @classmethod\n    def __prepare__(mcls, name, bases, **kw):\n"
                 "        return NS()\nclass C(metaclass=M):\n    r = '{}'.format(3)\n"
                 "def f(x):\n    return C.r\n", id="prepare"),
    pytest.param("import typing\ndef g(a: \"'{}'.format(3)\"):\n    pass\ndef f(x):\n"
                 "    return typing.get_type_hints(g, localns={'__sandbox_format__': "
                 "lambda o, n: lambda *a: 99})['a']\n", id="type-hints"),
])
def test_round_41_no_namespace_of_the_code_answers_for_the_runners_helpers(sandbox, code):
    result = sandbox.run(code, ["f(3) == 99"])
    assert result.passed == 0 and not result.ok, result


def test_round_41_class_bodies_and_eval_keep_what_python_answers(sandbox):
    code = ("import enum\nclass C:\n    r = '{}!'.format(3)\n    def m(self):\n"
            "        return '{}?'.format(self.r)\n"
            "class M(type):\n    @classmethod\n    def __prepare__(mcls, name, bases, **kw):\n"
            "        return {'seen': []}\nclass P(metaclass=M):\n    x = 1\nclass E(enum.Enum):\n    A = 1\n"
            "    B = '{}'.format(2)\ndef f(x):\n"
            "    return [C().m(), P.x, P.seen, [m.value for m in E],\n"
            "            eval('\"{}-{}\".format(x, y)', {'x': x}, {'y': 2})]\n")
    result = sandbox.run(code, ["f(3) == ['3!?', 1, [], [1, '2'], '3-2']"])
    assert result.ok, result


# Round 42 (656d056): a str-subclass key (or any key hashing and comparing like the name)
# answered for the runner's helpers in eval's and get_type_hints' namespaces; Python 3.13's
# protocols call the ABCMeta.__subclasscheck__ typing kept at import, which left a class of the
# code in a protocol's cache (its metaclass's __eq__ then ran on the tests' turn).
@pytest.mark.parametrize("code", [
    pytest.param("class S(str):\n    pass\ndef f(x):\n    return eval(\"'{}'.format(x)\", "
                 "{'x': x, S('__sandbox_format__'): lambda o, n: lambda *a: 99})\n", id="str-subclass"),
    pytest.param("class K(int):\n    def __hash__(self):\n        return hash('__sandbox_format__')\n"
                 "    def __eq__(self, o):\n        return True\ndef f(x):\n"
                 "    return eval(\"'{}'.format(x)\", {'x': x, K(1): lambda o, n: lambda *a: 99})\n",
                 id="same-hash"),
    pytest.param("import typing\nclass S(str):\n    pass\ndef g(a: \"'{}'.format(3)\"):\n    pass\n"
                 "def f(x):\n    return typing.get_type_hints(g, localns={S('__sandbox_format__'): "
                 "lambda o, n: lambda *a: 99})['a']\n", id="type-hints"),
])
def test_round_42_no_key_answers_for_the_runners_helpers(sandbox, code):
    result = sandbox.run(code, ["f(3) == 99"])
    assert result.passed == 0 and not result.ok, result


def test_round_42_no_class_of_the_code_stays_in_a_protocols_cache(sandbox):
    code = ("import typing, decimal\nclass M(type):\n    def __hash__(cls):\n        return hash(float)\n"
            "    def __eq__(cls, other):\n        if other is float:\n"
            "            decimal.getcontext().prec = 2\n"
            "        return True\nclass K(metaclass=M):\n    def __index__(self):\n        return 0\n"
            "issubclass(K, typing.SupportsIndex)\ndef f(x):\n    return x\n")
    tests = ("import typing, decimal\nassert isinstance(f(2.5), typing.SupportsIndex)\n"
             "assert str(decimal.Decimal(1) / decimal.Decimal(3)) == '0.33'\n")
    result = sandbox.run(code, tests)
    assert result.passed == 0 and not result.ok, result
    honest = sandbox.run("import typing\nclass K:\n    def __index__(self):\n        return 0\n"
                         "def f():\n    return [issubclass(K, typing.SupportsIndex),\n"
                         "            isinstance(K(), typing.SupportsIndex),\n"
                         "            isinstance(2.5, typing.SupportsIndex)]\n",
                         ["f() == [True, True, False]"])
    assert honest.ok, honest


# Round 42, honest programs: a class body lost its docstring to the helpers' global declaration;
# a temporary stayed bound when the rewritten statement raised; eval replaced the __builtins__
# the code gave (a restricted calculator computed max); the tests' stand-in of the code's
# exception lacked its class's plain attributes (status = 404).
@pytest.mark.parametrize("code, tests", [
    pytest.param('class Account:\n    """Compte bancaire."""\n    def __init__(self, balance):\n'
                 '        self.balance = balance\ndef doc():\n    return Account.__doc__\n',
                 ["doc() is None"], id="docstring"),
    pytest.param("def calc(expr):\n    try:\n        return eval(expr, {'__builtins__': {}})\n"
                 "    except NameError:\n        return 'refused'\n", ["calc('max(1, 2)') == 2"],
                 id="eval-builtins"),
])
def test_round_42_forged_by_a_difference_with_python(sandbox, code, tests):
    result = sandbox.run(code, tests)
    assert result.passed == 0 and not result.ok, result


@pytest.mark.parametrize("code, tests", [
    pytest.param('class Account:\n    """Compte bancaire."""\n    def __init__(self, balance):\n'
                 '        self.balance = balance\nimport dataclasses\n@dataclasses.dataclass\nclass P:\n'
                 '    """Un point."""\n    x: int\n    def m(self):\n        self.x += 1\n'
                 'def doc():\n    return [Account.__doc__, P.__doc__]\n',
                 ["doc() == ['Compte bancaire.', 'Un point.']"], id="docstrings"),
    pytest.param("log = []\nclass Res:\n    def __del__(self):\n        log.append('closed')\ndef f():\n"
                 "    r = Res()\n    try:\n        r.uses += 1\n    except AttributeError:\n"
                 "        r.uses = 1\n"
                 "    del r\n    return list(log)\nclass O:\n    pass\no = O()\ntry:\n    o.n += 1\n"
                 "except AttributeError:\n    o.n = 1\nclass S:\n    try:\n        o.m += 1\n"
                 "    except AttributeError:\n        pass\n"
                 "names = [n for n in dir() if n.startswith('__sandbox')]\n"
                 "def g():\n    return [names, [k for k in dir(S) if k.startswith('__sandbox')], o.n]\n",
                 ["f() == ['closed']", "g() == [[], [], 1]"], id="temporaries-after-an-exception"),
    pytest.param("def calc(expr, b):\n    try:\n        return eval(expr, {'__builtins__': b})\n"
                 "    except NameError:\n        return 'refused'\n",
                 ["calc('max(1, 2)', {}) == 'refused'", "calc('abs(-2)', {'abs': abs}) == 2",
                  "calc('\"{}\".format(3)', {}) == '3'"], id="eval-builtins-given"),
    pytest.param("class HttpError(Exception):\n    status = 500\n    retry = False\n"
                 "class NotFound(HttpError):\n    status = 404\ndef fetch(url):\n    raise NotFound(url)\n"
                 "def fetch2(url):\n    e = NotFound(url)\n    e.status = 410\n    raise e\n",
                 "try:\n    fetch('/x')\nexcept HttpError as e:\n"
                 "    assert e.status == 404 and e.retry is False and e.args == ('/x',)\n"
                 "try:\n    fetch2('/y')\nexcept HttpError as e:\n    assert e.status == 410\n",
                 id="exception-class-attributes"),
])
def test_round_42_honest_programs_keep_what_python_answers(sandbox, code, tests):
    result = sandbox.run(code, tests)
    assert result.ok, result


# Round 43 (1882d8d): eval's builtins handed the code the setattr helper, whose trusted sets were
# default arguments the caller could replace (statistics.mean.answer written for the tests); the
# class attributes copied into the tests' stand-ins did not follow Python's lookup (a subclass's
# property, slot or __getattribute__, or an instance value not plain data, let a base's value
# show through).
def test_round_43_the_helpers_take_no_argument_of_the_callers(sandbox):
    code = ("import statistics\ng = {}\neval('1', g)\nb = g['__' + 'builtins__']\n"
            "h = b['__sand' + 'box_setattr__']\nh(42, statistics.mean, 'answer', {'answer'}, set())\n")
    result = sandbox.run(code, "import statistics\nassert statistics.mean.answer == 42\n")
    assert result.passed == 0 and not result.ok, result


@pytest.mark.parametrize("code", [
    pytest.param("class HttpError(Exception):\n    status = 404\nclass NotFound(HttpError):\n    @property\n"
                 "    def status(self):\n        return 500\ndef f():\n    raise NotFound('x')\n"
                 "", id="property"),
    pytest.param("class HttpError(Exception):\n    status = 404\nclass NotFound(HttpError):\n"
                 "    __slots__ = ('status',)\n    def __init__(self, msg):\n        super().__init__(msg)\n"
                 "        self.status = 500\ndef f():\n    raise NotFound('x')\n", id="slot"),
    pytest.param("class HttpError(Exception):\n    status = 404\ndef f():\n    e = HttpError('x')\n"
                 "    e.status = object()\n    raise e\n", id="instance-value"),
    pytest.param("class HttpError(Exception):\n    status = 404\n    def __getattribute__(self, name):\n"
                 "        return 500\ndef f():\n    raise HttpError('x')\n", id="getattribute"),
])
def test_round_43_class_attributes_cross_as_python_reads_them(sandbox, code):
    result = sandbox.run(code, "try:\n    f()\nexcept Exception as e:\n    assert e.status == 404\n"
                               "else:\n    assert False\n")
    assert result.passed == 0 and not result.ok, result


def test_round_43_nested_starred_displays_are_refused_before_parsing(sandbox):
    # CPython's parser takes time quadratic in the nesting of starred displays: 166 lines
    # nested 199 deep held the caller (which parses new code) close to a second (round 43).
    code = "# 0\n" + ("[*" * 199 + "a" + "]" * 199 + "\n") * 166 + "$\n"
    result = sandbox.run(code, ["f(3) == 99"])
    assert not result.ok and "déballages (*) imbriqués" in result.error, result
    honest = sandbox.run("def f(a, b):\n    return [*a, *[*b, *(x * 2 for x in a)], *{**{'k': 1}}]\n" * 30,
                         ["f([1], [2]) == [1, 2, 2, 'k']"])
    assert honest.ok, honest


# Round 44 (ead2abf): what one side changed on its copy of the other's exception was lost when
# it went back (e.args = (...,); raise: the other side saw the old values); class attributes
# copied into the stand-in's instance dictionary hid stdlib fields (errno, args) and beat the
# tests' own subclass; the tests' classes' attributes never reached the code.
_ROUND_44_FORGED = [
    pytest.param("def run(g):\n    try:\n        g()\n    except ValueError as e:\n        e.args = (99,)\n"
                 "        e.extra = 'x'\n        raise\n",
                 "def bad():\n    raise ValueError(1)\ntry:\n    run(bad)\nexcept ValueError as e:\n"
                 "    assert e.args == (1,)\n    assert not hasattr(e, 'extra')\nelse:\n    assert False\n",
                 id="code-changes-lost"),
    pytest.param("def f():\n    raise ValueError(1)\ndef run(g):\n    try:\n        g()\n"
                 "    except ValueError as e:\n        return e.args\n",
                 "try:\n    f()\nexcept ValueError as e:\n    saved = e\nsaved.args = (99,)\ndef g():\n"
                 "    raise saved\nassert run(g) == (1,)\n", id="tests-changes-lost"),
    pytest.param("class E(OSError):\n    errno = 5\ndef f():\n    raise E(2, 'x')\n",
                 "try:\n    f()\nexcept OSError as e:\n    assert e.errno == 2\nelse:\n    assert False\n",
                 id="class-errno"),
    pytest.param("class E(Exception):\n    args = ('forged',)\ndef f():\n    raise E('real')\n",
                 "try:\n    f()\nexcept Exception as e:\n    assert e.args == ('real',)\nelse:\n"
                 "    assert False\n",
                 id="class-args"),
    pytest.param("class Retry(Exception):\n    status = 500\n",
                 "class Later(Retry):\n    status = 1\nassert Later().status == 500\n", id="tests-subclass"),
    pytest.param("class HttpError(Exception):\n    status = 404\ndef f():\n    e = HttpError('x')\n"
                 "    e.status = object()\n    raise e\n",
                 "try:\n    f()\nexcept Exception as e:\n    assert e.status == 404\nelse:\n"
                 "    assert False\n",
                 id="instance-value-not-plain"),
]


@pytest.mark.parametrize("code, tests", _ROUND_44_FORGED)
def test_round_44_exceptions_hold_what_python_gives(sandbox, code, tests):
    result = sandbox.run(code, tests)
    assert result.passed == 0 and not result.ok, result


@pytest.mark.parametrize("code, tests", [
    pytest.param("def run(g, i):\n    try:\n        g()\n    except ValueError as e:\n"
                 "        e.args = (f'item {i}: {e.args[0]}',)\n        raise\n",
                 "def bad():\n    raise ValueError('boom')\ntry:\n    run(bad, 3)\nexcept ValueError as e:\n"
                 "    assert str(e) == 'item 3: boom'\nelse:\n    assert False\n", id="context-added"),
    pytest.param("def run(g):\n    try:\n        g()\n    except KeyError:\n        raise\n",
                 "class Obj:\n    pass\no = Obj()\ndef bad():\n    raise KeyError(o)\ntry:\n    run(bad)\n"
                 "except KeyError as e:\n    assert e.args[0] is o\nelse:\n    assert False\n",
                 id="unchanged-stays-identical"),
    pytest.param("def status_of(g):\n    try:\n        g()\n    except Exception as e:\n"
                 "        return e.status\n",
                 "class HttpError(Exception):\n    status = 500\ndef bad():\n    raise HttpError('x')\n"
                 "assert status_of(bad) == 500\n", id="tests-class-attribute"),
])
def test_round_44_exception_idioms_keep_what_python_answers(sandbox, code, tests):
    result = sandbox.run(code, tests)
    assert result.ok, result


def test_round_45_what_a_change_replaces_does_not_die_on_the_other_turn(sandbox):
    # Writing back the code's change to the tests' exception replaced the tests' values on the
    # code's turn: their finalisers ran there, in the code's decimal context (round 45).
    code = ("import decimal\ndef f(cb):\n    decimal.getcontext().prec = 3\n    try:\n        cb()\n"
            "    except ValueError as e:\n        e.payload = 1\n        e.args = ('changed',)\n"
            "        raise\n")
    tests = ("import decimal\nlog = []\nclass Res:\n    def __del__(self):\n"
             "        log.append(decimal.getcontext().prec)\ndef cb():\n    e = ValueError(Res())\n"
             "    e.payload = Res()\n    raise e\ntry:\n    f(cb)\nexcept ValueError as e:\n"
             "    assert e.args == ('changed',) and e.payload == 1\nassert log == [], log\n")
    result = sandbox.run(code, tests)
    assert result.ok, result
