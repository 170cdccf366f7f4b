"""What a Python program's command-line declaration may refer to: its module-level literal
constants and Enum values, read with ``ast`` (nothing is run)."""

from __future__ import annotations

import ast
from typing import Any


class Names:
    """Module-level literal constants and Enum values a CLI declaration may refer to."""

    def __init__(self, module: ast.Module) -> None:
        self.consts: dict[str, Any] = {}
        self.enums: dict[str, list[Any]] = {}
        self.docstring = ast.get_docstring(module) or ""
        for node in module.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                self._const(node.targets[0], node.value)
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                self._const(node.target, node.value)
            elif isinstance(node, ast.ClassDef) and any(
                "Enum" in ast.unparse(base) for base in node.bases
            ):
                self.enums[node.name] = self._enum_values(node)

    def _const(self, target: ast.expr, value: ast.expr) -> None:
        if not isinstance(target, ast.Name):
            return
        if isinstance(value, ast.Dict) and all(isinstance(k, ast.Constant) for k in value.keys):
            self.consts[target.id] = [k.value for k in value.keys if isinstance(k, ast.Constant)]
            return
        try:
            self.consts[target.id] = ast.literal_eval(value)
        except (ValueError, SyntaxError, TypeError):
            pass

    @staticmethod
    def _enum_values(node: ast.ClassDef) -> list[Any]:
        values = []
        for item in node.body:
            if isinstance(item, ast.Assign) and isinstance(item.value, ast.Constant):
                values.append(item.value.value)
        return values

    def value(self, node: ast.expr | None) -> Any:
        """A literal value, or None when it cannot be known without running the code."""
        if node is None:
            return None
        try:
            return plain(ast.literal_eval(node))
        except (ValueError, SyntaxError, TypeError):
            pass
        if isinstance(node, ast.Name):
            if node.id == "__doc__":
                return self.docstring
            if node.id in self.enums:
                return list(self.enums[node.id])
            return plain(self.consts.get(node.id))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args:
            if node.func.id in ("sorted", "list", "tuple", "set"):
                inner = self.value(node.args[0])
                if isinstance(inner, list):
                    return sorted(inner, key=str) if node.func.id == "sorted" else inner
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr == "keys":
                return self.value(node.func.value)
        if isinstance(node, ast.ListComp) and node.generators:
            return self.value(node.generators[0].iter)
        if isinstance(node, ast.JoinedStr):
            parts = [v.value for v in node.values if isinstance(v, ast.Constant)]
            return "".join(str(p) for p in parts)
        return None


def plain(value: Any) -> Any:
    """Tuples and sets become lists so the value is JSON-safe."""
    if isinstance(value, tuple | list):
        return [plain(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted((plain(v) for v in value), key=str)
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return None
