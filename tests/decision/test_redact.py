"""Redaction and escaping, table-driven: what looks like a secret is masked (exactly it, the
rest as it was), what only looks like one stays, and control characters are escaped.

The secrets are fake: random characters in each format's published shape, from a seeded
generator (so the table is the same on every run).
"""

from __future__ import annotations

import json
import random
import string
import subprocess
import sys
from collections import Counter
from typing import Any

import pytest

from hookd.redact import MASK, Redactor, escape_controls, redact_text, redact_value, secret_name

_rng = random.Random(20261126)
ALNUM = string.ascii_letters + string.digits
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"


def fake(n: int, alphabet: str = ALNUM) -> str:
    return "".join(_rng.choice(alphabet) for _ in range(n))


def hexes(n: int) -> str:
    return fake(n, "0123456789abcdef")


AWS_SECRET = [fake(40, B64) for _ in range(4)]
JWT = [
    f"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ{fake(40, URLSAFE)}.{fake(43, URLSAFE)}"
    for _ in range(2)
]
PEM_BODY = "\n".join(fake(64, B64) for _ in range(3))
RSA = f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----"
OPENSSH = f"-----BEGIN OPENSSH PRIVATE KEY-----\n{PEM_BODY}\n-----END OPENSSH PRIVATE KEY-----"
ENCRYPTED = (
    f"-----BEGIN ENCRYPTED PRIVATE KEY-----\n{PEM_BODY}\n-----END ENCRYPTED PRIVATE KEY-----"
)
PGP = f"-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n{PEM_BODY}\n-----END PGP PRIVATE KEY BLOCK-----"
UPPER = string.ascii_uppercase
SLACK_PATH = f"T0{fake(8, UPPER)}/B0{fake(8, UPPER)}/{fake(24)}"
CUT_SHORT = f"-----BEGIN EC PRIVATE KEY-----\n{fake(64, B64)}\n{fake(20, B64)}"

