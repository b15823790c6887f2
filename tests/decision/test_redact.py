"""Redaction, table-driven: what looks like a secret is masked, the rest stays as it was."""

from __future__ import annotations

import subprocess
import sys

import pytest

from hookd.redact import MASK, Redactor, redact_text, redact_value

PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nAAAA\n-----END RSA PRIVATE KEY-----"

#: (text, the secret that must go, what must stay)
CASES = [
    ("curl -H 'Authorization: Bearer abcdef123456'", "abcdef123456", "curl -H"),
    ("Authorization: Basic dXNlcjpwYXNz", "dXNlcjpwYXNz", "Authorization"),
    ('{"authorization": "token12345678"}', "token12345678", "authorization"),
    (
        "export OPENAI_API_KEY=sk-proj-abcdefghijklmnop1234",
        "sk-proj-abcdefghijklmnop1234",
        "export",
    ),
    ("key sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAA", "sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAA", "key"),
    ("git clone https://ghp_abcdefghijklmnopqrstuvwxyz0123@github.com/x", "ghp_abcdefghij", "git"),
    ("github_pat_11ABCDEFG0123456789_abcdefghijkl", "github_pat_11ABCDEFG", ""),
    ("aws AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE", "aws"),
    ("slack xoxb-123456789012-abcdefghij", "xoxb-123456789012", "slack"),
    ("mysql -u root password=hunter2 db", "hunter2", "mysql -u root"),
    ("psql --password s3cret --host x", "s3cret", "--host x"),
    ("login --password=s3cret", "s3cret", "login"),
    ('{"api_key": "abc123xyz"}', "abc123xyz", "api_key"),
    (f"cat <<EOF\n{PEM}\nEOF", "MIIEow", "cat <<EOF"),
]


@pytest.mark.req("R-L07")
@pytest.mark.parametrize(("text", "secret", "kept"), CASES, ids=[c[1][:16] for c in CASES])
def test_secrets_are_masked(text: str, secret: str, kept: str) -> None:
    out = redact_text(text)
    assert secret not in out, out
    assert MASK in out
    assert kept in out


@pytest.mark.parametrize(
    "text", ["ls -la", "git commit -m 'fix the password prompt'", "rm -rf build", "sk-short"]
)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert redact_text(text) == text


@pytest.mark.req("R-L07")
def test_a_modules_own_patterns_and_secret_keys_in_json() -> None:
    value = {
        "tool_input": {"command": "deploy --key tok_abcdef99 now", "password": "hunter2"},
        "n": 3,
        "list": ["Bearer abcdefgh1234"],
    }
    out = redact_value(value, [r"tok_[a-z0-9]{6,}"])
    assert out == {
        "tool_input": {"command": f"deploy --key {MASK} now", "password": MASK},
        "n": 3,
        "list": [f"Bearer {MASK}"],
    }
    named = Redactor([r"id=(?P<secret>\d{4})"]).text("user id=1234 ok")
    assert named == f"user id={MASK} ok"  # only the group named secret


def test_redact_imports_only_the_standard_library() -> None:
    code = (
        "import sys, hookd.redact; print(sorted(m for m in sys.modules if m.startswith('hookd')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['hookd', 'hookd._version', 'hookd.redact']"
