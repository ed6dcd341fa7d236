"""The wheel beside the full mlflow, resolved by pip from the registry (needs it; not a test).

Builds the wheel, makes a fresh virtual environment and asks pip, without installing, what
``pip install <wheel> mlflow`` would install (``--dry-run --report``). Passes when that is an
mlflow of 3.0 or later and metrics-lens itself: pip used to backtrack to mlflow 1.27 (2022)
while metrics-lens required pyarrow>=26 and mlflow pinned pyarrow<26. Run by .ci/run after the
suite and by ``make beside-mlflow``; prints the versions pip chose.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHOWN = ("metrics-lens", "mlflow", "mlflow-skinny", "pyarrow", "numpy", "pandas", "duckdb")


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="beside-mlflow-") as tmp:
        tmp = Path(tmp)
        subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                        "--no-build-isolation", "-w", tmp, ROOT], check=True, cwd=tmp)  # fmt: skip
        shutil.rmtree(ROOT / "build", ignore_errors=True)
        (wheel,) = tmp.glob("metrics_lens-*.whl")
        subprocess.run([sys.executable, "-m", "venv", tmp / "venv"], check=True)
        report = tmp / "report.json"
        subprocess.run([tmp / "venv" / "bin" / "python", "-m", "pip", "install", "--quiet",
                        "--dry-run", "--ignore-installed", "--report", report, wheel, "mlflow"],
                       check=True)  # fmt: skip
        chosen = {
            item["metadata"]["name"].lower(): item["metadata"]["version"]
            for item in json.loads(report.read_text())["install"]
        }
    print("pip install <wheel> mlflow resolves to:",
          ", ".join(f"{n} {chosen[n]}" for n in SHOWN if n in chosen))  # fmt: skip
    major = int(chosen.get("mlflow", "0").split(".")[0])
    if "metrics-lens" not in chosen or major < 3:
        print(f"FAIL: mlflow {chosen.get('mlflow')} beside metrics-lens (want 3 or later)")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
