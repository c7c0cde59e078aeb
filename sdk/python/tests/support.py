"""What the unit tests share: a client on a fresh fake API whose sleeps are recorded, not slept."""

from __future__ import annotations

import unittest

from media_jobs import MediaJobs

from .fake_api import FakeApi


class ClientTestCase(unittest.TestCase):
    api: FakeApi
    mj: MediaJobs
    slept: list[float]

    def setUp(self) -> None:
        self.api = FakeApi()
        self.addCleanup(self.api.close)
        self.slept = []
        self.mj = self.client()

    def client(self, **options: object) -> MediaJobs:
        return MediaJobs(self.api.url, "sk_prj_test", sleep=self.slept.append, **options)  # type: ignore[arg-type]
