"""Shared options: defaults from the config types, values checked at parse time."""

from __future__ import annotations

import argparse

import pytest

from hookd.bounds import COUNT, SECONDS
from hookd.cli.options import positive_int, positive_seconds, serve_parser
from hookd.core.registry import DEFAULT_TIMEOUT_S
from hookd.serve.config import ServeConfig


def test_serve_defaults_come_from_the_config_types() -> None:
    args = serve_parser().parse_args(["hooks.py"])
    defaults = ServeConfig()
    assert args.hooks == "hooks.py" and args.settings == []
    assert args.timeout == DEFAULT_TIMEOUT_S
    assert (args.max_line_bytes, args.max_in_flight, args.max_in_flight_bytes) == (
        defaults.max_line_bytes,
        defaults.max_in_flight,
        defaults.max_in_flight_bytes,
    )
    assert args.validate is defaults.validate


@pytest.mark.parametrize(
    ("convert", "text", "message"),
    [
        (positive_seconds, "abc", f"must be {SECONDS.describe()}, not 'abc'"),
        (positive_seconds, "0", f"must be {SECONDS.describe()}, not '0'"),
        (positive_seconds, "inf", f"must be {SECONDS.describe()}, not 'inf'"),
        (positive_seconds, "1e9", f"must be {SECONDS.describe()}, not '1e9'"),
        (positive_int, "1.5", f"must be {COUNT.describe()}, not '1.5'"),
        (positive_int, "0", f"must be {COUNT.describe()}, not '0'"),
    ],
)
def test_bad_values_are_refused_with_a_reason(convert: object, text: str, message: str) -> None:
    assert callable(convert)
    with pytest.raises(argparse.ArgumentTypeError, match=message.replace("(", r"\(")):
        convert(text)


def test_good_values_pass() -> None:
    assert positive_seconds("2.5") == 2.5
    assert positive_int("3") == 3
