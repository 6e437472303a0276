"""The Python API reference (docs/reference/python-api.md), generated from
the built `croqjit` package (BUILD/python): each public name's docstring as
the module gives it, with the signatures of the type stubs
(python/croqjit/_croqjit.pyi) where the extension's own are opaque. The
package's pure-Python submodules (croqjit.torch, ...) are read from their
source with `ast`, so their optional imports (torch) are not needed."""

from __future__ import annotations

import ast
import importlib
import inspect
import sys

from docblocks import REPO, build_dir

PACKAGE = REPO / "python" / "croqjit"


def _stubs() -> dict[str, ast.AST]:
    """Top-level definitions of the .pyi by name."""
    tree = ast.parse((PACKAGE / "_croqjit.pyi").read_text(encoding="utf-8"))
    out = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            out[node.name] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out[node.target.id] = node
    return out


def _def_text(node: ast.AST, owner: str = "") -> str:
    """A stub definition as one signature line."""
    if isinstance(node, ast.FunctionDef):
        prefix = f"{owner}." if owner else ""
        returns = f" -> {ast.unparse(node.returns)}" if node.returns else ""
        return f"{prefix}{node.name}({ast.unparse(node.args)}){returns}"
    if isinstance(node, ast.AnnAssign):
        return f"{owner + '.' if owner else ''}{ast.unparse(node.target)}: {ast.unparse(node.annotation)}"
    raise TypeError(node)


def _doc(obj) -> str:
    doc = inspect.getdoc(obj) or ""
    # nanobind puts the signature first ("compile(source: str, ...) -> Kernel\n\n...").
    name = getattr(obj, "__name__", "")
    lines = doc.splitlines()
    if lines and name and lines[0].startswith(name + "("):
        doc = "\n".join(lines[1:]).strip()
    return doc


def _fenced(lines: list[str]) -> str:
    return "```python\n" + "\n".join(lines) + "\n```\n"


def _members(cls_node: ast.ClassDef, runtime_cls, owner: str) -> list[str]:
    out = []
    for node in cls_node.body:
        if isinstance(node, ast.FunctionDef):
            is_property = any(isinstance(d, ast.Name) and d.id == "property" for d in node.decorator_list)
            if is_property:
                text = f"{owner}.{node.name}: {ast.unparse(node.returns) if node.returns else 'Any'}"
            else:
                text = _def_text(node, owner)
        elif isinstance(node, ast.AnnAssign):
            text = _def_text(node, owner)
            node_name = ast.unparse(node.target)
        else:
            continue
        name = node.name if isinstance(node, ast.FunctionDef) else node_name
        member = getattr(runtime_cls, name, None)
        doc = _doc(member) if member is not None and not isinstance(member, (int, str, float)) else ""
        if doc and (doc == _doc(type(member)) or doc.startswith("(self")):
            doc = ""  # a property's own docstring, or nanobind's bare signature: nothing to say
        out.append(f"- `{text}`" + (f": {doc}" if doc else ""))
    return out


def _package_section(croqjit) -> list[str]:
    stubs = _stubs()
    out = [f"## `croqjit` {{ #croqjit }}\n", inspect.getdoc(croqjit) + "\n"]
    names = list(getattr(croqjit, "__all__", []))
    functions = [n for n in names if callable(getattr(croqjit, n)) and not inspect.isclass(getattr(croqjit, n))]
    errors = [n for n in names if inspect.isclass(getattr(croqjit, n)) and issubclass(getattr(croqjit, n), BaseException)]
    classes = [n for n in names if inspect.isclass(getattr(croqjit, n)) and n not in errors]
    constants = [n for n in names if n not in functions + errors + classes]
    for title, group in (("Functions", functions), ("Classes", classes), ("Errors", errors), ("Constants", constants)):
        if not group:
            continue
        out.append(f"### {title}\n")
        for name in group:
            obj = getattr(croqjit, name)
            out.append(f"#### `croqjit.{name}` {{ #croqjit-{name.strip('_').replace('_', '-').lower()} }}\n")
            stub = stubs.get(name)
            if isinstance(stub, ast.FunctionDef):
                out.append(_fenced([_def_text(stub, "croqjit")]))
            elif inspect.isfunction(obj):
                out.append(_fenced([f"croqjit.{name}{inspect.signature(obj)}"]))
            elif isinstance(stub, ast.AnnAssign):
                out.append(_fenced([_def_text(stub, "croqjit")]))
            elif title == "Constants":
                out.append(_fenced([f"croqjit.{name}: {type(obj).__name__}"]))
            if title == "Constants":
                continue
            doc = _doc(obj)
            if inspect.isclass(obj):
                bases = [b.__name__ for b in obj.__bases__ if b.__module__.startswith("croqjit")]
                if bases:
                    out.append(f"Derives from `croqjit.{bases[0]}`.\n")
            if doc:
                out.append(doc + "\n")
            if isinstance(stub, ast.ClassDef):
                members = _members(stub, obj, name)
                if members:
                    out.append("\n".join(members) + "\n")
    return out


def _submodule_section(path) -> list[str]:
    """A pure-Python submodule (croqjit.torch): its docstring and the
    functions of its __all__, read from the source."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    module = f"croqjit.{path.stem}"
    public = None
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            public = ast.literal_eval(node.value)
    out = [f"## `{module}` {{ #croqjit-{path.stem} }}\n", (ast.get_docstring(tree) or "") + "\n"]
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and (public is None and not node.name.startswith("_")
                                                                  or public is not None and node.name in public):
            out.append(f"#### `{module}.{node.name}` {{ #{path.stem}-{node.name.replace('_', '-').lower()} }}\n")
            if isinstance(node, ast.FunctionDef):
                out.append(_fenced([_def_text(node, module)]))
            doc = ast.get_docstring(node)
            if doc:
                out.append(doc + "\n")
    return out


def load_croqjit():
    path = build_dir() / "python"
    if not (path / "croqjit").is_dir():
        raise FileNotFoundError(f"{path / 'croqjit'} is not built (ninja -C {build_dir()} _croqjit)")
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))
    return importlib.import_module("croqjit")


def markdown() -> str:
    out = _package_section(load_croqjit())
    for path in sorted(PACKAGE.glob("*.py")):
        if path.name != "__init__.py" and not path.name.startswith("_"):
            out += _submodule_section(path)
    return "\n".join(out)


if __name__ == "__main__":
    print(markdown())
