from hookd import HookMatcher
from hookd.guards import destructive_commands

hooks = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[destructive_commands()])]}
