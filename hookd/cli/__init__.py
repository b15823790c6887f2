"""The command line: the ``hookd`` console script (:mod:`hookd.cli.entry`) and its parsers."""
