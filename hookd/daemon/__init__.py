"""The hooks daemon: lifecycle, command shim, reload (its installs: :mod:`hookd.install`)."""
