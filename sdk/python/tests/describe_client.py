"""Prints the client's contract as JSON: its operation table and every model's fields.

Read by test/node/python-client-openapi.test.ts, which compares both with the OpenAPI document the
Worker serves. Run with ``PYTHONPATH=src python3 tests/describe_client.py``.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import sys
import types
import typing
from typing import Any, Literal, Union, get_args, get_origin

import media_jobs.models as models
from media_jobs import OPERATIONS
from media_jobs._decode import json_name

_KINDS: dict[Any, str] = {
    bytes: "binary",
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    type(None): "null",
}


def kinds(hint: Any) -> list[str]:
    """The JSON types a value of this hint may have."""
    origin = get_origin(hint)
    if hint is Any:
        return ["any"]
    if origin in (Union, types.UnionType):
        return sorted({k for option in get_args(hint) for k in kinds(option)})
    if origin is Literal:
        return sorted({_KINDS[type(v)] for v in get_args(hint)})
    if origin in (list, tuple):
        return ["array"]
    if origin is dict or (isinstance(hint, type) and dataclasses.is_dataclass(hint)):
        return ["object"]
    return [_KINDS[hint]]


def literals(hint: Any) -> list[Any] | None:
    origin = get_origin(hint)
    if origin is Literal:
        return list(get_args(hint))
    if origin in (Union, types.UnionType):
        found = [v for option in get_args(hint) for v in literals(option) or []]
        return found or None
    return None


def describe(cls: type) -> list[dict[str, Any]]:
    hints = typing.get_type_hints(cls)
    return [
        {
            "name": f.name,
            "json": json_name(f),
            "kinds": kinds(hints[f.name]),
            "enum": literals(hints[f.name]),
            "hasDefault": f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING,
            "fromEnvelope": bool(f.metadata.get("envelope")),
        }
        for f in dataclasses.fields(cls)
    ]


def main() -> None:
    classes = {
        name: cls
        for name, cls in inspect.getmembers(models, inspect.isclass)
        if dataclasses.is_dataclass(cls) and cls.__module__ == models.__name__
    }
    out = {
        "operations": {op_id: dataclasses.asdict(op) for op_id, op in OPERATIONS.items()},
        "models": {name: describe(cls) for name, cls in classes.items()},
    }
    json.dump(out, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
