"""The type stubs match the native module: the same names, classes, methods and parameters."""

import ast
import inspect
from pathlib import Path

import manifold_dp
from manifold_dp import _native

STUB = Path(manifold_dp.__file__).with_name("_native.pyi")


def stub_tree():
    return ast.parse(STUB.read_text())


def params(node):
    a = node.args
    return [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs if p.arg != "self"]


def test_stub_and_py_typed_are_installed():
    assert STUB.exists() and STUB.with_name("py.typed").exists()


def test_every_name_matches():
    tree = stub_tree()
    stubbed = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    stubbed |= {n.target.id for n in tree.body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}
    public = {n for n in dir(_native) if not n.startswith("_")}
    # Dunders: the module's own (__doc__, __name__, …) are not stubbed; __version__ is, and must exist.
    assert {n for n in stubbed if n.startswith("_")} == {"__version__"} and hasattr(_native, "__version__")
    assert {n for n in stubbed if not n.startswith("_")} == public


def test_every_signature_matches():
    for node in stub_tree().body:
        if isinstance(node, ast.FunctionDef):
            assert params(node) == list(inspect.signature(getattr(_native, node.name)).parameters), node.name
        if isinstance(node, ast.ClassDef) and node.name not in ("BudgetRefused", "DrawUnrepresentable"):
            cls = getattr(_native, node.name)
            for item in node.body:
                if not isinstance(item, ast.FunctionDef):
                    continue
                if item.name == "__init__":
                    assert params(item) == list(inspect.signature(cls).parameters), node.name
                elif any(isinstance(d, ast.Name) and d.id == "property" for d in item.decorator_list):
                    getter = type(inspect.getattr_static(_native.Mechanism, "space"))  # a native read-only property
                    assert isinstance(inspect.getattr_static(cls, item.name), getter), f"{node.name}.{item.name}"
                else:
                    got = list(inspect.signature(getattr(cls, item.name)).parameters)
                    assert params(item) == [p for p in got if p != "self"], f"{node.name}.{item.name}"
            methods = {n for n in dir(cls) if not n.startswith("_")}
            stubbed = {i.name for i in node.body if isinstance(i, ast.FunctionDef) and not i.name.startswith("_")}
            assert methods == stubbed, node.name


def test_the_version_is_the_workspace_crates():
    """One version, written in the workspace Cargo.toml: the package, its metadata and the native module agree."""
    import importlib.metadata
    import pathlib
    import re

    import manifold_dp

    cargo = pathlib.Path(__file__).resolve().parents[2] / "Cargo.toml"
    declared = re.search(r'^version = "([^"]+)"', cargo.read_text(), re.M)
    assert declared is not None
    assert manifold_dp.__version__ == declared.group(1) == importlib.metadata.version("manifold-dp")
