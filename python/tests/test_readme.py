"""The README's Python quick start runs as written."""

import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def test_quick_start_runs():
    text = README.read_text()
    section = text[text.index("## Python"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    scope = {}
    exec(compile(code, "README.md", "exec"), scope)
    assert len(scope["noisy"]) == 10_000
    assert list(scope["visits"].columns) == ["venue", "lat", "lon", "at"]
    assert scope["visits"]["at"].str.match(r"2024-05-01T\d\d:\d\d:\d\dZ").all()
    assert scope["res"].mean.shape == (2, 2)
    assert type(scope["mean_pose"]).__name__ == "Rotation"
