"""Turns the API's JSON into the package's dataclasses, by their type hints.

Field names are the JSON names in snake_case (``textSourceId`` is ``text_source_id``); a field may
name its JSON key itself with ``metadata={"json": "..."}``. Keys a dataclass does not declare are
ignored: within v1 the API only adds fields (docs/api.md, "Versioning"), and an older client must
keep working. A declared field without a default that the answer lacks is an error.
"""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from functools import cache
from typing import Any, TypeVar, Union, cast, get_args, get_origin

T = TypeVar("T")

_UPPER = re.compile(r"_([a-z0-9])")


def json_name(f: dataclasses.Field[Any]) -> str:
    """The JSON key a dataclass field reads: its ``json`` metadata, else its name in camelCase."""
    named = f.metadata.get("json")
    return named if isinstance(named, str) else _UPPER.sub(lambda m: m.group(1).upper(), f.name)


def as_object(value: object) -> dict[str, Any] | None:
    """A parsed JSON object as a dict with string keys (what JSON objects have), else None."""
    return cast("dict[str, Any]", value) if isinstance(value, dict) else None


def as_array(value: object) -> list[Any] | None:
    return cast("list[Any]", value) if isinstance(value, list) else None


class DecodeError(ValueError):
    """An answer that does not have the shape its dataclass declares."""


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def decode(cls: type[T], value: Any, where: str = "") -> T:
    """``value`` (parsed JSON) as an instance of the dataclass ``cls``."""
    result: T = _decode(cls, value, where or cls.__name__)
    return result


def _decode(hint: Any, value: Any, where: str) -> Any:
    if hint is Any or hint is object:
        return value
    origin = get_origin(hint)
    if origin in (Union, types.UnionType):
        options = get_args(hint)
        if value is None:
            if type(None) in options:
                return None
            raise DecodeError(f"{where}: null where a value is required")
        rest = [o for o in options if o is not type(None)]
        errors: list[str] = []
        for option in rest:
            try:
                return _decode(option, value, where)
            except DecodeError as err:
                errors.append(str(err))
        raise DecodeError("; ".join(errors))
    if origin is typing.Literal:
        # Literal types document the values known today; a newer server may send a new one.
        if not isinstance(value, (str, int, bool)):
            raise DecodeError(f"{where}: expected one of {get_args(hint)}, got {type(value).__name__}")
        return value
    if origin is list:
        items = as_array(value)
        if items is None:
            raise DecodeError(f"{where}: expected an array, got {type(value).__name__}")
        (item,) = get_args(hint)
        return [_decode(item, v, f"{where}[{i}]") for i, v in enumerate(items)]
    if origin is tuple:
        parts = as_array(value)
        if parts is None:
            raise DecodeError(f"{where}: expected an array, got {type(value).__name__}")
        args = get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_decode(args[0], v, f"{where}[{i}]") for i, v in enumerate(parts))
        if len(args) != len(parts):
            raise DecodeError(f"{where}: expected {len(args)} items, got {len(parts)}")
        return tuple(_decode(a, v, f"{where}[{i}]") for i, (a, v) in enumerate(zip(args, parts, strict=True)))
    if origin is dict:
        entries = as_object(value)
        if entries is None:
            raise DecodeError(f"{where}: expected an object, got {type(value).__name__}")
        _, item = get_args(hint)
        return {k: _decode(item, v, f"{where}.{k}") for k, v in entries.items()}
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _decode_dataclass(hint, value, where)
    if hint is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        raise DecodeError(f"{where}: expected a number, got {type(value).__name__}")
    if hint is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise DecodeError(f"{where}: expected an integer, got {type(value).__name__}")
    if hint in (str, bool):
        if type(value) is hint:
            return value
        raise DecodeError(f"{where}: expected {hint.__name__}, got {type(value).__name__}")
    raise TypeError(f"{where}: no decoder for {hint!r}")


def _decode_dataclass(cls: type, value: Any, where: str) -> Any:
    source = as_object(value)
    if source is None:
        raise DecodeError(f"{where}: expected an object, got {type(value).__name__}")
    hints = _hints(cls)
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if not f.init or f.metadata.get("envelope"):
            continue
        key = json_name(f)
        if key in source:
            kwargs[f.name] = _decode(hints[f.name], source[key], f"{where}.{key}")
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise DecodeError(f"{where}: {key} is missing")
    return cls(**kwargs)
