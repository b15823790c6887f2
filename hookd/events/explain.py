"""The slow path of validation: saying precisely what is wrong with an input or output.

Only when msgspec's typed conversion fails is jsonschema loaded and the
event's schema compiled (once per event, cached); its first error becomes one
line, the JSON path and the rule broken.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, NamedTuple, cast

import msgspec

from hookd.events import EventSpec
from hookd.json_words import json_type, msgspec_problem

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator, ValidationError

__all__ = ["ASYNC", "Where", "explain", "output_hints", "show"]


class Where(NamedTuple):
    """How to name paths in messages, and hints for unknown top-level fields."""

    root: str
    hints: Mapping[str, str] = {}
    other_hint: str | None = None


ASYNC: Final = Where("output", other_hint="an async output takes only async and asyncTimeout")


def output_hints(spec: EventSpec) -> dict[str, str]:
    """Top-level fields that are misplaced rather than unknown."""
    if spec.hook_specific_type is None:
        return {"hookSpecificOutput": f"{spec.name} takes no hookSpecificOutput"}
    fields = msgspec.structs.fields(spec.hook_specific_type)
    return {f.encode_name: "it belongs in hookSpecificOutput" for f in fields}


def explain(
    schema_name: str, branch: str | None, instance: Any, exc: Exception, where: Where
) -> str:
    """The first problem jsonschema finds, else msgspec's own message."""
    errors = list(_validator(schema_name, branch).iter_errors(instance))
    if errors:
        return _describe(_first(errors), where)
    return _from_msgspec(str(exc), where.root)


@functools.cache
def _validator(schema_name: str, branch: str | None) -> Draft202012Validator:
    """The compiled validator of a schema, or of one of its ``$defs`` (``branch``)."""
    from jsonschema import Draft202012Validator

    from hookd.events.event_schemas import event_schema

    schema = event_schema(schema_name)
    if branch is not None:
        schema = {"$ref": f"#/$defs/{branch}", "$defs": schema["$defs"]}
    return Draft202012Validator(schema)


#: At the same depth, an unknown field is reported before the rest.
_PRIORITY: Final = {"additionalProperties": 0}


def _first(errors: Iterable[ValidationError]) -> ValidationError:
    return min(errors, key=lambda e: (len(e.absolute_path), _PRIORITY.get(str(e.validator), 1)))


def _describe(error: ValidationError, where: Where) -> str:
    """``path: rule broken`` for one jsonschema error."""
    at = _path(error.absolute_path, where.root)
    value = _instance(error)
    match error.validator:
        case "additionalProperties":
            hints = Where(where.root) if error.absolute_path else where
            return f"{at}: {_unknown(value, _schema_of(error), hints)}"
        case "required":
            missing = next(k for k in _rule(error) if k not in value)
            return f"{_path([*error.absolute_path, missing], where.root)}: required field missing"
        case "enum":
            return f"{at}: {_not_one_of(value, _rule(error))}"
        case "type":
            return f"{at}: expected {_either(_rule(error))}, got {json_type(value)}"
        case "minimum":
            return f"{at}: {show(value)} is less than the minimum of {_rule(error)}"
        case "anyOf" | "oneOf":
            return _describe_union(error, where)
        case _:
            return f"{at}: {error.message}"


def _not_one_of(value: Any, allowed: Sequence[Any]) -> str:
    if len(allowed) == 1:
        return f"{show(value)} is not {show(allowed[0], bare=True)}"
    return f"{show(value)} is not one of {', '.join(show(v, bare=True) for v in allowed)}"


