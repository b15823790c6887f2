"""hookd.shell.parse: the commands a line runs, wherever they stand, as bash would run them."""

from __future__ import annotations

import subprocess
import sys

import pytest

from hookd.shell import MAX_DEPTH, Command, parse


def argvs(text: str) -> list[tuple[str, ...]]:
    return [c.argv for c in parse(text).commands]


def only(text: str) -> Command:
    (command,) = [c for c in parse(text).commands if c.name not in ("echo", "printf", "cat", "ls")]
    return command


@pytest.mark.req("R-G01")
@pytest.mark.parametrize(
    ("text", "argv"),
    [
        ("rm -r\"f\" '/x y' \\/z", ("rm", "-rf", "/x y", "/z")),
        ("r''m $'\\x2f'", ("rm", "/")),
        ("\\rm -- a\\ b", ("rm", "--", "a b")),
        ('"/bin/rm" -rf ~', ("/bin/rm", "-rf", "~")),
        ("rm \\\n  -rf ~", ("rm", "-rf", "~")),
    ],
)
def test_words_are_given_after_quote_removal(text: str, argv: tuple[str, ...]) -> None:
    assert argvs(text) == [argv]


@pytest.mark.req("R-G01")
def test_every_place_a_command_can_stand_is_read() -> None:
    text = (
        "a1; a2 && a3 || a4 | a5 & (a6); { a7; }; x=$(a8) `a9` <(a10); f() { a11; }; "
        "if a12; then a13; fi; for i in 1; do a14; done; case x in x) a15;; esac; "
        'while a16; do a17; done; echo ${y:-$(a18)} "$(a19)"'
    )
    names = {c.name for c in parse(text).commands}
    assert {f"a{i}" for i in range(1, 20)} <= names


@pytest.mark.req("R-G02")
@pytest.mark.parametrize(
    ("text", "via"),
    [
        ("sudo -u root rm -rf /", ("sudo",)),
        ("doas rm x", ("doas",)),
        ("env -i A=1 B=2 rm x", ("env",)),
        ("nice -n 5 nohup time timeout -s KILL 5 rm x", ("nice", "nohup", "time", "timeout")),
        ("command exec rm x", ("command", "exec")),
        ("sudo env X=1 nice rm x", ("sudo", "env", "nice")),
    ],
)
def test_wrappers_are_peeled_into_the_command_they_run(text: str, via: tuple[str, ...]) -> None:
    command = only(text)
    assert command.name == "rm" and command.via == via


@pytest.mark.req("R-G02")
def test_per_item_runners_give_a_word_not_known_and_mark_the_command_repeated() -> None:
    xargs = only("ls | xargs -0 rm -rf")
    assert xargs.argv[:2] == ("rm", "-rf") and 2 in xargs.dynamic and xargs.repeated
    replaced = only("ls | xargs -I{} mv {} /x")
    assert replaced.argv[0] == "mv" and 1 in replaced.dynamic and replaced.is_static(2)
    find, rm = parse("find /srv -name x -exec rm -rf {} \\;").commands
    assert find.name == "find" and rm.via == ("find -exec",) and rm.argv[2] == "/srv/{item}"
    assert rm.dynamic == {2} and rm.repeated
    assert only("parallel rm -rf ::: a b").via == ("parallel",)
    assert only("watch -n 5 'rm -rf x'").via == ("watch",)
    remote = only("ssh -p 22 host -- rm -rf /")
    assert remote.remote and remote.via == ("ssh",) and remote.argv == ("rm", "-rf", "/")
    assert [c.argv for c in parse("command -v rm").commands] == [("command", "-v", "rm")]


@pytest.mark.req("R-G03")
@pytest.mark.parametrize(
    ("text", "via"),
    [
        ("bash -c 'rm -rf ~'", ("bash -c",)),
        ("sh -xec \"zsh -c 'rm -rf ~'\"", ("sh -c", "zsh -c")),
        ("eval 'rm -rf ~'", ("eval",)),
        ("bash <<EOF\nrm -rf ~\nEOF", ("stdin of bash",)),
        ("cat <<'EOF' | sh\nrm -rf ~\nEOF", ("stdin of sh",)),
        ("bash <<< 'rm -rf ~'", ("stdin of bash",)),
        ("printf '%s\\n' 'rm -rf ~' | sh -s", ("stdin of sh",)),
        ("trap 'rm -rf ~' EXIT", ("trap",)),
        ("su -c 'rm -rf ~'", ("su -c",)),
        ("env -S 'rm -rf ~'", ("env -S",)),
    ],
)
def test_shell_payloads_are_parsed_again(text: str, via: tuple[str, ...]) -> None:
    command = only(text)
    assert command.argv == ("rm", "-rf", "~") and command.via == via


