"""The checkpoint store squeeze names in a job's environment: SQUEEZE_CHECKPOINT_STORE
(s3://BUCKET/PREFIX), its endpoint, region, credentials and how many checkpoints it keeps,
checked, and the boto3 client made from them (docs/python-checkpoint.md#object-storage).
boto3 is imported only when a store is named; credentials come from the file the job names
or from boto3's default chain (the owner's environment, ~/.aws), never from squeeze."""

import configparser
import re
import urllib.parse

from .marker import CheckpointError
from .object_store import ObjectStore

DEFAULT_KEEP = 3
STORE, ENDPOINT, REGION = ("SQUEEZE_CHECKPOINT_STORE", "SQUEEZE_CHECKPOINT_STORE_ENDPOINT",
                           "SQUEEZE_CHECKPOINT_STORE_REGION")
CREDENTIALS, PROFILE, KEEP = ("SQUEEZE_CHECKPOINT_STORE_CREDENTIALS",
                              "SQUEEZE_CHECKPOINT_STORE_PROFILE", "SQUEEZE_CHECKPOINT_STORE_KEEP")
MAX_GBPS = "SQUEEZE_CHECKPOINT_STORE_MAX_GBPS"


def store_from_env(environ, log):
    """The ObjectStore squeeze's environment names, or None when SQUEEZE_CHECKPOINT_STORE is
    unset or empty. CheckpointError naming the variable and its value when one is wrong."""
    url = environ.get(STORE, "").strip()
    if not url:
        return None
    bucket, prefix = parse_url(url)
    keep = parse_keep(environ.get(KEEP, ""))
    endpoint = parse_endpoint(environ.get(ENDPOINT, "").strip())
    cap = parse_max_gbps(environ.get(MAX_GBPS, ""))
    client = make_client(endpoint, environ.get(REGION, "").strip() or None,
                         read_credentials(environ), environ.get(PROFILE, "").strip() or None, url)
    return ObjectStore(client, bucket, prefix, keep, log, max_gbps=cap)


def parse_url(url):
    """(bucket, prefix) of s3://BUCKET/PREFIX; the prefix without its outer slashes."""
    if not url.startswith("s3://"):
        raise CheckpointError(f"{STORE}={url!r} is not an s3:// URL (expected s3://BUCKET/PREFIX)")
    bucket, _, prefix = url[len("s3://"):].partition("/")
    if not bucket:
        raise CheckpointError(f"{STORE}={url!r} names no bucket (expected s3://BUCKET/PREFIX)")
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{2,254}", bucket):
        raise CheckpointError(f"{STORE}={url!r}: {bucket!r} is not a bucket name (3 to 255 "
                              f"letters, digits, '.', '-' or '_')")
    prefix = prefix.strip("/")
    if "//" in prefix or any(part in (".", "..") for part in prefix.split("/")):
        raise CheckpointError(f"{STORE}={url!r}: the prefix {prefix!r} has an empty, '.' or "
                              f"'..' part")
    return bucket, prefix


def parse_keep(value):
    if not value.strip():
        return DEFAULT_KEEP
    try:
        keep = int(value)
    except ValueError:
        keep = 0
    if keep < 1:
        raise CheckpointError(f"{KEEP}={value!r} is not a positive integer (how many complete "
                              f"checkpoints the store keeps; default {DEFAULT_KEEP})")
    return keep


def parse_max_gbps(value):
    """SQUEEZE_CHECKPOINT_STORE_MAX_GBPS: the cap of uploads and downloads in gigabits per
    second, or None (no cap) when unset or empty."""
    if not value.strip():
        return None
    try:
        gbps = float(value)
    except ValueError:
        gbps = 0
    if not gbps > 0 or gbps == float("inf"):
        raise CheckpointError(f"{MAX_GBPS}={value!r} is not a positive number of gigabits per "
                              f"second (the cap of the store's transfers)")
    return gbps


def parse_endpoint(value):
    if not value:
        return None
    parsed = urllib.parse.urlparse(value)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise CheckpointError(f"{ENDPOINT}={value!r} is not an http:// or https:// URL")
    return value


def read_credentials(environ):
    """The keys of SQUEEZE_CHECKPOINT_STORE_CREDENTIALS (an AWS-style shared credentials file),
    or None when it is unset (boto3's default chain). Messages never show a key's value."""
    path = environ.get(CREDENTIALS, "").strip()
    if not path:
        return None
    profile = environ.get(PROFILE, "").strip() or "default"
    parser = configparser.RawConfigParser()
    try:
        with open(path, encoding="utf-8") as f:
            parser.read_file(f)
    except OSError as e:
        raise CheckpointError(f"{CREDENTIALS}={path!r}: cannot read the credentials file: "
                              f"{e.strerror or e}") from None
    except (configparser.Error, UnicodeDecodeError) as e:
        # Not e's message: it may quote a line of the file, and so a secret.
        raise CheckpointError(f"{CREDENTIALS}={path!r} is not an AWS-style credentials file "
                              f"(INI; {type(e).__name__}{_line_of(e)})") from None
    section = next((s for s in (profile, f"profile {profile}") if parser.has_section(s)), None)
    if section is None:
        raise CheckpointError(f"{CREDENTIALS}={path!r} has no profile [{profile}] (its profiles: "
                              f"{', '.join(parser.sections()) or 'none'}; {PROFILE} names one)")
    found = {k: parser.get(section, k, fallback="").strip()
             for k in ("aws_access_key_id", "aws_secret_access_key", "aws_session_token")}
    missing = [k for k in ("aws_access_key_id", "aws_secret_access_key") if not found[k]]
    if missing:
        raise CheckpointError(f"{CREDENTIALS}={path!r}: profile [{profile}] has no "
                              f"{' and no '.join(missing)}")
    return {k: v for k, v in found.items() if v}


def _line_of(error):
    line = getattr(error, "lineno", None)
    if line is None and getattr(error, "errors", None):
        line = error.errors[0][0]
    return f" at line {line}" if line else ""


def make_client(endpoint, region, credentials, profile, url):
    try:
        import boto3
        import botocore.config
        import botocore.exceptions
    except ImportError:
        raise CheckpointError(f"{STORE}={url!r} names a checkpoint store, but boto3 is not "
                              f"installed for this Python: install python3-boto3 (Debian; "
                              f"scripts/setup.sh does) or `pip install boto3`") from None
    try:
        if credentials is not None:
            session = boto3.session.Session(**credentials, region_name=region)
        else:
            session = boto3.session.Session(profile_name=profile, region_name=region)
    except botocore.exceptions.ProfileNotFound:
        raise CheckpointError(f"{PROFILE}={profile!r}: no such profile in the owner's AWS "
                              f"configuration (~/.aws)") from None
    if session.get_credentials() is None:
        raise CheckpointError(f"{STORE}={url!r}: no credentials for the store: name a "
                              f"credentials file in the job ({CREDENTIALS}) or give the "
                              f"owner's account AWS_ACCESS_KEY_ID or ~/.aws/credentials")
    config = botocore.config.Config(
        s3={"addressing_style": "path"} if endpoint else {}, connect_timeout=10,
        read_timeout=60, retries={"max_attempts": 3, "mode": "standard"})
    return session.client("s3", endpoint_url=endpoint, config=config)