#: (class, text, the secret in it): the text redacted is the text with the secret masked.
SECRETS: list[tuple[str, str, str]] = [
    ("aws", f"aws_secret_access_key = {AWS_SECRET[0]}", AWS_SECRET[0]),
    ("aws", f"export AWS_SECRET_ACCESS_KEY={AWS_SECRET[1]}", AWS_SECRET[1]),
    ("aws", f'{{"SecretAccessKey": "{AWS_SECRET[2]}", "Expiration": "2026-11-26T11:00:00Z"}}',
     AWS_SECRET[2]),
    ("aws", f"AWS_SECRET_ACCESS_KEY='{AWS_SECRET[3]}' aws s3 ls", AWS_SECRET[3]),
    ("aws", f"aws configure set aws_access_key_id AKIA{(k := fake(16, string.ascii_uppercase))}",
     f"AKIA{k}"),
    ("env", f"GITHUB_TOKEN={(v := fake(20))} gh pr list", v),
    ("env", f"export DB_PASSWORD={(v := fake(14, ALNUM + '!@#%^*'))}", v),
    ("env", f"CLIENT_SECRET={(v := fake(32))} npm start", v),
    ("env", f"PGPASSWORD={(v := fake(12))} psql -h db -U app", v),
    ("env", f"MYSQL_PWD={(v := fake(12))} mysql -u app shop", v),
    ("env", f"REDIS_PASS={(v := fake(16))} redis-cli", v),
    ("env", f'export OPENWEATHER_API_KEY="{(v := hexes(32))}"', v),
    ("env", f"password: {(v := fake(12))}\nhost: db.internal", v),
    ("env", f"DJANGO_SECRET_KEY='{(v := fake(50, ALNUM + '!@#$%^&*(-_=+)'))}'", v),
    ("env", f"kubectl create secret generic db --from-literal=password={(v := fake(16))}", v),
    ("flag", f"psql --password '{(v := fake(12))}' --host db", v),
    ("flag", f'vault login --password "{(v := "correct horse " + fake(8))}"', v),
    ("flag", f"deploy --api-key={(v := hexes(32))} --env prod", v),
    ("flag", f"az login --service-principal --client-secret {(v := fake(34, URLSAFE))}", v),
    ("flag", f"mysql -h db -u root -p{(v := fake(12))} shop", v),
    ("flag", f"mysqldump -uroot -p'{(v := fake(10) + ' ' + fake(6))}' shop > dump.sql", v),
    ("flag", f"sshpass -p '{(v := fake(14))}' ssh deploy@10.0.0.5", v),
    ("flag", f"curl -u alice:{(v := fake(16))} https://api.example.com/v1/me", v),
    ("flag", f"curl -sS --user 'ci-bot:{(v := fake(10) + ' ' + fake(4))}' https://ci.example.org",
     v),
    ("url", f"psql postgres://app:{(v := fake(18))}@db.internal:5432/shop", v),
    ("url", f"git clone https://oauth2:glpat-{(t := fake(20, URLSAFE))}@gitlab.com/acme/api.git",
     f"glpat-{t}"),
    ("url", f"redis-cli -u redis://:{(v := fake(24))}@cache.internal:6379/0", v),
    ("url", f"MONGO_URL=mongodb+srv://svc:{(v := fake(20))}@cluster0.abcde.mongodb.net/app", v),
    ("url", f"curl 'https://acct.blob.core.windows.net/c/f.txt?sv=2022-11-02&sr=b&sig="
            f"{(v := fake(43, B64) + '%3D')}'", v),
    ("prefix", f"Authorization: Bearer {(v := JWT[0])}", v),
    ("prefix", f"jwt decode {JWT[1]}", JWT[1]),
    ("prefix", f"maps?key=AIza{(t := fake(35, URLSAFE))}&q=Berlin", f"AIza{t}"),
    ("prefix", f"stripe --api-key sk_live_{(t := fake(24))}", f"sk_live_{t}"),
    ("prefix", f"STRIPE_KEY=rk_live_{(t := fake(24))}", f"rk_live_{t}"),
    ("prefix", f"echo glpat-{(t := fake(20, URLSAFE))} | glab auth login --stdin", f"glpat-{t}"),
    ("prefix", f"//registry.npmjs.org/:_authToken=npm_{(t := fake(36))}", f"npm_{t}"),
    ("prefix", f"huggingface-cli login --add hf_{(t := fake(34, string.ascii_letters))}",
     f"hf_{t}"),
    ("prefix", f"git push https://ghp_{(t := fake(36))}@github.com/acme/api", f"ghp_{t}"),
    ("prefix", f"gh auth login --with-token github_pat_11{(t := fake(60, ALNUM + '_'))}",
     f"github_pat_11{t}"),
    ("prefix", f"OPENAI_KEY sk-proj-{(t := fake(48, URLSAFE))}", f"sk-proj-{t}"),
    ("prefix", f"x-api-key sk-ant-api03-{(t := fake(80, URLSAFE))}", f"sk-ant-api03-{t}"),
    ("prefix", f"slack chat post xoxb-{(t := fake(12, string.digits) + '-' + fake(24))}",
     f"xoxb-{t}"),
    ("prefix", f"curl -X POST https://hooks.slack.com/services/{(v := SLACK_PATH)}", v),
    ("prefix", f"twine upload -p pypi-AgEIcHlwaS5vcmc{(t := fake(60, URLSAFE))}",
     f"pypi-AgEIcHlwaS5vcmc{t}"),
    ("azure", f"DefaultEndpointsProtocol=https;AccountName=acme;AccountKey="
              f"{(v := fake(86, B64) + '==')};EndpointSuffix=core.windows.net", v),
    ("key", f"cat > id_rsa <<'EOF'\n{RSA}\nEOF", RSA),
    ("key", f"echo '{OPENSSH}' > ~/.ssh/deploy", OPENSSH),
    ("key", f"{ENCRYPTED}\n", ENCRYPTED),
    ("key", f"gpg --import <<EOF\n{PGP}\nEOF", PGP),
    ("key", f"printf '%s' \"{CUT_SHORT}", f"{CUT_SHORT}"),
    ("header", f"curl -H 'Authorization: token ghp_{(t := fake(36))}' https://api.github.com",
     f"ghp_{t}"),
    ("header", f"Authorization: Basic {(v := fake(28, B64) + '==')}", v),
    ("header", f"curl -H 'PRIVATE-TOKEN: {(v := fake(20, URLSAFE))}' https://gitlab.example.com",
     v),
]  # fmt: skip

