"""examples/python/*.py run as a user runs them (each draws its figure into
a file), and every public name of the package documents itself."""
import glob
import inspect
import os
import re
import subprocess
import sys

import pytest

import proxima
from conftest import SRC

EXAMPLES = sorted(glob.glob(os.path.join(SRC, "examples", "python", "*.py")))
PNG = b"\x89PNG\r\n\x1a\n"


def test_there_are_examples():
    assert len(EXAMPLES) >= 2


@pytest.mark.parametrize("path", EXAMPLES, ids=os.path.basename)
def test_example_runs(path, tmp_path):
    pytest.importorskip("matplotlib", reason="no matplotlib (Debian: "
                        "python3-matplotlib)")
    out = tmp_path / "figure.png"
    p = subprocess.run([sys.executable, path, "--out", str(out)],
                       capture_output=True, text=True, timeout=300,
                       cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout.rstrip().endswith(f"wrote {out}")
    assert out.read_bytes().startswith(PNG)


def public_names():
    for name in proxima.__all__:
        obj = getattr(proxima, name)
        if isinstance(obj, (str, tuple, int, float)):
            continue  # a constant, documented by a #: comment
        yield name, obj
        if inspect.isclass(obj) and not issubclass(obj, BaseException):
            # its methods and properties (the data attributes of a
            # __slots__ class are documented in the class's docstring)
            for attr, member in vars(obj).items():
                if not attr.startswith("_") and isinstance(
                        member, (property, classmethod, staticmethod)) or \
                        inspect.isfunction(member) and \
                        not attr.startswith("_"):
                    yield f"{name}.{attr}", member


@pytest.mark.parametrize("name,obj", list(public_names()),
                         ids=[n for n, _ in public_names()])
def test_public_name_has_a_docstring(name, obj):
    if isinstance(obj, (classmethod, staticmethod)):
        obj = obj.__func__
    doc = inspect.getdoc(obj)
    assert doc and len(doc.split()) >= 3, f"{name}: no docstring"


def python_blocks(text):
    """The fenced python blocks of Markdown text."""
    return re.findall(r"```python\n(.*?)```", text, re.S)


def test_the_manual_shows_each_example_as_it_is():
    """doc/python.md's worked example is the examples' text, word for
    word, and its first example the README's (the tour's one Python
    block)."""
    manual = python_blocks(open(os.path.join(SRC, "doc", "python.md")).read())
    for path in EXAMPLES:
        assert open(path).read() in manual, \
            f"doc/python.md does not show {os.path.basename(path)} as it is"
    readme = open(os.path.join(SRC, "README.md")).read()
    assert manual[0] == python_blocks(readme)[0]
