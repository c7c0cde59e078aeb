from __future__ import annotations

import tempfile
import unittest
import zipfile

import build_backend


class WheelTest(unittest.TestCase):
    def test_the_wheel_holds_the_package_its_type_marker_and_a_record_of_every_file(self) -> None:
        with tempfile.TemporaryDirectory() as out:
            name = build_backend.build_wheel(out)
            self.assertEqual(name, "media_jobs-0.1.0-py3-none-any.whl")
            with zipfile.ZipFile(f"{out}/{name}") as wheel:
                names = wheel.namelist()
                record = wheel.read("media_jobs-0.1.0.dist-info/RECORD").decode()
                metadata = wheel.read("media_jobs-0.1.0.dist-info/METADATA").decode()
        self.assertIn("media_jobs/py.typed", names)
        self.assertIn("media_jobs/transport.py", names)
        self.assertFalse([n for n in names if "__pycache__" in n or n.startswith("tests/")])
        recorded = {line.split(",")[0] for line in record.splitlines()}
        self.assertEqual(recorded, set(names))
        self.assertIn("Requires-Python: >=3.11", metadata)


if __name__ == "__main__":
    unittest.main()
