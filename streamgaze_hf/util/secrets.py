"""Secrets never leave the process in clear: the one rule for what a secret is, and its redaction.

A secret is

* the value of an environment variable whose name says it holds one (:func:`secret_name`: ``HF_TOKEN``,
  ``OPENAI_API_KEY``, ``MY_VLM_KEY``, ``..._SECRET``, ``..._PASSWORD``; values of at least 8 characters), or a
  value the code registered (:func:`register`: the key ``build --vlm-api-key-env VAR`` read);
* a value shaped like an access token (``hf_...``, ``sk-...``, ``ghp_...``, ``github_pat_...``, ``xoxb-...``,
  ``AKIA...``) or the ``user:password@`` part of a URL;
* the value of a ``name=value`` pair, a ``"name": "value"`` entry (JSON) or a ``'name': 'value'`` entry (a
  Python dict as a log line prints it) whose name says it holds one (``api_key=``, ``'token': ...``).

:func:`redact` replaces each with ``<redacted>``. The CLI passes everything it prints through it (stdout and
stderr of ``streamgaze``, lmms-eval's own log lines in the same process included: cli/termio.py), and
``streamgaze eval`` every file the run wrote (results, samples: harness/run.py). ``redact_model_args`` (what a
submission records of a model's arguments) applies the same names and shapes.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping

__all__ = ["REDACTED", "secret_name", "secret_value_shape", "register", "secret_values", "redact"]

REDACTED = "<redacted>"
MIN_SECRET_CHARS = 8  # shorter values of secret-named variables ("1", "true") are settings, not secrets

_SECRET_WORDS = {"token", "secret", "password", "passwd", "passphrase", "auth", "authorization", "credential",
                 "credentials", "cookie", "bearer", "apikey"}
#: a value that is an access token by its shape (prefix), in a name=value pair
_TOKEN_PREFIX = re.compile(r"^(?:sk-|hf_|ghp_|gho_|ghu_|ghs_|github_pat_|xox[abp]-|AKIA|Bearer\s)", re.I)
#: an access token in free text (long enough not to be a word)
_TOKEN_IN_TEXT = re.compile(r"(?<![A-Za-z0-9_-])(?:hf_[A-Za-z0-9]{20,}|sk-[A-Za-z0-9_-]{16,}|gh[opsu]_[A-Za-z0-9]{20,}"
                            r"|github_pat_[A-Za-z0-9_]{20,}|xox[abp]-[A-Za-z0-9-]{10,}|AKIA[A-Z0-9]{16})")
_URL_CREDENTIALS = re.compile(r"(://)[^/@\s'\"]+:[^/@\s'\"]*@")
_QUOTED_PAIR = re.compile(r"""(["'])([A-Za-z0-9_.-]+)\1(\s*:\s*)(["'])((?:\\.|(?!\4).)*)\4""")
_PLAIN_PAIR = re.compile(r"(?<![A-Za-z0-9_.-])([A-Za-z][A-Za-z0-9_.-]*)=(\[REDACTED\]|[^\s,'\"&;)}\]]+)")

_registered: set[str] = set()


def secret_name(name: str) -> bool:
    """Whether a variable or argument named ``name`` holds a secret: its last word is token, secret, password,
    auth, credential, cookie, bearer, apikey..., or ``key`` after another word (``api_key``, ``VLM_KEY``; a bare
    ``key`` is not). ``max_new_tokens``, ``tokenizer``, ``token_counts`` and ``PWD`` (the working directory)
    are not."""
    words = [w for w in re.split(r"[^a-z0-9]+", name.lower()) if w]
    if not words:
        return False
    return words[-1] in _SECRET_WORDS or (words[-1] == "key" and len(words) > 1)


def secret_value_shape(value: str) -> bool:
    """Whether ``value`` is shaped like a secret: an access token's prefix, or a URL with a password."""
    return bool(_TOKEN_PREFIX.match(value.strip()) or _URL_CREDENTIALS.search(value))


def register(value: str | None) -> None:
    """Treat ``value`` as a secret in everything redacted from now on (in this process)."""
    if value and len(value) >= 4:
        _registered.add(value)


def secret_values(environ: Mapping[str, str] | None = None) -> list[str]:
    """The secrets of this process, longest first: registered values and secret-named environment variables'."""
    environ = os.environ if environ is None else environ
    found = set(_registered)
    found.update(v for k, v in environ.items() if secret_name(k) and len(v.strip()) >= MIN_SECRET_CHARS)
    return sorted(found, key=len, reverse=True)


def _quoted(m: re.Match) -> str:
    return m.group(0) if not secret_name(m.group(2)) or not m.group(5) else \
        f"{m.group(1)}{m.group(2)}{m.group(1)}{m.group(3)}{m.group(4)}{REDACTED}{m.group(4)}"


def _plain(m: re.Match) -> str:
    done = m.group(2) in (REDACTED, "[REDACTED]")  # lmms-eval's own mark
    return f"{m.group(1)}={REDACTED}" if secret_name(m.group(1)) and not done else m.group(0)


def redact(text: str, secrets: Iterable[str] | None = None) -> str:
    """``text`` with every secret (the module docstring) replaced by ``<redacted>``."""
    for value in secret_values() if secrets is None else secrets:
        if value in text:
            text = text.replace(value, REDACTED)
    text = _TOKEN_IN_TEXT.sub(REDACTED, text)
    text = _URL_CREDENTIALS.sub(rf"\1{REDACTED}@", text)
    if "=" in text:
        text = _PLAIN_PAIR.sub(_plain, text)
    if ":" in text:
        text = _QUOTED_PAIR.sub(_quoted, text)
    return text
