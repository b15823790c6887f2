"""The registry and the hooks-module loader."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

import hookd
from hookd.core import api
from hookd.core.loader import load_hooks
from hookd.core.registry import HookMatcher, RegistrationError, Registry, detect_runner

HERE = Path(__file__).resolve().parents[1]


async def cb_a(i: Any, t: Any, c: Any) -> None: ...
async def cb_b(i: Any, t: Any, c: Any) -> None: ...
def cb_sync(i: Any, t: Any, c: Any) -> None: ...


@pytest.mark.req("R-020", "R-021", "R-022")
def test_ids_follow_event_then_matcher_then_callback() -> None:
    reg = Registry()
    reg.add_hooks(
        {
            "PreToolUse": [
                HookMatcher(matcher="Bash", hooks=[cb_a, cb_b], timeout=10),
                HookMatcher(hooks=[cb_sync]),
            ],
            "Stop": [HookMatcher(hooks=[cb_a])],
        }
    )
    assert [r.callback_id for r in reg.registrations()] == ["hook_1", "hook_2", "hook_3", "hook_4"]
    assert reg.hooks_map() == {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hookCallbackIds": ["hook_1", "hook_2"],
                "timeout": 10,
                "onFailure": "block",
            },
            {"matcher": None, "hookCallbackIds": ["hook_3"], "timeout": 30.0, "onFailure": "block"},
        ],
        "Stop": [
            {
                "matcher": None,
                "hookCallbackIds": ["hook_4"],
                "timeout": 30.0,
                "onFailure": "continue",
            }
        ],
    }
    assert reg.hooks_map() == reg.hooks_map()  # repeated initialize: same ids


def test_sdk_shaped_matcher_objects_are_accepted() -> None:
    from claude_agent_sdk import HookMatcher as SdkMatcher

    reg = Registry()
    reg.add_hooks({"PreToolUse": [SdkMatcher(matcher="Bash", hooks=[cb_a], timeout=3)]})  # type: ignore[list-item]
    (r,) = reg.registrations()
    assert (r.matcher, r.timeout_s, r.on_failure) == ("Bash", 3, "block")


def test_registration_is_safe_from_several_threads() -> None:
    reg = Registry()
    threads = [
        threading.Thread(target=lambda: [reg.add("Stop", cb_a) for _ in range(200)])
        for _ in range(8)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ids = [r.callback_id for r in reg.registrations()]
    assert sorted(ids, key=lambda s: int(s[5:])) == [f"hook_{n}" for n in range(1, 1601)]


@pytest.mark.parametrize(
    ("hooks", "message"),
    [
        ({"PreToolUse": HookMatcher(hooks=[cb_a])}, "must be a list of HookMatcher"),
        ({"PreToolUse": [{"hooks": [cb_a]}]}, "expected a HookMatcher"),
        ({"PreToolUse": [HookMatcher(hooks=["nope"])]}, "is not callable"),  # type: ignore[list-item]
        ({"PreToolUse": [HookMatcher(hooks=[lambda x: x])]}, "must accept (input_data"),
        ({"PreToolUse": [HookMatcher(hooks=[cb_a], timeout=-1)]}, "positive number"),
        (
            {"PreToolUse": [HookMatcher(hooks=[cb_a], on_failure="explode")]},  # type: ignore[arg-type]
            "on_failure must be",
        ),
        ([1, 2], "must be a dict"),
    ],
)
def test_bad_registrations_are_explained(hooks: Any, message: str) -> None:
    with pytest.raises(RegistrationError, match=None) as info:
        Registry().add_hooks(hooks)
    assert message in str(info.value)


def test_runner_detection() -> None:
    from tests.hooks import basic

    assert detect_runner(cb_a) == "trio"
    assert detect_runner(cb_sync) == "thread"
    assert detect_runner(basic.asyncio_hook) == "asyncio"
    assert detect_runner(basic.slow) == "trio"  # marked with hookd.runs_on("trio")


@pytest.mark.req("R-021")
def test_loader_collects_decorators_then_the_hooks_dict() -> None:
    reg = load_hooks(str(HERE / "hooks" / "basic.py"))
    first = reg.get("hook_1")
    assert first is not None and first.event == "SessionStart"  # decorated: registered first
    assert reg.get("hook_2") is not None and reg.get("hook_2").matcher == "Bash"  # type: ignore[union-attr]
    assert len(reg) == 14
    assert reg.can_use_tool is None


def test_decorator_registers_into_the_default_registry_outside_loading() -> None:
    before = len(api.current_registry())

    @hookd.hook("Stop", timeout=2)
    async def stopper(i: Any, t: Any, c: Any) -> None: ...

    assert len(api.current_registry()) == before + 1


@pytest.mark.req("R-103")
@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("def broken(:\n", "syntax error"),
        ("raise RuntimeError('nope')\n", "import failed: RuntimeError: nope"),
        ("x = 1\n", "no hooks found"),
        ("hooks = {'Stop': [42]}\n", "expected a HookMatcher"),
        ("import does_not_exist_anywhere\n", "ModuleNotFoundError"),
    ],
)
def test_loader_errors_are_clear(tmp_path: Path, source: str, message: str) -> None:
    path = tmp_path / "h.py"
    path.write_text(source)
    with pytest.raises(RegistrationError) as info:
        load_hooks(str(path))
    assert message in str(info.value)


def test_missing_module_and_file(tmp_path: Path) -> None:
    with pytest.raises(RegistrationError, match="no such file"):
        load_hooks(str(tmp_path / "absent.py"))
    with pytest.raises(RegistrationError, match="no such file or module"):
        load_hooks("no_such_package.hooks")