#: Text that only looks like a secret, left exactly as it is (see the README's list).
LOOKALIKES: list[str] = [
    f"git show {hexes(40)}",
    f"git revert {hexes(7)} && git push",
    "claude --resume 5e1f0c2a-8b7d-4c1e-9f3a-2d6b8e0c4a17",
    "echo aGVsbG8sIHdvcmxkIQo= | base64 -d",
    f"docker pull python@sha256:{hexes(64)}",
    f'"integrity": "sha512-{fake(86, B64)}=="',
    f"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA{fake(40, B64)}",
    "OpenAI keys start with sk- and are shown once",
    "open risk-assessment-2024-report-final.md",
    "GitHub tokens begin with ghp_ or github_pat_; AWS key ids with AKIA",
    "Google API keys start with AIza, Slack bot tokens with xoxb-",
    "/home/dev/.ssh/id_ed25519 and ~/.aws/credentials",
    "pytest tests/test_password_reset.py -k expired",
    "vim app/password_reset.py",
    "TOKEN_COUNT=5 MAX_TOKENS=4096 python bench.py",
    "max_tokens: 1024",
    "PASSWORD_MIN_LENGTH=12",
    "hookd serve hooks.py --http 8765 --token-file ~/.config/hookd-token",
    "restic backup --password-file /run/secrets/restic .",
    "aws secretsmanager get-secret-value --secret-id prod/db",
    "SECRET_NAME=prod/db/creds",
    "PWD=/home/dev/src OLDPWD=/home/dev",
    "BYPASS_CACHE=1 make",
    "mkdir -p build/out",
    "ssh -p 2222 deploy@10.0.0.5",
    "docker run -p 8080:80 -u 1000:1000 nginx",
    "mysql -h db -P 3306 -u app -p shop",
    "curl -u alice https://api.example.com/v1/me",
    "git clone git@github.com:acme/api.git",
    "curl https://example.com:8443/status http://[::1]:8080/ ssh://git@host:22/repo",
    "npm_config_registry=https://registry.npmjs.org/ npm install",
    'python -c "from huggingface_hub import hf_hub_download"',
    "echo eyJhbGciOiJIUzI1NiJ9 | base64 -d",
    "see https://api.slack.com/messaging/webhooks",
    f"pk_live_{fake(24)} is the publishable key",
    'token = os.environ["GITHUB_TOKEN"]',
    "api_key = load_api_key(path)",
    "PASSWORD=$DB_PASSWORD ./migrate",
    "Bearer tokens expire after an hour",
    'headers = {"Authorization": f"Bearer {token}"}',
    "PRIMARY_KEY=id SORT_KEY=created_at",
    "keyboard-layout: us",
    "cat /etc/passwd | grep root",
    "LC_ALL=C.UTF-8 sort names.txt",
    "git log --author=token-bot --oneline",
    "kubectl get secrets -n prod",
    'grep -rn "password" src/ && echo "Enter password:"',
    "psql --password --host db",
    "TOKENIZERS_PARALLELISM=false python train.py",
    "const tokenizer = new Tokenizer(vocab)",
    "python manage.py changepassword admin",
    "see the sk-learn-compatible-estimators guide",
    '{"request_id": "0f8fad5b-d9cb-469f-a165-70867728950e"}',
    "aws sts assume-role --role-arn arn:aws:iam::123456789012:role/deploy",
    "aws s3 cp s3://assets/logo@2x.png . && git config user.email dev@example.com",
    "open http://admin@intranet.example.com/",
    "KEY=region CACHE_KEY=v2 ENCODED=aGVsbG8=",
    "Authorization failed for user deploy",
    "python secret_santa.py tokens.json",
]

#: JSON keys whose whole value is masked, and keys that look alike but stay.
SECRET_KEYS = [
    "token", "secret_key", "GITHUB_TOKEN", "api_token", "db_password", "apiKey", "clientSecret",
    "AccountKey", "private_key", "pass", "password", "Authorization", "refresh_token",
]  # fmt: skip
PLAIN_KEYS = [
    "tokens", "max_tokens", "token_count", "input_tokens", "key", "sort_key", "public_key",
    "password_reset_url", "secret_name", "bypass", "keyboard", "token_type",
]  # fmt: skip


