"""Fetching output files from your bucket: a GET signed with AWS Signature Version 4, standard library only.

Outputs never pass through the API: they are in the customer's bucket, and you fetch them with that
bucket's credentials (any S3-compatible store: AWS, R2, MinIO …). Only what downloading needs is
here: a signed GET, streamed.
"""

from __future__ import annotations

import hashlib
import hmac
import shutil
import urllib.error
import urllib.request
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from http.client import HTTPResponse
from pathlib import Path
from urllib.parse import quote, urlsplit

from .outputs import OutputObject

UNSIGNED_PAYLOAD = "UNSIGNED-PAYLOAD"


class S3Error(Exception):
    """The store refused a GET (403, 404 …); ``status`` is its HTTP status, ``body`` the start of its answer."""

    def __init__(self, status: int, bucket: str, key: str, body: str) -> None:
        super().__init__(f"GET s3://{bucket}/{key}: HTTP {status}: {body[:300]}")
        self.status = status
        self.body = body


def _hmac(key: bytes, text: str) -> bytes:
    return hmac.new(key, text.encode(), hashlib.sha256).digest()


def _uri_encode(text: str, safe: str = "") -> str:
    return quote(text, safe="-_.~" + safe)


class S3Client:
    def __init__(
        self,
        endpoint: str,
        access_key_id: str,
        secret_access_key: str,
        *,
        region: str = "us-east-1",
        path_style: bool = False,
        session_token: str | None = None,
        timeout: float = 300.0,
    ) -> None:
        """``endpoint``: e.g. ``https://s3.us-east-1.amazonaws.com`` or ``http://127.0.0.1:9000``.
        ``path_style``: bucket in the path (MinIO-like stores) rather than in the host name."""
        self._endpoint = urlsplit(endpoint.rstrip("/"))
        self._access_key_id = access_key_id
        self._secret_access_key = secret_access_key
        self._region = region
        self._path_style = path_style
        self._session_token = session_token
        self._timeout = timeout

    def object_url(self, bucket: str, key: str) -> str:
        path = "/".join(_uri_encode(part) for part in key.split("/"))
        scheme, host = self._endpoint.scheme, self._endpoint.netloc
        base = self._endpoint.path.rstrip("/")
        if self._path_style:
            return f"{scheme}://{host}{base}/{_uri_encode(bucket)}/{path}"
        return f"{scheme}://{bucket}.{host}{base}/{path}"

    def sign(
        self, method: str, url: str, headers: Mapping[str, str] | None = None, now: datetime | None = None
    ) -> dict[str, str]:
        """The headers of a SigV4-signed request with an unsigned payload: ``headers`` plus the signature's."""
        at = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%SZ")
        parts = urlsplit(url)
        signed: dict[str, str] = {k.lower(): v.strip() for k, v in (headers or {}).items()}
        signed.update({"host": parts.netloc, "x-amz-content-sha256": UNSIGNED_PAYLOAD, "x-amz-date": at})
        if self._session_token:
            signed["x-amz-security-token"] = self._session_token
        if parts.query:
            raise ValueError("only object GETs are signed here: a URL without a query")
        names = sorted(signed)
        canonical = "\n".join(
            [
                method,
                parts.path or "/",
                "",
                "".join(f"{n}:{signed[n]}\n" for n in names),
                ";".join(names),
                UNSIGNED_PAYLOAD,
            ]
        )
        scope = f"{at[:8]}/{self._region}/s3/aws4_request"
        to_sign = "\n".join(["AWS4-HMAC-SHA256", at, scope, hashlib.sha256(canonical.encode()).hexdigest()])
        key = _hmac(("AWS4" + self._secret_access_key).encode(), at[:8])
        for part in (self._region, "s3", "aws4_request"):
            key = _hmac(key, part)
        signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
        signed["authorization"] = (
            f"AWS4-HMAC-SHA256 Credential={self._access_key_id}/{scope}, "
            f"SignedHeaders={';'.join(names)}, Signature={signature}"
        )
        return signed

    def get_object(self, bucket: str, key: str) -> HTTPResponse:
        """GETs one object; the answer streams (read it in chunks, close it, or use it in ``with``)."""
        url = self.object_url(bucket, key)
        request = urllib.request.Request(url, headers=self.sign("GET", url), method="GET")
        try:
            response: HTTPResponse = urllib.request.urlopen(request, timeout=self._timeout)
        except urllib.error.HTTPError as err:
            raise S3Error(err.code, bucket, key, err.read().decode("utf-8", "replace")) from err
        return response


def fetch_output(s3: S3Client, output: OutputObject) -> HTTPResponse:
    """GETs one output object, streaming."""
    return s3.get_object(output.bucket, output.key)


def download_outputs(s3: S3Client, outputs: Iterable[OutputObject], directory: str | Path) -> list[Path]:
    """Saves each object under ``directory`` by its file name, one at a time (clips are large), streamed to disk."""
    target = Path(directory)
    target.mkdir(parents=True, exist_ok=True)
    saved: list[Path] = []
    for output in outputs:
        path = target / output.file_name
        with fetch_output(s3, output) as response, path.open("wb") as file:
            shutil.copyfileobj(response, file, 1024 * 1024)
        saved.append(path)
    return saved