def _describe_union(error: ValidationError, where: Where) -> str:
    """An ``anyOf``: the types it takes, the tag values it takes, or the branch meant."""
    by_branch: dict[Any, list[ValidationError]] = {}
    for sub in error.context or ():
        by_branch.setdefault(sub.relative_schema_path[0], []).append(sub)
    groups = list(by_branch.values())
    at = _path(error.absolute_path, where.root)
    if all(_is_type_miss(e) for g in groups for e in g):
        expected = [t for g in groups for e in g for t in _as_list(_rule(e))]
        return f"{at}: expected {_either(expected)}, got {json_type(_instance(error))}"
    groups = [g for g in groups if not any(map(_is_type_miss, g))] or groups
    tags = [next(filter(_is_tag_miss, g), None) for g in groups]
    found = [t for t in tags if t is not None]
    if len(groups) > 1 and len(found) == len(groups):
        key = found[0].relative_path[0]
        allowed = [_rule(t)[0] for t in found]
        tag_at = _path([*error.absolute_path, key], where.root)
        return f"{tag_at}: {_not_one_of(_instance(error)[key], allowed)}"
    meant = [g for g, tag in zip(groups, tags, strict=True) if tag is None] or groups
    missing = set.intersection(*map(_missing, meant)) if len(meant) > 1 else set()
    if missing:
        key = min(missing)
        return f"{_path([*error.absolute_path, key], where.root)}: required field missing"
    return _describe(_first(meant[0]), where)


def _rule(error: ValidationError) -> Any:
    """The broken keyword's value (``validator_value``), untyped as in JSON."""
    return cast(Any, error.validator_value)


def _instance(error: ValidationError) -> Any:
    return cast(Any, error.instance)


def _schema_of(error: ValidationError) -> dict[str, Any]:
    return cast(dict[str, Any], error.schema)


def _is_type_miss(error: ValidationError) -> bool:
    return error.validator == "type" and not error.relative_path


def _is_tag_miss(error: ValidationError) -> bool:
    """A tagged-union branch that does not carry this tag value."""
    single = error.validator == "enum" and len(_rule(error)) == 1
    return single and len(error.relative_path) == 1


def _missing(group: list[ValidationError]) -> set[str]:
    """Fields that a branch requires and the instance lacks."""
    return {
        key
        for e in group
        if e.validator == "required" and not e.relative_path
        for key in _rule(e)
        if key not in _instance(e)
    }


def _unknown(instance: dict[str, Any], schema: dict[str, Any], hints: Where) -> str:
    """``unknown field 'x' (did you mean 'y'?)`` for the fields the schema does not take."""
    import difflib

    known = list(schema.get("properties", {}))
    parts, unhinted = [], False
    for key in (k for k in instance if k not in known):
        close = difflib.get_close_matches(str(key), known, n=1, cutoff=0.6)
        hint = f"did you mean {close[0]!r}?" if close else hints.hints.get(key, hints.other_hint)
        parts.append(f"{show(key)} ({hint})" if hint else show(key))
        unhinted = unhinted or not hint
    noun = "unknown field" if len(parts) == 1 else "unknown fields"
    allowed = f"; allowed: {', '.join(known)}" if unhinted and known else ""
    return f"{noun} {', '.join(parts)}{allowed}"


def _from_msgspec(message: str, root: str) -> str:
    """msgspec's ``Expected `str`, got `int` - at `$.a.b``` as ``a.b: ...``.

    Used when jsonschema finds nothing wrong: only for values JSON cannot
    hold, such as a dict key that is not a string.
    """
    problem = msgspec_problem(message)
    path = problem.path.lstrip(".")
    where = f"input{'.' if path else ''}{path}" if root == "input" else path or root
    return f"{where}: {problem.what}{' (a key)' if problem.key else ''}"


def _path(parts: Sequence[Any], root: str) -> str:
    """``hookSpecificOutput.decision.updatedPermissions[0]``; inputs start with ``input``."""
    text = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in parts)
    if root == "input":
        return root + text
    return text.lstrip(".") or root


def _either(types: Any) -> str:
    names = list(dict.fromkeys(_as_list(types)))
    if "number" in names and "integer" in names:
        names.remove("integer")
    return " or ".join(names)


def _as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list | tuple) else [value]


def show(value: Any, *, bare: bool = False) -> str:
    """A value in a message: strings quoted (bare: unquoted), the rest as JSON."""
    if isinstance(value, str):
        text = value if bare else repr(value)
    else:
        text = json.dumps(value, default=repr)
    return text if len(text) <= 80 else text[:77] + "..."