@pytest.mark.req("R-L07", "R-L42", "R-L43")
@pytest.mark.parametrize(
    ("kind", "text", "secret"), SECRETS, ids=[f"{s[0]}:{s[1][:24]}" for s in SECRETS]
)
def test_each_secret_is_masked_and_nothing_else(kind: str, text: str, secret: str) -> None:
    assert text.count(secret) == 1
    assert redact_text(text) == text.replace(secret, MASK)


@pytest.mark.req("R-L43")
@pytest.mark.parametrize("text", LOOKALIKES, ids=[t[:32] for t in LOOKALIKES])
def test_what_only_looks_like_a_secret_stays(text: str) -> None:
    assert redact_text(text) == text


def test_the_table_covers_each_class() -> None:
    counts = Counter(kind for kind, _, _ in SECRETS)
    assert len(SECRETS) >= 40 and len(LOOKALIKES) >= len(SECRETS)
    assert set(counts) == {"aws", "env", "flag", "url", "prefix", "azure", "key", "header"}


@pytest.mark.req("R-L43")
def test_json_keys_named_like_secrets() -> None:
    value: dict[str, Any] = {k: f"v{n}-{fake(12)}" for n, k in enumerate(SECRET_KEYS + PLAIN_KEYS)}
    value["nested"] = [{"token": 42, "enabled": True, "api_token": None}]
    out = redact_value(value)
    assert [k for k in SECRET_KEYS if out[k] != MASK] == []
    assert [k for k in PLAIN_KEYS if out[k] != value[k]] == []
    assert out["nested"] == [{"token": MASK, "enabled": True, "api_token": None}]
    assert all(secret_name(k) for k in SECRET_KEYS) and not any(map(secret_name, PLAIN_KEYS))


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
    assert redact_text("an ordinary line", [r"(?P<secret>x)?ordinary"]) == f"an {MASK} line"


def test_redaction_is_idempotent() -> None:
    once = [redact_text(text) for _, text, _ in SECRETS]
    assert [redact_text(text) for text in once] == once


#: (text, as a terminal may print it on one line, in a block of lines)
ESCAPES = [
    ("clear\x1b[2J\x1b[H", "clear\\x1b[2J\\x1b[H", "clear\\x1b[2J\\x1b[H"),
    ("\x1b]0;pwned\x07title", "\\x1b]0;pwned\\x07title", "\\x1b]0;pwned\\x07title"),
    ("\x1b]52;c;cm0gLXJmIH4=\x07", "\\x1b]52;c;cm0gLXJmIH4=\\x07", "\\x1b]52;c;cm0gLXJmIH4=\\x07"),
    ("c1 \x9b2J csi", "c1 \\x9b2J csi", "c1 \\x9b2J csi"),
    ("del\x7f nul\x00 cr\r", "del\\x7f nul\\x00 cr\\x0d", "del\\x7f nul\\x00 cr\\x0d"),
    ("a\u202eevil\u202c b\u2066i\u2069", "a\\u202eevil\\u202c b\\u2066i\\u2069",
     "a\\u202eevil\\u202c b\\u2066i\\u2069"),
    ("line\nnext\tcell", "line\\x0anext\\x09cell", "line\nnext\tcell"),
    ("plain ü → ok \\x1b", "plain ü → ok \\x1b", "plain ü → ok \\x1b"),
]  # fmt: skip


@pytest.mark.req("R-L40")
@pytest.mark.parametrize(("text", "line", "block"), ESCAPES)
def test_control_characters_are_escaped(text: str, line: str, block: str) -> None:
    assert escape_controls(text) == line
    assert escape_controls(text, multiline=True) == block
    shown = escape_controls(text)
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in shown)
    assert json.loads(json.dumps(text)) == text  # --json keeps the text as it was


def test_redact_imports_only_the_standard_library() -> None:
    code = (
        "import sys, hookd.redact; print(sorted(m for m in sys.modules if m.startswith('hookd')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['hookd', 'hookd._version', 'hookd.redact']"
