"""What a shell line will run: :func:`parse` reads it with a real bash grammar.

::

    from hookd.shell import parse

    for command in parse("sudo env X=1 bash -c 'rm -rf ~' | tee log").commands:
        print(command.name, command.argv, command.via)
    # rm ('rm', '-rf', '~') ('sudo', 'env', 'bash -c')
    # tee ('tee', 'log') ()

The grammar (tree-sitter-bash) is loaded on the first parse, not at import.
"""

from __future__ import annotations

from hookd.shell.model import MAX_BYTES, MAX_COMMANDS, MAX_DEPTH, PARSE_TIME_S, Command, Parse
from hookd.shell.parser import parse

__all__ = ["MAX_BYTES", "MAX_COMMANDS", "MAX_DEPTH", "PARSE_TIME_S", "Command", "Parse", "parse"]
