#!/usr/bin/env python3
"""render.py renders a marked block from its records, with the date and commit, keeps a block
whose records the run lacks, and refuses a block it does not know (ctest: accuracy_render)."""

import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import render  # noqa: E402

ORACLE = {
    "kind": "oracle",
    "oracle": "vllm",
    "part": "vllm",
    "release": "0.34.0",
    "agree": 99,
    "total": 100,
    "gaps": 1,
    "figures": [{"figure": "vllm.kv.block_size", "agree": 99, "total": 100, "gaps": 1}],
    "not_compared": [],
}
PAGE = (
    "intro\n<!-- accuracy:BEGIN oracles -->\nold table\n<!-- accuracy:END oracles -->\n"
    "<!-- accuracy:BEGIN real-logs -->\nold real-log figures\n<!-- accuracy:END real-logs -->\n"
)


class Render(unittest.TestCase):
    def test_a_block_with_records_is_rendered_and_stamped(self):
        report = []
        out = render.render(PAGE, {"vllm-0.34.0": ORACLE}, "STAMP", report)
        self.assertIn("| vLLM (`create_engine_config`, KV planning) | 0.34.0 | 99 / 100 (99.00%) | 1 |", out)
        self.assertIn("STAMP\n<!-- accuracy:END oracles -->", out)
        self.assertNotIn("old table", out)
        self.assertIn("rendered oracles", report)

    def test_a_block_without_records_is_kept_and_said(self):
        report = []
        out = render.render(PAGE, {"vllm-0.34.0": ORACLE}, "STAMP", report)
        self.assertIn("old real-log figures", out)
        self.assertIn("kept real-logs: no records of it in this run", report)

    def test_an_unknown_block_is_refused(self):
        with self.assertRaises(SystemExit):
            render.render("<!-- accuracy:BEGIN nonsense -->\n<!-- accuracy:END nonsense -->", {}, "S", [])

    def test_no_records_is_bad_input(self):
        with tempfile.TemporaryDirectory() as empty:
            page = Path(empty) / "page.md"
            page.write_text(PAGE)
            self.assertEqual(render.main(["render.py", empty, "abc", "2026-12-07", str(page)]), 2)
            self.assertEqual(page.read_text(), PAGE)


if __name__ == "__main__":
    unittest.main()
