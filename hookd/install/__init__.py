"""``hookd install`` and what it writes: each agent's hook file, kept as the user keeps it.

What ``hookd install`` writes for Claude Code is :mod:`~hookd.install.claude`; for the
other agents, :mod:`~hookd.install.agents`, with each agent's file, entry shape and
timeout unit in one row of :data:`hookd.install.agent_files.AGENT_CONFIGS` (OpenCode, Kilo
CLI and pi: hookd's plugin file, :mod:`~hookd.install.plugins`; Cline: a script per event,
:mod:`~hookd.install.executables`). Every
rewrite goes through :mod:`~hookd.install.settings_file` (the file's own text, a
compare-and-swap), all or nothing (:mod:`~hookd.install.undo`). Read back:
:mod:`~hookd.install.installed` (what is installed where), :mod:`~hookd.install.routes`
(events a hook file leaves out), :mod:`~hookd.install.agent_state` (an agent's own
switches and trust) and :mod:`~hookd.install.doctor`; ``hookd record`` where the
settings point: :mod:`~hookd.install.recording`. The daemon itself is
:mod:`hookd.daemon`'s; nothing there imports this package.
"""