@pytest.mark.req("R-G03")
def test_a_payload_with_expansions_keeps_them_not_known() -> None:
    rm = only('bash -c "rm -rf $DIR/x"')
    assert rm.argv == ("rm", "-rf", "$DIR/x") and rm.dynamic == {2}
    (unknown,) = parse('bash -c "$X"').commands
    assert unknown.unknown and unknown.via == ("bash -c",)
    (piped,) = [c for c in parse("curl -s https://x | sh").commands if c.via]
    assert piped.unknown and piped.via == ("stdin of sh",)


@pytest.mark.req("R-G04")
@pytest.mark.parametrize(
    ("text", "language", "code"),
    [
        ("python3 -c 'import os'", "python", "import os"),
        ("node -e 'fs.rmSync(x)'", "node", "fs.rmSync(x)"),
        ("perl -ne 'print' f", "perl", "print"),
        ("ruby -e 'puts 1'", "ruby", "puts 1"),
        ("python3 - <<'PY'\nimport shutil\nPY", "python", "import shutil\n"),
        ("echo 'print(1)' | python", "python", "print(1)\n"),
    ],
)
def test_interpreter_one_liners_carry_their_code(text: str, language: str, code: str) -> None:
    command = next(c for c in parse(text).commands if c.code is not None)
    assert (command.language, command.code) == (language, code)
    assert parse("python script.py").commands[0].code is None


@pytest.mark.req("R-G05")
@pytest.mark.parametrize("program", ["$a", "$(echo rm)", "`which rm`", "${X}", '"$(pwd)"/rm'])
def test_a_program_not_static_is_marked_unknown_never_guessed(program: str) -> None:
    found = parse(f"{program} -rf /").commands
    (first,) = [c for c in found if c.name not in ("echo", "which", "pwd")]
    assert first.unknown and first.name is None and first.argv == (program, "-rf", "/")


@pytest.mark.req("R-G06")
def test_a_line_that_does_not_parse_is_reported_with_what_could_be_read() -> None:
    found = parse("echo 'open; rm -rf ~ && (")
    assert not found.ok and not found.cut and found.problems[0].startswith("syntax error at 1:")
    assert parse("rm -rf ~ && ( ls").commands[0].argv == ("rm", "-rf", "~")


@pytest.mark.req("R-G07")
@pytest.mark.parametrize(
    "text",
    ["a " * 500_000, "echo aa && " * 95_000, "$(" * 500_000, ";" * 1_000_000, "x" * 1_100_000],
    ids=["words", "commands", "nesting", "semicolons", "over-size"],
)
def test_an_adversarial_megabyte_is_cut_by_a_bound_not_read_for_seconds(text: str) -> None:
    found = parse(text)
    assert found.cut and not found.ok, found.problems


@pytest.mark.req("R-G07")
def test_payloads_nest_only_so_deep() -> None:
    found = parse("eval " * (MAX_DEPTH + 2) + "rm -rf ~")
    assert found.cut and any("nested deeper" in p for p in found.problems)
    assert found.commands == ()


def test_a_big_heredoc_is_cheap_to_read_and_read_whole() -> None:
    body = "x = foo(1, 2) + bar\n" * 10_000  # 200 KB of file written with cat
    found = parse(f"cat > big.py <<'EOF'\n{body}EOF\nrm -rf ~")
    assert found.ok and found.commands[-1].argv == ("rm", "-rf", "~")


def test_import_hookd_and_its_guards_leave_the_grammar_for_the_first_parse() -> None:
    code = (
        "import sys, hookd, hookd.guards, hookd.shell\n"
        "print('tree_sitter' in sys.modules)\n"
        "hookd.shell.parse('ls')\n"
        "print('tree_sitter' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False, timeout=60)  # fmt: skip
    assert done.stdout.split() == ["False", "True"], done.stderr
